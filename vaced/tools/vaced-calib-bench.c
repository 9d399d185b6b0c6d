/* vaced-calib-bench: the measurements behind vaced/tools/vaced-calibrate.
 * Two or more ranks; build with the UNPATCHED MPICH
 * (install/vanilla/bin/mpicc), whose MPI_Wtime is the host's clock.
 *
 *   mpiexec -n P vaced-calib-bench [-t SECONDS] [-b BATCHES] [-g GAP_US] [-c MIB] pingpong|exchange|stream SIZE...
 *   mpiexec -n 2 vaced-calib-bench [-t SECONDS] [-b BATCHES] [-c MIB] pipeline COMPUTE_US...
 *   mpiexec -n 2 vaced-calib-bench [-g GAP_US] warmup SIZE COUNT
 *   mpiexec -n 2 vaced-calib-bench [-b BATCHES] wakeup DELAY_US...   (both ranks on one host)
 *
 * Rank 0 measures against each peer rank p = 1 .. P-1 in turn (with
 * P = 2: rank 1 only). vaced-calibrate places the peers on hosts at
 * different hop distances from rank 0's host, so that one run measures
 * every distance under the same conditions. A rank that is not part of
 * the current pair waits in a blocking MPI call (ch3:sock waits in poll,
 * it does not spin).
 * pingpong: rank 0 sends SIZE bytes (0 allowed) to rank p with MPI_Send,
 *   rank p returns them (MPI_Recv, MPI_Send), rank 0 receives them; half a
 *   round trip is the one-way time.
 * exchange: rank 0 and rank p send SIZE bytes to each other at once
 *   (MPI_Sendrecv): the one-way time when both directions of the path are
 *   busy, as in a halo exchange (OSU's osu_bibw measures the same effect as
 *   a bandwidth).  A link shaped by tc tbf, or one whose acknowledgements
 *   share the queue of the other direction's data, is slower per direction
 *   than a ping-pong shows.
 *   With -g GAP_US both ranks first compute (a busy loop) for GAP_US
 *   microseconds before each exchange, untimed, as a program computes
 *   between its exchanges: on a TCP link shaped by tbf an exchange after
 *   computation takes longer than one of a back-to-back series.
 * stream: rank 0 sends a window of W messages of SIZE bytes back to back
 *   (MPI_Isend, then MPI_Waitall), rank p receives them (W MPI_Irecv into
 *   W distinct buffers, MPI_Waitall) and answers with a 0-byte message once
 *   the window is in; W = 64, or fewer so that W * SIZE <= 16 MiB (at
 *   least 1). The bandwidth is payload bytes per second.
 *
 * pipeline: the per-message CPU overheads (LogP's o_s and o_r): rank 0
 *   computes for COMPUTE_US microseconds (a busy loop on MPI_Wtime), then
 *   sends 8 bytes to rank 1 (MPI_Send); rank 1 receives them (MPI_Recv),
 *   then computes as long; all repeated.  The two ranks run in step, a
 *   message between two computations, as in a program's pipeline or halo
 *   exchange (a stream of back-to-back messages costs less per message; a
 *   receiver that waits long for each message, with other processes
 *   running on its core meanwhile, more).  The thread CPU time inside each
 *   MPI_Send (rank 0) and each MPI_Recv (rank 1) is then o_s and o_r: CPU
 *   time does not grow when other processes take turns on the CPU, as wall
 *   time does.  Rank 0's time per step less the compute (wall time; about
 *   the larger of the two) is printed too.  With -c MIB the computation
 *   writes through a pool of MIB MiB per rank (one byte per cache line)
 *   instead of only reading the clock: a program's computation streams
 *   through its arrays and evicts MPI's own data, and MPI_Send then costs
 *   more CPU (LU class A: 10.7-14.3 us per 2.5 KiB send, against 8 us
 *   after a computation that touches no memory).  Before each MPI_Send and
 *   MPI_Recv the rank reads VACED's cache canary (vaced/src/cputime/canary.h), and
 *   touches it again after the call, as VACED does around every MPI call:
 *   how cold the computation left it.
 *   (2 ranks only). One line per compute time:
 *   pipeline compute_us=C peer=1 iters=N batches=B min_s=.. p10_s=.. median_s=.. mean_s=..
 *            send_cpu_{min,p10,median,mean}_s=.. recv_cpu_{min,p10,median,mean}_s=..
 *            send_cold_median=.. recv_cold_median=..
 *   with min, p10, median and mean over the batches of each batch's time
 *   per step less the compute, and of its mean CPU time per send and per
 *   receive; the median over the batches of each batch's mean coldness
 *   before a send and before a receive (0 where there is no canary).
 *
 * warmup: how a new connection warms up (TCP's slow start, the socket
 *   buffers' autotuning).  Run it in a fresh job: rank 0 and rank 1 connect
 *   (4 round trips of 0 bytes), then make COUNT exchanges of SIZE bytes
 *   (MPI_Sendrecv), each timed on its own.  One line:
 *   warmup size=S peer=1 count=N times_s=T1,T2,...,TN
 *
 * wakeup: how long a message takes against how long its receiver had been
 *   blocked when it was sent (a rank blocked in MPI_Recv sleeps in poll, and
 *   its CPU idles; waking them takes time).  Both ranks on one host, so that
 *   they share MPI_Wtime's clock.  Every 500 us rank 1 posts MPI_Recv, and
 *   rank 0 sends it 8 bytes (its MPI_Wtime just before MPI_Send) DELAY_US
 *   later; both spin otherwise.  The one-way time is the arrival (MPI_Recv
 *   returns) less that stamp.  BATCHES rounds of 40 messages per delay,
 *   interleaved.  One line per delay:
 *   wakeup delay_us=D peer=1 samples=N blocked_median_s=.. oneway_p10_s=.. oneway_median_s=..
 *
 * A "unit" is one size with one peer. First, for each unit: two warm-up
 * repetitions, then the repetition count of a batch is chosen so that a
 * batch lasts about SECONDS (default 0.05 s; 1 to 100000 repetitions).
 * Then BATCHES rounds (default 7), each timing one batch of every unit in
 * turn (sizes in the order given, for each size every peer):
 * interleaving spreads each unit's batches over the whole run, so a burst
 * of load from elsewhere slows a batch of every size and every peer
 * rather than all batches of one. Each timed batch follows a warm-up of a tenth
 * of its repetitions (at least one), so that it does not inherit the state
 * the previous size left (TCP's acknowledgement mode after a bulk
 * transfer, a token bucket drained by it). One line per unit, sizes in
 * the order given, for each size the peers in rank order:
 *   pingpong size=S peer=P iters=N batches=B min_s=.. p10_s=.. median_s=..
 *            mean_s=.. bmin_s=.. bmedian_s=.. bmax_s=..
 *   exchange ... (the same fields)
 *   stream size=S peer=P window=W iters=N batches=B max_Bps=.. median_Bps=.. min_Bps=..
 * pingpong: min, 10th percentile, median and mean of all the individual
 * one-way times (half round trips), and the fastest, median and slowest
 * batch (one-way time of a batch: its mean over its round trips); stream:
 * the fastest, median and slowest batch. Buffers are touched before
 * timing. Exit status 2 on a usage error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../src/cputime/canary.h"

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
        fprintf(stderr, "usage: %s [-t SECONDS] [-b BATCHES] [-c MIB | -L BYTES] pingpong|exchange|stream SIZE...\n"
                "       %s [-t SECONDS] [-b BATCHES] [-c MIB | -L BYTES] -g GAP_US exchange SIZE...\n"
                "       %s [-t SECONDS] [-b BATCHES] [-c MIB] pipeline COMPUTE_US...\n"
                "       %s [-g GAP_US] warmup SIZE COUNT\n"
                "       %s [-b BATCHES] wakeup DELAY_US...\n"
                "  (2 or more ranks: rank 0 against each other rank; SIZE in bytes;\n"
                "  GAP_US: computation before each exchange, 0-1000000; MIB, 0-4096: cold data,\n"
                "  rotated through pools of MIB MiB; BYTES: the caches, sizes whose two buffers exceed\n"
                "  them rotate; pipeline: a computation writing through MIB MiB;\n"
                "  pipeline, wakeup: exactly 2 ranks, wakeup on one host; DELAY_US 0-200)\n",
                prog, prog, prog, prog, prog);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* -c MIB: the ping-pong and the exchange send from and receive into places
 * that rotate through two pools of MIB MiB each (at least the largest
 * size), so that the data is cold in the caches, as a program's large
 * arrays are; 0 (default): one buffer each, hot after the first time.
 * -L BYTES (the caches' size): only the sizes whose two ranks' buffers
 * exceed BYTES rotate, through pools of at least twice BYTES, since a
 * program's message that large comes from arrays the caches cannot hold;
 * smaller sizes keep one hot buffer. */
