/* Unit tests of the shared-memory rings under a same-host sock
 * (vaced/src/transport/link.c): the first byte's exchange in either
 * order, socket-like partial transfers, the ring's size
 * ($VACED_RING_KB), the doorbell rung only for a
 * sleeper, the end of the stream after the last bytes, a bad first byte,
 * and 4 MiB between two processes that sleep on their doorbells: intact,
 * no lost wake-up, the end seen. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "vaced_link.h"

static unsigned char byte_at(uint64_t i)
{
    return (unsigned char) (i * 2654435761u >> 13);
}

/* Waits on the doorbell and the socket; 0 when woken, 1 after 10 s. */
static int sleep_on(int sock)
{
    struct pollfd p[2] = {{vaced_link_doorbell(), POLLIN, 0}, {sock, POLLIN, 0}};
    int n = poll(p, 2, 10000);
    vaced_link_doorbell_drain();
    return n == 0;
}

static int rung(void)
{
    struct pollfd p = {vaced_link_doorbell(), POLLIN, 0};
    int r = poll(&p, 1, 0) == 1;
    vaced_link_doorbell_drain();
    return r;
}

#define TOTAL (4u << 20)

static int writer(int sock)
{
    static unsigned char buf[9000];
    struct vaced_link *l = vaced_link_open(sock);
    uint64_t sent = 0;
    unsigned seed = 3;
    if (l == NULL)
        return 2;
    while (sent < TOTAL) {
        size_t len = 1 + (size_t) rand_r(&seed) % sizeof buf;
        ssize_t got;
        if (len > TOTAL - sent)
            len = TOTAL - sent;
        for (size_t i = 0; i < len; i++)
            buf[i] = byte_at(sent + i);
        struct iovec v[2] = {{buf, len / 2}, {buf + len / 2, len - len / 2}};
        while ((got = vaced_link_writev(l, sock, v, 2)) == 0) {
            int asleep = vaced_link_may_sleep(l, 0, 1);
            if (asleep && sleep_on(sock))
                return 1;
            vaced_link_awake(l);
        }
        sent += (uint64_t) got;
    }
    vaced_link_close(l);
    close(sock);
    return 0;
}

/* First, before this process has a doorbell that a child would share. */
static void test_two_processes(void)
{
    int s[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(s[0]);
        _exit(writer(s[1]));
    }
    close(s[1]);
    struct vaced_link *l = vaced_link_open(s[0]);
    CHECK(l != NULL);
    if (l == NULL) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return;
    }
    static unsigned char buf[7000];
    uint64_t got = 0, wrong = 0, sleeps = 0;
    unsigned seed = 4;
    int lost = 0, end = 0;
    while (!lost && !end) {
        struct iovec v = {buf, 1 + (size_t) rand_r(&seed) % sizeof buf};
        ssize_t n = vaced_link_readv(l, s[0], &v, 1, 1);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            /* the end; a reset when the writer, which never reads, closed
             * with this side's first byte unread in its socket */
            end = 1;
        } else if (n < 0) {
            if (errno != EAGAIN)
                break;
            if (vaced_link_may_sleep(l, 1, 0)) {
                sleeps++;
                lost = sleep_on(s[0]);
            }
            vaced_link_awake(l);
        } else {
            for (ssize_t i = 0; i < n; i++)
                wrong += buf[i] != byte_at(got + (uint64_t) i);
            got += (uint64_t) n;
        }
    }
    if (lost)
        kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    CHECK(!lost);
    CHECK(end);                 /* the writer's close, after its bytes */
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_U64(got, TOTAL);
    CHECK_EQ_U64(wrong, 0);
    CHECK(sleeps > 0);          /* the sleeping path was taken */
    vaced_link_close(l);
    close(s[0]);
}

