/* Many small messages, for flat memory: a ping-pong between ranks 0 and 1
 * with a wildcard receive and an MPI_Test loop in every iteration, so waits,
 * tests and the early queue all run.  Prints resident memory after 10% of
 * the iterations and at the end.
 * Usage: longrun ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    char buf[64] = { 0 };
    long rss_early = 0;
    for (long i = 0; i < iters; i++) {
        if (i == iters / 10)
            rss_early = rss_kib();
        if (rank == 0) {
            MPI_Send(buf, sizeof buf, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, sizeof buf, MPI_BYTE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Request r;
            int flag = 0;
            MPI_Irecv(buf, sizeof buf, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r);
            while (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            MPI_Send(buf, sizeof buf, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime();
    if (rank < 2)
        printf("longrun rank=%d iters=%ld rss_early_kib=%ld rss_end_kib=%ld wtime_s=%.9f\n", rank,
               iters, rss_early, rss_kib(), t);
    MPI_Finalize();
    return 0;
}
