/* Reproduces the hang of MPICH's coll/nballtoall1 on install/vaced:
 * MPI_Ialltoall of rendezvous-sized blocks (32768 ints = 128 KiB a pair,
 * over the 128 KiB eager threshold), completed by MPI_Wait.  With 3 or more
 * ranks MPICH's pairwise schedule posts the receives of rounds 2.. from
 * inside MPI_Wait's progress loop; VACED parks the CTS of such a receive
 * when the RTS has reached the host but not yet the target, and nothing
 * sends it while the wait lasts.  Hangs in about half the runs with 4
 * ranks (host order decides); vanilla never does.
 *
 *   install/vaced/bin/mpicc -O2 -o ia tests/mpich-suite/repro/ialltoall_rndv.c
 *   for i in $(seq 10); do VACED_QUIET=1 timeout 20 install/vaced/bin/mpiexec -n 4 ./ia || echo HANG; done
 *
 * (paper-1024, the default target; a count of 16384, eager, never hangs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 32768;
    int *s = malloc(sizeof(int) * (size_t) count * size), *r = malloc(sizeof(int) * (size_t) count * size);
    for (long i = 0; i < (long) count * size; i++)
        s[i] = rank;
    MPI_Request req;
    MPI_Ialltoall(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int j = 0; j < size; j++)
        bad += r[(long) j * count] != j;
    printf("rank %d done, %s\n", rank, bad ? "WRONG" : "ok");
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
