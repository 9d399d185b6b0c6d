/* Two ranks each MPI_Send BYTES to the other, then MPI_Recv: correct
 * only while the message goes eager (each send returns before its
 * receive is posted).  On a target whose eager threshold is below BYTES
 * MPICH deadlocks it; a replay of a record made with eager messages
 * cannot re-time it with rendezvous, and says so.
 * Usage: sendsend BYTES */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bytes = argc > 1 ? atoi(argv[1]) : 4000;
    char *out = calloc((size_t)bytes + 1, 1), *in = calloc((size_t)bytes + 1, 1);
    if (rank < 2) {
        MPI_Send(out, bytes, MPI_BYTE, 1 - rank, 5, MPI_COMM_WORLD);
        MPI_Recv(in, bytes, MPI_BYTE, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
