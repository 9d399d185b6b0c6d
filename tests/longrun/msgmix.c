/* msgmix: many small eager messages between two ranks, through a mix of
 * MPI calls, for tests/longrun/longrun.sh (flat memory over 10^7 messages,
 * prediction against a closed form).
 *
 * Usage: msgmix MESSAGES [BYTES [K]]     (2 ranks; defaults 10000000, 1000, 9)
 *
 * Every iteration moves K + 1 messages of BYTES bytes:
 *   rank 0: MPI_Isend of K - 1 messages and one MPI_Send to rank 1; the
 *           Isends completed by MPI_Waitall (even iterations) or an
 *           MPI_Testall loop (odd); then MPI_Recv of the reply from
 *           MPI_ANY_SOURCE;
 *   rank 1: MPI_Irecv of the K messages, one MPI_Test of the last (which the
 *           target has not received yet: a progress point, nothing found),
 *           then MPI_Waitall (even) or an MPI_Waitsome loop (odd); then the
 *           reply: MPI_Send (even) or MPI_Isend + MPI_Wait (odd).
 * Both ranks check every message's contents.  Rank 0 prints a progress
 * line at every 1% ("msgmix: progress P% ..."), and at the end the
 * iterations, the messages and loop_s, the MPI_Wtime (target time) its loop
 * took.  An iteration starts when rank 0's previous reply arrives, so on a
 * target where two ranks are L apart (L = BYTES / Bnet + l(h)) and a copy
 * takes c = BYTES / Bmem, it takes (K + 3) c + 2 L: the K sends leave c
 * apart, the last arrives at (K + 1) c + L and is copied, the reply takes
 * c + L + c.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 64

static void fill(unsigned char *b, int bytes, long it, int j)
{
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char) (it * 31 + j * 7 + i);
}

static int check(const unsigned char *b, int bytes, long it, int j)
{
    for (int i = 0; i < bytes; i++)
        if (b[i] != (unsigned char) (it * 31 + j * 7 + i))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long messages = argc > 1 ? atol(argv[1]) : 10000000L;
    int bytes = argc > 2 ? atoi(argv[2]) : 1000;
    int k = argc > 3 ? atoi(argv[3]) : 9;
    if (size != 2 || messages < k + 1 || bytes < 1 || k < 2 || k > MAXK) {
        if (rank == 0)
            fprintf(stderr, "usage: msgmix MESSAGES [BYTES [K]] on 2 ranks, MESSAGES >= K + 1, 2 <= K <= %d\n",
                    MAXK);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long iters = messages / (k + 1);
    /* K message buffers, then two reply buffers */
    unsigned char *buf = malloc((size_t) bytes * (MAXK + 2));
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    unsigned char *replies = buf + (size_t) bytes * MAXK;
    MPI_Request req[MAXK + 1];
    int idx[MAXK];
    MPI_Status sts[MAXK + 1];  /* not MPI_STATUSES_IGNORE: gcc 12 warns about it (-Wstringop-overflow) */
    long errors = 0, next_pct = 1;

    /* Filling and checking buffers is computation; it is done where the
     * rank would wait anyway (rank 0 while its reply is on the way, rank 1
     * after its reply left), so that it is not on the critical path and
     * the loop takes exactly the closed form on the target. */
    if (rank == 0)
        for (int j = 0; j < k; j++)
            fill(buf + (size_t) bytes * j, bytes, 0, j);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        int odd = (int) (it & 1);
        unsigned char *reply = replies + (size_t) bytes * odd;
        if (rank == 0) {
            for (int j = 0; j < k - 1; j++)
                MPI_Isend(buf + (size_t) bytes * j, bytes, MPI_BYTE, 1, j, MPI_COMM_WORLD, &req[j]);
            MPI_Send(buf + (size_t) bytes * (k - 1), bytes, MPI_BYTE, 1, k - 1, MPI_COMM_WORLD);
            if (!odd) {
                MPI_Waitall(k - 1, req, sts);
            } else {
                int flag = 0;
                while (!flag)
                    MPI_Testall(k - 1, req, &flag, sts);
            }
            if (it > 0)         /* the previous iteration's reply */
                errors += check(replies + (size_t) bytes * !odd, bytes, it - 1, k);
            for (int j = 0; j < k; j++)
                fill(buf + (size_t) bytes * j, bytes, it + 1, j);
            MPI_Status st;
            MPI_Recv(reply, bytes, MPI_BYTE, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &st);
            errors += st.MPI_SOURCE != 1;
            if (it + 1 >= next_pct * iters / 100) {
                printf("msgmix: progress %ld%% iteration %ld of %ld\n", next_pct, it + 1, iters);
                fflush(stdout);
                next_pct++;
            }
        } else {
            fill(reply, bytes, it, k);
            for (int j = 0; j < k; j++)
                MPI_Irecv(buf + (size_t) bytes * j, bytes, MPI_BYTE, 0, j, MPI_COMM_WORLD, &req[j]);
            int flag;
            MPI_Test(&req[k - 1], &flag, MPI_STATUS_IGNORE);
            if (!odd || flag) {
                MPI_Waitall(k, req, sts);
            } else {
                int left = k, n;
                while (left > 0) {
                    MPI_Waitsome(k, req, &n, idx, sts);
                    left -= n;
                }
            }
            if (!odd) {
                MPI_Send(reply, bytes, MPI_BYTE, 0, k, MPI_COMM_WORLD);
            } else {
                MPI_Isend(reply, bytes, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req[k]);
                MPI_Wait(&req[k], MPI_STATUS_IGNORE);
            }
            for (int j = 0; j < k; j++)
                errors += check(buf + (size_t) bytes * j, bytes, it, j);
        }
    }
    double loop = MPI_Wtime() - t0;
    if (rank == 0 && iters > 0)
        errors += check(replies + (size_t) bytes * ((iters - 1) & 1), bytes, iters - 1, k);

    long all_errors = 0;
    MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("msgmix: bytes=%d k=%d iterations=%ld messages=%ld errors=%ld loop_s=%.9f\n", bytes, k, iters,
               iters * (k + 1), all_errors, loop);
    free(buf);
    MPI_Finalize();
    return all_errors != 0;
}
