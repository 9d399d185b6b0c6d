/* vaced-combine: several recorded executions of one program as one
 * record whose compute segments are their medians (estimate/combine.h,
 * docs/replay.md#repeated-executions). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "estimate/combine.h"

static const char usage[] =
    "usage: vaced-combine OUT_DIR RECORD_DIR RECORD_DIR...\n"
    "Writes into OUT_DIR the first record with each rank's k-th compute segment\n"
    "re-timed as the median of its k-th segments over the records in which the\n"
    "rank made the same calls (executions of the same program, same ranks and\n"
    "target). Replay OUT_DIR as any record.\n";

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 3) {
        fputs(usage, stderr);
        return 2;
    }
    if (mkdir(argv[1], 0777) && errno != EEXIST) {
        fprintf(stderr, "vaced-combine: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct vaced_combined res;
    char err[8192];
    if (vaced_combine_records(argv[1], (const char *const *)argv + 2, argc - 2, &res, err, sizeof err)) {
        fprintf(stderr, "vaced-combine: %s\n", err);
        return 1;
    }
    printf("vaced-combine: %d of %d ranks re-timed as medians of %d to %d executions (%llu segments)\n",
           res.combined, res.ranks, res.executions_min, argc - 2, (unsigned long long)res.segments);
    return 0;
}