static char *cold_send, *cold_recv;
static long cold_bytes, cache_bytes;

static char *place(char *pool, char *hot, int size, long i)
{
    if (!cold_bytes || size == 0 || (cache_bytes && 2L * size <= cache_bytes))
        return hot;
    return pool + (i % (cold_bytes / size)) * size;
}

/* n round trips between rank 0 and rank peer (other ranks do nothing);
 * rank 0 stores the one-way time of each in rec (if not NULL) */
static void roundtrips(char *buf, int size, long n, double *rec, int peer)
{
    if (rank != 0 && rank != peer)
        return;
    for (long i = 0; i < n; i++) {
        char *b = place(cold_send, buf, size, i);
        double t0 = rec ? MPI_Wtime() : 0;
        if (rank == 0) {
            MPI_Send(b, size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
            MPI_Recv(b, size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
        if (rec)
            rec[i] = (MPI_Wtime() - t0) / 2;
    }
}

static void spin_until(double t)
{
    while (MPI_Wtime() < t)
        ;
}

/* pipeline -c MIB: the computation walks through a pool of MIB MiB, a
 * write per cache line, where the last one stopped, as a program's
 * computation streams through its arrays and leaves MPI's own data cold */
static unsigned char *work_pool;
static long work_bytes, work_at;

static void compute_until(double t)
{
    if (!work_pool) {
        spin_until(t);
        return;
    }
    while (MPI_Wtime() < t) {
        for (int k = 0; k < 4096; k += 64)
            work_pool[work_at + k]++;
        work_at = (work_at + 4096) % work_bytes;
    }
}

/* seconds of computation before each exchange (-g) */
static double gap_s;

/* n exchanges between rank 0 and rank peer, each after gap_s of
 * computation; rank 0 stores the time of each (one way, both directions at
 * once) in rec (if not NULL) */
static void exchanges(char *buf, char *rbuf, int size, long n, double *rec, int peer)
{
    if (rank != 0 && rank != peer)
        return;
    for (long i = 0; i < n; i++) {
        if (gap_s > 0)
            spin_until(MPI_Wtime() + gap_s);
        double t0 = rec ? MPI_Wtime() : 0;
        MPI_Sendrecv(place(cold_send, buf, size, i), size, MPI_BYTE, rank ? 0 : peer, TAG,
                     place(cold_recv, rbuf, size, i), size, MPI_BYTE, rank ? 0 : peer,
                     TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rec)
            rec[i] = MPI_Wtime() - t0;
    }
}

/* one timed unit of the ping-pong or exchange kind */
static void pairs(int exch, char *buf, char *rbuf, int size, long n, double *rec, int peer)
{
    if (exch)
        exchanges(buf, rbuf, size, n, rec, peer);
    else
        roundtrips(buf, size, n, rec, peer);
}

static void windows(char **bufs, int size, int w, long n, MPI_Request *req, int peer)
{
    if (rank != 0 && rank != peer)
        return;
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            for (int k = 0; k < w; k++)
                MPI_Isend(bufs[0], size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(w, req, statuses);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < w; k++)
                MPI_Irecv(bufs[k], size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &req[k]);
            MPI_Waitall(w, req, statuses);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG + 1, MPI_COMM_WORLD);
        }
    }
}

