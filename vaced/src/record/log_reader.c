/* Reading a rank's record: see log_reader.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vaced.h"
#include "record/log_reader.h"
#include "record/log_known.h"

static int fail(const struct vaced_log *log, size_t off, char *err, size_t len, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(err, len, "%s: offset %zu: %s", log->path, off, why);
    return -1;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* LEB128 at *pos, below `end`; -1 when it runs past or exceeds 64 bits. */
static int get_u(const unsigned char *d, size_t *pos, size_t end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= end)
            return -1;
        unsigned char b = d[(*pos)++];
        if (shift == 63 && (b & 0x7e))
            return -1;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* A file this small is read into the heap: for the kilobytes of a rank
 * of a short program, a mapping and its unmapping cost more than the copy
 * (and a heap block below malloc's mmap threshold is reused).  Above it,
 * the mapping shares the page cache's pages, where a copy would fault in
 * and zero as many fresh ones. */
#define SMALL_FILE VACED_LOG_SMALL_FILE

static int read_small(struct vaced_log *log, int fd)
{
    unsigned char *buf = malloc(log->size + VACED_LOG_SLACK);
    if (!buf)
        return -1;
    memset(buf + log->size, 0, VACED_LOG_SLACK);
    for (size_t got = 0; got < log->size;) {
        ssize_t n = pread(fd, buf + got, log->size - got, (off_t)got);
        if (n <= 0) {
            if (n == 0)
                errno = EIO;            /* shorter than fstat said: changed under us */
            if (n == 0 || errno != EINTR) {
                free(buf);
                return -1;
            }
            continue;
        }
        got += (size_t)n;
    }
    log->data = buf;
    log->slack = VACED_LOG_SLACK;
    log->heap = 1;
    return 0;
}

/* A file expected small, in one read of up to SMALL_FILE + 1 bytes: when
 * it stops short, that is the file's end (a regular file's read stops
 * short only there), and no fstat is needed.  1 read, 0 longer than
 * SMALL_FILE (nothing kept), -1 failed (errno). */
static int read_at_once(struct vaced_log *log, int fd)
{
    unsigned char *buf = malloc(SMALL_FILE + 1 + VACED_LOG_SLACK);
    if (!buf)
        return -1;
    ssize_t n;
    do
        n = read(fd, buf, SMALL_FILE + 1);
    while (n < 0 && errno == EINTR);
    if (n < 0 || n > (ssize_t)SMALL_FILE) {
        int e = errno;
        free(buf);
        errno = e;
        return n < 0 ? -1 : 0;
    }
    unsigned char *fit = realloc(buf, (size_t)n + VACED_LOG_SLACK);    /* the rest back to the heap */
    fit = fit ? fit : buf;
    memset(fit + n, 0, VACED_LOG_SLACK);
    log->data = fit;
    log->size = (size_t)n;
    log->slack = VACED_LOG_SLACK;
    log->heap = 1;
    return 1;
}

/* vaced_log_hash (log_format.h) with each 8-byte word loaded whole: the
 * same value, without its byte-by-byte assembly of the words, which cost
 * a lu record's load more than the checks of its events. */
static uint64_t hash_words(uint64_t h, const unsigned char *p, uint64_t n)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        h = (h ^ w) * VACED_FNV_PRIME;
    }
    return vaced_fnv1a(h, p + i, n - i);
}

int vaced_log_open(struct vaced_log *log, const char *path, char *err, size_t len)
{
    return vaced_log_open_at(log, AT_FDCWD, path, path, 0, err, len);
}

