/* Unit tests of the CPU-time source (vaced/src/cputime/cputime.c). The reference is
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID), read here directly.
 *
 * Build and run from the repository root:
 *   cc -std=gnu11 -O2 -Wall -Wextra -Werror -Ivaced/src -Itests/unit \
 *      vaced/src/cputime/cputime.c vaced/src/cputime/cputime_perf.c vaced/src/cputime/cputime_rseq.c \
 *      tests/unit/test_cputime.c \
 *      -pthread -o /tmp/test_cputime && /tmp/test_cputime
 *
 * perf task-clock counts hypervisor steal time and the thread clock does
 * not, so on a VM a perf source may fail init's self-check: then its
 * agreement tests are skipped (and init must say why), and a perf source
 * that init accepted gets 5 tries at agreeing, since steal comes in bursts;
 * if all miss, each miss must be an excess, and /proc/stat must show steal
 * or each excess must fit in the wall time the thread spent neither on the
 * CPU nor waiting for it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cputime/cputime.h"
#include "cputime/cputime_perf.h" /* to test the mmap arithmetic on a page we fill */

#define MS 1000000LL

static int64_t ref_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t wall_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static volatile uint64_t sink; /* keeps busy loops from being optimised away */

/* Spin until the reference clock has advanced by ns. */
static void busy(int64_t ns)
{
    int64_t t0 = ref_ns();

    while (ref_ns() - t0 < ns)
        for (int i = 0; i < 20000; i++)
            sink += (uint64_t)i;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Times the calling thread gave up its CPU (slept) so far. */
static long voluntary_switches(void)
{
    struct rusage u;

    getrusage(RUSAGE_THREAD, &u);
    return u.ru_nvcsw;
}

/* Times the calling thread was preempted so far. */
static long involuntary_switches(void)
{
    struct rusage u;

    getrusage(RUSAGE_THREAD, &u);
    return u.ru_nivcsw;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static void sleep_ns(int64_t ns)
{
    struct timespec t = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

    nanosleep(&t, NULL);
}

static int monotonic_over(long n)
{
    int64_t prev = vaced_cputime_ns(), v;

    for (long i = 0; i < n; i++) {
        v = vaced_cputime_ns();
        if (v < prev)
            return 0;
        prev = v;
    }
    return 1;
}

/* This thread's time waiting on a run queue so far, in ns (the second
 * field of /proc/thread-self/schedstat); -1 if the kernel does not say. */
static int64_t run_delay_ns(void)
{
    long long on_cpu, delay = -1;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");

    if (!f)
        return -1;
    if (fscanf(f, "%lld %lld", &on_cpu, &delay) != 2)
        delay = -1;
    fclose(f);
    return delay;
}

/* Source advance minus reference advance over a 50 ms busy loop, in ns.
 * *off_cpu: the loop's wall time that neither the reference nor the run
 * queue explains (steal, interrupts), or -1 if unknown. */
static int64_t busy_error(int64_t *off_cpu)
{
    int64_t d0 = run_delay_ns(), w0 = wall_ns(), v0 = vaced_cputime_ns(), r0 = ref_ns();
    busy(50 * MS);
    int64_t r1 = ref_ns(), v1 = vaced_cputime_ns(), w1 = wall_ns(), d1 = run_delay_ns();

    *off_cpu = d0 < 0 || d1 < 0 ? -1 : (w1 - w0) - (r1 - r0) - (d1 - d0);
    return (v1 - v0) - (r1 - r0);
}

/* System-wide steal time so far, in USER_HZ ticks (8th field of "cpu"). */
static long long steal_ticks(void)
{
    long long v[8] = { 0 };
    FILE *f = fopen("/proc/stat", "r");

    if (!f)
        return 0;
    if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) != 8)
        v[7] = 0;
    fclose(f);
    return v[7];
}

/* The properties every selected source must have. tries > 1 only for perf
 * sources: task-clock also counts steal time, so one of several tries must
 * agree, or else every miss must be an excess while /proc/stat shows steal. */
