/* Programs whose critical path is known by construction
 * (test_critical_path.py):
 *   pipeline BYTES   rank i > 0 receives from i-1, every rank computes
 *                    spin(i), then sends to i+1: the path runs through
 *                    ranks 0, 1, ..., P-1 and computes sum spin(i)
 *   ring BYTES       a token: rank 0 computes spin(0) and sends to 1; rank
 *                    i receives from i-1, computes spin(i), sends to i+1
 *                    mod P; rank 0 receives it back and computes spin(P):
 *                    ranks 0, 1, ..., P-1, 0, computing sum spin(0..P)
 *   allreduce        rank LONG_RANK computes LONG_MS, the others SHORT_MS,
 *                    then all enter MPI_Allreduce: the path begins on
 *                    LONG_RANK and computes LONG_MS
 * spin(i) is (1 + i mod 3) * UNIT_MS of computation, a CPU loop timed
 * by MPI_Wtime (target time, which is CPU time between MPI calls); the
 * test reads each segment's length from the trace. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spin.h"

#define UNIT_MS 4
#define LONG_MS 30
#define SHORT_MS 3
#define LONG_RANK 1

static void spin(int i)
{
    spin_ms((1 + i % 3) * UNIT_MS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    long bytes = argc > 2 ? atol(argv[2]) : 8;
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (!strcmp(mode, "pipeline")) {
        if (rank > 0)
            MPI_Recv(buf, (int) bytes, MPI_BYTE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        spin(rank);
        if (rank < size - 1)
            MPI_Send(buf, (int) bytes, MPI_BYTE, next, 1, MPI_COMM_WORLD);
    } else if (!strcmp(mode, "ring") && size > 1) {
        if (rank > 0)
            MPI_Recv(buf, (int) bytes, MPI_BYTE, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        spin(rank);
        MPI_Send(buf, (int) bytes, MPI_BYTE, next, 2, MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Recv(buf, (int) bytes, MPI_BYTE, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            spin(size);
        }
    } else if (!strcmp(mode, "allreduce")) {
        spin_ms(rank == LONG_RANK ? LONG_MS : SHORT_MS);
        double in = rank, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (out != size * (size - 1) / 2.0)
            MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: %s pipeline BYTES | ring BYTES | allreduce  (ring: 2 ranks or more)\n",
                    argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
