/* Programs whose host message order is the reverse of the target's, made
 * so on purpose: sleeping costs no CPU time, so it delays a rank on the host
 * without moving its target time, while a CPU-bound loop moves both.
 *
 * Usage: adversarial CASE [BYTES]    (3 ranks; BYTES of the cases' messages,
 *        default 1024, up to 200000: rendezvous on the targets used)
 *   wildcard   rank 1 computes ~20 ms then sends to 0; rank 2 sleeps, then
 *              sends; rank 0 sleeps until both are on the host, then receives
 *              twice from MPI_ANY_SOURCE: the target sees rank 2's first.
 *   wildcard-early  the same, but rank 0 receives at once: rank 1's message
 *              is on the host, rank 2's not yet; the receive must wait for
 *              rank 2's clock bound (here: its message) before matching.
 *   probe-early the same with MPI_Probe(MPI_ANY_SOURCE), then MPI_Recv.
 *   wildcard-blocked  rank 2 first waits for a message from rank 0, which
 *              rank 0 sends after its wildcard receive: rank 2 reports
 *              "blocked on you", so rank 0 matches rank 1's message at once,
 *              exactly; then rank 2 answers and rank 0 receives it.
 *   wildcard-chain  rank 2 first waits for rank 1, which waits for rank 0:
 *              rank 0 follows the chain (rank 1 blocked on it, no packet in
 *              flight to rank 2) and matches rank 1's message exactly.
 *   wildcard-unprovable  the same, but rank 2 waits with MPI_ANY_SOURCE: it
 *              could be woken by anyone, so rank 0 cannot prove it late,
 *              takes rank 1's message and marks the prediction approximate
 *              (no hang).
 *   waitany    the same senders; rank 0 waits with MPI_Waitany on two
 *              receives: rank 2's completes first on the target.
 *   waitany-early  the same, but rank 0 waits at once: rank 1's message is on
 *              the host, rank 2's not yet; Waitany waits for rank 2's bound.
 *   waitsome-early  the same, with MPI_Waitsome: its first call reports rank
 *              2's receive only, at its target arrival.
 *   irecv-early  the same senders; rank 0 posts two MPI_Irecv(MPI_ANY_SOURCE)
 *              at once and waits for each: the first gets rank 2's message
 *              (held until rank 2's arrives: rank 1's reached the host first).
 *   irecv-order-early  rank 0 posts MPI_Irecv(MPI_ANY_SOURCE), then
 *              MPI_Irecv from rank 1: rank 1's message, first on the host,
 *              must not go to the later receive while the wildcard could
 *              take it; the wildcard gets rank 2's, the other rank 1's.
 *   irecv-test-early  MPI_Irecv(MPI_ANY_SOURCE) polled with MPI_Test, then
 *              MPI_Recv(MPI_ANY_SOURCE).
 *   irecv-cancel-early  an MPI_Irecv(MPI_ANY_SOURCE) of another tag is
 *              held, then cancelled (prints cancelled=1); then as wildcard.
 *   test-late-early  rank 0 polls MPI_Test on a receive from rank 2, which
 *              sleeps on the host: the loop must end at rank 2's target
 *              arrival, not spin its host sleep into target time; then it
 *              receives rank 1's message.
 *   testany-late-early  the same with MPI_Testany.
 *   test-data-late-early  like test-late-early, but rank 2 starts its send
 *              (MPI_Isend) before it sleeps and waits for it after: a
 *              rendezvous receive matches its REQ at once, and its DATA,
 *              which rank 2 sends when it wakes, is what comes late.
 *   iprobe-early  rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE) and receives what
 *              it finds, twice: rank 2's message first.
 *   mprobe-early, improbe-early  the same with MPI_Mprobe (blocking) and a
 *              polling MPI_Improbe, each followed by MPI_Mrecv.
 *   issend-test-early  rank 0 polls MPI_Test on an MPI_Issend to rank 2, which
 *              sleeps on the host before it posts the receive: the loop must
 *              end at the ACK's target arrival (eager, synchronous) or when
 *              the DATA leaves (rendezvous), not spin rank 2's host sleep
 *              into target time; then it receives rank 1's message.
 *   waitany-send-early  rank 0 posts an MPI_Issend to rank 2 (asleep on the
 *              host, as above) and an MPI_Irecv from rank 1, and waits with
 *              MPI_Waitany twice: the send completes first on the target,
 *              though the receive completes first on the host.
 *   late       rank 1 computes ~20 ms then sends to 0; rank 0 sleeps, so the
 *              message is on the host long before its receive is posted,
 *              which on the target is long before the message arrives.
 *   test       like late, but rank 0 polls with MPI_Test: the first test
 *              finds nothing (the message has not arrived on the target),
 *              and the polling loop ends when it has.
 * The paper's Fig. 4: rank 0 waits twice (wait 1, for a message from rank
 * 2, then wait 2 for message A from rank 1) with computation between.
 *   fig4b-data  A (eager) reaches the host during wait 1, but the target
 *               only during the computation: wait 2 copies it at its start.
 *   fig4b-req   A is rendezvous, its receive posted after the RTS reached
 *               the host but before it reaches the target: the CTS leaves at
 *               wait 2's start, not at the post.
 *   fig4b-ack   rank 1 is the rendezvous sender; it tests once after the
 *               CTS reached its host but before it reaches the target: the
 *               DATA leaves at its wait's start, not at the test.
 *   fig4c-data  A (eager) reaches the target during wait 1 but the host
 *               only during wait 2: wait 2 ends at once.
 *   fig4c-req   the same with A rendezvous: the target answers the RTS in
 *               wait 1, so A completes before wait 2 starts.
 * Each rank prints `t_<event>=<MPI_Wtime>` values; rank 0 prints what it
 * matched.  The test computes the expected target times from them. */
