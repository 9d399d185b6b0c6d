/* The per-rank timeline file (trace.h). */
#include "env/env.h"
#include "report/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job/job.h"
#include "report/trace_msgs.h"

int vaced_trace_open(int rank)
{
    struct vaced_trace *tr = vaced_trace_st;
    const char *dir = vaced_env(VACED_ENV_TRACE);

    if (!dir || !*dir)
        return 0;
    if (snprintf(tr->path, sizeof tr->path, "%s/vaced-trace.%d.csv", dir, rank) >=
        (int)sizeof tr->path) {
        fprintf(stderr, "vaced: rank %d: VACED_TRACE directory name too long; no trace\n", rank);
        return -1;
    }
    tr->file = fopen(tr->path, "w");
    if (!tr->file) {
        fprintf(stderr, "vaced: rank %d: cannot write trace '%s': %s; no trace\n", rank, tr->path,
                strerror(errno));
        return -1;
    }
    /* A large buffer: a line per MPI call must not cost a write(2) each. */
    setvbuf(tr->file, NULL, _IOFBF, 1 << 20);
    fputs("kind,start_s,end_s\n", tr->file);
    vaced_trace_msgs_start(vaced_sim_size());
    return 0;
}

void vaced_trace_close(int rank)
{
    struct vaced_trace *tr = vaced_trace_st;

    if (!tr->file)
        return;
    vaced_trace_msgs_end();
    int bad = ferror(tr->file);
    if (fclose(tr->file) != 0 || bad)
        fprintf(stderr, "vaced: rank %d: writing trace '%s' failed; it is incomplete\n", rank,
                tr->path);
    tr->file = NULL;
}