static void check_source_behaves(const char *name, int tries)
{
    int64_t err, v0, v1, off_cpu;
    int agreed = 0, excess_only = 1, within_off_cpu = 1;
    long long steal0 = steal_ticks(), steal;

    printf("checking %s\n", name);
    /* Same scale as the thread clock, not just the same rate. */
    CHECK_NEAR_I64(vaced_cputime_ns(), ref_ns(), MS / 10);
    CHECK(monotonic_over(100000));

    for (int t = 0; t < tries && !agreed; t++) {
        err = busy_error(&off_cpu);
        if (err >= -MS && err <= MS) { /* 2% of 50 ms */
            agreed = 1;
        } else {
            excess_only &= err > 0;
            within_off_cpu &= off_cpu >= 0 && err <= off_cpu + MS;
            printf("  %s: try %d off by %+.3f ms over 50 ms busy (%.3f ms off the CPU)\n", name,
                   t + 1, err / 1e6, off_cpu / 1e6);
        }
    }
    steal = steal_ticks() - steal0;
    if (!agreed)
        printf("  %s: %lld steal ticks meanwhile\n", name, steal);
    /* /proc/stat counts steal in 10 ms ticks, so a few ms of it can read 0:
     * an excess that the wall time left over (neither this thread's CPU
     * nor its run queue's wait) covers is steal or interrupts too */
    CHECK(agreed || (tries > 1 && excess_only && (steal > 0 || within_off_cpu)));

    /* Steal just before the sleep counts for perf too (a guest sees it). */
    steal0 = steal_ticks();
    v0 = vaced_cputime_ns();
    sleep_ns(50 * MS);
    v1 = vaced_cputime_ns();
    steal = steal_ticks() - steal0;
    CHECK(v1 - v0 >= 0);
    if (v1 - v0 >= MS)
        printf("  %s: advanced %.3f ms across a 50 ms sleep, %lld steal ticks meanwhile\n", name,
               (v1 - v0) / 1e6, steal);
    CHECK(v1 - v0 < MS || (tries > 1 && steal > 0));
}

#if VACED_HAVE_TSC
/* ns from cycles the way the kernel's recipe scales them */
static uint64_t scale(uint64_t cyc, uint32_t mult, uint16_t shift)
{
    return (cyc >> shift) * mult + (((cyc & ((1ULL << shift) - 1)) * mult) >> shift);
}

/* The mmap read on a hand-filled page: a host without cap_user_time (most
 * guests) cannot exercise the extrapolation on the real page. */
static void test_mmap_formula(void)
{
    static struct perf_event_mmap_page pg;
    struct vaced_perf_ev ev = { 1, -1, &pg };
    const uint32_t mult = 3u << 9; /* 1.5 ns per cycle */
    const uint16_t shift = 10;
    uint64_t c0, c1;
    int64_t v;

    pg.lock = 4;
    pg.cap_user_time = 1;
    pg.time_enabled = 7 * MS;
    pg.time_running = 7 * MS;
    pg.time_mult = mult;
    pg.time_shift = shift;
    c0 = __rdtsc();
    pg.time_offset = (uint64_t)0 - scale(c0, mult, shift); /* "now" = c0 */
    v = vaced_perf_mmap_ns(&ev);
    c1 = __rdtsc();
    CHECK(v >= 7 * MS);
    CHECK((uint64_t)v <= 7 * MS + scale(c1, mult, shift) - scale(c0, mult, shift) + 1);

    /* Short counters: only the low bits past time_cycles count. */
    pg.cap_user_time_short = 1;
    pg.time_cycles = 0;
    pg.time_mask = 0xffff;
    pg.time_offset = 0;
    v = vaced_perf_mmap_ns(&ev);
    CHECK(v >= 7 * MS && (uint64_t)v <= 7 * MS + scale(0xffff, mult, shift));

    pg.cap_user_time = 0; /* withdrawn: the caller must fall back */
    CHECK_EQ_I64(vaced_perf_mmap_ns(&ev), -1);
}
#else
static void test_mmap_formula(void) {}
#endif

