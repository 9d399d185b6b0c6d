/* The program's own clocks tell target time.
 *
 * Between the simulation's start and end, a wall-clock read by the program
 * (clock_gettime on a monotonic, boot-time or realtime clock,
 * gettimeofday, time, and what is built on them: omp_get_wtime,
 * std::chrono's clocks, Fortran's system_clock and date_and_time) returns
 * the host's reading of that clock at the start plus the rank's target
 * time since, as MPI_Wtime does.  libmpi.so, which holds this file,
 * exports these symbols, so the program and the libraries it loads after
 * libmpi find them before libc's.  Calls from inside libmpi.so (MPICH's
 * timeouts and progress, VACED's own reads) get the host's clocks:
 * nothing in MPICH's behaviour changes.
 *
 * A sleep (nanosleep, clock_nanosleep, usleep, sleep) still sleeps on the
 * host and advances the rank's target clock by its length: the target
 * sleeps as long, and a program that sleeps until a deadline on its own
 * clock gets there.  CPU-time clocks are the host's (docs/usage.md).
 *
 * Computation is timed on the thread that initialised MPI, by its CPU
 * time: its reads see the running compute segment.  Another thread's
 * reads (an OpenMP worker's omp_get_wtime) see the rank's target time as
 * of its last MPI call, and its sleeps are the host's alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "env/env.h"
#include "clock/clock.h"
#include "clock/program_clocks.h"
#include "cputime/host_clocks.h"

#define NS_PER_S 1000000000LL

/* The executable segment of the object that holds this file. */
static uintptr_t own_start, own_end;

/* Set in the thread that started the simulation (MPI_Init's). */
static __thread int main_thread;

static struct {
    int on;                     /* the program's clocks tell target time */
    int64_t start_ns[CLOCK_BOOTTIME + 1];  /* each clock's host reading at the start */
} pc;

static int find_own_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t self = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo && self < hi) {
            own_start = lo;
            own_end = hi;
            return 1;
        }
    }
    return 0;
}

/* A call made from inside this library (MPICH, VACED): the host's clocks. */
static int from_inside(const void *caller)
{
    return (uintptr_t)caller >= own_start && (uintptr_t)caller < own_end;
}

/* Clocks the program's reads of which are target time. */
static int target_clock(clockid_t id)
{
    switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        return 1;
    default:
        return 0;
    }
}

static int64_t host_ns(clockid_t id)
{
    struct timespec ts = { 0, 0 };
    vaced_host_clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The program's reads reach this file: the clock_gettime it finds lives
 * in this object, not in libc (libmpi.so loaded after libc, as by a
 * Fortran program linked with --as-needed). */
static int reads_reach_here(void)
{
    Dl_info found, self;
    void *f = dlsym(RTLD_DEFAULT, "clock_gettime");
    return f && dladdr(f, &found) && dladdr((void *)reads_reach_here, &self) &&
        found.dli_fbase == self.dli_fbase;
}

void vaced_program_clocks_start(void)
{
    const char *host = vaced_env(VACED_ENV_HOST_CLOCKS);
    if (!own_end)
        dl_iterate_phdr(find_own_segment, (void *)(uintptr_t)&find_own_segment);
    for (clockid_t id = 0; id <= CLOCK_BOOTTIME; id++)
        if (target_clock(id))
            pc.start_ns[id] = host_ns(id);
    pc.on = own_end && !(host && *host && strcmp(host, "0")) && reads_reach_here();
    main_thread = 1;
}

int vaced_program_clocks_on(void)
{
    return pc.on;
}

int64_t vaced_program_clock_ns(clockid_t id)
{
    vaced_time_t t = main_thread ? vaced_clock_now_ps() : vaced_clock_tv();
    return pc.start_ns[id] + t / VACED_PS_PER_NS;
}

/* The program reads a target clock. */
static int program_reads(clockid_t id, const void *caller)
{
    return pc.on && vaced_running && target_clock(id) && !from_inside(caller);
}

/* The program's main thread sleeps: the target's clock counts it. */
static int program_sleeps(const void *caller)
{
    return main_thread && program_reads(CLOCK_MONOTONIC, caller);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!program_reads(id, __builtin_return_address(0)))
        return vaced_host_clock_gettime(id, ts);
    int64_t ns = vaced_program_clock_ns(id);
    ts->tv_sec = ns / NS_PER_S;
    ts->tv_nsec = ns % NS_PER_S;
    return 0;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    if (!program_reads(CLOCK_REALTIME, __builtin_return_address(0))) {
            return vaced_host_gettimeofday(tv, tz);
    }
    if (tz)
        memset(tz, 0, 2 * sizeof(int));   /* struct timezone: obsolete, zeroes */
    int64_t ns = vaced_program_clock_ns(CLOCK_REALTIME);
    tv->tv_sec = ns / NS_PER_S;
    tv->tv_usec = ns % NS_PER_S / 1000;
    return 0;
}

time_t time(time_t *t)
{
    time_t s = program_reads(CLOCK_REALTIME, __builtin_return_address(0))
                   ? (time_t)(vaced_program_clock_ns(CLOCK_REALTIME) / NS_PER_S)
                   : (time_t)(host_ns(CLOCK_REALTIME) / NS_PER_S);
    if (t)
        *t = s;
    return s;
}

/* The program sleeps for `ns` of a target clock: on the host as well, and
 * its target clock moves on by the part it slept. */
static int sleep_ns(int64_t ns, struct timespec *rem)
{
    struct timespec req = { ns / NS_PER_S, ns % NS_PER_S }, left = { 0, 0 };
    vaced_activity_begin();
    int r = vaced_host_nanosleep(&req, &left);
    int64_t slept = r == 0 ? ns : ns - ((int64_t)left.tv_sec * NS_PER_S + left.tv_nsec);
    vaced_clock_sleep(vaced_time_from_ns(slept));
    vaced_activity_end();
    if (rem)
        *rem = left;
    return r;
}

static int valid(const struct timespec *ts)
{
    return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NS_PER_S;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (!program_sleeps(__builtin_return_address(0)) || !valid(req))
        return vaced_host_nanosleep(req, rem);
    return sleep_ns((int64_t)req->tv_sec * NS_PER_S + req->tv_nsec, rem);
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
    if (!program_sleeps(__builtin_return_address(0)) || !target_clock(id) || !valid(req))
        return vaced_host_clock_nanosleep(id, flags, req, rem);
    int64_t ns = (int64_t)req->tv_sec * NS_PER_S + req->tv_nsec;
    if (flags & TIMER_ABSTIME) {            /* a deadline on the target clock */
        ns -= vaced_program_clock_ns(id);
        if (ns <= 0)
            return 0;
        rem = NULL;
    }
    return sleep_ns(ns, rem) ? errno : 0;   /* clock_nanosleep returns the error */
}

int usleep(useconds_t us)
{
    if (!program_sleeps(__builtin_return_address(0))) {
        struct timespec req = { us / 1000000, (long)(us % 1000000) * 1000 };
        return vaced_host_nanosleep(&req, NULL);
    }
    return sleep_ns((int64_t)us * 1000, NULL);
}

unsigned int sleep(unsigned int s)
{
    struct timespec req = { s, 0 }, left = { 0, 0 };
    int r = program_sleeps(__builtin_return_address(0))
                ? sleep_ns((int64_t)s * NS_PER_S, &left)
                : vaced_host_nanosleep(&req, &left);
    return r == 0 ? 0 : (unsigned int)left.tv_sec + (left.tv_nsec > 0);
}
