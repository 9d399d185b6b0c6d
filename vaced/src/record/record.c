/* The recorder: a buffered, append-only log of the calls into vaced.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "env/env.h"
#include "clock/clock.h"
#include "record/record.h"

int vaced_recording;
int vaced_rec_depth;

/* The last value of each source a time may come from, and when it was
 * handed out: a time MPICH passes back is named by the most recent source
 * of that value. */
struct source {
    vaced_time_t t;
    uint64_t seq;               /* 0: never handed out */
    uint32_t msg;
    uint64_t bytes;
};

static struct {
    int fd;
    char path[VACED_LOG_PATH_MAX + 32];
    unsigned char buf[1 << 18];
    size_t len;
    uint64_t hash, events, seq;
    uint32_t next_msg;
    int failed;                 /* errno of the first failed write */
    uint64_t done_events, done_bytes;   /* the last DONE logged: after event n, its message */
    uint32_t done_msg;
    struct source src[VACED_SRC_LAST + 1];
} rec = { .fd = -1 };

/* Writes the buffer out: all of it at the end (`last`), else its whole
 * 8-byte words, the rest kept for the next (vaced_log_hash's pieces). */
static void write_out(int last)
{
    size_t n = last ? rec.len : rec.len & ~(size_t)7;
    rec.hash = vaced_log_hash(rec.hash, rec.buf, n);
    for (size_t off = 0; off < n && !rec.failed;) {
        ssize_t w = write(rec.fd, rec.buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            rec.failed = w < 0 ? errno : EIO;
        else
            off += (size_t)w;
    }
    memmove(rec.buf, rec.buf + n, rec.len - n);
    rec.len -= n;
}

static void flush(void)
{
    write_out(0);
}

static void put_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n > 0) {
        if (rec.len == sizeof rec.buf)
            flush();
        size_t k = sizeof rec.buf - rec.len < n ? sizeof rec.buf - rec.len : n;
        memcpy(rec.buf + rec.len, b, k);
        rec.len += k;
        b += k;
        n -= k;
    }
}

static void put_le(uint64_t v, int n)
{
    unsigned char b[8];
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put_bytes(b, (size_t)n);
}

/* The common case writes straight into the buffer: a record costs the
 * live run a few nanoseconds an event. */
void vaced_rec_u(uint64_t v)
{
    if (rec.len > sizeof rec.buf - 10)
        flush();
    rec.len += vaced_log_put_u(rec.buf + rec.len, v);
}