/* The clip against the wall clock (vaced_cpu_clip), on made-up readings. */
static void test_clip(void)
{
    struct vaced_cpu_clip c = { 0, 0, 0 };
    int64_t w = 1000 * MS;

    CHECK(vaced_cpu_clip(&c, 5 * MS, w) == 5 * MS);           /* first: recorded */
    CHECK(vaced_cpu_clip(&c, 7 * MS, w + 3 * MS) == 7 * MS);  /* ran 2 of 3 ms */
    w += 3 * MS;
    /* 0.5 us of read jitter and a clock 0.05 % fast pass */
    CHECK(vaced_cpu_clip(&c, 7 * MS + 10500, w + 10000) == 7 * MS + 10500);
    w += 10000;
    CHECK(vaced_cpu_clip(&c, 107 * MS + 60500, w + 100 * MS) == 107 * MS + 60500);
    w += 100 * MS;
    /* a catch-up: 4 ms of CPU time in 10 us of wall time keeps 10 us (and
     * the 0.1 % for the rates) ... */
    int64_t out = vaced_cpu_clip(&c, 111 * MS + 60500, w + 10000);
    CHECK(out == 107 * MS + 60500 + 10010);
    w += 10000;
    /* ... and the 3.99 ms dropped stay dropped: later increases pass through */
    CHECK(vaced_cpu_clip(&c, 113 * MS + 60500, w + 5 * MS) == out + 2 * MS);
    CHECK(c.dropped == 4 * MS - 10010);
    /* a clock that stood still: nothing to clip, nothing given back */
    w += 5 * MS;
    CHECK(vaced_cpu_clip(&c, 113 * MS + 60500, w + 7 * MS) == out + 2 * MS);
}

static void test_names(void)
{
    CHECK_EQ_STR(vaced_cputime_source_name(VACED_CPU_THREAD), "thread");
    CHECK_EQ_STR(vaced_cputime_source_name(VACED_CPU_PERF_MMAP), "perf-mmap");
    CHECK_EQ_STR(vaced_cputime_source_name(VACED_CPU_PERF_READ), "perf-read");
    CHECK_EQ_STR(vaced_cputime_source_name(VACED_CPU_RSEQ), "rseq");
    CHECK_EQ_STR(vaced_cputime_source_name((enum vaced_cpu_source)7), "unknown");
}

static void test_requests(void)
{
    char why[256];

    strcpy(why, "junk");
    CHECK_EQ_I64(vaced_cputime_init("thread", why, sizeof why), VACED_CPU_THREAD);
    CHECK_EQ_STR(why, "");
    CHECK_EQ_I64(vaced_cputime_source(), VACED_CPU_THREAD);
    check_source_behaves("thread", 1);

    /* Unknown requests fall back to the thread clock and say so. */
    CHECK_EQ_I64(vaced_cputime_init("bogus", why, sizeof why), VACED_CPU_THREAD);
    CHECK_CONTAINS(why, "unknown request 'bogus'");
    CHECK_CONTAINS(why, "using thread");

    setenv("VACED_CPUTIME", "nope", 1);
    CHECK_EQ_I64(vaced_cputime_init(NULL, why, sizeof why), VACED_CPU_THREAD);
    CHECK_CONTAINS(why, "unknown VACED_CPUTIME 'nope'");
    setenv("VACED_CPUTIME", "thread", 1);
    CHECK_EQ_I64(vaced_cputime_init(NULL, why, sizeof why), VACED_CPU_THREAD);
    CHECK_EQ_STR(why, "");
    /* An explicit request wins over the environment. */
    setenv("VACED_CPUTIME", "bogus", 1);
    CHECK_EQ_I64(vaced_cputime_init("thread", why, sizeof why), VACED_CPU_THREAD);
    CHECK_EQ_STR(why, "");
    unsetenv("VACED_CPUTIME");

    /* A short why buffer is cut, never overrun; NULL is allowed. */
    memset(why, 'x', sizeof why);
    vaced_cputime_init("bogus", why, 8);
    CHECK_EQ_I64(strlen(why), 7);
    CHECK_EQ_I64(vaced_cputime_init("bogus", NULL, 0), VACED_CPU_THREAD);
}

/* Each source when asked for by name: selected only if it passed the
 * self-check, and then it must behave; otherwise a reason. */
static void test_named(enum vaced_cpu_source s)
{
    const char *name = vaced_cputime_source_name(s);
    char why[256];
    enum vaced_cpu_source got = vaced_cputime_init(name, why, sizeof why);

    if (got == s) {
        CHECK_EQ_STR(why, "");
        check_source_behaves(name, 5);
    } else {
        printf("%s not selected: %s\n", name, why);
        CHECK_EQ_I64(got, VACED_CPU_THREAD);
        CHECK_CONTAINS(why, name);
        CHECK_CONTAINS(why, "using thread");
    }
}

/* Forced (no self-check) sources still must not count sleep, must be
 * monotonic and must read on the thread clock's scale at the start. */
