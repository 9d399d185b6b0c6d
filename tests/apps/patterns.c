/* PATTERNS: communication patterns that the NPB-style mini-apps do not use,
 * each between fixed amounts of computation, for bench/micro.sh: a
 * prediction of a program it was not tuned on.  2 ranks (an even number:
 * rank r pairs with r ^ 1).
 *
 *   exchange    MPI_Sendrecv of BYTES each way
 *   persistent  MPI_Startall of MPI_Send_init/MPI_Recv_init, MPI_Waitall
 *   window      4 MPI_Irecv and 4 MPI_Isend of BYTES each way, MPI_Waitall
 *   overlap     MPI_Irecv, MPI_Isend, the computation in 10 chunks with an
 *               MPI_Testall after each until both are done, MPI_Waitall
 *   probe       even ranks send BYTES, odd ranks poll MPI_Iprobe(ANY_SOURCE)
 *               between chunks of 5 % of the computation, MPI_Get_count,
 *               MPI_Recv, compute half, answer 1 byte
 *   ssend       ping-pong with MPI_Ssend both ways
 *   vector      MPI_Sendrecv of an MPI_Type_vector (every 4th double)
 *   iallreduce  MPI_Iallreduce of BYTES/8 doubles, the computation in 10
 *               chunks with an MPI_Test after each until done, MPI_Wait
 *   collectives MPI_Bcast, MPI_Reduce, MPI_Allgather, MPI_Scatter and
 *               MPI_Gather of BYTES (split among the ranks where they share)
 *   compute     the computation alone (the reference for the others)
 *
 * The computation of an iteration is a fixed amount of work (the same in
 * a real run and under VACED), about 100 us here, of one of two kinds:
 * hot, arithmetic on registers (MPI's data stay in the caches), or
 * stream, a triad through 48 MiB (as a program's arrays evict them).
 *
 * Usage: patterns [-i ITERATIONS] [-s BYTES[,BYTES...]] [hot|stream...] [PATTERN...]
 * Defaults: 400 iterations, sizes 1024 and 65536, both kinds, every
 * pattern.  Prints, per pattern, kind and size, the mean time of an
 * iteration over the ranks (MPI_Wtime: target time under VACED):
 *   MICRO=<pattern>-<kind> SIZE=<bytes> VALUE=<us> UNIT=us
 * and MICRO=done VERIFIED=yes|no at the end (every message's bytes and
 * every reduction are checked). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOT_STEPS 60000             /* about 100 us here */
#define STREAM_DOUBLES 40000        /* per array and call: 3 x 320 KB, about 100 us here */
#define POOL_DOUBLES (2 << 20)      /* per array: 3 x 16 MiB */
#define CHUNKS 10
#define MAX_SIZES 8

static int rank, nprocs, peer, verified = 1;
static volatile double sink;
static double *pool_a, *pool_b, *pool_c;
static long pool_at;

/* `part` of one iteration's computation (1 = all of it) */
static void compute(int stream, double part)
{
    if (!stream) {
        long n = (long) (HOT_STEPS * part);
        double a = 1.0;
        for (long i = 0; i < n; i++)
            a = a * 1.0000001 + 1e-9;
        sink += a;
        return;
    }
    long n = (long) (STREAM_DOUBLES * part);
    if (pool_at + n > POOL_DOUBLES)
        pool_at = 0;
    for (long i = pool_at; i < pool_at + n; i++)
        pool_a[i] = pool_b[i] + 0.5 * pool_c[i];
    pool_at += n;
    sink += pool_a[pool_at - 1];
}

static char pattern_byte(size_t i, int from, int iter) { return (char) (i * 7 + (size_t) from * 3 + (size_t) iter); }

static void fill(char *buf, size_t bytes, int from, int iter)
{
    for (size_t i = 0; i < bytes; i += 64)
        buf[i] = pattern_byte(i, from, iter);
}

static void check(const char *buf, size_t bytes, int from, int iter)
{
    for (size_t i = 0; i < bytes; i += 64)
        if (buf[i] != pattern_byte(i, from, iter))
            verified = 0;
}

static const char *const names[] = {"exchange", "persistent", "window", "overlap", "probe", "ssend",
                                    "vector", "iallreduce", "collectives", "compute"};
enum { EXCHANGE, PERSISTENT, WINDOW, OVERLAP, PROBE, SSEND, VECTOR, IALLREDUCE, COLLECTIVES, COMPUTE,
       NPATTERNS };