int vaced_log_open_at(struct vaced_log *log, int dir, const char *name, const char *path, int small,
                      char *err, size_t len)
{
    *log = (struct vaced_log){ 0 };
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || !(log->path = strdup(path))) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int got = small ? read_at_once(log, fd) : 0;
    struct stat st;
    if (got < 0 || (!got && fstat(fd, &st) != 0)) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        close(fd);
        return vaced_log_close(log), -1;
    }
    if (!got)
        log->size = (size_t)st.st_size;
    if (log->size < VACED_LOG_FIXED_HEADER) {
        close(fd);
        return fail(log, log->size, err, len, "too short for a record's header (truncated?)"),
               vaced_log_close(log), -1;
    }
    if (got) {
        close(fd);
    } else if (log->size <= SMALL_FILE) {
        if (read_small(log, fd)) {
            snprintf(err, len, "%s: %s", path, strerror(errno));
            close(fd);
            return vaced_log_close(log), -1;
        }
        close(fd);
    } else {
        /* populated: the hash and the survey read it all at once */
        void *map = mmap(NULL, log->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        close(fd);
        if (map == MAP_FAILED) {
            snprintf(err, len, "%s: %s", path, strerror(errno));
            return vaced_log_close(log), -1;
        }
        log->data = map;
        /* a mapping's last page reads as zeros past the file's end */
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        log->slack = (page - log->size % page) % page;
    }
    const unsigned char *d = log->data;
    if (memcmp(d, VACED_LOG_MAGIC, 8) != 0)
        return fail(log, 0, err, len, "not a VACED record (bad magic)"), vaced_log_close(log), -1;
    log->version = (uint32_t)le(d + 8, 4);
    if (log->version != VACED_LOG_VERSION)
        return fail(log, 8, err, len, "format version %u; this replay reads version %u",
                    log->version, VACED_LOG_VERSION), vaced_log_close(log), -1;
    log->rank = (uint32_t)le(d + 12, 4);
    log->ranks = (uint32_t)le(d + 16, 4);
    log->flags = (uint32_t)le(d + 20, 4);
    log->eager_threshold = le(d + 24, 8);
    log->target_hash = le(d + 32, 8);
    size_t plen = (size_t)le(d + 40, 2);
    if (log->ranks == 0 || log->ranks > VACED_LOG_MAX_RANKS || log->rank >= log->ranks)
        return fail(log, 12, err, len, "rank %u of %u ranks", log->rank, log->ranks),
               vaced_log_close(log), -1;
    if (log->flags & ~(VACED_LOG_COLDNESS | VACED_LOG_OVERSUBSCRIBED))
        return fail(log, 20, err, len, "unknown flags 0x%x", log->flags), vaced_log_close(log), -1;
    if (plen > VACED_LOG_PATH_MAX || VACED_LOG_FIXED_HEADER + plen > log->size)
        return fail(log, 40, err, len, "target path runs past the file"), vaced_log_close(log), -1;
    log->body = VACED_LOG_FIXED_HEADER + plen;
    /* The trailer: opcode, event count (LEB128), 8-byte hash.  The count's
     * length is not known from the end, so try each. */
    for (size_t n = 1; n <= 10; n++) {
        if (log->size < log->body + 1 + n + 8)
            break;
        size_t at = log->size - 8 - n - 1, p = at + 1;
        uint64_t count;
        if (d[at] != VACED_OP_TRAILER || get_u(d, &p, log->size - 8, &count) || p != log->size - 8)
            continue;
        uint64_t want = le(d + log->size - 8, 8);
        if (hash_words(VACED_FNV_OFFSET, d, at + 1) != want)
            continue;
        log->body_end = at;
        log->events = count;
        return 0;
    }
    return fail(log, log->size, err, len, "no valid trailer: the file is truncated or corrupted "
                "(or the rank did not reach MPI_Finalize)"), vaced_log_close(log), -1;
}

void vaced_log_close(struct vaced_log *log)
{
    if (log->data && log->heap)
        free((void *)log->data);
    else if (log->data)
        munmap((void *)log->data, log->size);
    log->data = NULL;
    free(log->path);
    log->path = NULL;
}

/* Sizes and times beyond these are no program's: refused, so that the
 * model's sums of times cannot overflow. */
#define MAX_BYTES (1ull << 48)
#define MAX_PS (1ull << 62)

static int get_time(const unsigned char *d, size_t *pos, size_t end, struct vaced_log_time *t)
{
    uint64_t src, v;
    *t = (struct vaced_log_time){ 0 };
    if (get_u(d, pos, end, &src) || src > VACED_SRC_LAST)
        return -1;
    t->src = (int)src;
    if (src == VACED_SRC_RAW) {
        if (get_u(d, pos, end, &v))
            return -1;
        t->t = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
        if (t->t < -1 || t->t > (int64_t)MAX_PS)
            return -1;
    } else if (src == VACED_SRC_DONE || src == VACED_SRC_ARRIVAL) {
        if (get_u(d, pos, end, &v) || v > UINT32_MAX)
            return -1;
        t->msg = (uint32_t)v;
        if (src == VACED_SRC_DONE && (get_u(d, pos, end, &t->bytes) || t->bytes > MAX_BYTES))
            return -1;
    }
    return 0;
}

/* The argument layout of each opcode: u unsigned, s signed, k packet
 * kind, m message id, f flag (0/1), t time, S a segment (ps + coldness),
 * C a close (ps + cold flag), L a count and as many message ids, Q a
 * count and as many (message id, bytes) pairs (the count in value, the
 * list's offset in bits).  Stored in the event's fields in order;
 * vaced_log_next's switch decodes each opcode's layout in line. */

