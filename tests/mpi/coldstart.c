/* Cold starts, by construction: rank 0 computes A iterations and sends
 * to rank 1, which has been waiting in MPI_Recv; rank 1 computes B and
 * answers; rank 0, waiting in MPI_Recv meanwhile, computes C.  Hosted on
 * one core, rank 1's segment B and rank 0's segment C begin after their
 * rank slept: cold; A does not.
 * Usage: coldstart A B C (loop iterations)
 * Each rank prints the thread CPU time of its segment that began after a
 * receive (B for rank 1, C for rank 0) and of all its segments. */
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

static double work(long iters)
{
    double c0 = thread_cpu_s();
    volatile double x = 1.0;
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    return thread_cpu_s() - c0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4 || size != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: coldstart A B C (2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double after_recv, all;
    if (rank == 0) {
        all = work(atol(argv[1]));
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        after_recv = work(atol(argv[3]));
        all += after_recv;
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        after_recv = all = work(atol(argv[2]));
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    printf("coldstart rank=%d after_recv_s=%.9f all_s=%.9f\n", rank, after_recv, all);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
