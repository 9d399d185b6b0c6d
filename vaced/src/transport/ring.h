/* A byte ring between two processes of one host (issue 40's shared-memory
 * transport: vaced_link.h, patch 0014).
 *
 * One writer and one reader share a ring in memory both map (a memfd
 * passed over their Unix connection: no name, nothing left behind).  It
 * is a byte stream like a socket: writes and reads move what fits and
 * say how much, so ch3:sock's partial-transfer logic stays as it is.
 *
 * Waits sleep, never spin: a reader that finds the ring empty announces
 * it sleeps (vaced_ring_reader_may_sleep), and the writer rings the
 * reader's doorbell (its eventfd, one per process) only then
 * (vaced_ring_wake_reader); the same for a writer that finds it full.
 * The announcement and the re-check are ordered against the writer's
 * publish, so no wake-up is lost. */
#ifndef VACED_TRANSPORT_RING_H
#define VACED_TRANSPORT_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct vaced_ring {
    _Alignas(64) _Atomic uint64_t head;         /* bytes ever written: the writer's */
    _Atomic uint32_t writer_sleeping;
    _Alignas(64) _Atomic uint64_t tail;         /* bytes ever read: the reader's */
    _Atomic uint32_t reader_sleeping;
    _Alignas(64) uint64_t capacity;             /* a power of two */
    unsigned char data[];
};

/* The bytes of shared memory a ring of `capacity` data bytes takes. */
size_t vaced_ring_size(size_t capacity);

/* Makes an empty ring in mem (vaced_ring_size(capacity) bytes, zeroed or
 * not).  Returns 0, or -1 when capacity is not a power of two >= 64. */
int vaced_ring_init(void *mem, size_t capacity);

/* Copies as much of iov[0..n) as fits; returns the bytes written (0 when
 * full).  Writer only. */
size_t vaced_ring_writev(struct vaced_ring *r, const struct iovec *iov, int n);

/* Copies up to the iov's length of what is there; returns the bytes read
 * (0 when empty).  Reader only. */
size_t vaced_ring_readv(struct vaced_ring *r, const struct iovec *iov, int n);

size_t vaced_ring_readable(struct vaced_ring *r);
size_t vaced_ring_writable(struct vaced_ring *r);

/* The reader found nothing to read and wants to sleep: returns 1 when it
 * may (the writer will ring its doorbell), 0 when bytes came meanwhile
 * (no sleep; the announcement is withdrawn). */
int vaced_ring_reader_may_sleep(struct vaced_ring *r);
/* After a write: 1 when the reader sleeps and must be woken (once). */
int vaced_ring_wake_reader(struct vaced_ring *r);

/* The same for a writer that found the ring full, and the reader that
 * made room. */
int vaced_ring_writer_may_sleep(struct vaced_ring *r);
int vaced_ring_wake_writer(struct vaced_ring *r);

/* Withdraw an announcement after the sleep (a wake-up may have cleared it
 * already, or come for nothing: the sleeper checks the ring anyway). */
void vaced_ring_reader_awake(struct vaced_ring *r);
void vaced_ring_writer_awake(struct vaced_ring *r);

#endif
