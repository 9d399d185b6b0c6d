/* vaced_link.h: shared-memory rings under a same-host sock (MPICH's sock
 * channel, patch 0014).
 *
 * Two ranks of one host keep their Unix stream connection (vaced_host.h)
 * for setting up and hanging up, but move CH3's bytes through two rings
 * in shared memory (transport/ring.h), one per direction.  Each side makes
 * the ring it writes, in a memfd (no name: nothing to unlink, nothing left
 * by a killed rank), and sends it with its process's doorbell (an eventfd)
 * as the connection's first byte (SCM_RIGHTS).  Neither side waits for the
 * other's: it writes its own ring at once and reads the peer's when its
 * byte has come, so connects head-to-head never wait for each other.
 * After that the socket carries nothing until its end-of-file.
 *
 * Reads and writes behave as readv/writev on a non-blocking socket: what
 * fits moves, -1 with EAGAIN when nothing can, 0 read at the end of the
 * stream.  A rank about to sleep announces it on each ring it waits on
 * (vaced_link_may_sleep) and polls its doorbell; a peer rings it only
 * then. */
#ifndef VACED_LINK_H_INCLUDED
#define VACED_LINK_H_INCLUDED

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct vaced_link;

/* Non-zero when same-host links move their bytes through rings: the
 * default of $VACED_TRANSPORT ("shm"); "unix" keeps the socket's bytes. */
int vaced_link_rings(void);

/* A ring's data bytes when $VACED_RING_KB is unset: 256 KiB, halved
 * (down to 4 KiB) until a ring for every pair of the host's local_ranks
 * ranks, both ways, fits in a quarter of its host_bytes of memory: a job
 * whose ranks all talk to each other must not fill the host with rings. */
size_t vaced_link_ring_default(long local_ranks, unsigned long long host_bytes);

/* This process's doorbell (an eventfd, made on the first call), or -1. */
int vaced_link_doorbell(void);
/* Empties the doorbell after a wake-up. */
void vaced_link_doorbell_drain(void);

/* Makes the ring this side writes and sends it, with the doorbell, over
 * the just-connected Unix stream socket fd.  NULL (errno set) on failure. */
struct vaced_link *vaced_link_open(int fd);

/* Like readv on fd; with check_eof 0 an empty ring gives EAGAIN without
 * asking the socket whether the peer has gone (a system call). */
ssize_t vaced_link_readv(struct vaced_link *l, int fd, const struct iovec *iov, int n,
                         int check_eof);
/* Like writev on fd: the bytes that fit (0 when the ring is full). */
ssize_t vaced_link_writev(struct vaced_link *l, int fd, const struct iovec *iov, int n);

/* Whether a read (write) would move bytes now.  Before the peer's ring
 * has come, nothing is readable: the socket's first byte wakes the poll. */
int vaced_link_readable(struct vaced_link *l);
int vaced_link_writable(struct vaced_link *l);

/* Whether the peer's ring has come: from then on the socket carries
 * nothing but its end, which matters only for a peer that dies without
 * closing (an orderly close comes through the ring's bytes). */
int vaced_link_established(struct vaced_link *l);

/* Announces a sleep on the rings this side waits on (reading, writing);
 * returns 0 when one became ready meanwhile (then do not sleep, and call
 * vaced_link_awake).  */
int vaced_link_may_sleep(struct vaced_link *l, int reading, int writing);
/* Withdraws the announcements after the sleep. */
void vaced_link_awake(struct vaced_link *l);

/* Unmaps both rings and closes the peer's doorbell (not fd). */
void vaced_link_close(struct vaced_link *l);

#endif
