/* vaced-calib-bench: the measurements behind vaced/tools/vaced-calibrate.
 * Two ranks; build with the UNPATCHED MPICH (install/vanilla/bin/mpicc),
 * whose MPI_Wtime is the host's clock.
 *
 *   mpiexec -n 2 vaced-calib-bench [-t SECONDS] [-b BATCHES] pingpong|stream SIZE...
 *
 * pingpong: rank 0 sends SIZE bytes (0 allowed) to rank 1 with MPI_Send,
 *   rank 1 returns them (MPI_Recv, MPI_Send), rank 0 receives them; half a
 *   round trip is the one-way time.
 * stream: rank 0 sends a window of W messages of SIZE bytes back to back
 *   (MPI_Isend, then MPI_Waitall), rank 1 receives them (W MPI_Irecv into
 *   W distinct buffers, MPI_Waitall) and answers with a 0-byte message once
 *   the window is in; W = 64, or fewer so that W * SIZE <= 16 MiB (at
 *   least 1). The bandwidth is payload bytes per second.
 *
 * First, for each size: two warm-up repetitions, then the repetition
 * count of a batch is chosen so that a batch lasts about SECONDS (default
 * 0.05 s; 1 to 100000 repetitions). Then BATCHES rounds (default 7), each
 * timing one batch of every size in turn after one warm-up repetition:
 * interleaving the sizes spreads each size's batches over the whole run,
 * so a burst of load from elsewhere slows a batch of every size rather
 * than all batches of one. Each timed batch follows a warm-up of a tenth
 * of its repetitions (at least one), so that it does not inherit the state
 * the previous size left (TCP's acknowledgement mode after a bulk
 * transfer, a token bucket drained by it). One line per size, in the
 * order given:
 *   pingpong size=S iters=N batches=B min_s=.. median_s=.. max_s=..
 *   stream size=S window=W iters=N batches=B max_Bps=.. median_Bps=.. min_Bps=..
 * with the fastest, median and slowest batch (one-way time of a batch: its
 * mean over its round trips). Buffers are touched before timing. Exit
 * status 2 on a usage error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 11
#define MAXBATCH 1000
#define STREAM_WINDOW 64
#define STREAM_BYTES (16L << 20)

static int rank;
static MPI_Status statuses[STREAM_WINDOW];

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void usage(const char *prog)
{
    if (rank == 0)
        fprintf(stderr, "usage: %s [-t SECONDS] [-b BATCHES] pingpong|stream SIZE...\n"
                "  (exactly 2 ranks; SIZE in bytes)\n", prog);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* n round trips; rank 0 stores the one-way time of each in rec (if not NULL) */
static void roundtrips(char *buf, int size, long n, double *rec)
{
    for (long i = 0; i < n; i++) {
        double t0 = rec ? MPI_Wtime() : 0;
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(buf, size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
        if (rec)
            rec[i] = (MPI_Wtime() - t0) / 2;
    }
}

static void windows(char **bufs, int size, int w, long n, MPI_Request *req)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            for (int k = 0; k < w; k++)
                MPI_Isend(bufs[0], size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(w, req, statuses);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < w; k++)
                MPI_Irecv(bufs[k], size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(w, req, statuses);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD);
        }
    }
}

/* Round trips (pingpong) or windows (stream) per batch so that a batch
 * lasts about batch_s; rank 0 decides, both ranks use its choice. */