#define _GNU_SOURCE     /* syscall */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BYTES 1024
#define BIG 200000               /* rendezvous on the targets used */

/* Size of the messages the cases are about (argv[2]; default BYTES). */
static int msg_bytes = BYTES;
static char buf[BIG], buf2[BIG];

static void burn_cpu(double seconds)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    volatile double x = 1;
    do {
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 < seconds);
}

/* A delay on the host only: the system call itself, not nanosleep(),
 * whose sleeps the program's target clock counts (program_clocks.c). */
static void sleep_s(double s)
{
    struct timespec ts = { (time_t) s, (long) ((s - (time_t) s) * 1e9) };
    syscall(SYS_nanosleep, &ts, NULL);
}

/* Rank 1 computes then sends to rank 0 (tag 1); rank 2 waits first (on
 * rank 0, or on rank 1 which waits on rank 0) and sends to rank 0 after. */
/* Rank 0 of the irecv-* cases: two receives of tag 1 (see the top). */
static void irecv_wildcards(const char *mode, double t_post)
{
    MPI_Request r[2];
    MPI_Status st;
    int src[2], cancelled = -1, tests = 0;
    double t[2];

    if (!strcmp(mode, "irecv-cancel-early")) {
        MPI_Request c;
        MPI_Irecv(buf2, 1, MPI_BYTE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, &st);
        MPI_Test_cancelled(&st, &cancelled);
    }
    if (!strcmp(mode, "irecv-test-early")) {
        int flag = 0;
        MPI_Irecv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r[0]);
        while (!flag) {
            MPI_Test(&r[0], &flag, &st);
            tests++;
        }
        t[0] = MPI_Wtime();
        src[0] = st.MPI_SOURCE;
        MPI_Recv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        t[1] = MPI_Wtime();
        src[1] = st.MPI_SOURCE;
    } else {
        int second_from = !strcmp(mode, "irecv-order-early") ? 1 : MPI_ANY_SOURCE;
        MPI_Irecv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(buf2, msg_bytes, MPI_BYTE, second_from, 1, MPI_COMM_WORLD, &r[1]);
        for (int i = 0; i < 2; i++) {
            MPI_Wait(&r[i], &st);
            t[i] = MPI_Wtime();
            src[i] = st.MPI_SOURCE;
        }
    }
    printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f cancelled=%d tests=%d\n",
           t_post, src[0], t[0], src[1], t[1], cancelled, tests);
}

