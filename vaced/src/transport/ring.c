/* The byte ring between two processes of one host (ring.h). */
#include <string.h>

#include "transport/ring.h"

size_t vaced_ring_size(size_t capacity)
{
    return sizeof(struct vaced_ring) + capacity;
}

int vaced_ring_init(void *mem, size_t capacity)
{
    struct vaced_ring *r = mem;

    if (capacity < 64 || (capacity & (capacity - 1)) != 0)
        return -1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->writer_sleeping, 0);
    atomic_init(&r->reader_sleeping, 0);
    r->capacity = capacity;
    return 0;
}

size_t vaced_ring_readable(struct vaced_ring *r)
{
    return (size_t) (atomic_load(&r->head) - atomic_load(&r->tail));
}

size_t vaced_ring_writable(struct vaced_ring *r)
{
    return r->capacity - vaced_ring_readable(r);
}

/* Copies len bytes at stream offset pos between the ring and buf,
 * wrapping at the end of the data. */
static void copy(struct vaced_ring *r, uint64_t pos, void *buf, size_t len, int to_ring)
{
    size_t at = (size_t) (pos & (r->capacity - 1));
    size_t first = r->capacity - at < len ? r->capacity - at : len;
    unsigned char *b = buf;

    if (to_ring) {
        memcpy(r->data + at, b, first);
        memcpy(r->data, b + first, len - first);
    } else {
        memcpy(b, r->data + at, first);
        memcpy(b + first, r->data, len - first);
    }
}

size_t vaced_ring_writev(struct vaced_ring *r, const struct iovec *iov, int n)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    size_t room = r->capacity - (size_t) (head - tail), done = 0;

    for (int i = 0; i < n && room > 0; i++) {
        size_t len = iov[i].iov_len < room ? iov[i].iov_len : room;
        copy(r, head + done, iov[i].iov_base, len, 1);
        done += len;
        room -= len;
    }
    /* sequentially consistent: ordered before the writer's read of the
     * reader's announcement (vaced_ring_wake_reader) */
    if (done > 0)
        atomic_store(&r->head, head + done);
    return done;
}

size_t vaced_ring_readv(struct vaced_ring *r, const struct iovec *iov, int n)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t there = (size_t) (head - tail), done = 0;

    for (int i = 0; i < n && there > 0; i++) {
        size_t len = iov[i].iov_len < there ? iov[i].iov_len : there;
        copy(r, tail + done, iov[i].iov_base, len, 0);
        done += len;
        there -= len;
    }
    if (done > 0)
        atomic_store(&r->tail, tail + done);
    return done;
}

/* Announce, then look again: with the writer's publish-then-look, one of
 * the two sees the other (both sequentially consistent). */
int vaced_ring_reader_may_sleep(struct vaced_ring *r)
{
    atomic_store(&r->reader_sleeping, 1);
    if (atomic_load(&r->head) != atomic_load_explicit(&r->tail, memory_order_relaxed)) {
        atomic_store(&r->reader_sleeping, 0);
        return 0;
    }
    return 1;
}

int vaced_ring_wake_reader(struct vaced_ring *r)
{
    return atomic_load(&r->reader_sleeping) && atomic_exchange(&r->reader_sleeping, 0);
}

int vaced_ring_writer_may_sleep(struct vaced_ring *r)
{
    atomic_store(&r->writer_sleeping, 1);
    if (vaced_ring_writable(r) > 0) {
        atomic_store(&r->writer_sleeping, 0);
        return 0;
    }
    return 1;
}

int vaced_ring_wake_writer(struct vaced_ring *r)
{
    return atomic_load(&r->writer_sleeping) && atomic_exchange(&r->writer_sleeping, 0);
}

/* Looked at first: a store would take the line from the peer's cache
 * even when there is nothing to withdraw. */
void vaced_ring_reader_awake(struct vaced_ring *r)
{
    if (atomic_load_explicit(&r->reader_sleeping, memory_order_relaxed))
        atomic_store(&r->reader_sleeping, 0);
}

void vaced_ring_writer_awake(struct vaced_ring *r)
{
    if (atomic_load_explicit(&r->writer_sleeping, memory_order_relaxed))
        atomic_store(&r->writer_sleeping, 0);
}
