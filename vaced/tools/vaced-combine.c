/* vaced-combine: recorded executions of one program as one record whose
 * compute segments are their least (or median) measurements, each
 * execution first corrected for the wake-up penalty if asked
 * (estimate/combine.h, docs/replay.md#repeated-executions). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "estimate/combine.h"

static const char usage[] =
    "usage: vaced-combine [--wake-up] [--median] OUT_DIR RECORD_DIR [RECORD_DIR...]\n"
    "Writes into OUT_DIR the first record with each rank's k-th compute segment\n"
    "re-timed as the least of its k-th segments over the records in which the\n"
    "rank made the same calls (executions of the same program, same ranks and\n"
    "target): the host only ever adds to a segment. Replay OUT_DIR as any record.\n"
    "  --wake-up  first take the wake-up penalty out of each execution's cold\n"
    "             segments (docs/replay.md#the-wake-up-correction)\n"
    "  --median   the median of the k-th segments instead of the least\n";

int main(int argc, char **argv)
{
    int wakeup = 0;
    enum vaced_combine_stat stat = VACED_COMBINE_MIN;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
        if (!strcmp(argv[1], "--wake-up")) {
            wakeup = 1;
        } else if (!strcmp(argv[1], "--median")) {
            stat = VACED_COMBINE_MEDIAN;
        } else {
            fprintf(stderr, "vaced-combine: unknown option %s\n%s", argv[1], usage);
            return 2;
        }
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
    if (vaced_combine_records(argv[1], (const char *const *)argv + 2, argc - 2, wakeup, stat, &res,
                              err, sizeof err)) {
        fprintf(stderr, "vaced-combine: %s\n", err);
        return 1;
    }
    printf("vaced-combine: %d of %d ranks re-timed as %s of %d or more of %d executions "
           "(%llu segments)\n", res.combined, res.ranks,
           stat == VACED_COMBINE_MIN ? "the least" : "medians",
           res.executions_min ? res.executions_min : 1, argc - 2, (unsigned long long)res.segments);
    if (wakeup) {
        double all = res.compute_ps > 0 ? res.compute_ps : 1;
        printf("vaced-combine: wake-up correction: cold segments %.1f %% of the computation, "
               "%.1f %% taken off, %.1f %% in classes it could not correct\n",
               100 * res.wakeup.cold_ps / all, 100 * res.wakeup.removed_ps / all,
               100 * res.wakeup.uncorrected_ps / all);
    }
    return 0;
}
