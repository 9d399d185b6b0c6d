/* MPICH's collectives under VACED, timed with MPI_Wtime (target time).
 * The test forces MPICH's algorithms with its CVARs (recursive doubling for
 * MPI_Allreduce, pairwise exchange for MPI_Alltoall): both are symmetric,
 * so every round costs the same on every rank and the closed form is
 * known.  The computation they do besides messages (the local reduction of
 * each round, the copy of the rank's own block) is timed here on the same
 * data, the way MPICH does it, and added to the closed form as measured.
 * The nonblocking (MPI_Iallreduce, MPI_Ialltoall) and persistent
 * (MPI_Allreduce_init) forms run the same algorithms on MPICH's schedules
 * (forced with their CVARs too), each call followed by MPI_Wait; the
 * nonblocking allreduce also by a polling MPI_Test loop, which must take
 * the same target time though peers run late on the host (more ranks than
 * cores).
 * Usage: collectives COUNT REPS   (COUNT doubles per message) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 1024;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    size_t n = (size_t) count * size;
    double *in = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++)
        in[i] = rank + (double) (i % count) * 1e-3;
    int ok = 1;

    /* Each timed loop starts right after one more call of the same
     * collective: it warms up (connections, first-touch page faults) and,
     * being symmetric, leaves every rank at the same target time. */
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double allreduce = (MPI_Wtime() - t0) / reps;
    ok &= out[0] == size * (size - 1) / 2.0;

    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Reduce_local(in, out, count, MPI_DOUBLE, MPI_SUM);
    double reduce_local = (MPI_Wtime() - t0) / reps;

    MPI_Alltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Alltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_WORLD);
    double alltoall = (MPI_Wtime() - t0) / reps;
    for (int p = 0; p < size; p++)      /* block p came from rank p */
        ok &= out[(size_t) p * count] == p;

    /* The same on schedules: the nonblocking and persistent forms */
    MPI_Request req;
    MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    double iallreduce = (MPI_Wtime() - t0) / reps;
    ok &= out[0] == size * (size - 1) / 2.0;

    MPI_Allreduce_init(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    double allreduce_init = (MPI_Wtime() - t0) / reps;
    MPI_Request_free(&req);
    ok &= out[0] == size * (size - 1) / 2.0;

    MPI_Ialltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
        MPI_Ialltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    double ialltoall = (MPI_Wtime() - t0) / reps;
    for (int p = 0; p < size; p++)
        ok &= out[(size_t) p * count] == p;

    /* Last, since a host hiccup here (polling is more exposed to them)
     * would linger in the loops after it: recursive doubling passes a
     * delay on from rank to rank rather than absorbing it */
    MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++) {
        int done = 0;
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        while (!done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
    double iallreduce_test = (MPI_Wtime() - t0) / reps;
    ok &= out[0] == size * (size - 1) / 2.0;

    /* MPICH's copy of the rank's own block, as it does it: an alltoall on
     * a one-rank communicator is that copy alone */
    MPI_Alltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_SELF);
    t0 = MPI_Wtime();
    for (int r = 0; r < reps; r++)
        MPI_Alltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, MPI_COMM_SELF);
    double localcopy = (MPI_Wtime() - t0) / reps;

    MPI_Barrier(MPI_COMM_WORLD);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    double worst[8], mine[8] = { allreduce, reduce_local, alltoall, localcopy, iallreduce,
        allreduce_init, ialltoall, iallreduce_test };
    MPI_Reduce(mine, worst, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("collectives ranks=%d count=%d allreduce_s=%.12f reduce_local_s=%.12f "
               "alltoall_s=%.12f localcopy_s=%.12f iallreduce_s=%.12f allreduce_init_s=%.12f "
               "ialltoall_s=%.12f iallreduce_test_s=%.12f result=%s\n", size, count, worst[0],
               worst[1], worst[2], worst[3], worst[4], worst[5], worst[6], worst[7],
               all_ok ? "ok" : "WRONG");
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
