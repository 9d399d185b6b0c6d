/* libc's clock and sleep functions, found past libvaced's own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include "cputime/host_clocks.h"

static int (*host_clock_gettime)(clockid_t, struct timespec *);
static int (*host_gettimeofday)(struct timeval *, void *);
static int (*host_nanosleep)(const struct timespec *, struct timespec *);
static int (*host_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);

/* libc's `name`, wherever libmpi.so stands in the lookup order (a
 * Fortran program linked with --as-needed loads it after libc). */
static void *next_symbol(const char *name)
{
    void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD), *f = NULL;
    if (libc) {
        f = dlsym(libc, name);
        dlclose(libc);
    }
    return f ? f : dlsym(RTLD_NEXT, name);
}

/* clock_gettime last: it is the one every other function checks. */
static void resolve(void)
{
    if (host_clock_gettime)
        return;
    host_gettimeofday = next_symbol("gettimeofday");
    host_nanosleep = next_symbol("nanosleep");
    host_clock_nanosleep = next_symbol("clock_nanosleep");
    host_clock_gettime = next_symbol("clock_gettime");
}

int vaced_host_clock_gettime(clockid_t id, struct timespec *ts)
{
    resolve();
    return host_clock_gettime(id, ts);
}

int vaced_host_gettimeofday(struct timeval *tv, void *tz)
{
    resolve();
    return host_gettimeofday(tv, tz);
}

int vaced_host_nanosleep(const struct timespec *req, struct timespec *rem)
{
    resolve();
    return host_nanosleep(req, rem);
}

int vaced_host_clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
                               struct timespec *rem)
{
    resolve();
    return host_clock_nanosleep(id, flags, req, rem);
}
