/* CPU time of the calling thread: source selection and the hot read. */
#define _GNU_SOURCE
#include "env/env.h"
#include "cputime/cputime.h"
#include "cputime/host_clocks.h"
#include "cputime/cputime_perf.h"
#include "cputime/cputime_rseq.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSRC 4
/* rseq: the longest wall-clock stretch taken as CPU time without a thread
 * clock read. It bounds what an interrupt or a steal inside it can add, and
 * makes the reads it saves cost at most a thread-clock read per 50 us. */
#define RSEQ_WINDOW_NS 50000
#define CHECK_BUSY_NS 1000000  /* dwarfs read costs, keeps init short */
#define CHECK_SLEEP_NS 300000  /* a wall-time clock would gain all of it */
#define CALIB_ROUNDS 4
#define CALIB_READS 50
/* Auto keeps the thread clock (the reference, which excludes steal time)
 * unless a perf source is clearly cheaper, not just cheaper within noise. */
#define AUTO_PERF_GAIN 0.8

struct tstate {
    enum vaced_cpu_source src;
    int64_t base; /* added to perf readings to put them on the thread clock's scale */
    int64_t last; /* last value returned, so reads never go back */
    int64_t wall; /* wall clock of the reading being made */
    struct vaced_cpu_clip clip;
    struct vaced_perf_ev ev;
    /* rseq source: the window opened by the last thread-clock read */
    struct vaced_rseq_guard guard;
    int64_t c0;       /* its reading (less debt) */
    int64_t w0;       /* wall clock just after it */
    int64_t extra;    /* cost of an opening read beyond a wall-clock read */
    int64_t debt;     /* extra times the windows opened so far */
};

/* Zero state = thread clock: a thread that never called init still reads right. */
static _Thread_local struct tstate ts;

/* Keeps busy loops and calibration reads from being optimised away. */
static _Thread_local volatile int64_t sink;

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;

