/* The per-rank timeline file (trace.h). */
#include "report/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

FILE *vaced_trace_file;
static char trace_path[4096];

int vaced_trace_open(int rank)
{
    const char *dir = getenv("VACED_TRACE");

    if (!dir || !*dir)
        return 0;
    if (snprintf(trace_path, sizeof trace_path, "%s/vaced-trace.%d.csv", dir, rank) >=
        (int)sizeof trace_path) {
        fprintf(stderr, "vaced: rank %d: VACED_TRACE directory name too long; no trace\n", rank);
        return -1;
    }
    vaced_trace_file = fopen(trace_path, "w");
    if (!vaced_trace_file) {
        fprintf(stderr, "vaced: rank %d: cannot write trace '%s': %s; no trace\n", rank, trace_path,
                strerror(errno));
        return -1;
    }
    /* A large buffer: a line per MPI call must not cost a write(2) each. */
    setvbuf(vaced_trace_file, NULL, _IOFBF, 1 << 20);
    fputs("kind,start_s,end_s\n", vaced_trace_file);
    return 0;
}

void vaced_trace_close(int rank)
{
    if (!vaced_trace_file)
        return;
    int bad = ferror(vaced_trace_file);
    if (fclose(vaced_trace_file) != 0 || bad)
        fprintf(stderr, "vaced: rank %d: writing trace '%s' failed; it is incomplete\n", rank,
                trace_path);
    vaced_trace_file = NULL;
}
