/* Unit tests of the byte ring between two processes
 * (vaced/src/transport/ring.c): sizes, wrapping, partial writes and
 * reads over several iovecs, the sleep announcements, and a writer and a
 * reader in two processes moving 8 MiB in random pieces, each sleeping on
 * its own eventfd when the ring is full or empty: the stream arrives
 * intact and no wake-up is lost (a sleep that outlasts 10 s fails). */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "transport/ring.h"

static unsigned char byte_at(uint64_t i)
{
    return (unsigned char) ((i * 2654435761u) >> 13);
}

static void test_single(void)
{
    static unsigned char mem[sizeof(struct vaced_ring) + 64];
    struct vaced_ring *r = (struct vaced_ring *) mem;
    unsigned char a[100], b[100];
    struct iovec w[2], rd[3];

    CHECK(vaced_ring_size(64) == sizeof(struct vaced_ring) + 64);
    CHECK(vaced_ring_init(mem, 48) == -1);
    CHECK(vaced_ring_init(mem, 32) == -1);
    CHECK(vaced_ring_init(mem, 64) == 0);
    CHECK_EQ_U64(vaced_ring_readable(r), 0);
    CHECK_EQ_U64(vaced_ring_writable(r), 64);
    for (int i = 0; i < 100; i++)
        a[i] = byte_at((uint64_t) i);

    w[0] = (struct iovec) {a, 30};
    w[1] = (struct iovec) {a + 30, 20};
    CHECK_EQ_U64(vaced_ring_writev(r, w, 2), 50);
    rd[0] = (struct iovec) {b, 30};
    CHECK_EQ_U64(vaced_ring_readv(r, rd, 1), 30);
    CHECK(memcmp(a, b, 30) == 0);
    /* 20 there, 44 free: a 60-byte write wraps and is cut at 44 */
    w[0] = (struct iovec) {a + 50, 10};
    w[1] = (struct iovec) {a + 60, 50 - 10};
    CHECK_EQ_U64(vaced_ring_writev(r, w, 2), 44);
    CHECK_EQ_U64(vaced_ring_writable(r), 0);
    CHECK_EQ_U64(vaced_ring_writev(r, w, 2), 0);
    /* read all 64 into three pieces, the last larger than what is left */
    rd[0] = (struct iovec) {b + 30, 5};
    rd[1] = (struct iovec) {b + 35, 30};
    rd[2] = (struct iovec) {b + 65, 35};
    CHECK_EQ_U64(vaced_ring_readv(r, rd, 3), 64);
    CHECK(memcmp(a + 30, b + 30, 64) == 0);
    CHECK_EQ_U64(vaced_ring_readv(r, rd, 3), 0);

    /* announcements: a sleeping reader is woken once per sleep */
    CHECK(vaced_ring_reader_may_sleep(r) == 1);
    CHECK(vaced_ring_wake_reader(r) == 1);
    CHECK(vaced_ring_wake_reader(r) == 0);
    w[0] = (struct iovec) {a, 1};
    CHECK_EQ_U64(vaced_ring_writev(r, w, 1), 1);
    CHECK(vaced_ring_reader_may_sleep(r) == 0);         /* a byte is there */
    CHECK(vaced_ring_wake_reader(r) == 0);              /* withdrawn */
    CHECK(vaced_ring_writer_may_sleep(r) == 0);         /* room left */
    w[0] = (struct iovec) {a, 63};
    CHECK_EQ_U64(vaced_ring_writev(r, w, 1), 63);
    CHECK(vaced_ring_writer_may_sleep(r) == 1);
    CHECK(vaced_ring_wake_writer(r) == 1);
    CHECK(vaced_ring_wake_writer(r) == 0);
}

/* sleeps on fd until rung, or fails after 10 s: a lost wake-up */
static int sleep_on(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    uint64_t v;
    if (poll(&p, 1, 10000) != 1)
        return -1;
    return read(fd, &v, sizeof v) == sizeof v ? 0 : -1;
}

static void ring_bell(int fd)
{
    uint64_t one = 1;
    if (write(fd, &one, sizeof one) != sizeof one)
        _exit(4);
}

#define TOTAL (8u << 20)

/* writer: the stream byte_at(0..TOTAL) in random pieces of 1-5000 bytes */
static int writer(struct vaced_ring *r, int my_bell, int reader_bell)
{
    static unsigned char buf[5000];
    uint64_t sent = 0;
    unsigned seed = 1;
    while (sent < TOTAL) {
        size_t len = 1 + (size_t) rand_r(&seed) % sizeof buf, got;
        if (len > TOTAL - sent)
            len = TOTAL - sent;
        for (size_t i = 0; i < len; i++)
            buf[i] = byte_at(sent + i);
        struct iovec v[2] = {{buf, len / 3}, {buf + len / 3, len - len / 3}};
        while ((got = vaced_ring_writev(r, v, 2)) == 0) {
            if (vaced_ring_writer_may_sleep(r) && sleep_on(my_bell) != 0)
                return 1;
        }
        if (vaced_ring_wake_reader(r))
            ring_bell(reader_bell);
        sent += got;    /* the rest of the piece is made again from sent */
    }
    return 0;
}

static void test_two_processes(void)
{
    size_t cap = 4096;
    struct vaced_ring *r = mmap(NULL, vaced_ring_size(cap), PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int rbell = eventfd(0, 0), wbell = eventfd(0, 0);
    CHECK(r != MAP_FAILED && rbell >= 0 && wbell >= 0);
    if (r == MAP_FAILED || rbell < 0 || wbell < 0)
        return;
    CHECK(vaced_ring_init(r, cap) == 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(writer(r, wbell, rbell));

    static unsigned char buf[7000];
    uint64_t got = 0, wrong = 0, sleeps = 0;
    unsigned seed = 2;
    int lost = 0;
    while (got < TOTAL && !lost) {
        struct iovec v = {buf, 1 + (size_t) rand_r(&seed) % sizeof buf};
        size_t n = vaced_ring_readv(r, &v, 1);
        if (n == 0) {
            if (vaced_ring_reader_may_sleep(r)) {
                sleeps++;
                lost = sleep_on(rbell) != 0;
            }
            continue;
        }
        if (vaced_ring_wake_writer(r))
            ring_bell(wbell);
        for (size_t i = 0; i < n; i++)
            wrong += buf[i] != byte_at(got + i);
        got += n;
    }
    if (lost)
        kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    CHECK(!lost);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_U64(got, TOTAL);
    CHECK_EQ_U64(wrong, 0);
    CHECK_EQ_U64(vaced_ring_readable(r), 0);
    CHECK(sleeps > 0);      /* the sleeping path was taken */
    munmap(r, vaced_ring_size(cap));
    close(rbell);
    close(wbell);
}

int main(void)
{
    test_single();
    test_two_processes();
    return CHECK_REPORT();
}