/* Rank 0 of test-late-early and iprobe-early (see the top). */
static void polling(const char *mode, double t_post)
{
    MPI_Status st;
    int src[2], polls = 0;
    double t[2];

    for (int i = 0; i < 2; i++) {
        int flag = 0;
        if (!strcmp(mode, "iprobe-early")) {
            while (!flag) {
                MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
                polls++;
            }
            MPI_Recv(buf, msg_bytes, MPI_BYTE, st.MPI_SOURCE, 1, MPI_COMM_WORLD, &st);
        } else if (strstr(mode, "mprobe")) {
            MPI_Message m;
            if (!strcmp(mode, "mprobe-early"))
                MPI_Mprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &m, &st);
            else
                while (!flag) {
                    MPI_Improbe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &m, &st);
                    polls++;
                }
            MPI_Mrecv(buf, msg_bytes, MPI_BYTE, &m, &st);
        } else if (i == 0) {
            MPI_Request r;
            MPI_Irecv(buf, msg_bytes, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r);
            while (!flag) {
                int idx;
                if (!strcmp(mode, "testany-late-early"))
                    MPI_Testany(1, &r, &idx, &flag, &st);
                else
                    MPI_Test(&r, &flag, &st);
                polls++;
            }
        } else
            MPI_Recv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st);
        t[i] = MPI_Wtime();
        src[i] = st.MPI_SOURCE;
    }
    printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f polls=%d\n", t_post,
           src[0], t[0], src[1], t[1], polls);
}