static long choose_count(double unit_s, double batch_s)
{
    long n = 0;
    if (rank == 0) {
        double c = unit_s > 0 ? batch_s / unit_s : 100000;
        n = c < 1 ? 1 : c > 100000 ? 100000 : (long) c;
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double batch_s = 0.05;
    int batches = 7, a = 1;
    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (a + 1 >= argc)
            usage(argv[0]);
        if (!strcmp(argv[a], "-t"))
            batch_s = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "-b"))
            batches = atoi(argv[a + 1]);
        else
            usage(argv[0]);
    }
    if (nranks != 2 || a + 1 >= argc || batch_s <= 0 || batches < 1 || batches > MAXBATCH)
        usage(argv[0]);
    int stream = !strcmp(argv[a], "stream");
    if (!stream && strcmp(argv[a], "pingpong"))
        usage(argv[0]);
    a++;
    long maxsize = 0;
    for (int i = a; i < argc; i++) {
        char *end;
        long s = strtol(argv[i], &end, 10);
        if (*end || s < 0 || s > (1L << 30))
            usage(argv[0]);
        if (s > maxsize)
            maxsize = s;
    }
    int nsizes = argc - a;
    int *size = malloc(sizeof(int) * nsizes);
    long *win = malloc(sizeof(long) * nsizes), *count = malloc(sizeof(long) * nsizes);
    double *t = malloc(sizeof(double) * nsizes * batches);
    long pool = 1;
    for (int i = 0; i < nsizes; i++) {
        size[i] = (int) atol(argv[a + i]);
        long w = size[i] > 0 ? STREAM_BYTES / size[i] : STREAM_WINDOW;
        win[i] = !stream ? 1 : w < 1 ? 1 : w > STREAM_WINDOW ? STREAM_WINDOW : w;
        if (stream && win[i] * size[i] > pool)
            pool = win[i] * size[i];
    }
    /* the send buffer; a stream's receive window (distinct buffers) */
    char *buf = malloc(maxsize > 0 ? maxsize : 1), *rbuf = malloc(pool);
    memset(buf, 1, maxsize > 0 ? maxsize : 1);
    memset(rbuf, 2, pool);
    char *bufs[STREAM_WINDOW];
    MPI_Request req[STREAM_WINDOW];

    roundtrips(buf, 0, 4, NULL);        /* the connection */
    for (int i = 0; i < nsizes; i++) {
        double best = 1e30;
        for (int k = 0; k < 5; k++) {   /* 2 warm-ups, then the fastest of 3 */
            double t0 = MPI_Wtime();
            if (stream) {
                bufs[0] = buf;
                for (int j = 1; j < win[i]; j++)
                    bufs[j] = rbuf + (long) j * size[i];
                if (rank == 1)
                    bufs[0] = rbuf;
                windows(bufs, size[i], (int) win[i], 1, req);
            } else {
                roundtrips(buf, size[i], 1, NULL);
            }
            double d = MPI_Wtime() - t0;
            if (k >= 2 && d < best)
                best = d;
        }
        count[i] = choose_count(best, batch_s);
    }
    double **rt = calloc(nsizes, sizeof(double *));
    for (int i = 0; i < nsizes && !stream; i++)
        rt[i] = malloc(sizeof(double) * count[i] * batches);
    for (int b = 0; b < batches; b++) {
        for (int i = 0; i < nsizes; i++) {
            bufs[0] = rank == 1 ? rbuf : buf;
            for (int j = 1; j < win[i]; j++)
                bufs[j] = rbuf + (long) j * size[i];
            /* warm-up: a tenth of the batch, at least one repetition */
            long warm = count[i] / 10 > 0 ? count[i] / 10 : 1;
            if (stream)
                windows(bufs, size[i], (int) win[i], warm, req);
            else
                roundtrips(buf, size[i], warm, NULL);
            double t0 = MPI_Wtime();
            if (stream)
                windows(bufs, size[i], (int) win[i], count[i], req);
            else
                roundtrips(buf, size[i], count[i], rt[i] + (long) b * count[i]);
            double d = MPI_Wtime() - t0;
            t[i * batches + b] = stream ? (double) size[i] * win[i] * count[i] / d : d / count[i] / 2;
        }
    }
    for (int i = 0; i < nsizes && rank == 0; i++) {
        double *ti = t + i * batches;
        if (getenv("VACED_CALIB_BATCHES")) {     /* debugging: every batch */
            printf("# size=%d", size[i]);
            for (int b = 0; b < batches; b++)
                printf(" %.4e", ti[b]);
            printf("\n");
        }
        qsort(ti, batches, sizeof(double), cmp_double);
        if (stream)
            printf("stream size=%d window=%ld iters=%ld batches=%d max_Bps=%.6e median_Bps=%.6e min_Bps=%.6e\n",
                   size[i], win[i], count[i], batches, ti[batches - 1], ti[batches / 2], ti[0]);
        else {
            long n = count[i] * batches;
            double *r = rt[i], sum = 0;
            for (long k = 0; k < n; k++)
                sum += r[k];
            qsort(r, n, sizeof(double), cmp_double);
            printf("pingpong size=%d iters=%ld batches=%d min_s=%.9e p10_s=%.9e median_s=%.9e "
                   "mean_s=%.9e bmin_s=%.9e bmedian_s=%.9e bmax_s=%.9e\n",
                   size[i], count[i], batches, r[0], r[n / 10], r[n / 2], sum / n,
                   ti[0], ti[batches / 2], ti[batches - 1]);
        }
    }
    for (int i = 0; i < nsizes; i++)
        free(rt[i]);
    free(rt);
    fflush(stdout);
    free(size);
    free(win);
    free(count);
    free(t);
    free(rbuf);
    free(buf);
    MPI_Finalize();
    return 0;
}