static void test_forced(enum vaced_cpu_source s)
{
    char why[256];
    int64_t v0, v1;

    if (vaced_cputime_force(s, why, sizeof why) != 0) {
        printf("%s cannot be opened: %s\n", vaced_cputime_source_name(s), why);
        CHECK(why[0] != '\0');
        CHECK_EQ_I64(vaced_cputime_source(), VACED_CPU_THREAD);
        return;
    }
    CHECK_EQ_I64(vaced_cputime_source(), s);
    CHECK_NEAR_I64(vaced_cputime_ns(), ref_ns(), MS / 10);
    CHECK(monotonic_over(100000));
    v0 = vaced_cputime_ns();
    sleep_ns(50 * MS);
    v1 = vaced_cputime_ns();
    CHECK(v1 - v0 < MS);
}

/* Pin the calling thread to one CPU. */
static int pin_to(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static volatile int spin_stop;

/* Wakes every 10 us to run for 5 us (timer slack 1 ns), on CPU 0: it
 * preempts a thread there for a few us at a time, well inside a window. */
static void *ticker(void *arg)
{
    (void)arg;
    pin_to(0);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    while (!spin_stop) {
        sleep_ns(10000);
        int64_t t0 = wall_ns();
        while (wall_ns() - t0 < 5000)
            sink++;
    }
    return NULL;
}

/* What measuring a segment by both clocks adds to the source's sum on its
 * own: the source's bracket holds the thread clock's, so it also holds a
 * thread-clock read (a system call, and more when a ticker shares the
 * CPU).  Summed over n empty brackets. */
static int64_t bracket_excess(int n)
{
    int64_t excess = 0;

    for (int i = 0; i < n; i++) {
        int64_t v0 = vaced_cputime_ns(), r0 = ref_ns();
        int64_t r = ref_ns() - r0, v = vaced_cputime_ns() - v0;
        excess += v - r;
    }
    return excess;
}

/* Segments of 1-100 us of work, each measured by the source and by the
 * thread clock: sums of the two in ns, and how many segments the two
 * measured more than `apart` ns apart (sums alone would hide time moved
 * from one segment to the next: a thread-clock read pays back what went
 * before). */
static int short_segments(int n, int64_t apart, int64_t *src, int64_t *ref)
{
    int off = 0;

    *src = *ref = 0;
    for (int i = 0; i < n; i++) {
        int64_t v0 = vaced_cputime_ns(), r0 = ref_ns();
        busy(1000 + (i * 7919) % 99000);
        int64_t r = ref_ns() - r0, v = vaced_cputime_ns() - v0;
        *ref += r;
        *src += v;
        off += llabs(v - r) > apart;
    }
    return off;
}

/* The rseq source extends the thread clock by the wall clock: it must stop
 * doing so whenever the thread is switched out, for however short a time. */
static void test_rseq_windows(void)
{
    char why[256];
    int64_t src, ref, v0, v1;
    pthread_t th;
    int off;

    if (vaced_cputime_force(VACED_CPU_RSEQ, why, sizeof why) != 0) {
        printf("rseq cannot be used: %s\n", why);
        CHECK(why[0] != '\0');
        return;
    }
    /* Short sleeps (10 us, with the timer slack at 1 ns: well inside one
     * 50 us window) do not count: across each, the source advances as the
     * thread clock does (which counts the system call), not as the wall
     * clock. Medians, because the thread clock itself now and then charges
     * a thread tens of us it did not run just after a wake-up (rarely, on
     * guests), and the
     * source's next thread-clock read takes it in a neighbouring segment.
     * A source that counted sleeps would do so in most of them (its next
     * thread-clock read only pays it back, in another segment).
     * Only sleeps that switched the thread out count: when the hypervisor
     * stalls the VM inside the call, the timer can expire before the
     * thread sleeps at all. */
    enum { SLEEPS = 101 };
    int64_t excess[SLEEPS], idle[SLEEPS];
    int n = 0;
    unsigned long slack = (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    for (int i = 0; i < 20 * SLEEPS && n < SLEEPS; i++) {
        long sw = voluntary_switches();
        v0 = vaced_cputime_ns();
        int64_t r0 = ref_ns(), w0 = wall_ns();
        sleep_ns(10000);
        int64_t w1 = wall_ns(), r1 = ref_ns();
        v1 = vaced_cputime_ns();
        if (voluntary_switches() == sw || w1 - w0 > 40000)
            continue;
        excess[n] = (v1 - v0) - (r1 - r0);
        idle[n++] = (w1 - w0) - (r1 - r0);
    }
    prctl(PR_SET_TIMERSLACK, slack, 0, 0, 0);
    qsort(idle, (size_t)n, sizeof idle[0], cmp_i64);
    int counted = 0;
    for (int i = 0; i < n; i++)
        counted += excess[i] > idle[n / 2] / 2;
    printf("  rseq across %d short sleeps: %d counted half the sleep or more (the thread"
           " clock was idle a median %.2f us)\n", n, counted, n ? idle[n / 2] / 1e3 : 0);
    CHECK(n >= SLEEPS / 2);
    CHECK(n && idle[n / 2] > 3000); /* the check can see a counted sleep */
    CHECK(counted <= n / 20);
    /* Alone on a CPU: segments agree with the thread clock, less what the
     * brackets add (a thread-clock read each, a system call whose cost is
     * the host's: measured alongside).  A segment is apart when the two
     * differ by 3 us more than a bracket adds; each preemption of this
     * thread (another process on a shared host) can move its cost across
     * two segments, so those are allowed on top of 2 %. */
    CHECK(pin_to(0) == 0);
    /* Up to three tries: another process's load on a shared host only
     * moves time between the two clocks, a source that is off is off in
     * every try. */
    int64_t brackets = 0, bracket = 0;
    long preempted = 0;
    for (int try = 0; try < 3; try++) {
        bracket = bracket_excess(2000) / 2000;
        preempted = involuntary_switches();
        off = short_segments(2000, 3000 + llabs(bracket), &src, &ref);
        preempted = involuntary_switches() - preempted;
        brackets = bracket_excess(2000);
        printf("  rseq alone: %.3f ms vs thread clock %.3f ms, %d of 2000 segments apart (%ld"
               " preemptions); the brackets add %.3f ms\n", src / 1e6, ref / 1e6, off, preempted,
               brackets / 1e6);
        if (llabs(src - brackets - ref) <= ref / 50 && off <= 40 + 2 * preempted)
            break;
    }
    CHECK_NEAR_I64(src - brackets, ref, ref / 50);
    CHECK(off <= 40 + 2 * preempted);
    /* Sharing the CPU with a thread that preempts this one for a few us at
     * a time, in the middle of segments: its time must not pile up. */
    /* The measuring brackets' own excess is measured alongside and taken
     * off; the hypervisor's steal lands in either clock's segments at
     * random: up to three tries.  Within 5 %: the two clocks book each
     * preemption's cost in different segments, which came to +2.4 to
     * +2.7 % in all three tries of one CI dry run (1.4 % usually); piled-up
     * preemptions would add the ticker's share of the wall, 70-80 %. */
    int64_t wall = 0;
    for (int try = 0; try < 3; try++) {
        spin_stop = 0;
        CHECK(pthread_create(&th, NULL, ticker, NULL) == 0);
        int64_t w0 = wall_ns();
        off = short_segments(2000, 3000 + llabs(bracket), &src, &ref);
        wall = wall_ns() - w0;
        brackets = bracket_excess(2000);
        spin_stop = 1;
        pthread_join(th, NULL);
        printf("  rseq sharing a CPU: %.3f ms vs thread clock %.3f ms in %.3f ms wall, %d of 2000"
               " segments apart; the brackets add %.3f ms\n", src / 1e6, ref / 1e6, wall / 1e6, off,
               brackets / 1e6);
        if (llabs(src - brackets - ref) <= ref / 20)
            break;
    }
    CHECK(wall > ref * 11 / 10); /* the ticker did take turns */
    CHECK_NEAR_I64(src - brackets, ref, ref / 20);
    /* Not checked per segment here: about 4 % of segments come out more
     * than 3 us apart with the guard and 6 % without it (measured), as the
     * two clocks book the cost of each preemption in different segments;
     * the sleeps above check the guard. */
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    pthread_setaffinity_np(pthread_self(), sizeof all, &all);
    vaced_cputime_fini();
}

static void test_auto(void)
{
    char why[256];
    int64_t best = INT64_MAX;
    enum vaced_cpu_source got = VACED_CPU_THREAD;

    for (int i = 0; i < 3; i++) {
        int64_t w0 = wall_ns();
        got = vaced_cputime_init("auto", why, sizeof why);
        int64_t w = wall_ns() - w0;
        if (w < best)
            best = w;
    }
    printf("auto picks %s (%s); init %.2f ms\n", vaced_cputime_source_name(got),
           why[0] ? why : "first choice", best / 1e6);
    CHECK_EQ_I64(vaced_cputime_source(), got);
    CHECK(got == VACED_CPU_PERF_MMAP ? why[0] == '\0' : why[0] != '\0');
    CHECK(best < 100 * MS);     /* a sanity bound: its cost is measured in bench/ */
    check_source_behaves("auto", got == VACED_CPU_THREAD ? 1 : 5);

    got = vaced_cputime_init("perf", why, sizeof why);
    CHECK(got != VACED_CPU_THREAD || strstr(why, "using thread") != NULL);
    printf("perf gives %s (%s)\n", vaced_cputime_source_name(got), why[0] ? why : "first choice");

    vaced_cputime_fini();
    CHECK_EQ_I64(vaced_cputime_source(), VACED_CPU_THREAD);
    CHECK_NEAR_I64(vaced_cputime_ns(), ref_ns(), MS / 10);
}

/* A new thread has its own clock: it starts near zero although this thread
 * has burned CPU, uninitialised it reads the thread clock, and its own init
 * does not change the creating thread's source. */
static void *other_thread(void *arg)
{
    int64_t *out = arg;
    char why[256];

    out[0] = vaced_cputime_source();
    out[1] = vaced_cputime_ns();
    out[2] = ref_ns();
    vaced_cputime_init("perf", why, sizeof why);
    int64_t v0 = vaced_cputime_ns();
    busy(20 * MS);
    out[3] = vaced_cputime_ns() - v0;
    return NULL; /* no fini: the key destructor must release the event */
}

static void test_threads(void)
{
    long long steal_at_start = steal_ticks();
    int64_t out[4];
    pthread_t th;
    char why[256];

    vaced_cputime_init("thread", why, sizeof why);
    busy(60 * MS);
    int fds = open_fds();
    CHECK(pthread_create(&th, NULL, other_thread, out) == 0);
    pthread_join(th, NULL);
    CHECK_EQ_I64(open_fds(), fds); /* its perf event went with it */
    CHECK_EQ_I64(out[0], VACED_CPU_THREAD);
    CHECK(out[1] < 20 * MS);
    CHECK_NEAR_I64(out[1], out[2], MS / 10);
    /* Steal may add (perf counts it), never remove. */
    if (out[3] < 19 * MS || out[3] >= 40 * MS)
        printf("  other thread: %.3f ms over 20 ms busy, %lld steal ticks since start\n",
               out[3] / 1e6, steal_ticks() - steal_at_start);
    CHECK(out[3] >= 19 * MS && (out[3] < 40 * MS || steal_ticks() > steal_at_start));
    CHECK_EQ_I64(vaced_cputime_source(), VACED_CPU_THREAD);
    CHECK(vaced_cputime_ns() >= 60 * MS);
}

/* A forked child must not read the parent's perf event. */
static void test_fork(void)
{
    char why[256];
    int status = -1;
    pid_t pid;

    if (vaced_cputime_force(VACED_CPU_PERF_READ, why, sizeof why) != 0) {
        printf("fork test skipped: %s\n", why);
        return;
    }
    busy(40 * MS);
    pid = fork();
    if (pid == 0) {
        int ok = vaced_cputime_source() == VACED_CPU_THREAD && vaced_cputime_ns() < 20 * MS;
        _exit(ok ? 0 : 1);
    }
    CHECK(pid > 0);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_I64(vaced_cputime_source(), VACED_CPU_PERF_READ);
    CHECK(vaced_cputime_ns() >= 40 * MS);
    vaced_cputime_fini();
}

int main(void)
{
    test_names();
    test_clip();
    test_mmap_formula();
    test_requests();
    test_named(VACED_CPU_PERF_MMAP);
    test_named(VACED_CPU_PERF_READ);
    test_named(VACED_CPU_RSEQ);
    test_forced(VACED_CPU_THREAD);
    test_forced(VACED_CPU_PERF_MMAP);
    test_forced(VACED_CPU_PERF_READ);
    test_forced(VACED_CPU_RSEQ);
    test_rseq_windows();
    test_auto();
    test_threads();
    test_fork();
    return CHECK_REPORT();
}
