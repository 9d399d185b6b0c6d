/* Two senders race to rank 0: rank 1 computes for BURN_US before it
 * sends, rank 2 sends at once.  Where all three ranks are a network
 * apart, rank 2's message arrives first; where rank 1 shares rank 0's
 * node and rank 2 is far away, rank 1's does.  Rank 0 takes them with two
 * wildcard receives, or with MPI_Waitany over a receive from each, and
 * prints which came first: "race first=R".
 *
 *   mpiexec -n 3 race [BURN_US [wildcard|waitany]]     (default 100 wildcard) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double burn(double us)
{
    double t0 = MPI_Wtime(), x = 1;
    while ((MPI_Wtime() - t0) * 1e6 < us)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int rank, size, first = -1, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "race needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double us = argc > 1 ? atof(argv[1]) : 100;
    int waitany = argc > 2 && !strcmp(argv[2], "waitany");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && waitany) {
        MPI_Request r[2];
        int got[2], i;
        MPI_Irecv(&got[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
        first = i + 1;
        MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
        printf("race first=%d\n", first);
    } else if (rank == 0) {
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        first = st.MPI_SOURCE;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
        printf("race first=%d\n", first);
    } else {
        if (rank == 1)
            v = burn(us) > 0;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
