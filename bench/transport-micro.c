/* What one message costs the host when many processes share its cores,
 * for three ways two processes of one host can talk (issue 40): loopback
 * TCP (ch3:sock's transport before patch 0013), a Unix stream socket
 * (after it), and a shared-memory slot with an eventfd doorbell rung only
 * when the reader sleeps (the design the issue names; not in MPICH).
 * P processes in P/2 pairs ping-pong K messages of an 80-byte header (the
 * CH3 packet) and S payload bytes; every wait sleeps (poll), as ch3:sock's
 * does, never spins.  Prints the host wall time per message over all
 * pairs: with P above the cores, the host's cost of a message, wake-up and
 * context switch included.
 *
 * Usage: transport-micro tcp|unix|shm P K S
 *   transport-micro-line: mode=unix procs=64 msgs=20000 bytes=1024 wall_s=... us_per_msg=... */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HDR 80
#define MAXBYTES (1 << 20)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void tcp_pair(int sv[2])
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (void *) &a, sizeof a) || listen(l, 1) || getsockname(l, (void *) &a, &n))
        die("tcp listener");
    sv[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (sv[0] < 0 || connect(sv[0], (void *) &a, sizeof a) || (sv[1] = accept(l, 0, 0)) < 0)
        die("tcp connect");
    close(l);
    setsockopt(sv[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* reads n bytes, sleeping in poll when none are there, as ch3:sock does */
static void sock_read(int fd, char *b, size_t n)
{
    struct pollfd p = {fd, POLLIN, 0};
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r > 0)
            got += (size_t) r;
        else if (r == 0)
            exit(1);
        else
            poll(&p, 1, -1);
    }
}

/* One direction's slot: the writer fills data and bumps seq; it rings
 * the reader's eventfd only when the reader said it sleeps. */
struct slot {
    _Atomic unsigned seq;
    _Atomic int sleeping;
    char data[HDR + MAXBYTES];
};

static void shm_send(struct slot *s, int bell, const char *m, size_t n)
{
    memcpy(s->data, m, n);
    atomic_fetch_add(&s->seq, 1);
    if (atomic_load(&s->sleeping)) {
        uint64_t one = 1;
        if (write(bell, &one, sizeof one) != sizeof one)
            die("doorbell");
    }
}

static void shm_recv(struct slot *s, int bell, unsigned *seen, char *m, size_t n)
{
    for (;;) {
        if (atomic_load(&s->seq) != *seen)
            break;
        atomic_store(&s->sleeping, 1);
        if (atomic_load(&s->seq) == *seen) {   /* re-check: no lost wake-up */
            struct pollfd p = {bell, POLLIN, 0};
            uint64_t v;
            poll(&p, 1, -1);
            if (read(bell, &v, sizeof v) < 0)
                die("doorbell read");
        }
        atomic_store(&s->sleeping, 0);
    }
    (*seen)++;
    memcpy(m, s->data, n);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return fprintf(stderr, "usage: transport-micro tcp|unix|shm P K S\n"), 2;
    const char *mode = argv[1];
    int procs = atoi(argv[2]), msgs = atoi(argv[3]);
    size_t bytes = (size_t) atol(argv[4]);
    int shm = strcmp(mode, "shm") == 0;
    if (procs < 2 || msgs < 1 || bytes > MAXBYTES || (!shm && strcmp(mode, "tcp") && strcmp(mode, "unix")))
        return fprintf(stderr, "transport-micro: bad arguments\n"), 2;

    double t0 = now_s();
    for (int pair = 0; pair < procs / 2; pair++) {
        int sv[2] = {-1, -1}, bell[2] = {-1, -1};
        struct slot *slots = NULL;
        if (shm) {
            slots = mmap(NULL, 2 * sizeof *slots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            bell[0] = eventfd(0, 0);
            bell[1] = eventfd(0, 0);
            if (slots == MAP_FAILED || bell[0] < 0 || bell[1] < 0)
                die("shm");
        } else if (strcmp(mode, "tcp") == 0) {
            tcp_pair(sv);
        } else if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
            die("socketpair");
        }
        for (int side = 0; side < 2; side++) {
            pid_t pid = fork();
            if (pid < 0)
                die("fork");
            if (pid > 0)
                continue;
            char *buf = calloc(1, HDR + bytes);
            unsigned seen = 0;
            for (int k = 0; k < msgs; k++) {
                if ((k & 1) == side) {
                    if (shm) {
                        shm_send(&slots[1 - side], bell[1 - side], buf, HDR + bytes);
                    } else {
                        struct iovec io[2] = {{buf, HDR}, {buf + HDR, bytes}};
                        ssize_t w = writev(sv[side], io, bytes ? 2 : 1);
                        if (w != (ssize_t) (HDR + bytes))
                            die("writev (a short write is not retried here)");
                    }
                } else if (shm) {
                    shm_recv(&slots[side], bell[side], &seen, buf, HDR + bytes);
                } else {
                    sock_read(sv[side], buf, HDR);
                    if (bytes)
                        sock_read(sv[side], buf + HDR, bytes);
                }
            }
            _exit(0);
        }
        if (!shm) {
            close(sv[0]);
            close(sv[1]);
        }
    }
    int status, bad = 0;
    while (wait(&status) > 0)
        bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    double wall = now_s() - t0;
    printf("transport-micro mode=%s procs=%d msgs=%d bytes=%zu wall_s=%.3f us_per_msg=%.2f%s\n", mode,
           procs / 2 * 2, msgs, bytes, wall, 1e6 * wall / ((double) (procs / 2) * msgs), bad ? " FAILED" : "");
    return bad;
}
