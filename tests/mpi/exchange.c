/* Two ranks exchange a message each way, REPS times: each round posts
 * MPI_Isend and MPI_Irecv (or starts persistent MPI_Send_init and
 * MPI_Recv_init requests) and completes both with MPI_Waitall (or polls
 * MPI_Testall).  Both messages travel at once, so a round takes one
 * one-way message time on the target whichever way it is written.
 * overlap: each round computes two chunks of CHUNK_US of CPU time (default
 * 100) after posting, each followed by one MPI_Testall, then MPI_Waitall:
 * a message that arrived during the first chunk is read by the first test.
 * paced: each round starts at a common time, PACE_S after the previous
 * one's, and completes with MPI_Waitall: every round starts in step, so a
 * host stall puts one round out of step, not the rest (see below).  For
 * small messages: a round longer than PACE_S delays the next one's start.
 * Usage: exchange plain|persistent wait|test|overlap|paced BYTES [REPS [CHUNK_US]]
 * Rank 0 prints the mean round time (MPI_Wtime, target time under VACED;
 * paced: the median round) and its mean CPU time computing per round. */
#define _POSIX_C_SOURCE 200809L     /* clock_gettime */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PACE_S 3e-4     /* longer than a small message's round, asleep */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* spins for `seconds` of this thread's CPU time; returns the CPU time spent */
static double compute(double seconds)
{
    double start = cpu_now(), now;
    while ((now = cpu_now()) - start < seconds)
        ;
    return now - start;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: exchange plain|persistent wait|test|overlap|paced BYTES [REPS [CHUNK_US]] "
                    "(2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int persistent = !strcmp(argv[1], "persistent"), polled = !strcmp(argv[2], "test");
    int overlap = !strcmp(argv[2], "overlap"), paced = !strcmp(argv[2], "paced");
    int bytes = atoi(argv[3]), reps = argc > 4 ? atoi(argv[4]) : 10, peer = 1 - rank;
    double *rounds = calloc((size_t) reps + 1, sizeof *rounds), started = 0;
    double chunk = (argc > 5 ? atof(argv[5]) : 100) * 1e-6, computed = 0;
    char *sbuf = calloc((size_t) bytes + 1, 1), *rbuf = calloc((size_t) bytes + 1, 1);
    MPI_Request r[2];
    MPI_Status st[2];   /* not MPI_STATUSES_IGNORE: GCC 12 warns (-Wstringop-overflow) */

    if (persistent) {
        MPI_Send_init(sbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Recv_init(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
    }
    /* one round first: connections and first-touch page faults.  It can
     * leave the ranks out of step (their computation before it differs by
     * tens of microseconds), and with a receiver's wake-up an exchange out
     * of step stays so (each message finds its receiver asleep), so both
     * then compute until one common time, 1 ms after the later of them
     * (MPI_Wtime is the target clock under VACED, the node's clock
     * otherwise), and the timed rounds start in step. */
    double t0 = 0;
    for (int i = 0; i <= reps; i++) {
        if (i == 1) {
            double now = MPI_Wtime(), later;
            MPI_Allreduce(&now, &later, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            while (MPI_Wtime() < later + 1e-3)
                ;
            t0 = MPI_Wtime();
            computed = 0;
        }
        if (paced && i >= 1) {
            while (MPI_Wtime() < t0 + (i - 1) * PACE_S)
                ;
            started = MPI_Wtime();
        }
        sbuf[0] = (char) (rank + i);
        if (persistent) {
            MPI_Startall(2, r);
        } else {
            MPI_Isend(sbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
        }
        if (overlap) {
            int done = 0;
            for (int k = 0; k < 2; k++) {
                computed += compute(chunk);
                if (!done)
                    MPI_Testall(2, r, &done, st);
            }
            MPI_Waitall(2, r, st);
        } else if (polled) {
            int done = 0;
            while (!done)
                MPI_Testall(2, r, &done, st);
        } else {
            MPI_Waitall(2, r, st);
        }
        if (paced && i >= 1)
            rounds[i - 1] = MPI_Wtime() - started;
        if (rbuf[0] != (char) (peer + i)) {
            fprintf(stderr, "exchange: rank %d round %d: wrong data\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    double round = (MPI_Wtime() - t0) / reps;
    if (paced) {
        qsort(rounds, (size_t) reps, sizeof *rounds, by_value);
        round = reps % 2 ? rounds[reps / 2] : (rounds[reps / 2 - 1] + rounds[reps / 2]) / 2;
    }
    if (persistent) {
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
    if (rank == 0)
        printf("exchange %s %s bytes=%d round_s=%.12f compute_s=%.12f\n", argv[1], argv[2], bytes, round,
               computed / reps);
    free(rounds);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