static void chains(int rank, const char *mode)
{
    int via_1 = strcmp(mode, "wildcard-blocked") != 0;
    int any = !strcmp(mode, "wildcard-unprovable");
    MPI_Status st;

    if (rank == 1) {
        burn_cpu(0.02);
        double t = MPI_Wtime();
        MPI_Send(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        printf("rank=1 t_send=%.9f\n", t);
        if (via_1) {
            MPI_Recv(buf, msg_bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
            MPI_Send(buf, msg_bytes, MPI_BYTE, 2, 3, MPI_COMM_WORLD);
        }
    } else if (rank == 2) {
        MPI_Recv(buf, msg_bytes, MPI_BYTE, any ? MPI_ANY_SOURCE : via_1 ? 1 : 0, 3, MPI_COMM_WORLD, &st);
        double t = MPI_Wtime();
        MPI_Send(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        printf("rank=2 t_send=%.9f\n", t);
    } else if (rank == 0) {
        double t_post = MPI_Wtime();
        MPI_Recv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        double t1 = MPI_Wtime();
        int first = st.MPI_SOURCE;
        double t_go = MPI_Wtime();
        MPI_Send(buf, msg_bytes, MPI_BYTE, via_1 ? 1 : 2, 3, MPI_COMM_WORLD);
        MPI_Recv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        printf("rank=0 t_post=%.9f first=%d t_first=%.9f t_go=%.9f second=%d t_second=%.9f\n",
               t_post, first, t1, t_go, st.MPI_SOURCE, MPI_Wtime());
    }
    fflush(stdout);
}

static void fig4(int rank, const char *mode)
{
    static char a[BIG], x[8];
    int big = strstr(mode, "req") || strstr(mode, "ack");
    int n = big ? BIG : BYTES;
    int late_b = !strncmp(mode, "fig4b", 5);    /* A late on the target, early on the host */
    MPI_Request r;

    if (rank == 2) {                            /* wait 1's message */
        if (late_b)
            sleep_s(0.3);                       /* holds rank 0 in wait 1 on the host */
        else
            burn_cpu(0.02);                     /* wait 1 lasts 20 ms on the target */
        MPI_Send(x, sizeof x, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {                     /* A's sender */
        if (!strcmp(mode, "fig4b-ack")) {
            int flag;
            double t_send = MPI_Wtime();
            MPI_Isend(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r);
            sleep_s(0.3);                       /* the CTS reaches the host */
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            burn_cpu(0.01);
            double t_wait = MPI_Wtime();
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            double t_done = MPI_Wtime();
            printf("rank=1 t_send=%.9f first_test=%d t_wait=%.9f t_done=%.9f\n", t_send, flag,
                   t_wait, t_done);
            return;
        }
        if (late_b)
            burn_cpu(0.005);                    /* reaches the target at ~5 ms */
        else
            sleep_s(0.5);                       /* reaches the host during wait 2 */
        double t_send = MPI_Wtime();
        MPI_Send(a, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        double t_sent = MPI_Wtime();
        printf("rank=1 t_send=%.9f t_sent=%.9f\n", t_send, t_sent);
    } else if (rank == 0) {
        if (!strcmp(mode, "fig4b-req"))
            sleep_s(0.2);                       /* the RTS reaches the host before the post */
        MPI_Irecv(a, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r);
        double t_post = MPI_Wtime();
        if (strcmp(mode, "fig4b-req") && strcmp(mode, "fig4b-ack"))
            MPI_Recv(x, sizeof x, MPI_BYTE, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t_wait1 = MPI_Wtime();
        if (strcmp(mode, "fig4b-ack"))
            burn_cpu(0.01);                     /* computation between the waits */
        double t_wait2 = MPI_Wtime();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        printf("rank=0 t_post=%.9f t_wait1_end=%.9f t_wait2=%.9f t_done=%.9f\n", t_post, t_wait1,
               t_wait2, MPI_Wtime());
        if (!strcmp(mode, "fig4b-req") || !strcmp(mode, "fig4b-ack"))
            MPI_Recv(x, sizeof x, MPI_BYTE, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (argc > 2 && atoi(argv[2]) > 0 && atoi(argv[2]) <= BIG)
        msg_bytes = atoi(argv[2]);
    MPI_Status st;

    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "adversarial needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Connect every pair and run each send path once first: a first
     * message waits on the host for its connection, whose set-up needs the
     * receiver's progress engine, and a first call's code faults in. */
    for (int i = 0; i < 2; i++)
        MPI_Sendrecv(buf, 1, MPI_BYTE, (rank + 1) % size, 9, buf2, 1, MPI_BYTE,
                     (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, BYTES, MPI_BYTE, (rank + 1) % size, 9, MPI_COMM_WORLD);
    MPI_Recv(buf2, BYTES, MPI_BYTE, (rank + size - 1) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    if (!strncmp(mode, "fig4", 4)) {
        fig4(rank, mode);
        MPI_Finalize();
        return 0;
    }
    if (!strncmp(mode, "wildcard-", 9) && strcmp(mode, "wildcard-early")) {
        chains(rank, mode);
        MPI_Finalize();
        return 0;
    }
    int two_senders = strstr(mode, "waitany") || strstr(mode, "waitsome") || strstr(mode, "wildcard") ||
        strstr(mode, "probe") || strstr(mode, "irecv") || strstr(mode, "-late-");
    if (rank == 1) {
        burn_cpu(0.02);                         /* late on the target, early on the host */
        double t = MPI_Wtime();
        MPI_Send(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        printf("rank=1 t_send=%.9f\n", t);
    } else if (rank == 2 && (!strcmp(mode, "issend-test-early") || !strcmp(mode, "waitany-send-early"))) {
        sleep_s(0.3);                           /* early on the target, late on the host */
        double t = MPI_Wtime();
        MPI_Recv(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        printf("rank=2 t_post=%.9f\n", t);
    } else if (rank == 2 && !strcmp(mode, "test-data-late-early")) {
        MPI_Request r;
        double t = MPI_Wtime();
        MPI_Isend(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r);
        sleep_s(0.3);                           /* its DATA: early on the target, late on the host */
        MPI_Wait(&r, &st);
        printf("rank=2 t_send=%.9f\n", t);
    } else if (rank == 2 && two_senders) {
        sleep_s(0.3);                           /* early on the target, late on the host */
        double t = MPI_Wtime();
        MPI_Send(buf, msg_bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        printf("rank=2 t_send=%.9f\n", t);
    } else if (rank == 0) {
        if (!strstr(mode, "early"))
            sleep_s(0.6);                       /* every message is on the host by now */
        double t_post = MPI_Wtime();
        if (!strcmp(mode, "probe-early")) {
            int src[2];
            double t[2];
            for (int i = 0; i < 2; i++) {
                MPI_Probe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
                src[i] = st.MPI_SOURCE;
                MPI_Recv(buf, msg_bytes, MPI_BYTE, src[i], 1, MPI_COMM_WORLD, &st);
                t[i] = MPI_Wtime();
            }
            printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f\n", t_post,
                   src[0], t[0], src[1], t[1]);
        } else if (!strncmp(mode, "irecv", 5)) {
            irecv_wildcards(mode, t_post);
        } else if (strstr(mode, "-late-early") || !strcmp(mode, "iprobe-early") ||
                   !strcmp(mode, "mprobe-early") || !strcmp(mode, "improbe-early")) {
            polling(mode, t_post);
        } else if (strstr(mode, "wildcard")) {
            MPI_Recv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            double t1 = MPI_Wtime();
            int first = st.MPI_SOURCE;
            MPI_Recv(buf, msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f\n", t_post,
                   first, t1, st.MPI_SOURCE, MPI_Wtime());
        } else if (!strcmp(mode, "waitany-send-early")) {
            MPI_Request r[2];
            int idx[2];
            double t[2];
            MPI_Issend(buf2, msg_bytes, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[1]);
            for (int i = 0; i < 2; i++) {
                MPI_Waitany(2, r, &idx[i], &st);
                t[i] = MPI_Wtime();
            }
            printf("rank=0 t_isend=%.9f first=%d t_first=%.9f second=%d t_second=%.9f\n", t_post,
                   idx[0] ? 1 : 2, t[0], idx[1] ? 1 : 2, t[1]);
        } else if (!strcmp(mode, "waitsome-early")) {
            MPI_Request r[2];
            MPI_Status sts[2];
            int idx[2], n, first_n;
            MPI_Irecv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(buf2, msg_bytes, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Waitsome(2, r, &first_n, idx, sts);
            double t1 = MPI_Wtime();
            int first = sts[0].MPI_SOURCE, second = first_n > 1 ? sts[1].MPI_SOURCE : -1;
            if (first_n == 1) {
                MPI_Waitsome(2, r, &n, idx, sts);
                second = sts[0].MPI_SOURCE;
            }
            printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f first_count=%d\n",
                   t_post, first, t1, second, MPI_Wtime(), first_n);
        } else if (strstr(mode, "waitany")) {
            MPI_Request r[2];
            int idx;
            MPI_Irecv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Irecv(buf2, msg_bytes, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Waitany(2, r, &idx, &st);
            double t1 = MPI_Wtime();
            int first = st.MPI_SOURCE;
            MPI_Waitany(2, r, &idx, &st);
            printf("rank=0 t_post=%.9f first=%d t_first=%.9f second=%d t_second=%.9f\n", t_post,
                   first, t1, st.MPI_SOURCE, MPI_Wtime());
        } else if (!strcmp(mode, "issend-test-early")) {
            MPI_Request r;
            int flag = 0, polls = 0;
            double t_isend = MPI_Wtime();
            MPI_Issend(buf2, msg_bytes, MPI_BYTE, 2, 1, MPI_COMM_WORLD, &r);
            while (!flag) {
                MPI_Test(&r, &flag, &st);
                polls++;
            }
            double t_sent = MPI_Wtime();
            MPI_Recv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st);
            printf("rank=0 t_isend=%.9f t_sent=%.9f polls=%d t_second=%.9f\n", t_isend, t_sent,
                   polls, MPI_Wtime());
        } else if (!strcmp(mode, "late")) {
            MPI_Recv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st);
            printf("rank=0 t_post=%.9f t_recv=%.9f\n", t_post, MPI_Wtime());
        } else if (!strcmp(mode, "test")) {
            MPI_Request r;
            int flag = 0, first_flag, tests = 0;
            MPI_Irecv(buf, msg_bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r);
            MPI_Test(&r, &first_flag, &st);
            flag = first_flag;
            while (!flag) {
                MPI_Test(&r, &flag, &st);
                tests++;
            }
            printf("rank=0 t_post=%.9f first_test=%d tests=%d t_recv=%.9f\n", t_post, first_flag,
                   tests, MPI_Wtime());
        }
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
