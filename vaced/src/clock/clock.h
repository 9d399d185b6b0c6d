/* The virtual clock (clock.c): tV, and the compute segments between
 * communication activities, measured in host CPU time (paper 3.2).
 * clock/ alone writes its state; other modules read it through the inline
 * readers below (the send stamp and the waits read tV on every event, so
 * a call per read would cost them) and change it through the functions. */
#ifndef VACED_CLOCK_H
#define VACED_CLOCK_H

#include <stdint.h>
#include "vaced.h"
#include "clock/vtime.h"
#include "cputime/canary.h"

/* The most CPU time one failed test counts (clock.c).  Its own CPU time on
 * the host is below a microsecond or a few; more comes from the host,
 * not the call: the thread clock, under preemption or steal, sometimes
 * stands still and then catches up by up to milliseconds within one call
 * (seen with 4 ranks on 2 cores), which a polling loop would turn into
 * target time. */
#define VACED_TEST_CHARGE_MAX_NS 50000

/* An MPI call in which the rank was off its core this long (wall time
 * beyond CPU time) slept: other ranks sharing the core ran meanwhile, and
 * the compute segment after it starts with caches they used.  A context
 * switch and a short poll stay below it. */
#define VACED_SLEPT_NS 20000

struct vaced_clock {
    vaced_time_t tv;            /* virtual target time of the last event */
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
    int oversubscribed;         /* more ranks than cores on this host: note cold starts */
    int64_t call_wall_ns;       /* wall and CPU time when the running activity began */
    int64_t call_cpu_ns;
    int segment_cold;           /* the running compute segment began after the rank slept */
    vaced_time_t compute_cold;  /* sum of the compute segments that began so */
};

/* clock/'s own: outside clock/, only through the functions of this header.
 * The rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_clock *vaced_clock_st;

/* tV as of the last event (vaced_now, without the call). */
static inline vaced_time_t vaced_clock_tv(void)
{
    return vaced_clock_st->tv;
}

/* tV = t: an event the network or progress model timed (a send, a wait's
 * end, a receive's copy) moves the clock to its end. */
static inline void vaced_clock_set(vaced_time_t t)
{
    vaced_clock_st->tv = t;
}

/* The compute segment before the running MPI call, and the canary's
 * reading after it (0: none): how cold the call finds the caches. */
static inline vaced_time_t vaced_clock_last_compute(void)
{
    return vaced_clock_st->last_compute;
}

static inline double vaced_clock_last_coldness(void)
{
    return vaced_clock_st->last_coldness;
}

/* The sum of the compute segments so far (the report's split). */
static inline vaced_time_t vaced_clock_compute(void)
{
    return vaced_clock_st->compute;
}

/* Of which, the segments that began after the rank slept on the host while
 * other ranks could run on its core: their caches may have been emptied, as
 * on the target, a rank per core, they would not (VACED_TIME_UNSET: not
 * noted, the host is not oversubscribed). */
static inline vaced_time_t vaced_clock_compute_cold(void)
{
    return vaced_clock_st->oversubscribed ? vaced_clock_st->compute_cold : VACED_TIME_UNSET;
}

/* What a record's header says of the clock's measurements (record.h). */
static inline int vaced_clock_canary_open(void)
{
    return vaced_clock_st->canary.head != NULL;
}

static inline int vaced_clock_oversubscribed(void)
{
    return vaced_clock_st->oversubscribed;
}

/* A rank shares its host core (simulation start): cold starts are noted. */
static inline void vaced_clock_set_oversubscribed(int on)
{
    vaced_clock_st->oversubscribed = on;
}

/* Where a replay's clock takes the host's measurements (replay.c): the
 * compute segment at an activity's start and the canary's reading after
 * it; at its end, a failed test's charge and whether the next segment
 * starts cold.  NULL in the live library, which measures them. */
struct vaced_clock_input {
    void (*segment)(vaced_time_t *seg, double *coldness);
    void (*close)(vaced_time_t *charge, int *cold);
};
extern const struct vaced_clock_input *vaced_clock_input;
/* From now on the clock measures the host again (a record that ran out). */
void vaced_clock_measure_from_now(void);

/* Zeroes the clock's state (simulation start, before anything else). */
void vaced_clock_reset(void);
/* E_start: calibrates a clock read's cost, then tV = 0 and t1 = cpu(). */
void vaced_clock_start(void);
/* Opens the cache canary (the target lists overhead_coldness); the clock
 * goes on by the computation's length alone where it cannot. */
void vaced_clock_open_canary(void);
void vaced_clock_close_canary(void);
/* tV plus the running compute segment: the rank's target time now. */
vaced_time_t vaced_clock_now_ps(void);
/* The program slept `slept` of target time between two compute segments
 * (program_clocks.c): its time, counted as computation. */
void vaced_clock_sleep(vaced_time_t slept);
/* The running activity, if there is one, is a poll (vaced_poll):
 * vaced_test_restart applies to it. */
void vaced_clock_poll(void);

#endif
