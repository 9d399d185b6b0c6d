/* Point-to-point and collective microbenchmarks in the manner of the OSU
 * Micro-Benchmarks' published method (written here from their description,
 * no OSU code): warm-up iterations that are not timed, then
 *
 *   latency    ping-pong between ranks 0 and 1, half the round trip
 *   bw         rank 0 posts a window of 64 MPI_Isend, rank 1 64 MPI_Irecv,
 *              both wait for all; rank 1 answers each window with a 4-byte
 *              message; bytes moved / time (MB/s, 10^6 bytes)
 *   bibw       as bw, both ranks sending and receiving a window at once
 *   allreduce, alltoall, bcast, barrier: each call timed alone, a barrier
 *              between calls, the mean time per call averaged over ranks
 *
 * Under VACED MPI_Wtime is target time, so every figure is a prediction
 * of the same figure measured by a vanilla run (bench/micro.sh compares
 * them).  One line per benchmark and size:
 *
 *   MICRO=latency SIZE=1024 VALUE=23.41 UNIT=us
 *
 * usage: microbench [-m MAX_BYTES] [-s ITER_SCALE] [BENCH...]  (default: all) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define SMALL_LIMIT 8192 /* larger messages get fewer iterations */

static int rank, nprocs;
/* allreduce's vectors: doubles of a known sum (raw pattern bytes would
 * make denormals and NaNs, whose arithmetic is slower on some CPUs) */
static double *reduce_in, *reduce_out;
static double iter_scale = 1.0;
static int verified = 1;

/* every rank's send buffer holds byte i = i * 7 + rank; a received block
 * must hold the sender's bytes from `offset` on */
static char pattern(size_t i, int from) { return (char)(i * 7 + (size_t)from); }

static void check(const char *buf, size_t bytes, size_t offset, int from)
{
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != pattern(offset + i, from)) {
            verified = 0;
            return;
        }
}

static int iterations(size_t bytes, int small, int large)
{
    int n = (int)((bytes <= SMALL_LIMIT ? small : large) * iter_scale);
    return n > 1 ? n : 1;
}

static void report(const char *bench, size_t bytes, double value, const char *unit)
{
    if (rank == 0)
        printf("MICRO=%s SIZE=%zu VALUE=%.4f UNIT=%s\n", bench, bytes, value, unit);
}

static void latency(char *sbuf, char *rbuf, size_t bytes)
{
    int iters = iterations(bytes, 2000, 200), skip = iters / 10;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(sbuf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    report("latency", bytes, (MPI_Wtime() - t0) * 1e6 / (2.0 * iters), "us");
    if (rank < 2)
        check(rbuf, bytes, 0, 1 - rank);
}

/* bw (both = 0) and bibw (both = 1) */
static void bandwidth(char *sbuf, char *rbuf, size_t bytes, int both)
{
    int iters = iterations(bytes, 100, 20), skip = iters / 10 + 1;
    MPI_Request req[2 * WINDOW];
    /* statuses rather than MPI_STATUSES_IGNORE, which gcc 12 takes for a
     * zero-sized array (-Wstringop-overflow) */
    static MPI_Status status[2 * WINDOW];
    double t0 = 0;
    char ack[4] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        if (i == skip)
            t0 = MPI_Wtime();
        int n = 0;
        if (rank == 1 || (both && rank == 0))
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf + (size_t)w * bytes, (int)bytes, MPI_CHAR, 1 - rank, 2, MPI_COMM_WORLD, &req[n++]);
        if (rank == 0 || (both && rank == 1))
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, (int)bytes, MPI_CHAR, 1 - rank, 2, MPI_COMM_WORLD, &req[n++]);
        if (rank > 1)
            continue;
        MPI_Waitall(n, req, status);
        if (!both && rank == 0)
            MPI_Recv(ack, 4, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (!both)
            MPI_Send(ack, 4, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 1 || (both && rank == 0))
        check(rbuf + (size_t)(WINDOW - 1) * bytes, bytes, 0, 1 - rank);
    report(both ? "bibw" : "bw", bytes, (both ? 2.0 : 1.0) * bytes * iters * WINDOW / t / 1e6, "MB/s");
}

/* the mean over ranks of the mean time of one call */
static void report_collective(const char *bench, size_t bytes, double sum, int iters)
{
    double mine = sum / iters, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    report(bench, bytes, total / nprocs * 1e6, "us");
}

