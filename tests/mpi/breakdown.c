/* Programs whose breakdown is known in closed form (test_predictions.py):
 *   late-sender BYTES    rank 1 computes, then sends; rank 0 receives at once
 *   late-receiver BYTES  rank 0 sends at once; rank 1 computes, then receives
 *   barrier              the last rank computes, then every rank enters MPI_Barrier
 * The computation is a CPU loop of about SPIN_MS milliseconds; the test
 * reads its length from the prediction's compute term. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

#define SPIN_MS 20

static void spin(void)
{
    spin_ms(SPIN_MS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    long bytes = argc > 2 ? atol(argv[2]) : 0;
    char *buf = calloc(bytes > 0 ? bytes : 1, 1);
    if (!strcmp(mode, "late-sender") || !strcmp(mode, "late-receiver")) {
        if (rank == 1)              /* the late one, in both */
            spin();
        if ((rank == 1) == !strcmp(mode, "late-sender"))
            MPI_Send(buf, (int) bytes, MPI_BYTE, 1 - rank, 5, MPI_COMM_WORLD);
        else if (rank < 2)
            MPI_Recv(buf, (int) bytes, MPI_BYTE, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "barrier")) {
        if (rank == size - 1)
            spin();
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: %s late-sender BYTES | late-receiver BYTES | barrier\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