void vaced_rec_s(int64_t v)
{
    vaced_rec_u(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void vaced_rec_op(enum vaced_log_op op)
{
    if (rec.len == sizeof rec.buf)
        flush();
    rec.buf[rec.len++] = (unsigned char)op;
    rec.events++;
}

void vaced_rec_msg(const struct vaced_msg *m)
{
    vaced_rec_u(m ? m->id : 0);
}

void vaced_rec_note(enum vaced_log_src s, vaced_time_t t, uint32_t msg, uint64_t bytes)
{
    rec.src[s] = (struct source){ t, ++rec.seq, msg, bytes };
}

/* A wait polling MPI_Waitany asks the same again and again: with nothing
 * logged in between, the answer and its effect are the same. */
void vaced_rec_done(const struct vaced_msg *m, uint64_t bytes)
{
    if (rec.done_events == rec.events && rec.done_msg == m->id && rec.done_bytes == bytes)
        return;
    vaced_rec_op(VACED_OP_DONE);
    vaced_rec_msg(m);
    vaced_rec_u(bytes);
    rec.done_events = rec.events;
    rec.done_msg = m->id;
    rec.done_bytes = bytes;
}

uint32_t vaced_rec_last_done(vaced_time_t t)
{
    const struct source *d = &rec.src[VACED_SRC_DONE];
    return d->seq && d->t == t ? d->msg : 0;
}

void vaced_rec_time(vaced_time_t t)
{
    enum vaced_log_src best = VACED_SRC_RAW;
    uint64_t best_seq = 0;
    if (t == VACED_TIME_UNSET) {
        vaced_rec_u(VACED_SRC_UNSET);
        return;
    }
    for (int s = VACED_SRC_SENT_TA; s <= VACED_SRC_ARRIVAL; s++)
        if (rec.src[s].seq > best_seq && rec.src[s].t == t) {
            best = (enum vaced_log_src)s;
            best_seq = rec.src[s].seq;
        }
    if (best == VACED_SRC_RAW && t == vaced_clock_tv())
        best = VACED_SRC_NOW;
    vaced_rec_u(best);
    if (best == VACED_SRC_RAW)
        vaced_rec_s(t);
    else if (best == VACED_SRC_DONE) {
        vaced_rec_u(rec.src[best].msg);
        vaced_rec_u(rec.src[best].bytes);
    } else if (best == VACED_SRC_ARRIVAL)
        vaced_rec_u(rec.src[best].msg);
}

uint32_t vaced_rec_new_msg(void)
{
    vaced_rec_op(VACED_OP_MSG_INIT);
    return ++rec.next_msg;
}

int vaced_rec_fire_begin(int defer_id)
{
    int saved = vaced_rec_depth;
    if (!vaced_recording)
        return 0;
    vaced_rec_depth = 0;
    vaced_rec_op(VACED_OP_FIRE_BEGIN);
    vaced_rec_u((uint64_t)defer_id);
    return saved;
}

void vaced_rec_fire_end(int saved_depth)
{
    if (!vaced_recording)
        return;
    vaced_rec_op(VACED_OP_FIRE_END);
    vaced_rec_depth = saved_depth;
}

static int refuse(int rank, const char *dir, const char *what)
{
    if (rank == 0)
        fprintf(stderr, "vaced: record %s: %s (the prediction goes on unrecorded)\n", dir, what);
    return -1;
}

uint64_t vaced_record_target_hash(const char *path)
{
    unsigned char buf[4096];
    uint64_t h = VACED_FNV_OFFSET;
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = vaced_fnv1a(h, buf, n);
    fclose(f);
    return h;
}

int vaced_record_open(int rank, int size, uint64_t eager_threshold, const char *target_path,
                      unsigned flags)
{
    const char *dir = vaced_env(VACED_ENV_RECORD);
    char why[VACED_LOG_PATH_MAX + 320];
    if (!dir || !*dir)
        return 0;
    size_t plen = strlen(target_path);
    if (plen > VACED_LOG_PATH_MAX)
        return refuse(rank, dir, "the target's path is too long to record");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, sizeof why, "cannot create the directory: %s", strerror(errno));
        return refuse(rank, dir, why);
    }
    if ((size_t)snprintf(rec.path, sizeof rec.path, "%s/rank-%06d.vlog", dir, rank) >= sizeof rec.path)
        return refuse(rank, dir, "path too long");
    rec.fd = open(rec.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (rec.fd < 0) {
        snprintf(why, sizeof why, "cannot write %s: %s", rec.path, strerror(errno));
        return refuse(rank, dir, why);
    }
    rec.len = 0;
    rec.failed = 0;
    rec.hash = VACED_FNV_OFFSET;        /* from the header on */
    rec.events = rec.seq = 0;
    rec.next_msg = 0;
    rec.done_events = UINT64_MAX;
    memset(rec.src, 0, sizeof rec.src);
    put_bytes(VACED_LOG_MAGIC, 8);
    put_le(VACED_LOG_VERSION, 4);
    put_le((uint64_t)rank, 4);
    put_le((uint64_t)size, 4);
    put_le(flags, 4);
    put_le(eager_threshold, 8);
    put_le(vaced_record_target_hash(target_path), 8);
    put_le(plen, 2);
    put_bytes(target_path, plen);
    vaced_rec_depth = 0;
    vaced_recording = 1;
    return 0;
}

void vaced_record_close(void)
{
    if (!vaced_recording)
        return;
    vaced_recording = 0;
    uint64_t events = rec.events;
    unsigned char op = VACED_OP_TRAILER;
    put_bytes(&op, 1);
    write_out(1);               /* the hash ends with the trailer's opcode */
    vaced_rec_u(events);
    put_le(rec.hash, 8);
    write_out(1);
    if (close(rec.fd) != 0 && !rec.failed)
        rec.failed = errno;
    rec.fd = -1;
    if (rec.failed)
        fprintf(stderr, "vaced: record %s: write failed: %s\n", rec.path, strerror(rec.failed));
}
