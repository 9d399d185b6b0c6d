/* One host's choice of CPU-time source, remembered for the ranks after the
 * first.  vaced_cputime_init's "auto" choice costs each rank milliseconds
 * of CPU (a busy loop, a sleep, perf_event_open, pfm_initialize, timing the
 * reads), which many ranks on few cores turn into start-up time of every
 * job (results/history.md).  The choice depends only on the host (kernel,
 * PMU, hypervisor), so the first rank of a boot makes it and the others
 * reuse it.
 *
 * The record is a one-line file, by default /dev/shm/vaced-cputime.UID
 * (VACED_CPUTIME_CACHE=PATH for another file, =off to probe every time).
 * It holds the kernel's boot id and perf_event_paranoid, and is ignored
 * when either differs.  Ranks starting together take turns on an flock, so
 * one probes while the others wait for its answer.  Only a source cheaper
 * than the thread clock is remembered: the thread clock is also what a
 * check that failed once falls back to. */
#ifndef VACED_CPUTIME_CACHE_H
#define VACED_CPUTIME_CACHE_H

#include <stddef.h>
#include "cputime/cputime.h"

/* As vaced_cputime_init(request, ...); for the auto request (NULL or empty
 * request and $VACED_CPUTIME unset, empty or "auto") through the record.
 * *cached (if non-NULL) is set to 1 when a remembered choice was used. */
enum vaced_cpu_source vaced_cputime_init_cached(const char *request, char *why, size_t whylen,
                                                int *cached);

#endif