/* One argument of an event, decoded and checked at *pos: 0, or -1 with
 * the reason in err (the messages and offsets of the layout's letters). */
struct arg_ctx {
    const struct vaced_log *log;
    const unsigned char *d;
    size_t end;
    struct vaced_log_event *e;
    char *err;
    size_t len;
};

static inline int arg_u(const struct arg_ctx *c, size_t *pos, size_t at, uint64_t *v)
{
    if (*pos < c->end && c->d[*pos] < 0x80) {   /* one byte: most arguments */
        *v = c->d[(*pos)++];
        return 0;
    }
    if (get_u(c->d, pos, c->end, v))
        return fail(c->log, at, c->err, c->len, "event %d runs past the events' end", c->e->op);
    return 0;
}

static inline int arg_peer(const struct arg_ctx *c, size_t *pos)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    v = (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
    if ((int64_t)v < -1 || (int64_t)v >= (int64_t)c->log->ranks)
        return fail(c->log, at, c->err, c->len, "peer %lld is not a rank of the job", (long long)v);
    c->e->peer = (int)(int64_t)v;
    return 0;
}

static inline int arg_kind(const struct arg_ctx *c, size_t *pos)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (v > VACED_PKT_OTHER)
        return fail(c->log, at, c->err, c->len, "unknown packet kind %llu", (unsigned long long)v);
    c->e->kind = (int)v;
    return 0;
}

static inline int arg_bytes(const struct arg_ctx *c, size_t *pos)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (v > MAX_BYTES)
        return fail(c->log, at, c->err, c->len, "%llu bytes: more than any message",
                    (unsigned long long)v);
    c->e->bytes = v;
    return 0;
}

/* 'm' (into msg) and 'F' (into from) */
static inline int arg_id(const struct arg_ctx *c, size_t *pos, uint32_t *id)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (v > UINT32_MAX)         /* 0: a request from before the simulation */
        return fail(c->log, at, c->err, c->len, "bad message id %llu", (unsigned long long)v);
    *id = (uint32_t)v;
    return 0;
}

/* 'f' (into flag) and 'g' (into flag2) */
static inline int arg_flag(const struct arg_ctx *c, size_t *pos, int *flag)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (v > 1)
        return fail(c->log, at, c->err, c->len, "flag %llu is not 0 or 1", (unsigned long long)v);
    *flag = (int)v;
    return 0;
}

static inline int arg_value(const struct arg_ctx *c, size_t *pos)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (c->e->op == VACED_OP_SLEEP && v > MAX_PS)
        return fail(c->log, at, c->err, c->len, "a sleep of %llu ps", (unsigned long long)v);
    c->e->value = v;
    return 0;
}

static inline __attribute__((always_inline)) int arg_time(const struct arg_ctx *c, size_t *pos)
{
    size_t at = *pos;
    if (*pos < c->end && c->d[*pos] >= VACED_SRC_SENT_TA && c->d[*pos] <= VACED_SRC_RECV_TA) {
        c->e->time.src = c->d[(*pos)++];        /* no argument: most times */
        return 0;
    }
    if (get_time(c->d, pos, c->end, &c->e->time))
        return fail(c->log, at, c->err, c->len, "bad target time in event %d", c->e->op);
    return 0;
}

/* 'L' (ids) and 'Q' (id, bytes pairs) */
static inline int arg_list(const struct arg_ctx *c, size_t *pos, int pairs)
{
    uint64_t v = 0;
    if (arg_u(c, pos, *pos, &v))
        return -1;
    c->e->value = v;
    c->e->bits = *pos;
    for (uint64_t i = 0; i < v; i++) {
        uint64_t id, bytes;
        size_t at = *pos;
        if (get_u(c->d, pos, c->end, &id) || id > UINT32_MAX ||
            (pairs && (get_u(c->d, pos, c->end, &bytes) || bytes > MAX_BYTES)))
            return fail(c->log, at, c->err, c->len, "bad message id in a list");
    }
    return 0;
}

/* 'S' (with the coldness's bits if recorded) and 'C' (with the cold flag) */
static inline __attribute__((always_inline)) int arg_measure(const struct arg_ctx *c, size_t *pos,
                                                             int close)
{
    size_t at = *pos;
    uint64_t v = 0;
    if (arg_u(c, pos, at, &v))
        return -1;
    if (v > MAX_PS)
        return fail(c->log, at, c->err, c->len, "a measurement of %llu ps", (unsigned long long)v);
    c->e->value = v;
    if ((!close && (c->log->flags & VACED_LOG_COLDNESS)) ||
        (close && (c->log->flags & VACED_LOG_OVERSUBSCRIBED))) {
        at = *pos;
        if (get_u(c->d, pos, c->end, &c->e->bits) || (close && c->e->bits > 1))
            return fail(c->log, at, c->err, c->len, "bad measurement in event %d", c->e->op);
    }
    return 0;
}

