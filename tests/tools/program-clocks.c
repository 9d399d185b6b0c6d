/* A program for tests/tools/test_program_clocks.sh: it loads libvaced
 * from a shared library (as it would libmpi.so), starts and ends the
 * simulation through that library's vc_start and vc_end, and prints its
 * own clocks' readings beside VACED's target time (vc_wtime) and the
 * kernel's monotonic clock, key=value, one per line. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int vc_start(void);
void vc_end(void);
double vc_wtime(void);

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double tod(void)
{
    struct timeval t;
    gettimeofday(&t, NULL);
    return t.tv_sec + t.tv_usec * 1e-6;
}

static double kernel(clockid_t id)
{
    struct timespec t;
    syscall(SYS_clock_gettime, id, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;
static double worker_mono;

/* Another thread than MPI_Init's: it sleeps 30 ms; its clock reads the
 * rank's target time as of the last event, and its sleep is the host's. */
static void *worker(void *arg)
{
    struct timespec ms30 = { 0, 30000000 };
    double m0 = mono();
    (void)arg;
    nanosleep(&ms30, NULL);
    worker_mono = mono() - m0;
    return NULL;
}

int main(void)
{
    printf("before_mono_off=%.9f\n", mono() - kernel(CLOCK_MONOTONIC));
    if (vc_start())
        return 1;
    printf("start_realtime_off=%.6f\n", tod() - kernel(CLOCK_REALTIME));
    printf("start_time_off=%.0f\n", (double)time(NULL) - kernel(CLOCK_REALTIME));

    double m0 = mono(), t0 = tod(), w0 = vc_wtime(), x = 1.0;
    for (long i = 0; i < 20000000; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
    printf("compute_mono=%.9f\ncompute_tod=%.9f\ncompute_wtime=%.9f\n", mono() - m0, tod() - t0,
           vc_wtime() - w0);

    struct timespec ms50 = { 0, 50000000 }, abs;
    m0 = mono();
    w0 = vc_wtime();
    nanosleep(&ms50, NULL);
    usleep(20000);
    clock_gettime(CLOCK_MONOTONIC, &abs);       /* a deadline 30 ms on */
    abs.tv_nsec += 30000000;
    if (abs.tv_nsec >= 1000000000) {
        abs.tv_sec++;
        abs.tv_nsec -= 1000000000;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    printf("sleep_mono=%.9f\nsleep_wtime=%.9f\n", mono() - m0, vc_wtime() - w0);
    pthread_t th;
    w0 = vc_wtime();
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
    printf("thread_sleep_wtime=%.9f\nthread_sleep_mono=%.9f\n", vc_wtime() - w0, worker_mono);
    fflush(stdout);
    vc_end();
    printf("after_mono_off=%.9f\n", mono() - kernel(CLOCK_MONOTONIC));
    return 0;
}
