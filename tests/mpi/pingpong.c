/* Blocking ping-pong between ranks 0 and 1 (other ranks idle).
 * Usage: pingpong BYTES ITERATIONS [WARMUP]
 * Prints the mean round-trip time measured with MPI_Wtime, which under
 * VACED is target time: tests compare it with the closed form.  WARMUP
 * round trips (default 1: the connection, first touch) go untimed first;
 * more of them get past a target's connection warm-up
 * (net_warmup_messages), as a calibration's measurement does. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3 && argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: %s BYTES ITERATIONS [WARMUP]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[1]);
    int iters = atoi(argv[2]), warmup = argc == 4 ? atoi(argv[3]) : 1;
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    double t0 = 0;
    for (int i = -warmup; i < iters; i++) {     /* i < 0: untimed */
        if (i == 0)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int) bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, (int) bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int) bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int) bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
    }
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("pingpong bytes=%ld iters=%d roundtrip_s=%.12f\n", bytes, iters, (t1 - t0) / iters);
    free(buf);
    MPI_Finalize();
    return 0;
}
