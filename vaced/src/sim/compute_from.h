/* $VACED_COMPUTE_FROM=DIR: a live run's compute segments read from a
 * record instead of measured (compute_from.c). */
#ifndef VACED_COMPUTE_FROM_H
#define VACED_COMPUTE_FROM_H

/* Opens DIR/rank-NNNNNN.vlog for rank `rank` of `size` and makes the
 * clock read its segments (no-op when unset).  0, or -1 after printing
 * the reason (the caller refuses to start). */
int vaced_compute_from_open(int rank, int size);

#endif
