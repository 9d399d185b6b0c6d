/* An optional per-rank timeline of the prediction: with VACED_TRACE=DIR,
 * rank R writes DIR/vaced-trace.R.csv, one line per span of its virtual
 * clock, in target seconds:
 *   kind,start_s,end_s
 * kind: compute (a segment between two MPI calls, host CPU time), mpi (an
 * outermost MPI call, modelled time), poll (the CPU time a failed test or
 * probe counts as the program's polling, right after its mpi span).
 * The spans tile [0, the rank's prediction]: their ends meet, and the
 * compute and poll spans add up to the rank's compute time. */
#ifndef VACED_TRACE_H
#define VACED_TRACE_H

#include <stdio.h>
#include "clock/vtime.h"

struct vaced_trace {
    FILE *file;                 /* NULL: not tracing */
    char path[4096];
};

/* trace.c's own; the rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_trace *vaced_trace_st;

/* Opens the file if VACED_TRACE is set and non-empty.  On failure prints
 * one line to stderr (the rank goes on, untraced) and returns -1. */
int vaced_trace_open(int rank);

/* Writes a span if tracing and it is not empty. */
static inline void vaced_trace_span(const char *kind, vaced_time_t start, vaced_time_t end)
{
    FILE *f = vaced_trace_st->file;
    if (f && end > start)
        fprintf(f, "%s,%.12f,%.12f\n", kind, vaced_time_to_s(start),
                vaced_time_to_s(end));
}

/* Flushes and closes; reports a write error (a full disk) on stderr. */
void vaced_trace_close(int rank);

#endif