#define PIPE_BYTES 8

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* CPU time one pair of thread-clock reads adds to what they bracket: the
 * median of back-to-back pairs. */
static double cpu_read_cost(void)
{
    double d[63];
    for (int i = 0; i < 63; i++) {
        double a = cpu_now();
        d[i] = cpu_now() - a;
    }
    qsort(d, 63, sizeof(double), cmp_double);
    return d[31];
}

static struct vaced_canary canary;

/* n pipeline steps: rank 0 computes compute_s, then sends; rank 1
 * receives, then computes as long.  Returns the time per step less the compute (rank 0's clock,
 * from its first send to its last), in *cpu the thread CPU time per
 * MPI_Send (rank 0) or per MPI_Recv (rank 1), less the clock reads, and
 * in *cold the canary's mean coldness before them. */
static double pipeline(char *buf, double compute_s, long n, double *cpu, double *cold)
{
    double t0 = 0, per = 0, in = 0, coldness = 0, rc = cpu_read_cost();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            compute_until(MPI_Wtime() + compute_s);
            if (i == 0)
                t0 = MPI_Wtime();
            coldness += vaced_canary_coldness(&canary);
            double c0 = cpu_now();
            MPI_Send(buf, PIPE_BYTES, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            in += cpu_now() - c0 - rc;
            vaced_canary_coldness(&canary);
        } else {
            coldness += vaced_canary_coldness(&canary);
            double c0 = cpu_now();
            MPI_Recv(buf, PIPE_BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            in += cpu_now() - c0 - rc;
            vaced_canary_coldness(&canary);
            compute_until(MPI_Wtime() + compute_s);
        }
    }
    if (rank == 0 && n > 1)
        per = (MPI_Wtime() - t0) / (n - 1) - compute_s;
    if (cpu)
        *cpu = in / n;
    if (cold)
        *cold = coldness / n;
    MPI_Bcast(&per, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return per;
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

static void stats(double *v, int n, double out[4])
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    qsort(v, n, sizeof(double), cmp_double);
    out[0] = v[0];
    out[1] = v[n / 10];
    out[2] = v[n / 2];
    out[3] = sum / n;
}

/* The pipeline mode: one line per compute time (microseconds). */
static int pipeline_main(int n, char **us, double batch_s, int batches, long bytes)
{
    char *buf = calloc(bytes, 1);
    double *t = malloc(sizeof(double) * n * batches), *sc = malloc(sizeof(double) * n * batches);
    double *rcv = malloc(sizeof(double) * n * batches);
    double *scold = malloc(sizeof(double) * n * batches), *rcold = malloc(sizeof(double) * n * batches);
    long *count = malloc(sizeof(long) * n);
    vaced_canary_open(&canary);
    pipeline(buf, 0, 100, NULL, NULL);          /* the connection, warm caches */
    for (int i = 0; i < n; i++) {
        double c = atol(us[i]) * 1e-6, best = 1e30;
        for (int k = 0; k < 3; k++) {           /* a step's length, roughly */
            double t0 = MPI_Wtime();
            pipeline(buf, c, 20, NULL, NULL);
            double d = (MPI_Wtime() - t0) / 20;
            if (d < best)
                best = d;
        }
        count[i] = choose_count(best, batch_s);
        if (count[i] < 10)
            count[i] = 10;
    }
    for (int b = 0; b < batches; b++)
        for (int i = 0; i < n; i++) {
            double c = atol(us[i]) * 1e-6, mine[2], both[4];
            pipeline(buf, c, count[i] / 10 > 2 ? count[i] / 10 : 2, NULL, NULL);  /* warm-up */
            t[i * batches + b] = pipeline(buf, c, count[i], &mine[0], &mine[1]);
            MPI_Gather(mine, 2, MPI_DOUBLE, both, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            sc[i * batches + b] = both[0];
            scold[i * batches + b] = both[1];
            rcv[i * batches + b] = both[2];
            rcold[i * batches + b] = both[3];
        }
    for (int i = 0; i < n && rank == 0; i++) {
        double w[4], s[4], r[4], sk[4], rk[4];
        stats(t + i * batches, batches, w);
        stats(sc + i * batches, batches, s);
        stats(rcv + i * batches, batches, r);
        stats(scold + i * batches, batches, sk);
        stats(rcold + i * batches, batches, rk);
        printf("pipeline compute_us=%ld peer=1 iters=%ld batches=%d min_s=%.9e p10_s=%.9e median_s=%.9e "
               "mean_s=%.9e send_cpu_min_s=%.9e send_cpu_p10_s=%.9e send_cpu_median_s=%.9e "
               "send_cpu_mean_s=%.9e recv_cpu_min_s=%.9e recv_cpu_p10_s=%.9e recv_cpu_median_s=%.9e "
               "recv_cpu_mean_s=%.9e send_cold_median=%.4g recv_cold_median=%.4g\n", atol(us[i]),
               count[i], batches, w[0], w[1], w[2], w[3], s[0], s[1], s[2], s[3], r[0], r[1], r[2],
               r[3], sk[2], rk[2]);
    }
    fflush(stdout);
    free(count);
    free(t);
    free(sc);
    free(rcv);
    free(scold);
    free(rcold);
    free(buf);
    free(work_pool);
    vaced_canary_close(&canary);
    MPI_Finalize();
    return 0;
}

/* warmup SIZE COUNT: the exchanges of a new connection, each timed */
static int warmup_main(int argc, char **argv, const char *prog)
{
    char *end;
    long size = argc == 2 ? strtol(argv[0], &end, 10) : -1;
    long count = size >= 0 && !*end ? strtol(argv[1], &end, 10) : -1;
    if (size < 0 || size > (1L << 30) || *end || count < 1 || count > 10000)
        usage(prog);
    char *buf = malloc(size > 0 ? size : 1), *rbuf = malloc(size > 0 ? size : 1);
    double *rec = malloc(sizeof(double) * count);
    memset(buf, 1, size > 0 ? size : 1);
    memset(rbuf, 2, size > 0 ? size : 1);
    roundtrips(buf, 0, 4, NULL, 1);     /* the connection */
    exchanges(buf, rbuf, (int) size, count, rec, 1);
    if (rank == 0) {
        printf("warmup size=%ld peer=1 count=%ld times_s=", size, count);
        for (long i = 0; i < count; i++)
            printf("%s%.6e", i ? "," : "", rec[i]);
        printf("\n");
    }
    free(rec);
    free(rbuf);
    free(buf);
    MPI_Finalize();
    return 0;
}

/* wakeup DELAY_US...: see the header */
static int wakeup_main(int n, char **argv, int batches, const char *prog)
{
    enum { PER_BATCH = 40 };
    const double period = 500e-6;
    double *delay = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        char *end;
        delay[i] = strtod(argv[i], &end) * 1e-6;
        if (*end || end == argv[i] || delay[i] < 0 || delay[i] > 0.4 * period)
            usage(prog);
    }
    long per = (long) batches * PER_BATCH;
    double *way = malloc(sizeof(double) * n * per), *blocked = malloc(sizeof(double) * n * per);
    double t0 = MPI_Wtime() + 0.01;
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long k = 0;
    for (int b = -1; b < batches; b++)          /* round -1 warms up */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < PER_BATCH; j++, k++) {
                double ti = t0 + k * period, stamp;
                if (rank == 0) {
                    spin_until(ti + delay[i]);
                    stamp = MPI_Wtime();
                    MPI_Send(&stamp, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
                } else {
                    spin_until(ti);
                    double post = MPI_Wtime();
                    MPI_Recv(&stamp, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    double now = MPI_Wtime();
                    if (b >= 0) {
                        long at = i * per + (long) b * PER_BATCH + j;
                        way[at] = now - stamp;
                        blocked[at] = stamp - post;
                    }
                }
            }
    if (rank == 1)
        for (int i = 0; i < n; i++) {
            qsort(way + i * per, per, sizeof(double), cmp_double);
            qsort(blocked + i * per, per, sizeof(double), cmp_double);
            printf("wakeup delay_us=%g peer=1 samples=%ld blocked_median_s=%.9e oneway_p10_s=%.9e "
                   "oneway_median_s=%.9e\n", delay[i] * 1e6, per, blocked[i * per + per / 2],
                   way[i * per + per / 10], way[i * per + per / 2]);
        }
    fflush(stdout);
    free(way);
    free(blocked);
    free(delay);
    MPI_Finalize();
    return 0;
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
        else if (!strcmp(argv[a], "-g"))
            gap_s = atof(argv[a + 1]) * 1e-6;
        else if (!strcmp(argv[a], "-c"))
            cold_bytes = atol(argv[a + 1]) << 20;
        else if (!strcmp(argv[a], "-L"))
            cache_bytes = atol(argv[a + 1]);
        else
            usage(argv[0]);
    }
    if (nranks < 2 || a + 1 >= argc || batch_s <= 0 || batches < 1 || batches > MAXBATCH ||
        gap_s < 0 || gap_s > 1 || cold_bytes < 0 || cold_bytes > (4096L << 20) || cache_bytes < 0 ||
        cache_bytes > (4096L << 20) || (cold_bytes && cache_bytes))
        usage(argv[0]);
    if (!strcmp(argv[a], "warmup"))
        return warmup_main(argc - a - 1, argv + a + 1, argv[0]);
    if (!strcmp(argv[a], "wakeup") && nranks == 2)
        return wakeup_main(argc - a - 1, argv + a + 1, batches, argv[0]);
    int stream = !strcmp(argv[a], "stream"), pipe = !strcmp(argv[a], "pipeline");
    int exch = !strcmp(argv[a], "exchange");
    if ((!stream && !pipe && !exch && strcmp(argv[a], "pingpong")) || (pipe && nranks != 2) ||
        (gap_s > 0 && !exch))
        usage(argv[0]);
    a++;
    long maxsize = 0;
    for (int i = a; i < argc; i++) {
        char *end;
        long s = strtol(argv[i], &end, 10);
        if (*end || s < 0 || s > (pipe ? 1000000L : (1L << 30)))
            usage(argv[0]);
        if (s > maxsize)
            maxsize = s;
    }
    if (pipe && cold_bytes > 0) {
        work_bytes = cold_bytes;
        work_pool = malloc(work_bytes);
        if (!work_pool)
            usage(argv[0]);
        memset(work_pool, 1, work_bytes);
    }
    if (pipe)
        return pipeline_main(argc - a, argv + a, batch_s, batches, PIPE_BYTES);
    int nsizes = argc - a, npeers = nranks - 1, nunits = nsizes * npeers;
    int *size = malloc(sizeof(int) * nsizes);
    long *win = malloc(sizeof(long) * nsizes), *count = malloc(sizeof(long) * nunits);
    double *t = malloc(sizeof(double) * nunits * batches);
    long pool = exch && maxsize > 0 ? maxsize : 1;
    for (int i = 0; i < nsizes; i++) {
        size[i] = (int) atol(argv[a + i]);
        long w = size[i] > 0 ? STREAM_BYTES / size[i] : STREAM_WINDOW;
        win[i] = !stream ? 1 : w < 1 ? 1 : w > STREAM_WINDOW ? STREAM_WINDOW : w;
        if (stream && win[i] * size[i] > pool)
            pool = win[i] * size[i];
    }
    if (cache_bytes > 0 && 2 * maxsize > cache_bytes && !stream && !pipe)
        cold_bytes = 2 * cache_bytes;
    if (cold_bytes > 0 && !stream) {
        if (cold_bytes < 2 * maxsize)   /* two places at least: the last one is not reused */
            cold_bytes = 2 * maxsize;
        cold_send = malloc(cold_bytes);
        cold_recv = malloc(cold_bytes);
        if (!cold_send || !cold_recv)
            usage(argv[0]);
        memset(cold_send, 1, cold_bytes);
        memset(cold_recv, 2, cold_bytes);
    } else {
        cold_bytes = 0;
    }
    /* the send buffer; a stream's receive window (distinct buffers) */
    char *buf = malloc(maxsize > 0 ? maxsize : 1), *rbuf = malloc(pool);
    memset(buf, 1, maxsize > 0 ? maxsize : 1);
    memset(rbuf, 2, pool);
    char *bufs[STREAM_WINDOW];
    MPI_Request req[STREAM_WINDOW];

    /* unit u = size u / npeers with peer u % npeers + 1 */
    for (int p = 1; p <= npeers; p++)
        roundtrips(buf, 0, 4, NULL, p); /* the connections */
    for (int u = 0; u < nunits; u++) {
        int i = u / npeers, p = u % npeers + 1;
        double best = 1e30;
        bufs[0] = rank == 0 ? buf : rbuf;
        for (int j = 1; j < win[i]; j++)
            bufs[j] = rbuf + (long) j * size[i];
        for (int k = 0; k < 5; k++) {   /* 2 warm-ups, then the fastest of 3 */
            double t0 = MPI_Wtime();
            if (stream)
                windows(bufs, size[i], (int) win[i], 1, req, p);
            else
                pairs(exch, buf, rbuf, size[i], 1, NULL, p);
            double d = MPI_Wtime() - t0 - (exch ? gap_s : 0);
            if (k >= 2 && d < best)
                best = d;
        }
        count[u] = choose_count(best, batch_s);
    }
    double **rt = calloc(nunits, sizeof(double *));
    for (int u = 0; u < nunits && !stream; u++)
        rt[u] = malloc(sizeof(double) * count[u] * batches);
    for (int b = 0; b < batches; b++) {
        for (int u = 0; u < nunits; u++) {
            int i = u / npeers, p = u % npeers + 1;
            bufs[0] = rank == 0 ? buf : rbuf;
            for (int j = 1; j < win[i]; j++)
                bufs[j] = rbuf + (long) j * size[i];
            /* warm-up: a tenth of the batch, at least one repetition */
            long warm = count[u] / 10 > 0 ? count[u] / 10 : 1;
            if (stream)
                windows(bufs, size[i], (int) win[i], warm, req, p);
            else
                pairs(exch, buf, rbuf, size[i], warm, NULL, p);
            double t0 = MPI_Wtime();
            if (stream)
                windows(bufs, size[i], (int) win[i], count[u], req, p);
            else
                pairs(exch, buf, rbuf, size[i], count[u], rt[u] + (long) b * count[u], p);
            double d = MPI_Wtime() - t0 - (exch ? gap_s * count[u] : 0);
            t[u * batches + b] = stream ? (double) size[i] * win[i] * count[u] / d
                : d / count[u] / (exch ? 1 : 2);
        }
    }
    for (int u = 0; u < nunits && rank == 0; u++) {
        int i = u / npeers, p = u % npeers + 1;
        double *ti = t + u * batches;
        if (getenv("VACED_CALIB_BATCHES")) {     /* debugging: every batch */
            printf("# size=%d peer=%d", size[i], p);
            for (int b = 0; b < batches; b++)
                printf(" %.4e", ti[b]);
            printf("\n");
        }
        qsort(ti, batches, sizeof(double), cmp_double);
        if (stream)
            printf("stream size=%d peer=%d window=%ld iters=%ld batches=%d max_Bps=%.6e "
                   "median_Bps=%.6e min_Bps=%.6e\n", size[i], p, win[i], count[u], batches,
                   ti[batches - 1], ti[batches / 2], ti[0]);
        else {
            long n = count[u] * batches;
            double *r = rt[u], sum = 0;
            for (long k = 0; k < n; k++)
                sum += r[k];
            qsort(r, n, sizeof(double), cmp_double);
            printf("%s size=%d peer=%d iters=%ld batches=%d min_s=%.9e p10_s=%.9e "
                   "median_s=%.9e mean_s=%.9e bmin_s=%.9e bmedian_s=%.9e bmax_s=%.9e\n",
                   exch ? "exchange" : "pingpong", size[i], p, count[u], batches, r[0], r[n / 10], r[n / 2], sum / n,
                   ti[0], ti[batches / 2], ti[batches - 1]);
        }
    }
    for (int u = 0; u < nunits; u++)
        free(rt[u]);
    free(rt);
    fflush(stdout);
    free(size);
    free(win);
    free(count);
    free(t);
    free(rbuf);
    free(buf);
    free(cold_send);
    free(cold_recv);
    MPI_Finalize();
    return 0;
}
