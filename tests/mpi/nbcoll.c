/* Nonblocking collectives whose messages are rendezvous: their schedules
 * post receives inside MPI_Wait, where no later progress point would send
 * a parked CTS (a hang before the fix).  Checks the data; prints the time.
 * Usage: nbcoll [BYTES per pair]   (any number of ranks) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = (argc > 1 ? atoi(argv[1]) : 200000) / (int) sizeof(int);
    int *out = malloc((size_t) n * size * sizeof(int)), *in = malloc((size_t) n * size * sizeof(int));
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            out[(size_t) p * n + i] = rank * 1000003 + p * 7 + i;
    double t0 = MPI_Wtime();
    MPI_Ialltoall(out, n, MPI_INT, in, n, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < n; i++)
            bad += in[(size_t) p * n + i] != p * 1000003 + rank * 7 + i;
    int sum = rank, total;
    MPI_Iallreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    bad += total != size * (size - 1) / 2;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nbcoll %s ranks=%d bytes=%d time=%.9f\n", bad ? "WRONG" : "ok", size,
               n * (int) sizeof(int), MPI_Wtime() - t0);
    free(out);
    free(in);
    MPI_Finalize();
    return bad != 0;
}
