/* Target (virtual) time: signed 64-bit integer picoseconds.
 * 2^63 ps is about 106 days of target time; integers keep full precision
 * however long a run is, and sub-nanosecond copy costs (1 byte at 6.38 GB/s
 * is 0.16 ns) still accumulate exactly enough. */
#ifndef VACED_VTIME_H
#define VACED_VTIME_H

#include <stdint.h>

typedef int64_t vaced_time_t;

#define VACED_PS_PER_NS 1000LL
#define VACED_PS_PER_S  1000000000000LL

static inline double vaced_time_to_s(vaced_time_t t) { return (double)t / (double)VACED_PS_PER_S; }
static inline vaced_time_t vaced_time_from_ns(int64_t ns) { return ns * VACED_PS_PER_NS; }
static inline vaced_time_t vaced_time_max(vaced_time_t a, vaced_time_t b) { return a > b ? a : b; }

#endif
