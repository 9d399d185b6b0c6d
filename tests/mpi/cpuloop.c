/* A CPU-bound loop between MPI_Init and MPI_Finalize, timed by the test
 * itself with the thread's CPU clock: the prediction must match it.
 * Usage: cpuloop ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 100000000L;
    double c0 = thread_cpu_s(), w0 = MPI_Wtime();
    volatile double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    double c1 = thread_cpu_s(), w1 = MPI_Wtime();
    printf("cpuloop rank=%d cpu_s=%.9f wtime_s=%.9f wtick=%g x=%g\n", rank, c1 - c0, w1 - w0,
           MPI_Wtick(), x);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
