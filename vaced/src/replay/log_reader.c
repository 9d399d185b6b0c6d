/* Reading a rank's record: see log_reader.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vaced.h"
#include "replay/log_reader.h"

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

int vaced_log_open(struct vaced_log *log, const char *path, char *err, size_t len)
{
    memset(log, 0, sizeof *log);
    snprintf(log->path, sizeof log->path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    log->size = (size_t)st.st_size;
    if (log->size < VACED_LOG_FIXED_HEADER) {
        close(fd);
        return fail(log, log->size, err, len, "too short for a record's header (truncated?)");
    }
    /* populated: the hash and the survey read it all at once */
    void *map = mmap(NULL, log->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    log->data = map;
    const unsigned char *d = log->data;
    if (memcmp(d, VACED_LOG_MAGIC, 8) != 0)
        return vaced_log_close(log), fail(log, 0, err, len, "not a VACED record (bad magic)");
    log->version = (uint32_t)le(d + 8, 4);
    if (log->version != VACED_LOG_VERSION)
        return vaced_log_close(log),
               fail(log, 8, err, len, "format version %u; this replay reads version %u",
                    log->version, VACED_LOG_VERSION);
    log->rank = (uint32_t)le(d + 12, 4);
    log->ranks = (uint32_t)le(d + 16, 4);
    log->flags = (uint32_t)le(d + 20, 4);
    log->eager_threshold = le(d + 24, 8);
    log->target_hash = le(d + 32, 8);
    size_t plen = (size_t)le(d + 40, 2);
    if (log->ranks == 0 || log->ranks > VACED_LOG_MAX_RANKS || log->rank >= log->ranks)
        return vaced_log_close(log), fail(log, 12, err, len, "rank %u of %u ranks", log->rank, log->ranks);
    if (log->flags & ~(VACED_LOG_COLDNESS | VACED_LOG_OVERSUBSCRIBED))
        return vaced_log_close(log), fail(log, 20, err, len, "unknown flags 0x%x", log->flags);
    if (plen > VACED_LOG_PATH_MAX || VACED_LOG_FIXED_HEADER + plen > log->size)
        return vaced_log_close(log), fail(log, 40, err, len, "target path runs past the file");
    memcpy(log->target_path, d + VACED_LOG_FIXED_HEADER, plen);
    log->target_path[plen] = 0;
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
        if (vaced_log_hash(VACED_FNV_OFFSET, d, at + 1) != want)
            continue;
        log->body_end = at;
        log->events = count;
        return 0;
    }
    return vaced_log_close(log),
           fail(log, log->size, err, len, "no valid trailer: the file is truncated or corrupted "
                "(or the rank did not reach MPI_Finalize)");
}

