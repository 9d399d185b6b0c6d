/* Open descriptors of every rank after MPI_Init; rank 0 prints the least
 * and the most: "fdcount ranks=P min=A max=B".  A rank's own descriptors
 * do not depend on how many ranks the launcher started before it. */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>

static int open_descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3;       /* ".", ".." and the directory's own descriptor */
}

int main(int argc, char **argv)
{
    int rank, size, mine, lo, hi;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mine = open_descriptors();
    MPI_Reduce(&mine, &lo, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &hi, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fdcount ranks=%d min=%d max=%d\n", size, lo, hi);
    MPI_Finalize();
    return 0;
}
