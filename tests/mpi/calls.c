/* Known call sites for the per-call tables (tests/mpi/test_calls.py).
 *
 * Rank 0 computes about MS milliseconds, then sends rank 1 one message
 * (SITE:send); rank 1 is waiting in MPI_Recv (SITE:recv), so that call's
 * time is rank 0's computation plus the message's: late_sender.  Then
 * every rank joins REPS allreduces (SITE:allreduce) and a ring exchange
 * completed by MPI_Waitany (SITE:waitany), a binding MPICH does not
 * inline, in a loop the compiler may unroll.  The test reads the
 * SITE markers' lines from this file.
 *
 * Usage: calls [MS] [REPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "spin.h"

int main(int argc, char **argv)
{
    int rank, size;
    double ms = argc > 1 ? atof(argv[1]) : 5.0;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    char msg[1024] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        spin_ms(ms);
        MPI_Send(msg, sizeof msg, MPI_CHAR, 1, 0, MPI_COMM_WORLD);      /* SITE:send */
    } else if (rank == 1) {
        MPI_Recv(msg, sizeof msg, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE:recv */
    }
    double v = rank, sum = 0;
    for (int i = 0; i < reps; i++)
        MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  /* SITE:allreduce */
    MPI_Request req[2];
    int in = 0, out = rank, done;
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD, &req[1]);
    for (int i = 0; i < 2; i++)
        MPI_Waitany(2, req, &done, MPI_STATUS_IGNORE);                  /* SITE:waitany */
    if (rank == 0)
        printf("calls: sum %g, from %d\n", sum, in);
    MPI_Finalize();
    return 0;
}
