/* Shared-memory rings under a same-host sock (vaced_link.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vaced_link.h"
#include "transport/ring.h"
#include "env/env.h"

/* Data bytes a direction ($VACED_RING_KB, a power of two).  A message
 * larger than the ring moves in turns, each a wake-up of the reader and
 * of the writer, so the ring should hold an application's usual message;
 * but a ring's pages all become resident as its bytes wrap around, and a
 * rank has two a peer it talks to. */
#define LINK_RING_KB_DEFAULT 256
#define LINK_RING_KB_MIN 4
#define LINK_RING_KB_MAX 16384

size_t vaced_link_ring_default(long local_ranks, unsigned long long host_bytes)
{
    unsigned long long ranks = local_ranks > 1 ? (unsigned long long) local_ranks : 1;
    unsigned long long fits = host_bytes / 4 / (ranks * ranks) >> 10;
    size_t kb = LINK_RING_KB_DEFAULT;
    while (kb > LINK_RING_KB_MIN && kb > fits)
        kb >>= 1;
    return kb << 10;
}

/* The host's share: its memory, and the ranks Hydra started on it. */
static size_t host_ring_default(void)
{
    const char *local = vaced_env(VACED_ENV_LOCAL_RANKS);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    unsigned long long bytes = pages > 0 && page > 0 ? (unsigned long long) pages * (unsigned long long) page
                                                     : 1ULL << 30;
    return vaced_link_ring_default(local && *local ? strtol(local, NULL, 10) : 1, bytes);
}

static size_t ring_bytes(void)
{
    const char *v = vaced_env(VACED_ENV_RING_KB);
    char *end;
    unsigned long kb;

    if (v == NULL || v[0] == '\0')
        return host_ring_default();
    kb = strtoul(v, &end, 10);
    if (*end != '\0' || kb < 1 || kb > LINK_RING_KB_MAX || (kb & (kb - 1)) != 0) {
        static int noted;
        size_t fallback = host_ring_default();
        if (!noted++)
            fprintf(stderr, "vaced: VACED_RING_KB=%s is not a power of two from 1 to %d: "
                    "using %zu\n", v, LINK_RING_KB_MAX, fallback >> 10);
        return fallback;
    }
    return (size_t) kb << 10;
}

struct vaced_link {
    struct vaced_ring *out;     /* the ring this side writes (its own) */
    struct vaced_ring *in;      /* the peer's, once its first byte came */
    size_t out_bytes, in_bytes;
    int peer_bell;              /* the peer's doorbell, once it came */
    int eof;                    /* the socket ended before the peer's ring */
};

static int doorbell = -1;

int vaced_link_doorbell(void)
{
    if (doorbell < 0)
        doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return doorbell;
}

void vaced_link_doorbell_drain(void)
{
    uint64_t v;
    if (doorbell >= 0 && read(doorbell, &v, sizeof v) < 0) {
        /* EAGAIN: a poll's spurious readiness; nothing to empty */
    }
}

static void ring_bell(int bell)
{
    uint64_t one = 1;
    if (bell >= 0 && write(bell, &one, sizeof one) < 0) {
        /* EAGAIN only at a counter near 2^64: the peer is awake anyway */
    }
}

static size_t mapped_size(size_t capacity)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t p = page > 0 ? (size_t) page : 4096;
    return (vaced_ring_size(capacity) + p - 1) / p * p;
}

struct vaced_link *vaced_link_open(int fd)
{
    size_t cap = ring_bytes(), bytes = mapped_size(cap);
    struct vaced_link *l = NULL;
    void *mem = MAP_FAILED;
    int bell = vaced_link_doorbell();
    int mfd = -1, saved;

    if (bell < 0)
        return NULL;
    mfd = memfd_create("vaced-ring", MFD_CLOEXEC);
    if (mfd < 0 || ftruncate(mfd, (off_t) bytes) != 0)
        goto fail;
    mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (mem == MAP_FAILED || vaced_ring_init(mem, cap) != 0)
        goto fail;
    l = calloc(1, sizeof *l);
    if (l == NULL)
        goto fail;

    /* the first byte carries the ring and the doorbell */
    char byte = 'R';
    struct iovec iov = { &byte, 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                          .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    int fds[2] = { mfd, bell };
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t sent;
    do
        sent = sendmsg(fd, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent != 1)
        goto fail;              /* a fresh connection's buffer is empty */
    close(mfd);                 /* the mappings keep the memory */
    l->out = mem;
    l->out_bytes = bytes;
    l->peer_bell = -1;
    return l;