void vaced_log_close(struct vaced_log *log)
{
    if (log->data)
        munmap((void *)log->data, log->size);
    log->data = NULL;
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
 * list's offset in bits).  Stored in the event's fields
 * in order. */
static const char *const layout[VACED_OP_LAST + 1] = {
    [VACED_OP_BEGIN] = "", [VACED_OP_END_ACT] = "", [VACED_OP_SLEEP] = "v",
    [VACED_OP_PKT_SENT] = "skb", [VACED_OP_PKT_RECV] = "skbf", [VACED_OP_HANDLE_BEGIN] = "t",
    [VACED_OP_HANDLE_END] = "", [VACED_OP_RESPOND_END] = "", [VACED_OP_MSG_INIT] = "",
    [VACED_OP_COMPLETE_BY] = "mt", [VACED_OP_ARRIVED] = "mktb", [VACED_OP_POSTED] = "mf",
    [VACED_OP_FOUND] = "mFkfbg", [VACED_OP_COMPLETE_NOW] = "mbg", [VACED_OP_REPORT] = "mb",
    [VACED_OP_PARKS] = "tfg", [VACED_OP_DEFER] = "st", [VACED_OP_FIRE_BEGIN] = "v",
    [VACED_OP_FIRE_END] = "", [VACED_OP_POLL] = "", [VACED_OP_TEST_FAILED] = "",
    [VACED_OP_WAIT_BEGIN] = "", [VACED_OP_WAIT_COMPLETE] = "t", [VACED_OP_WAIT_END] = "",
    [VACED_OP_PROBE_FOUND] = "t", [VACED_OP_UNMODELLED] = "v", [VACED_OP_SIM_END] = "",
    [VACED_OP_SEGMENT] = "S", [VACED_OP_CLOSE] = "C", [VACED_OP_PICK] = "FL",
    [VACED_OP_FIRST] = "FQ", [VACED_OP_DONE] = "mb", [VACED_OP_COLL_BEGIN] = "",
    [VACED_OP_COLL_END] = "",
};

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

int vaced_log_next(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e,
                   char *err, size_t len)
{
    const unsigned char *d = log->data;
    size_t end = log->body_end;
    uint64_t v;
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
    for (const char *a = layout[e->op]; *a; a++) {
        size_t at = *pos;
        if (*a == 't') {
            if (get_time(d, pos, end, &e->time))
                return fail(log, at, err, len, "bad target time in event %d", e->op);
            continue;
        }
        if (get_u(d, pos, end, &v))
            return fail(log, at, err, len, "event %d runs past the events' end", e->op);
        switch (*a) {
            case 's':
                v = (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
                if ((int64_t)v < -1 || (int64_t)v >= (int64_t)log->ranks)
                    return fail(log, at, err, len, "peer %lld is not a rank of the job", (long long)v);
                e->peer = (int)(int64_t)v;
                break;
            case 'k':
                if (v > VACED_PKT_OTHER)
                    return fail(log, at, err, len, "unknown packet kind %llu", (unsigned long long)v);
                e->kind = (int)v;
                break;
            case 'b':
                if (v > MAX_BYTES)
                    return fail(log, at, err, len, "%llu bytes: more than any message",
                                (unsigned long long)v);
                e->bytes = v;
                break;
            case 'm': case 'F':         /* 0: a request from before the simulation */
                if (v > UINT32_MAX)
                    return fail(log, at, err, len, "bad message id %llu", (unsigned long long)v);
                if (*a == 'm')
                    e->msg = (uint32_t)v;
                else
                    e->from = (uint32_t)v;
                break;
            case 'f': case 'g':
                if (v > 1)
                    return fail(log, at, err, len, "flag %llu is not 0 or 1", (unsigned long long)v);
                if (*a == 'f')
                    e->flag = (int)v;
                else
                    e->flag2 = (int)v;
                break;
            case 'v':
                if (e->op == VACED_OP_SLEEP && v > MAX_PS)
                    return fail(log, at, err, len, "a sleep of %llu ps", (unsigned long long)v);
                e->value = v;
                break;
            case 'L': case 'Q':
                e->value = v;
                e->bits = *pos;
                for (uint64_t i = 0; i < v; i++) {
                    uint64_t id, bytes;
                    at = *pos;
                    if (get_u(d, pos, end, &id) || id > UINT32_MAX ||
                        (*a == 'Q' && (get_u(d, pos, end, &bytes) || bytes > MAX_BYTES)))
                        return fail(log, at, err, len, "bad message id in a list");
                }
                break;
            case 'S': case 'C':
                if (v > MAX_PS)
                    return fail(log, at, err, len, "a measurement of %llu ps", (unsigned long long)v);
                e->value = v;
                if ((*a == 'S' && (log->flags & VACED_LOG_COLDNESS)) ||
                    (*a == 'C' && (log->flags & VACED_LOG_OVERSUBSCRIBED))) {
                    at = *pos;
                    if (get_u(d, pos, end, &e->bits) || (*a == 'C' && e->bits > 1))
                        return fail(log, at, err, len, "bad measurement in event %d", e->op);
                }
                break;
        }
    }
    return 1;
}
