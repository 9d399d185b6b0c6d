/* The awake one-way time of the A/B in results/validation-notes.md: a
 * ping-pong of 8 B, 3 x 2000 round trips, whose receivers block in
 * MPI_Recv (mode 0) or poll with MPI_Test (mode 1, never asleep).
 *
 *   install/vanilla/bin/mpicc -O2 -o pingpong-poll bench/pingpong-poll.c
 *   chrt -r 1 install/vanilla/bin/mpiexec -bind-to core -n 2 ./pingpong-poll 0|1
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, mode = atoi(argv[1]), n = 2000, flag;
    char buf[8] = {0};
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                if (mode) { MPI_Irecv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r); do MPI_Test(&r, &flag, MPI_STATUS_IGNORE); while (!flag); }
                else MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                if (mode) { MPI_Irecv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r); do MPI_Test(&r, &flag, MPI_STATUS_IGNORE); while (!flag); }
                else MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) printf("mode %d one-way %.2f us\n", mode, (MPI_Wtime() - t0) / n / 2 * 1e6);
    }
    MPI_Finalize();
    return 0;
}