/* polls req(s) between CHUNKS chunks of the computation, then waits */
static void overlapped(int stream, int n, MPI_Request *req)
{
    MPI_Status st[2];   /* not MPI_STATUSES_IGNORE: GCC 12 warns (-Wstringop-overflow) */
    int done = 0;
    for (int k = 0; k < CHUNKS; k++) {
        compute(stream, 1.0 / CHUNKS);
        if (!done)
            MPI_Testall(n, req, &done, st);
    }
    MPI_Waitall(n, req, st);
}

/* the persistent pattern's requests, made before its first iteration */
static MPI_Request persistent[2];

static void iteration(int p, int stream, size_t bytes, int it, char *s, char *r, double *d, double *e,
                      MPI_Datatype vec)
{
    MPI_Request req[8];
    MPI_Status st[8];
    int n = (int) bytes;
    switch (p) {
    case EXCHANGE:
        compute(stream, 1);
        fill(s, bytes, rank, it);
        MPI_Sendrecv(s, n, MPI_CHAR, peer, 0, r, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(r, bytes, peer, it);
        break;
    case PERSISTENT:
        compute(stream, 1);
        fill(s, bytes, rank, it);
        MPI_Startall(2, persistent);
        MPI_Waitall(2, persistent, st);
        check(r, bytes, peer, it);
        break;
    case WINDOW:
        compute(stream, 1);
        fill(s, 4 * bytes, rank, it);
        for (int k = 0; k < 4; k++)
            MPI_Irecv(r + k * bytes, n, MPI_CHAR, peer, k, MPI_COMM_WORLD, &req[k]);
        for (int k = 0; k < 4; k++)
            MPI_Isend(s + k * bytes, n, MPI_CHAR, peer, k, MPI_COMM_WORLD, &req[4 + k]);
        MPI_Waitall(8, req, st);
        check(r, 4 * bytes, peer, it);
        break;
    case OVERLAP:
        fill(s, bytes, rank, it);
        MPI_Irecv(r, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(s, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &req[1]);
        overlapped(stream, 2, req);
        check(r, bytes, peer, it);
        break;
    case PROBE:
        if (rank % 2 == 0) {
            compute(stream, 1);
            fill(s, bytes, rank, it);
            MPI_Send(s, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(r, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            int found = 0, count;
            MPI_Status st;
            while (!found) {
                compute(stream, 0.05);
                MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &found, &st);
            }
            MPI_Get_count(&st, MPI_CHAR, &count);
            if (count != n || st.MPI_SOURCE != peer)
                verified = 0;
            MPI_Recv(r, count, MPI_CHAR, st.MPI_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check(r, bytes, peer, it);
            compute(stream, 0.5);
            MPI_Send(s, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        }
        break;
    case SSEND:
        compute(stream, 1);
        fill(s, bytes, rank, it);
        if (rank % 2 == 0) {
            MPI_Ssend(s, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(r, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ssend(s, n, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        }
        check(r, bytes, peer, it);
        break;
    case VECTOR:        /* bytes of doubles, every 4th one of an array 4 times as long */
        compute(stream, 1);
        for (size_t k = 0; k < bytes / 8; k++)
            d[4 * k] = rank + it + (double) k;
        MPI_Sendrecv(d, 1, vec, peer, 0, e, 1, vec, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t k = 0; k < bytes / 8; k += 8)
            if (e[4 * k] != peer + it + (double) k)
                verified = 0;
        break;
    case IALLREDUCE:
        for (size_t k = 0; k < bytes / 8; k++)
            d[k] = rank + 1 + it;
        MPI_Iallreduce(d, e, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
        overlapped(stream, 1, req);
        for (size_t k = 0; k < bytes / 8; k += 8)
            if (e[k] != 0.5 * nprocs * (nprocs + 1) + (double) nprocs * it)
                verified = 0;
        break;
    case COLLECTIVES: {
        int share = n / nprocs;
        compute(stream, 1);
        fill(s, bytes, 0, it);
        MPI_Bcast(rank == 0 ? s : r, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank != 0)
            check(r, bytes, 0, it);
        for (size_t k = 0; k < bytes / 8; k++)
            d[k] = rank + 1;
        MPI_Reduce(d, e, n / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0 && bytes >= 8 && e[bytes / 8 - 1] != 0.5 * nprocs * (nprocs + 1))
            verified = 0;
        MPI_Allgather(s, share, MPI_CHAR, r, share, MPI_CHAR, MPI_COMM_WORLD);
        MPI_Scatter(s, share, MPI_CHAR, r, share, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Gather(s, share, MPI_CHAR, r, share, MPI_CHAR, 0, MPI_COMM_WORLD);
        break;
    }
    case COMPUTE:
        compute(stream, 1);
        break;
    }
}

static int wanted(int argc, char **argv, int first, const char *word, const char *const *all, int nall)
{
    int any = 0;
    for (int a = first; a < argc; a++)
        for (int k = 0; k < nall; k++)
            if (!strcmp(argv[a], all[k])) {
                any = 1;
                if (!strcmp(argv[a], word))
                    return 1;
            }
    return !any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int iters = 400, nsizes = 0, first = 1;
    size_t sizes[MAX_SIZES];
    while (first + 1 < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "-i"))
            iters = atoi(argv[first + 1]);
        else if (!strcmp(argv[first], "-s"))
            for (char *tok = strtok(argv[first + 1], ","); tok && nsizes < MAX_SIZES; tok = strtok(NULL, ","))
                sizes[nsizes++] = (size_t) atol(tok);
        first += 2;
    }
    if (nsizes == 0) {
        sizes[0] = 1024;
        sizes[1] = 65536;
        nsizes = 2;
    }
    size_t max_bytes = 8;
    for (int k = 0; k < nsizes; k++)
        max_bytes = sizes[k] > max_bytes ? sizes[k] : max_bytes;
    if (nprocs % 2 || iters < 1 || max_bytes > (64 << 20)) {
        if (rank == 0)
            fprintf(stderr, "usage: patterns [-i ITERATIONS] [-s BYTES[,BYTES...]] [hot|stream...] [PATTERN...]"
                            " (an even number of ranks, BYTES up to 64 MiB)\n");
        MPI_Finalize();
        return 2;
    }
    peer = rank ^ 1;
    char *s = calloc(4 * max_bytes, 1), *r = calloc(4 * max_bytes, 1);
    double *d = calloc(4 * max_bytes, 1), *e = calloc(4 * max_bytes, 1);
    pool_a = calloc(POOL_DOUBLES, sizeof(double));
    pool_b = calloc(POOL_DOUBLES, sizeof(double));
    pool_c = calloc(POOL_DOUBLES, sizeof(double));
    if (!s || !r || !d || !e || !pool_a || !pool_b || !pool_c)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < POOL_DOUBLES; i++)
        pool_b[i] = pool_c[i] = 1.0;
    static const char *const kinds[] = {"hot", "stream"};

    for (int kind = 0; kind < 2; kind++) {
        if (!wanted(argc, argv, first, kinds[kind], kinds, 2))
            continue;
        for (int p = 0; p < NPATTERNS; p++) {
            if (!wanted(argc, argv, first, names[p], names, NPATTERNS))
                continue;
            for (int k = 0; k < (p == COMPUTE ? 1 : nsizes); k++) {
                size_t bytes = p == COMPUTE ? 0 : sizes[k];
                MPI_Datatype vec;
                MPI_Type_vector((int) (bytes / 8), 1, 4, MPI_DOUBLE, &vec);
                MPI_Type_commit(&vec);
                if (p == PERSISTENT) {
                    MPI_Send_init(s, (int) bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &persistent[0]);
                    MPI_Recv_init(r, (int) bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &persistent[1]);
                }
                int skip = iters / 10 + 1;
                double t0 = 0;
                MPI_Barrier(MPI_COMM_WORLD);
                for (int it = 0; it < iters + skip; it++) {
                    if (it == skip)
                        t0 = MPI_Wtime();
                    iteration(p, kind, bytes, it, s, r, d, e, vec);
                }
                double mine = (MPI_Wtime() - t0) / iters, sum = 0;
                MPI_Type_free(&vec);
                if (p == PERSISTENT) {
                    MPI_Request_free(&persistent[0]);
                    MPI_Request_free(&persistent[1]);
                }
                MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
                if (rank == 0)
                    printf("MICRO=%s-%s SIZE=%zu VALUE=%.4f UNIT=us\n", names[p], kinds[kind], bytes,
                           sum / nprocs * 1e6);
            }
        }
    }
    int ok = 0;
    MPI_Allreduce(&verified, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("MICRO=done VERIFIED=%s\n", ok ? "yes" : "no");
    free(s);
    free(r);
    free(d);
    free(e);
    free(pool_a);
    free(pool_b);
    free(pool_c);
    MPI_Finalize();
    return ok ? 0 : 1;
}
