/* A line of the program's written in two pieces, another rank's line
 * written while the first is half done.  MPICH makes every rank's stdout
 * unbuffered, so puts(" No Errors") writes its text and its newline apart;
 * here rank 0 does so explicitly, with rank 1's own line and its VACED
 * line (at MPI_Finalize) written in between.  The launcher must still
 * show " No Errors" and "rank 1 line" as lines of their own. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void put(const char *s)
{
    if (write(STDOUT_FILENO, s, strlen(s)) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int rank, go = 1;
    const struct timespec gap = { 0, 200 * 1000 * 1000 };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        put(" No Errors");
        MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        nanosleep(&gap, NULL);      /* rank 1's lines reach the launcher first */
        put("\n");
    } else if (rank == 1) {
        MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        put("rank 1 line\n");
    }
    MPI_Finalize();
    return 0;
}