  fail:
    saved = errno;
    free(l);
    if (mem != MAP_FAILED)
        munmap(mem, bytes);
    if (mfd >= 0)
        close(mfd);
    errno = saved;
    return NULL;
}

/* Takes the peer's first byte: 1 when its ring is mapped, 0 when it has
 * not come, -1 on an error or the end of the stream (eof set). */
static int receive(struct vaced_link *l, int fd)
{
    char byte;
    struct iovec iov = { &byte, 1 };
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                          .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf };
    ssize_t n;
    int fds[2] = { -1, -1 };

    if (l->in != NULL)
        return 1;
    if (l->eof)
        return -1;
    do
        n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (n == 0) {
        l->eof = 1;
        return -1;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof fds))
            memcpy(fds, CMSG_DATA(c), sizeof fds);
    if (fds[0] < 0 || fds[1] < 0 || (msg.msg_flags & MSG_CTRUNC))
        goto bad;

    struct stat st;
    void *mem;
    if (fstat(fds[0], &st) != 0 || (size_t) st.st_size < sizeof(struct vaced_ring))
        goto bad;
    mem = mmap(NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    if (mem == MAP_FAILED)
        goto bad;
    uint64_t cap = ((struct vaced_ring *) mem)->capacity;
    if (cap < 64 || (cap & (cap - 1)) != 0 || vaced_ring_size(cap) > (size_t) st.st_size) {
        munmap(mem, (size_t) st.st_size);
        goto bad;
    }
    close(fds[0]);
    l->in = mem;
    l->in_bytes = (size_t) st.st_size;
    l->peer_bell = fds[1];
    return 1;

  bad:
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    errno = EPROTO;
    return -1;
}

ssize_t vaced_link_readv(struct vaced_link *l, int fd, const struct iovec *iov, int n,
                         int check_eof)
{
    int r = receive(l, fd);
    size_t got;
    char byte;

    if (r < 0)
        return l->eof ? 0 : -1;
    if (r == 0) {
        errno = EAGAIN;
        return -1;
    }
    got = vaced_ring_readv(l->in, iov, n);
    if (got == 0 && check_eof) {
        ssize_t p;
        do
            p = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        while (p < 0 && errno == EINTR);
        if (p > 0) {
            errno = EPROTO;     /* nothing follows the first byte */
            return -1;
        }
        if (p < 0)
            return -1;
        /* the end: bytes written before the peer's close come first */
        got = vaced_ring_readv(l->in, iov, n);
        if (got == 0)
            return 0;
    }
    if (got == 0) {
        errno = EAGAIN;
        return -1;
    }
    if (vaced_ring_wake_writer(l->in))
        ring_bell(l->peer_bell);
    return (ssize_t) got;
}

ssize_t vaced_link_writev(struct vaced_link *l, int fd, const struct iovec *iov, int n)
{
    size_t put = vaced_ring_writev(l->out, iov, n);

    /* a reader that sleeps on this ring has sent its first byte before it
     * could map the ring, so its doorbell is there to take */
    if (put > 0 && vaced_ring_wake_reader(l->out)) {
        if (l->peer_bell < 0)
            receive(l, fd);
        ring_bell(l->peer_bell);
    }
    return (ssize_t) put;
}

int vaced_link_readable(struct vaced_link *l)
{
    return l->in != NULL && vaced_ring_readable(l->in) > 0;
}

int vaced_link_writable(struct vaced_link *l)
{
    return vaced_ring_writable(l->out) > 0;
}

int vaced_link_established(struct vaced_link *l)
{
    return l->in != NULL;
}

int vaced_link_may_sleep(struct vaced_link *l, int reading, int writing)
{
    int ok = 1;
    if (reading && l->in != NULL && !vaced_ring_reader_may_sleep(l->in))
        ok = 0;
    if (writing && !vaced_ring_writer_may_sleep(l->out))
        ok = 0;
    return ok;
}

void vaced_link_awake(struct vaced_link *l)
{
    if (l->in != NULL)
        vaced_ring_reader_awake(l->in);
    vaced_ring_writer_awake(l->out);
}

void vaced_link_close(struct vaced_link *l)
{
    if (l == NULL)
        return;
    munmap(l->out, l->out_bytes);
    if (l->in != NULL)
        munmap(l->in, l->in_bytes);
    if (l->peer_bell >= 0)
        close(l->peer_bell);
    free(l);
}