static inline int64_t clock_ns(clockid_t c)
{
    struct timespec t;

    vaced_host_clock_gettime(c, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline int64_t thread_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

/* Open a window: arm the guard, then read both clocks, so that a switch
 * anywhere after the thread-clock sample clears the guard. The debt keeps
 * the costlier read from lengthening the segment it closes. */
static int64_t rseq_open_window(struct tstate *t)
{
    vaced_rseq_arm(&t->guard);
    t->debt += t->extra;
    t->c0 = thread_ns() - t->debt;
    t->w0 = t->wall = clock_ns(CLOCK_MONOTONIC);
    return t->c0;
}

/* The wall clock is read before the guard is tested: a switch between the
 * two would otherwise go unseen and its time count. */
static inline int64_t rseq_ns(struct tstate *t)
{
    int64_t w = clock_ns(CLOCK_MONOTONIC);

    if (w - t->w0 < RSEQ_WINDOW_NS && vaced_rseq_intact(&t->guard)) {
        t->wall = w;
        return t->c0 + (w - t->w0);
    }
    return rseq_open_window(t);
}

/* Unscaled reading of source s for this thread; -1 if the event failed. */
static inline int64_t raw_ns(enum vaced_cpu_source s)
{
    int64_t v;

    switch (s) {
    case VACED_CPU_PERF_MMAP:
        v = vaced_perf_mmap_ns(&ts.ev);
        return v >= 0 ? v : vaced_perf_read_ns(&ts.ev); /* same clock, slower */
    case VACED_CPU_PERF_READ:
        return vaced_perf_read_ns(&ts.ev);
    case VACED_CPU_RSEQ:
        return rseq_ns(&ts);
    default:
        return thread_ns();
    }
}

int64_t vaced_cpu_clip(struct vaced_cpu_clip *c, int64_t cpu, int64_t wall)
{
    int64_t out = cpu - c->dropped;

    if (c->last_wall) {
        /* 0.1 %: the thread clock runs on sched_clock, the wall clock is
         * NTP-slewed (at most 0.05 %) */
        int64_t allowed = wall - c->last_wall;
        allowed += allowed / 1000;
        if (out - c->last_out > allowed + VACED_CPU_CLIP_SLACK_NS) {
            c->dropped += out - c->last_out - allowed;
            out = c->last_out + allowed;
        }
    }
    c->last_out = out;
    c->last_wall = wall;
    return out;
}

int64_t vaced_cputime_ns(void)
{
    struct tstate *t = &ts;
    int64_t v;

    if (t->src == VACED_CPU_THREAD) {
        v = thread_ns();
        t->wall = clock_ns(CLOCK_MONOTONIC);
    } else {
        v = raw_ns(t->src);
        if (v < 0) {
            t->src = VACED_CPU_THREAD; /* event broke: the thread clock is always there */
            v = thread_ns();
        } else {
            v += t->base;
        }
        if (t->src != VACED_CPU_RSEQ) /* rseq_ns set it */
            t->wall = clock_ns(CLOCK_MONOTONIC);
    }
    if (v < t->last)
        v = t->last;
    t->last = v;
    return vaced_cpu_clip(&t->clip, v, t->wall);
}

const char *vaced_cputime_source_name(enum vaced_cpu_source s)
{
    switch (s) {
    case VACED_CPU_THREAD: return "thread";
    case VACED_CPU_PERF_MMAP: return "perf-mmap";
    case VACED_CPU_PERF_READ: return "perf-read";
    case VACED_CPU_RSEQ: return "rseq";
    }
    return "unknown";
}

enum vaced_cpu_source vaced_cputime_source(void) { return ts.src; }

static void on_thread_exit(void *p)
{
    (void)p;
    vaced_cputime_fini();
}

/* The child's copy of the event still counts the parent's thread. */
static void on_fork_child(void)
{
    vaced_perf_close(&ts.ev);
    memset(&ts, 0, sizeof ts);
}

static void register_hooks(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
    pthread_atfork(NULL, NULL, on_fork_child);
}

void vaced_cputime_fini(void)
{
    if (ts.guard.cs && vaced_rseq_intact(&ts.guard))
        *ts.guard.cs = 0; /* the kernel must not follow it once we are gone */
    if (ts.ev.open) {
        vaced_perf_close(&ts.ev);
        pthread_setspecific(exit_key, NULL);
    }
    memset(&ts, 0, sizeof ts);
}

/* Make s this thread's source, offset onto the thread clock. */
static void use_source(enum vaced_cpu_source s)
{
    int64_t a, p, b;

    ts.src = s;
    ts.last = 0;
    memset(&ts.clip, 0, sizeof ts.clip);
    ts.base = 0;
    if (s != VACED_CPU_PERF_MMAP && s != VACED_CPU_PERF_READ)
        vaced_perf_close(&ts.ev);
    if (s == VACED_CPU_THREAD)
        return;
    a = thread_ns();
    p = raw_ns(s);
    b = thread_ns();
    ts.base = a + (b - a) / 2 - p;
    pthread_setspecific(exit_key, &ts); /* any non-NULL value arms the destructor */
}

/* Append a "; "-separated note to a reason buffer. */
static void note(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;

    if (len + 3 >= n)
        return;
    if (len) {
        memcpy(buf + len, "; ", 3);
        len += 2;
    }
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Median duration of n calls of f, timed singly by the wall clock. */
static int64_t median_call_ns(int64_t (*f)(struct tstate *), int n)
{
    int64_t d[64];

    for (int i = 0; i < n; i++) {
        int64_t a = clock_ns(CLOCK_MONOTONIC);
        sink += f(&ts);
        d[i] = clock_ns(CLOCK_MONOTONIC) - a;
    }
    qsort(d, (size_t)n, sizeof d[0], cmp_i64);
    return d[n / 2];
}

/* Set up the rseq source for this thread: the guard, and what a window's
 * opening read costs beyond a read inside a window. 0, or -1 with a reason. */
static int rseq_prepare(char *why, size_t n)
{
    if (vaced_rseq_guard_open(&ts.guard, why, n) < 0)
        return -1;
    ts.extra = ts.debt = 0;
    rseq_open_window(&ts);
    int64_t inside = median_call_ns(rseq_ns, 63);
    int64_t opening = median_call_ns(rseq_open_window, 63);
    ts.extra = opening > inside ? opening - inside : 0;
    ts.debt = 0;
    ts.w0 = 0; /* the next read opens a window */
    return 0;
}

/* Clears ok[s] for each candidate that does not track the thread clock:
 * same advance over a busy loop, none across a sleep. All candidates are
 * read inside one pair of thread-clock reads, so one check serves all. */
static void self_check(int ok[NSRC], char *buf, size_t n)
{
    struct timespec sl = { 0, CHECK_SLEEP_NS };
    int64_t t0, t1, dt, dp, p0[NSRC], p1[NSRC];
    int s, i;

    t0 = thread_ns();
    for (s = 1; s < NSRC; s++)
        p0[s] = ok[s] ? raw_ns(s) : 0;
    do {
        for (i = 0; i < 1000; i++)
            sink += i;
    } while (thread_ns() - t0 < CHECK_BUSY_NS);
    for (s = NSRC - 1; s >= 1; s--)
        p1[s] = ok[s] ? raw_ns(s) : 0;
    t1 = thread_ns();
    dt = t1 - t0;
    for (s = 1; s < NSRC; s++) {
        if (!ok[s])
            continue;
        dp = p1[s] - p0[s];
        if (p0[s] < 0 || p1[s] < 0) {
            note(buf, n, "%s: read failed", vaced_cputime_source_name(s));
            ok[s] = 0;
        } else if (llabs(dp - dt) > dt / 32 + 20000) {
            note(buf, n, "%s: %.3f ms vs thread clock %.3f ms over a busy loop (steal time?)",
                 vaced_cputime_source_name(s), dp / 1e6, dt / 1e6);
            ok[s] = 0;
        }
    }

    t0 = thread_ns();
    for (s = 1; s < NSRC; s++)
        p0[s] = ok[s] ? raw_ns(s) : 0;
    vaced_host_nanosleep(&sl, NULL);
    for (s = NSRC - 1; s >= 1; s--)
        p1[s] = ok[s] ? raw_ns(s) : 0;
    t1 = thread_ns();
    for (s = 1; s < NSRC; s++) {
        dp = p1[s] - p0[s];
        if (ok[s] && (p1[s] < 0 || dp - (t1 - t0) > CHECK_SLEEP_NS / 3)) {
            note(buf, n, "%s: advanced %.3f ms across a %.3f ms sleep",
                 vaced_cputime_source_name(s), dp / 1e6, CHECK_SLEEP_NS / 1e6);
            ok[s] = 0;
        }
    }
}

/* ns per read of each used source: best of interleaved rounds, so a
 * preemption in one round does not decide. */
static void calibrate(const int use[NSRC], double cost[NSRC])
{
    int64_t a;
    int r, s, i;

    for (s = 0; s < NSRC; s++)
        cost[s] = 1e30;
    for (r = 0; r < CALIB_ROUNDS; r++) {
        for (s = 0; s < NSRC; s++) {
            if (!use[s])
                continue;
            a = clock_ns(CLOCK_MONOTONIC);
            for (i = 0; i < CALIB_READS; i++)
                sink += raw_ns(s);
            double c = (double)(clock_ns(CLOCK_MONOTONIC) - a) / CALIB_READS;
            if (c < cost[s])
                cost[s] = c;
        }
    }
}

enum want { W_AUTO, W_THREAD, W_PERF, W_MMAP, W_READ, W_RSEQ, W_UNKNOWN };

static enum want parse(const char *request, char *buf, size_t n)
{
    const char *from = "request";

    if (!request) {
        request = vaced_env(VACED_ENV_CPUTIME);
        from = "VACED_CPUTIME";
    }
    if (!request || !*request || !strcmp(request, "auto"))
        return W_AUTO;
    if (!strcmp(request, "thread"))
        return W_THREAD;
    if (!strcmp(request, "perf"))
        return W_PERF;
    if (!strcmp(request, "perf-mmap"))
        return W_MMAP;
    if (!strcmp(request, "perf-read"))
        return W_READ;
    if (!strcmp(request, "rseq"))
        return W_RSEQ;
    note(buf, n, "unknown %s '%.40s' (want auto|thread|perf|perf-mmap|perf-read|rseq)", from,
         request);
    return W_UNKNOWN;
}

/* Auto: drop sources not clearly cheaper than the thread clock, before
 * the self-check, so a host whose other sources are slow spends no time
 * checking them. */
static void drop_costly(int ok[NSRC], const double cost[NSRC], char *buf, size_t n)
{
    for (int s = 1; s < NSRC; s++) {
        if (ok[s] && cost[s] >= AUTO_PERF_GAIN * cost[VACED_CPU_THREAD]) {
            note(buf, n, "%s: %.0f ns/read vs thread %.0f", vaced_cputime_source_name(s),
                 cost[s], cost[VACED_CPU_THREAD]);
            ok[s] = 0;
        }
    }
}

/* The cheapest source still standing, else the thread clock. */
static enum vaced_cpu_source pick(const int ok[NSRC], const double cost[NSRC])
{
    enum vaced_cpu_source best = VACED_CPU_THREAD;

    for (int s = 1; s < NSRC; s++)
        if (ok[s] && (best == VACED_CPU_THREAD || cost[s] < cost[best]))
            best = s;
    return best;
}

enum vaced_cpu_source vaced_cputime_init(const char *request, char *why, size_t whylen)
{
    char buf[320] = "";
    int ok[NSRC] = { 1, 0, 0, 0 };
    double cost[NSRC] = { 0, 0, 0, 0 };
    enum vaced_cpu_source got = VACED_CPU_THREAD;
    int first; /* the request's first choice; -1: none, always explain */
    enum want w;
    char r[160];

    pthread_once(&reg_once, register_hooks);
    vaced_cputime_fini();
    w = parse(request, buf, sizeof buf);
    first = w == W_UNKNOWN ? -1 : w == W_THREAD ? VACED_CPU_THREAD
        : w == W_READ ? VACED_CPU_PERF_READ : w == W_RSEQ ? VACED_CPU_RSEQ : VACED_CPU_PERF_MMAP;
    if (w == W_AUTO || w == W_RSEQ) {
        ok[VACED_CPU_RSEQ] = 1;
        if (rseq_prepare(r, sizeof r) < 0) {
            note(buf, sizeof buf, "rseq: %s", r);
            ok[VACED_CPU_RSEQ] = 0;
        }
    }
    if (w == W_AUTO || w == W_PERF || w == W_MMAP || w == W_READ) {
        ok[VACED_CPU_PERF_MMAP] = w != W_READ;
        ok[VACED_CPU_PERF_READ] = w != W_MMAP;
        if (vaced_perf_open(&ts.ev, r, sizeof r) < 0) {
            note(buf, sizeof buf, "perf: %s", r);
            ok[VACED_CPU_PERF_MMAP] = ok[VACED_CPU_PERF_READ] = 0;
        } else if (ok[VACED_CPU_PERF_MMAP] && !vaced_perf_mmap_usable(&ts.ev, r, sizeof r)) {
            note(buf, sizeof buf, "perf-mmap: %s", r);
            ok[VACED_CPU_PERF_MMAP] = 0;
        }
    }
    if (ok[1] || ok[2] || ok[3]) {
        if (w == W_AUTO || w == W_PERF)
            calibrate(ok, cost);
        if (w == W_AUTO)
            drop_costly(ok, cost, buf, sizeof buf);
        self_check(ok, buf, sizeof buf);
        got = pick(ok, cost);
    }
    use_source(got);
    if ((int)got != first)
        note(buf, sizeof buf, "using %s", vaced_cputime_source_name(got));
    else
        buf[0] = '\0';
    if (why && whylen)
        snprintf(why, whylen, "%s", buf);
    return got;
}

/* Open what source s needs for this thread; 0, or -1 with a reason. */
static int open_source(enum vaced_cpu_source s, char *r, size_t n)
{
    switch (s) {
    case VACED_CPU_THREAD:
        return 0;
    case VACED_CPU_RSEQ:
        return rseq_prepare(r, n);
    case VACED_CPU_PERF_MMAP:
    case VACED_CPU_PERF_READ:
        if (vaced_perf_open(&ts.ev, r, n) < 0)
            return -1;
        if (s == VACED_CPU_PERF_MMAP && !vaced_perf_mmap_usable(&ts.ev, r, n)) {
            vaced_perf_close(&ts.ev);
            return -1;
        }
        return 0;
    }
    snprintf(r, n, "unknown source %d", (int)s);
    return -1;
}

int vaced_cputime_force(enum vaced_cpu_source s, char *why, size_t whylen)
{
    char r[160] = "";

    pthread_once(&reg_once, register_hooks);
    vaced_cputime_fini();
    if (open_source(s, r, sizeof r) < 0) {
        if (why && whylen)
            snprintf(why, whylen, "%s", r);
        return -1;
    }
    use_source(s);
    if (why && whylen)
        why[0] = '\0';
    return 0;
}
