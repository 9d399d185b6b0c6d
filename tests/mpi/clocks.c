/* The program's own clocks under VACED: a ping-pong and a computation,
 * each timed with MPI_Wtime and with the program's clocks
 * (clock_gettime(CLOCK_MONOTONIC), gettimeofday; with -fopenmp,
 * omp_get_wtime too).  Rank 0 prints
 *   clocks pp_wtime=S pp_mono=S pp_tod=S [pp_omp=S] comp_wtime=S comp_mono=S comp_tod=S
 *          [comp_omp=S] sleep_wtime=S sleep_loops=N busy_mono=S realtime_s=S
 * and, after MPI_Finalize,
 *   clocks_after after_s=S
 * sleep_*: a loop that waits 20 ms of its own clock by nanosleep(1 ms)
 * and MPI_Test (it must end); busy_mono: one that waits 5 ms by MPI_Test
 * alone; realtime_s: time() right after MPI_Init;
 * after_s: |CLOCK_MONOTONIC - the kernel's| after MPI_Finalize.
 * Usage: clocks [ITERS] */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* CLOCK_MONOTONIC from the kernel itself, past any library's clock_gettime. */
static double kernel_mono(void)
{
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

static void compute(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 200;
    char byte = 0;
    double w0, m0, t0, w1, m1, t1, pp_w, pp_m, pp_t, c_w, c_m, c_t, realtime;
#ifdef _OPENMP
    double o0, pp_o, c_o;
#endif

    MPI_Init(&argc, &argv);
    realtime = (double)time(NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);

    w0 = MPI_Wtime(); m0 = mono(); t0 = tod();
#ifdef _OPENMP
    o0 = omp_get_wtime();
#endif
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    w1 = MPI_Wtime(); m1 = mono(); t1 = tod();
    pp_w = w1 - w0; pp_m = m1 - m0; pp_t = t1 - t0;
#ifdef _OPENMP
    pp_o = omp_get_wtime() - o0;
    o0 = omp_get_wtime();
#endif

    w0 = MPI_Wtime(); m0 = mono(); t0 = tod();
    compute(20000000);
    c_m = mono() - m0;
    c_t = tod() - t0;
    c_w = MPI_Wtime() - w0;
#ifdef _OPENMP
    c_o = omp_get_wtime() - o0;
#endif

    /* Waits 20 ms of its own clock, polling a receive that rank 1
     * satisfies only after it: the clock must move while it sleeps. */
    MPI_Request req;
    int flag = 0, loops = 0;
    double busy = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Irecv(&byte, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &req);
        w0 = MPI_Wtime();
        for (m0 = mono(); mono() - m0 < 0.02; loops++) {
            struct timespec ms = { 0, 1000000 };
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            nanosleep(&ms, NULL);
        }
        w1 = MPI_Wtime() - w0;
        for (m0 = mono(); mono() - m0 < 0.005;)      /* busy: MPI_Test alone */
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        busy = mono() - m0;
        MPI_Send(&byte, 1, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
        if (!flag)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&byte, 1, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&byte, 1, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }

    if (rank == 0) {
        printf("clocks pp_wtime=%.9f pp_mono=%.9f pp_tod=%.9f", pp_w, pp_m, pp_t);
#ifdef _OPENMP
        printf(" pp_omp=%.9f comp_omp=%.9f", pp_o, c_o);
#endif
        printf(" comp_wtime=%.9f comp_mono=%.9f comp_tod=%.9f sleep_wtime=%.9f sleep_loops=%d"
               " busy_mono=%.9f realtime_s=%.0f\n", c_w, c_m, c_t, w1, loops, busy, realtime);
        fflush(stdout);
    }
    MPI_Finalize();
    if (rank == 0) {
        double d = mono() - kernel_mono();
        printf("clocks_after after_s=%.9f\n", d < 0 ? -d : d);
    }
    return 0;
}
