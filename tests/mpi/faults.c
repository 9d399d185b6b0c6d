/* Programs that use what the model does not time, or that fail.
 * Usage: faults MODE
 *   rma      one-sided communication: a window, MPI_Put, fences
 *   threads  MPI_Init_thread(MPI_THREAD_MULTIPLE)
 *   abort    rank 1 calls MPI_Abort while the others wait for a message
 *   kill     rank 1 kills itself with SIGKILL while the others wait */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided, rank, size, x = 0;
    if (!strcmp(mode, "threads"))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (!strcmp(mode, "rma")) {
        int target = 0;
        MPI_Win win;
        MPI_Win_create(&target, sizeof target, sizeof target, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        int one = rank + 1;
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_fence(0, win);
        if (rank == 0)
            printf("rma sum=%d expected=%d\n", target, size * (size + 1) / 2);
        MPI_Win_free(&win);
    } else if (!strcmp(mode, "abort") || !strcmp(mode, "kill")) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            if (!strcmp(mode, "abort"))
                MPI_Abort(MPI_COMM_WORLD, 3);
            kill(getpid(), SIGKILL);
        }
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* never comes */
    } else if (rank == 0) {
        printf("threads provided=%d\n", provided);
    }
    MPI_Finalize();
    return 0;
}
