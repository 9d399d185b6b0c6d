/* The per-rank simulator state shared by the core's source files.
 * One instance per MPI process: MPICH's global lock serialises the hooks. */
#ifndef VACED_STATE_H
#define VACED_STATE_H

#include "vaced.h"
#include "clock/vtime.h"
#include "target/target.h"
#include "cputime/cputime.h"
#include "progress/history.h"
#include "progress/early_queue.h"
#include "progress/turns.h"
#include "cputime/canary.h"

struct vaced_state {
    int rank, size;
    vaced_time_t tv;            /* virtual target time of the last event */
    vaced_time_t cpu_free;      /* when this CPU is done moving same-node data (bcpu) */
    vaced_time_t link_free;     /* when this rank's link is done sending (injection_queue) */
    uint64_t *sent_to;          /* messages sent to each rank so far that count in its connection's warm-up */
    int64_t t1_ns;              /* CPU time when the running compute segment began */
    int64_t read_cost_ns;       /* CPU time one clock read adds to a segment */
    int64_t t2_ns;              /* CPU time when the running activity began */
    int test_failed;            /* the running activity counts as computation */
    int polling;                /* the running activity is a poll (vaced_poll) */
    int depth;                  /* nesting of communication activities */
    vaced_time_t compute;       /* sum of compute segments, for the split */
    vaced_time_t last_compute;  /* the compute segment before the running MPI call */
    double last_coldness;       /* the canary's reading after it; 0: none (canary.h) */
    int64_t wall_t1_ns;         /* wall time when the running compute segment began */
    struct vaced_canary canary; /* opened when the target lists overhead_coldness */
    vaced_time_t call_start;    /* tv when the running outermost activity began (trace) */
    int ended;                  /* E_end happened: tv is the prediction */
    unsigned unmodelled;        /* enum vaced_unmodelled bits used so far */
    struct vaced_target *target;
    enum vaced_cpu_source cpu_source;
    char target_path[512];
    struct vaced_waits waits;
    struct vaced_early_queue early;
    struct vaced_turns recv_turns; /* the running wait's received messages (progress/receive.c) */
};

/* The most CPU time one failed test counts (clock.c).  Its own CPU time on
 * the host is below a microsecond or a few; more comes from the host,
 * not the call: the thread clock, under preemption or steal, sometimes
 * stands still and then catches up by up to milliseconds within one call
 * (seen with 4 ranks on 2 cores), which a polling loop would turn into
 * target time. */
#define VACED_TEST_CHARGE_MAX_NS 50000

extern struct vaced_state vaced_st;

/* Answers the bound requests this rank's clock now satisfies (progress/wildcard_bounds.c). */
void vaced_bounds_activity_point(void);
void vaced_bounds_free(void);

/* Minimum CPU time between two consecutive clock reads. */
int64_t vaced_calibrate_read_cost(void);

#endif
