/* CPU time of the calling thread: the clock that times compute segments.
 *
 * It is read at every communication event, so the per-read cost matters.
 * Four sources, chosen per thread by vaced_cputime_init():
 *   thread     clock_gettime(CLOCK_THREAD_CPUTIME_ID): always available; the
 *              reference every other source is checked against.
 *   rseq       the thread clock, read once, then extended by the wall clock
 *              (CLOCK_MONOTONIC, no syscall) for up to 50 us while an rseq
 *              guard shows the thread has not been switched out: while it
 *              runs without a break, its CPU time and the wall time advance
 *              together. Interrupt and hypervisor steal time inside such a
 *              window count, at most 50 us a window; a longer steal opens a
 *              new window. Needs glibc's rseq registration (Linux 4.18+).
 *   perf-mmap  a per-thread perf_event TASK-CLOCK read from its mmap'd page
 *              and extrapolated with rdtsc: no syscall per read. Needs
 *              cap_user_time (x86, TSC-based sched_clock).
 *   perf-read  the same event read with read(2): one syscall per read.
 * Any other source is only selected after a startup self-check shows it
 * agrees with the thread clock over a 1 ms busy loop and does not advance
 * across a 0.3 ms sleep (for rseq, also that a sleep clears the guard).
 * TASK-CLOCK counts the time the thread is scheduled in as the guest kernel
 * sees it, so on a VM it includes hypervisor steal time, which the thread
 * clock excludes (CONFIG_PARAVIRT_TIME_ACCOUNTING): under steal the two
 * drift apart and the self-check rejects perf.
 *
 * State is per thread (thread-local). A thread that never called init reads
 * the thread clock (the zero state is VACED_CPU_THREAD), so reads are always
 * valid; init chooses a cheaper source for the calling thread only. The MPI
 * process initialises the thread that calls MPI_Init and times that thread.
 * Call vaced_cputime_fini() in the same thread to release its perf event;
 * a thread exiting without fini has it released by a key destructor.
 * In a fork()ed child the forking thread drops back to the thread clock
 * (the perf event would still count the parent). */
#ifndef VACED_CPUTIME_H
#define VACED_CPUTIME_H

#include <stddef.h>
#include <stdint.h>

enum vaced_cpu_source {
    VACED_CPU_THREAD = 0,
    VACED_CPU_PERF_MMAP = 1,
    VACED_CPU_PERF_READ = 2,
    VACED_CPU_RSEQ = 3
};

/* request: NULL (use $VACED_CPUTIME, default "auto"), "auto" or "" (the
 * cheapest source that passes the self-check; another source must cost
 * under 0.8x the thread clock, timed at init, to displace it), "thread",
 * "perf" (the cheapest perf form that passes), "perf-mmap", "perf-read" or
 * "rseq" (that source). Init takes ~0.2-2 ms; the first perf_event_open on
 * an otherwise perf-free machine can wait ~15 ms more (wall, not CPU).
 * An unknown request is not an error: it falls back to "thread" with a
 * reason, because a typo in an environment variable must not stop MPI_Init.
 * Returns the source chosen for the calling thread. why (if non-NULL) gets a
 * one-line reason whenever the result is not the request's first choice
 * (for auto: whenever it is not perf-mmap), else an empty string.
 * Calling init again replaces the thread's source. */
enum vaced_cpu_source vaced_cputime_init(const char *request, char *why, size_t whylen);

/* CPU time of the calling thread in ns, on the thread clock's scale (perf
 * sources are offset at init to match it). Non-decreasing between inits.
 * The rseq source leaves out the cost of its own thread-clock reads beyond
 * that of a wall-clock read, so that every read costs a segment the same
 * (see vaced_calibrate_read_cost); it falls behind the thread clock by
 * that difference at each thread-clock read. */
int64_t vaced_cputime_ns(void);

/* A thread cannot run longer than the wall time that passes. In a guest
 * of a hypervisor the thread clock (and so the rseq source's window
 * openings) breaks that: it stands still, then catches up by tens of
 * microseconds, and by milliseconds under hypervisor steal, in one step
 * that lands in whatever segment is being timed. So each read's increase
 * is capped at the wall clock's increase since the previous read, plus
 * 0.1 % (the two clocks' rates) and VACED_CPU_CLIP_SLACK_NS (the reads'
 * jitter); the excess is dropped for good. vaced_cputime_ns() applies it
 * per thread; the state is zero-initialised, and its first call only
 * records. Returns the clipped reading of cpu (a non-decreasing raw
 * reading) taken at wall. */
#define VACED_CPU_CLIP_SLACK_NS 1000
struct vaced_cpu_clip {
    int64_t last_out, last_wall, dropped;
};
int64_t vaced_cpu_clip(struct vaced_cpu_clip *c, int64_t cpu, int64_t wall);

/* "thread", "perf-mmap", "perf-read", "rseq"; "unknown" for any other value. */
const char *vaced_cputime_source_name(enum vaced_cpu_source s);

/* Release the calling thread's perf event; it reads the thread clock after. */
void vaced_cputime_fini(void);

/* Source of the calling thread (VACED_CPU_THREAD if never initialised). */
enum vaced_cpu_source vaced_cputime_source(void);

/* For tests and benchmarks only: select s for the calling thread without
 * the self-check (so a source that disagrees can still be measured).
 * Returns 0, or -1 with a reason in why if s cannot be opened. */
int vaced_cputime_force(enum vaced_cpu_source s, char *why, size_t whylen);

#endif