static void test_one_process(void)
{
    static char big[40000], out[40000];
    char buf[64];
    int s[2];
    ssize_t n;

    setenv("VACED_RING_KB", "16", 1);          /* smaller than big[] */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s) == 0);
    struct vaced_link *a = vaced_link_open(s[0]), *b = vaced_link_open(s[1]);
    CHECK(a != NULL && b != NULL);
    if (a == NULL || b == NULL)
        return;
    vaced_link_doorbell_drain();

    /* a writes before b has taken a's first byte: nothing waits */
    struct iovec hello = {"hello", 5};
    CHECK(vaced_link_writev(a, s[0], &hello, 1) == 5);
    CHECK(!vaced_link_readable(b));            /* a's ring has not come */
    CHECK(!vaced_link_established(b));         /* so b's socket must stay polled */
    struct iovec v = {buf, sizeof buf};
    n = vaced_link_readv(b, s[1], &v, 1, 0);
    CHECK(n == 5 && memcmp(buf, "hello", 5) == 0);
    CHECK(vaced_link_established(b));
    n = vaced_link_readv(b, s[1], &v, 1, 0);
    CHECK(n == -1 && errno == EAGAIN);
    n = vaced_link_readv(b, s[1], &v, 1, 1);   /* asks the socket: not the end */
    CHECK(n == -1 && errno == EAGAIN);

    /* partial writes and reads, as a socket's */
    struct iovec vb = {big, sizeof big};
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char) byte_at(i);
    ssize_t put = vaced_link_writev(a, s[0], &vb, 1);
    CHECK_EQ_I64(put, 16384);
    CHECK(!vaced_link_writable(a));
    CHECK(vaced_link_writev(a, s[0], &vb, 1) == 0);
    CHECK(vaced_link_readable(b));
    struct iovec vo[2] = {{out, 10}, {out + 10, 990}};
    CHECK(vaced_link_readv(b, s[1], vo, 2, 0) == 1000);
    CHECK(vaced_link_writable(a));
    CHECK(!rung());                            /* nobody slept: no system call */

    /* a writer that sleeps on the full ring is rung by the read that makes room */
    struct iovec rest = {big + put, sizeof big - (size_t) put};
    CHECK(vaced_link_writev(a, s[0], &rest, 1) == 1000);
    CHECK(vaced_link_may_sleep(a, 0, 1) == 1);
    struct iovec vr = {out + 1000, sizeof out - 1000};
    n = vaced_link_readv(b, s[1], &vr, 1, 0);
    CHECK(n == put - 1000 + 1000);
    CHECK(rung());
    vaced_link_awake(a);
    CHECK(memcmp(out, big, (size_t) put + 1000) == 0);

    /* a reader that sleeps on the empty ring is rung by the next write */
    CHECK(vaced_link_may_sleep(b, 1, 0) == 1);
    struct iovec one = {"x", 1};
    CHECK(vaced_link_writev(a, s[0], &one, 1) == 1);
    CHECK(rung());
    CHECK(vaced_link_may_sleep(b, 1, 0) == 0); /* bytes came: no sleep */
    vaced_link_awake(b);
    CHECK(vaced_link_writev(a, s[0], &one, 1) == 1);
    CHECK(!rung());                            /* the announcement was withdrawn */

    /* the end: the last bytes first, then 0 */
    struct iovec tail = {"tail", 4};
    CHECK(vaced_link_writev(a, s[0], &tail, 1) == 4);
    vaced_link_close(a);
    close(s[0]);
    n = vaced_link_readv(b, s[1], &v, 1, 1);
    CHECK(n == 6 && memcmp(buf, "xxtail", 6) == 0);
    CHECK(vaced_link_readv(b, s[1], &v, 1, 1) == 0);
    vaced_link_close(b);
    close(s[1]);

    /* a peer gone before its ring was read: the end, or a reset (it closed
     * with this side's first byte unread), as over a bare socket */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s) == 0);
    a = vaced_link_open(s[0]);
    b = vaced_link_open(s[1]);
    vaced_link_close(a);
    close(s[0]);
    n = b != NULL ? vaced_link_readv(b, s[1], &v, 1, 1) : -2;
    CHECK(n == 0 || (n == -1 && errno == ECONNRESET));
    vaced_link_close(b);
    close(s[1]);

    /* a size that is not a power of two: the default, with a note */
    setenv("VACED_RING_KB", "100", 1);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s) == 0);
    a = vaced_link_open(s[0]);
    struct iovec vbig = {big, sizeof big};
    CHECK(a != NULL && vaced_link_writev(a, s[0], &vbig, 1) == (ssize_t) sizeof big);
    vaced_link_close(a);
    close(s[0]);
    close(s[1]);
    unsetenv("VACED_RING_KB");

    /* a first byte without the descriptors: an error, not bytes */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, s) == 0);
    CHECK(write(s[0], "R", 1) == 1);
    b = vaced_link_open(s[1]);
    n = b != NULL ? vaced_link_readv(b, s[1], &v, 1, 0) : 0;
    CHECK(n == -1 && errno == EPROTO);
    vaced_link_close(b);
    close(s[0]);
    close(s[1]);
}

/* The default ring: 256 KiB while every pair's rings fit in a quarter of
 * the host, halved until they do, never below 4 KiB. */
static void test_ring_default(void)
{
    const unsigned long long gib = 1ULL << 30;
    CHECK(vaced_link_ring_default(1, 24 * gib) == 256 << 10);
    CHECK(vaced_link_ring_default(0, 24 * gib) == 256 << 10);       /* unknown: one */
    CHECK(vaced_link_ring_default(64, 24 * gib) == 256 << 10);
    CHECK(vaced_link_ring_default(256, 24 * gib) == 64 << 10);
    CHECK(vaced_link_ring_default(1024, 24 * gib) == 4 << 10);
    CHECK(vaced_link_ring_default(4096, 24 * gib) == 4 << 10);      /* the floor */
    CHECK(vaced_link_ring_default(2, 1 << 20) == 64 << 10);
    CHECK(vaced_link_ring_default(8, 1 << 20) == 4 << 10);
    int bad = 0;
    for (long ranks = 1; ranks <= 4096; ranks = ranks * 3 / 2 + 1)
        for (unsigned long long host = gib / 4; host <= 512 * gib; host *= 3) {
            unsigned long long r = vaced_link_ring_default(ranks, host), pairs = ranks * ranks;
            bad += (r & (r - 1)) != 0 || r < 4096 || r > 256 << 10 ||
                   (r > 4096 && pairs * r > host / 4) ||               /* over the share */
                   (r < 256 << 10 && pairs * 2 * r <= host / 4);       /* twice would fit */
        }
    CHECK(bad == 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_ring_default();
    test_two_processes();
    test_one_process();
    return CHECK_REPORT();
}
