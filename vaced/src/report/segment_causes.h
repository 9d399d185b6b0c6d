/* What each compute segment went through on the host (VACED_SEGMENT_CAUSES).
 *
 * With many ranks a host core, a segment's measured CPU time is not a
 * target core's: it pays for page faults, for being preempted (another
 * rank evicts its caches midway) and for starting after the rank slept in
 * the MPI call before.  This observer reads getrusage around every segment
 * of a live run and sums, per rank, the computation of the segments that
 * faulted, were preempted or started cold, by segment length; each rank
 * writes DIR/segment-causes.RANK.json at its end.  A measurement aid: two
 * system calls a segment, off unless asked for. */
#ifndef VACED_SEGMENT_CAUSES_H
#define VACED_SEGMENT_CAUSES_H

#include <stdint.h>
#include <stdio.h>

/* The lengths that split the per-length sums, in seconds of CPU time. */
#define VACED_CAUSES_LENGTHS 4
extern const double vaced_causes_length_below[VACED_CAUSES_LENGTHS - 1];

/* What one segment went through. */
struct vaced_segment_sample {
    double cpu_s;               /* the segment's CPU time, as the clock measured it */
    double wall_s;              /* its wall time */
    int64_t faults;             /* minor and major page faults */
    int64_t preemptions;        /* involuntary context switches */
    int cold;                   /* the rank slept in the MPI call before */
};

struct vaced_causes_sum {
    int64_t segments;
    double cpu_s;
};

/* A rank's sums. */
struct vaced_segment_causes {
    struct vaced_causes_sum all, faulted, preempted, cold, clean;
    struct vaced_causes_sum length[VACED_CAUSES_LENGTHS], cold_length[VACED_CAUSES_LENGTHS];
    double wall_s;
    int64_t faults, preemptions;
};

/* Adds one segment to the sums. */
void vaced_causes_add(struct vaced_segment_causes *c, const struct vaced_segment_sample *s);

/* Writes the sums as one JSON object. */
void vaced_causes_write(FILE *f, int rank, const struct vaced_segment_causes *c);

/* The live observer: opens when VACED_SEGMENT_CAUSES names a directory
 * (0, or -1 with a message when it cannot be written), then hears where
 * segments start and end; close writes the rank's file.  Off, a segment
 * costs the observer one test of vaced_causes_on, inline. */
extern int vaced_causes_on;
int vaced_causes_open(int rank);
void vaced_causes_mark_start(int cold);
void vaced_causes_mark_end(double cpu_s);
void vaced_causes_close(int rank);

static inline void vaced_causes_segment_start(int cold)
{
    if (__builtin_expect(vaced_causes_on, 0))
        vaced_causes_mark_start(cold);
}

static inline void vaced_causes_segment_end(double cpu_s)
{
    if (__builtin_expect(vaced_causes_on, 0))
        vaced_causes_mark_end(cpu_s);
}

#endif
