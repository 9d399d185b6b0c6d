/* Where a rank's predicted time goes: its tV split into terms that add up
 * to it exactly (docs/breakdown.md).  Every place the model advances tV
 * adds the advance to a term here; a wait's jump is split along the chain
 * of the completion that ended it (struct vaced_chain).  The sums are a
 * few adds per event and read no clock. */
#ifndef VACED_BREAKDOWN_H
#define VACED_BREAKDOWN_H

#include "clock/vtime.h"

/* The terms, in the order of the JSON's keys and of the summary's values
 * (vaced.h, VACED_SUMMARY_BREAKDOWN). */
enum vaced_term {
    VACED_TERM_COMPUTE,         /* compute segments (and sleeps the program's clocks count) */
    VACED_TERM_POLL,            /* the CPU time of tests and probes that found nothing */
    VACED_TERM_SEND_OVERHEAD,   /* o_s of the rank's and its awaited messages */
    VACED_TERM_RECV_OVERHEAD,   /* o_r, the receiver's wake-up */
    VACED_TERM_COPY,            /* copies s/Bmem, the CPU share of same-node transfers (bcpu) */
    VACED_TERM_NETWORK,         /* L(s, h): latency, bandwidth, warm-up */
    VACED_TERM_LATE_SENDER,     /* waiting before the awaited message's sender began sending it */
    VACED_TERM_LATE_RECEIVER,   /* a rendezvous or synchronous send waiting before its answer began */
    VACED_TERM_COLLECTIVE_WAIT, /* late_sender inside a blocking collective call */
    VACED_TERMS
};

/* The JSON's key of each term. */
extern const char *const vaced_term_names[VACED_TERMS];

struct vaced_breakdown {
    vaced_time_t term[VACED_TERMS];
    vaced_time_t late_at_collective;    /* late_sender as the open collective began */
};

/* How a completion time was composed: from `begin` (when the awaited
 * message's sender began sending it), contiguous spans in time order up to
 * `end`; the time before `begin` is the `lead` term. */
#define VACED_CHAIN_MAX 16
struct vaced_chain {
    vaced_time_t begin, end;
    int lead, n;
    unsigned char term[VACED_CHAIN_MAX];
    vaced_time_t until[VACED_CHAIN_MAX];        /* span i ends here, begins where i-1 ended */
};

/* A chain that begins at `begin`, nothing in it yet. */
void vaced_chain_start(struct vaced_chain *c, vaced_time_t begin, int lead);
/* Extends c to `until` with a span of `term`; nothing when until <= c->end
 * (an estimate that does not move forward), and the last span grows when
 * the chain is full. */
void vaced_chain_to(struct vaced_chain *c, int term, vaced_time_t until);
/* Adds the advance of tV from `from` to `to` to b along c: the spans' parts
 * within [from, to]; what lies before c's begin goes to its lead, what lies
 * after its end to its last span.  The parts add up to to - from exactly
 * (to < from: the difference, negative, to the lead). */
void vaced_breakdown_split(struct vaced_breakdown *b, const struct vaced_chain *c,
                           vaced_time_t from, vaced_time_t to);
/* The sum of b's terms. */
vaced_time_t vaced_breakdown_total(const struct vaced_breakdown *b);

/* This rank's sums (breakdown.c's own; a replay rebinds it: sim/rank_state.h). */
extern struct vaced_breakdown *vaced_breakdown_st;

static inline void vaced_breakdown_add(enum vaced_term t, vaced_time_t dt)
{
    vaced_breakdown_st->term[t] += dt;
}

/* A blocking collective call begins / ends: the late_sender it accrued
 * becomes collective_wait (a peer late into the collective).  Recorded,
 * so that a replay splits alike. */
void vaced_breakdown_collective_begin(void);
void vaced_breakdown_collective_end(void);

/* Zeroes this rank's sums (simulation start). */
void vaced_breakdown_reset(void);

#endif
