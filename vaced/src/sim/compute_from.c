/* A live run whose clock takes its compute segments from a record
 * ($VACED_COMPUTE_FROM=DIR) instead of the host: the same program on
 * another target then differs from the recorded run by the model alone,
 * not by the host's noise, which is how a replay is checked against a
 * live run (docs/replay.md).  The program must make the same MPI calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "env/env.h"
#include "clock/clock.h"
#include "sim/compute_from.h"
#include "record/log_reader.h"

static struct {
    struct vaced_log log;
    size_t pos;
} from;

/* The next measurement of kind `op`, skipping the rest of the record.
 * When there is none (the run made more calls than the recorded one: a
 * polling loop ran longer), the clock measures the host from here on. */
static int next(int op, struct vaced_log_event *e)
{
    char err[1024];
    int got;
    while ((got = vaced_log_next(&from.log, &from.pos, e, err, sizeof err)) == 1)
        if (e->op == op)
            return 1;
    fprintf(stderr, "vaced: VACED_COMPUTE_FROM: rank %u: %s; the host's times from here on\n",
            from.log.rank, got < 0 ? err : "the record has no more segments (this run made "
            "more MPI calls than the recorded one)");
    vaced_log_close(&from.log);
    vaced_clock_measure_from_now();
    return 0;
}

static void segment(vaced_time_t *seg, double *coldness)
{
    struct vaced_log_event e;
    vaced_log_segment(next(VACED_OP_SEGMENT, &e) ? &e : NULL, seg, coldness);
}

static void close_(vaced_time_t *charge, int *cold)
{
    struct vaced_log_event e;
    vaced_log_close_values(next(VACED_OP_CLOSE, &e) ? &e : NULL, charge, cold);
}

static const struct vaced_clock_input recorded = { segment, close_ };

int vaced_compute_from_open(int rank, int size)
{
    const char *dir = vaced_env(VACED_ENV_COMPUTE_FROM);
    char path[VACED_LOG_PATH_MAX + 32], err[VACED_LOG_PATH_MAX + 512];
    if (!dir || !*dir)
        return 0;
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, rank);
    if (vaced_log_open(&from.log, path, err, sizeof err)) {
        fprintf(stderr, "vaced: VACED_COMPUTE_FROM: %s\n", err);
        return -1;
    }
    if ((int)from.log.ranks != size) {
        fprintf(stderr, "vaced: VACED_COMPUTE_FROM: %s records %u ranks, the job has %d\n", path,
                from.log.ranks, size);
        vaced_log_close(&from.log);
        return -1;
    }
    from.pos = from.log.body;
    vaced_clock_input = &recorded;
    return 0;
}