uint32_t vaced_log_list_item(const struct vaced_log *log, size_t *at)
{
    uint64_t v = 0;
    get_u(log->data, at, log->body_end, &v);    /* checked by vaced_log_next */
    return (uint32_t)v;
}

uint64_t vaced_log_list_bytes(const struct vaced_log *log, size_t *at)
{
    uint64_t v = 0;
    get_u(log->data, at, log->body_end, &v);
    return v;
}

static inline __attribute__((always_inline)) int
next_checked(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e, char *err,
             size_t len)
{
    const unsigned char *d = log->data;
    size_t end = log->body_end;
    /* field by field: a memset of the event compiles to rep stos, which
     * cost more than the rest of the decoding */
    e->op = e->peer = e->kind = e->flag = e->flag2 = 0;
    e->bytes = e->value = e->bits = 0;
    e->msg = e->from = 0;
    e->time = (struct vaced_log_time){ 0 };
    e->offset = *pos;
    if (*pos >= end)
        return 0;
    e->op = d[(*pos)++];
    if (e->op < VACED_OP_BEGIN || e->op > VACED_OP_LAST)
        return fail(log, e->offset, err, len, "unknown event %d", e->op);
    const struct arg_ctx c = { log, d, end, e, err, len };
    size_t *p = pos;
    int bad = 0;
    switch (e->op) {
        case VACED_OP_SLEEP: case VACED_OP_FIRE_BEGIN: case VACED_OP_UNMODELLED: case VACED_OP_SITE:
            bad = arg_value(&c, p);
            break;
        case VACED_OP_PKT_SENT:
            bad = arg_peer(&c, p) || arg_kind(&c, p) || arg_bytes(&c, p);
            break;
        case VACED_OP_PKT_RECV:
            bad = arg_peer(&c, p) || arg_kind(&c, p) || arg_bytes(&c, p) ||
                  arg_flag(&c, p, &e->flag);
            break;
        case VACED_OP_HANDLE_BEGIN: case VACED_OP_WAIT_COMPLETE: case VACED_OP_PROBE_FOUND:
            bad = arg_time(&c, p);
            break;
        case VACED_OP_COMPLETE_BY:
            bad = arg_id(&c, p, &e->msg) || arg_time(&c, p);
            break;
        case VACED_OP_ARRIVED:
            bad = arg_id(&c, p, &e->msg) || arg_kind(&c, p) || arg_time(&c, p) || arg_bytes(&c, p);
            break;
        case VACED_OP_POSTED:
            bad = arg_id(&c, p, &e->msg) || arg_flag(&c, p, &e->flag);
            break;
        case VACED_OP_FOUND:
            bad = arg_id(&c, p, &e->msg) || arg_id(&c, p, &e->from) || arg_kind(&c, p) ||
                  arg_flag(&c, p, &e->flag) || arg_bytes(&c, p) || arg_flag(&c, p, &e->flag2);
            break;
        case VACED_OP_COMPLETE_NOW:
            bad = arg_id(&c, p, &e->msg) || arg_bytes(&c, p) || arg_flag(&c, p, &e->flag2);
            break;
        case VACED_OP_REPORT: case VACED_OP_DONE:
            bad = arg_id(&c, p, &e->msg) || arg_bytes(&c, p);
            break;
        case VACED_OP_PARKS:
            bad = arg_time(&c, p) || arg_flag(&c, p, &e->flag) || arg_flag(&c, p, &e->flag2);
            break;
        case VACED_OP_DEFER:
            bad = arg_peer(&c, p) || arg_time(&c, p);
            break;
        case VACED_OP_SEGMENT:
            bad = arg_measure(&c, p, 0);
            break;
        case VACED_OP_CLOSE:
            bad = arg_measure(&c, p, 1);
            break;
        case VACED_OP_PICK:
            bad = arg_id(&c, p, &e->from) || arg_list(&c, p, 0);
            break;
        case VACED_OP_FIRST:
            bad = arg_id(&c, p, &e->from) || arg_list(&c, p, 1);
            break;
        default:                /* no arguments */
            break;
    }
    if (bad)
        return -1;
    return 1;
}

int vaced_log_next(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e,
                   char *err, size_t len)
{
    return next_checked(log, pos, e, err, len);
}

int vaced_log_next_known(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e)
{
    return vaced_log_known_inline(log, pos, e);
}