enum collective { ALLREDUCE, ALLTOALL, BCAST, BARRIER };
static const char *const collective_name[] = {"allreduce", "alltoall", "bcast", "barrier"};

/* bytes: per rank (allreduce: the vector of doubles; alltoall: the block to
 * each rank; bcast: the message) */
static void collective(enum collective c, char *sbuf, char *rbuf, size_t bytes)
{
    int iters = iterations(bytes, 1000, 100), skip = iters / 10;
    double sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
        double t0 = MPI_Wtime();
        switch (c) {
        case ALLREDUCE:
            MPI_Allreduce(reduce_in, reduce_out, (int)(bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case ALLTOALL:
            MPI_Alltoall(sbuf, (int)bytes, MPI_CHAR, rbuf, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
            break;
        case BCAST:
            MPI_Bcast(rank == 0 ? sbuf : rbuf, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
            break;
        case BARRIER:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        }
        if (i >= skip)
            sum += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    report_collective(collective_name[c], c == BARRIER ? 0 : bytes, sum, iters);
    if (c == ALLREDUCE) {
        for (size_t i = 0; i < bytes / sizeof(double); i++)
            if (reduce_out[i] != 0.5 * nprocs * (nprocs + 1))
                verified = 0;
    } else if (c == ALLTOALL)
        for (int r = 0; r < nprocs; r++)
            check(rbuf + (size_t)r * bytes, bytes, (size_t)rank * bytes, r);
    else if (c == BCAST && rank != 0)
        check(rbuf, bytes, 0, 0);
}

static int wanted(int argc, char **argv, int first, const char *bench)
{
    if (first >= argc)
        return 1;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], bench))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    size_t max_bytes = 1 << 20;
    int first = 1;
    for (; first + 1 < argc && argv[first][0] == '-'; first += 2) {
        if (!strcmp(argv[first], "-m"))
            max_bytes = strtoull(argv[first + 1], NULL, 0);
        else if (!strcmp(argv[first], "-s"))
            iter_scale = atof(argv[first + 1]);
        else
            break;
    }
    if (nprocs < 2 || max_bytes < 8 || iter_scale <= 0 || (first < argc && argv[first][0] == '-')) {
        if (rank == 0)
            fprintf(stderr, "usage: microbench [-m MAX_BYTES >= 8] [-s ITER_SCALE > 0] "
                            "[latency|bw|bibw|allreduce|alltoall|bcast|barrier...], 2 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    /* the windows need WINDOW messages of the largest size; alltoall a block per rank */
    size_t room = max_bytes * (WINDOW > nprocs ? WINDOW : (size_t)nprocs);
    char *sbuf = malloc(room), *rbuf = malloc(room);
    reduce_in = malloc(max_bytes);
    reduce_out = malloc(max_bytes);
    if (!sbuf || !rbuf || !reduce_in || !reduce_out)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < max_bytes / sizeof(double); i++)
        reduce_in[i] = rank + 1;
    for (size_t i = 0; i < room; i++)
        sbuf[i] = pattern(i, rank);
    memset(rbuf, 0, room);

    for (size_t b = 1; b <= max_bytes; b *= 4) {
        if (wanted(argc, argv, first, "latency"))
            latency(sbuf, rbuf, b);
        if (wanted(argc, argv, first, "bw"))
            bandwidth(sbuf, rbuf, b, 0);
        if (wanted(argc, argv, first, "bibw"))
            bandwidth(sbuf, rbuf, b, 1);
    }
    for (size_t b = 8; b <= max_bytes; b *= 4) {
        if (wanted(argc, argv, first, "allreduce"))
            collective(ALLREDUCE, sbuf, rbuf, b);
        if (wanted(argc, argv, first, "alltoall"))
            collective(ALLTOALL, sbuf, rbuf, b);
        if (wanted(argc, argv, first, "bcast"))
            collective(BCAST, sbuf, rbuf, b);
    }
    if (wanted(argc, argv, first, "barrier"))
        collective(BARRIER, sbuf, rbuf, 0);
    int ok = 0;
    MPI_Allreduce(&verified, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("MICRO=done VERIFIED=%s\n", ok ? "yes" : "no");
    free(sbuf);
    free(rbuf);
    free(reduce_in);
    free(reduce_out);
    MPI_Finalize();
    return ok ? 0 : 1;
}
