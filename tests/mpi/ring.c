/* A token ring: rank 0 sends BYTES to rank 1, each rank passes it on, and
 * rank P-1 returns it to rank 0; LAPS times.
 * Usage: ring BYTES LAPS
 * Rank 0 prints the mean lap time (MPI_Wtime, target time under VACED). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s BYTES LAPS (with at least 2 ranks)\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[1]);
    int laps = atoi(argv[2]);
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double t0 = 0;
    for (int i = -1; i < laps; i++) {   /* i = -1 warms up: connections, first touch */
        if (i == 0)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int) bytes, MPI_BYTE, next, 3, MPI_COMM_WORLD);
            MPI_Recv(buf, (int) bytes, MPI_BYTE, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int) bytes, MPI_BYTE, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int) bytes, MPI_BYTE, next, 3, MPI_COMM_WORLD);
        }
    }
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("ring ranks=%d bytes=%ld laps=%d lap_s=%.12f\n", size, bytes, laps, (t1 - t0) / laps);
    free(buf);
    MPI_Finalize();
    return 0;
}
