/* The host's clocks and sleeps (host_clocks.c): libc's own functions,
 * whoever calls.  libvaced exports clock_gettime, nanosleep and the rest
 * for the program (clock/program_clocks.c); VACED's own reads and sleeps
 * come here so that they never depend on that interposition. */
#ifndef VACED_HOST_CLOCKS_H
#define VACED_HOST_CLOCKS_H

#include <sys/time.h>
#include <time.h>

int vaced_host_clock_gettime(clockid_t id, struct timespec *ts);
int vaced_host_gettimeofday(struct timeval *tv, void *tz);
int vaced_host_nanosleep(const struct timespec *req, struct timespec *rem);
int vaced_host_clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
                               struct timespec *rem);

#endif
