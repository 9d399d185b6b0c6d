/* Unit tests of the record's decoder (vaced/src/record/log_reader.c): every
 * opcode's arguments decode into the fields log_format.h names, with and
 * without the header flags that add a measurement's second value; the
 * decoder for checked files (vaced_log_next_known, the replay's) gives the
 * same events at the same positions; and each kind of bad argument is
 * refused with "PATH: offset N: reason", N the argument's offset.  A file
 * opened in one read (vaced_log_open_at, the replay's) opens as
 * vaced_log_open opens it, or is refused alike, at every size around the
 * read's limit.
 *
 * Run: test_log_reader */
#define _GNU_SOURCE             /* O_PATH */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "vlog_body.h"
#include "vlog_writer.h"
#include "record/log_format.h"
#include "record/log_reader.h"

#define RANKS 4
#define MAX_PS (1ull << 62)
#define MAX_BYTES (1ull << 48)

static char mem_name[] = "mem.vlog";

/* A record's body in memory (the decoder reads only these fields). */
static struct vaced_log log_of(const struct buf *b, uint32_t flags)
{
    struct vaced_log log;
    memset(&log, 0, sizeof log);
    log.path = mem_name;
    log.data = b->d;
    log.size = b->n;
    log.body = 0;
    log.body_end = b->n;
    log.ranks = RANKS;
    log.flags = flags;
    return log;
}

static int same(const struct vaced_log_event *a, const struct vaced_log_event *b)
{
    return a->op == b->op && a->offset == b->offset && a->peer == b->peer && a->kind == b->kind &&
           a->bytes == b->bytes && a->msg == b->msg && a->from == b->from && a->flag == b->flag &&
           a->flag2 == b->flag2 && a->value == b->value && a->bits == b->bits &&
           a->time.src == b->time.src && a->time.t == b->time.t && a->time.msg == b->time.msg &&
           a->time.bytes == b->time.bytes;
}

/* Every opcode once (decodes_every_op counts them: an opcode added to
 * log_format.h must be added here), with large and edge values; `flags`
 * as the header's. */
static void every_op(struct buf *b, uint32_t flags)
{
    b->n = 0;
    put_op(b, VACED_OP_BEGIN);
    put_op(b, VACED_OP_END_ACT);
    put_op(b, VACED_OP_SLEEP); put_u(b, MAX_PS);
    put_op(b, VACED_OP_PKT_SENT); put_s(b, -1); put_u(b, VACED_PKT_RTS); put_u(b, MAX_BYTES);
    put_op(b, VACED_OP_PKT_RECV); put_s(b, RANKS - 1); put_u(b, VACED_PKT_EAGER); put_u(b, 300); put_u(b, 1);
    put_op(b, VACED_OP_HANDLE_BEGIN); put_u(b, VACED_SRC_RAW); put_s(b, -1);
    put_op(b, VACED_OP_HANDLE_END);
    put_op(b, VACED_OP_RESPOND_END);
    put_op(b, VACED_OP_MSG_INIT);
    put_op(b, VACED_OP_COMPLETE_BY); put_u(b, UINT32_MAX); put_u(b, VACED_SRC_DONE); put_u(b, 7); put_u(b, 1u << 20);
    put_op(b, VACED_OP_ARRIVED); put_u(b, 1); put_u(b, VACED_PKT_EAGER_SYNC); put_u(b, VACED_SRC_ARRIVAL);
    put_u(b, 2); put_u(b, 129);
    put_op(b, VACED_OP_POSTED); put_u(b, 300); put_u(b, 1);
    put_op(b, VACED_OP_FOUND); put_u(b, 5); put_u(b, 4); put_u(b, VACED_PKT_RNDV_DATA); put_u(b, 1);
    put_u(b, 1u << 30); put_u(b, 1);
    put_op(b, VACED_OP_COMPLETE_NOW); put_u(b, 6); put_u(b, 0); put_u(b, 1);
    put_op(b, VACED_OP_REPORT); put_u(b, 6); put_u(b, 128);
    put_op(b, VACED_OP_PARKS); put_u(b, VACED_SRC_HANDLED); put_u(b, 1); put_u(b, 0);
    put_op(b, VACED_OP_DEFER); put_s(b, 2); put_u(b, VACED_SRC_RAW); put_s(b, (int64_t)MAX_PS);
    put_op(b, VACED_OP_FIRE_BEGIN); put_u(b, 1);
    put_op(b, VACED_OP_FIRE_END);
    put_op(b, VACED_OP_POLL);
    put_op(b, VACED_OP_TEST_FAILED);
    put_op(b, VACED_OP_WAIT_BEGIN);
    put_op(b, VACED_OP_WAIT_COMPLETE); put_u(b, VACED_SRC_NOW);
    put_op(b, VACED_OP_WAIT_END);
    put_op(b, VACED_OP_PROBE_FOUND); put_u(b, VACED_SRC_RECV_TA);
    put_op(b, VACED_OP_UNMODELLED); put_u(b, UINT64_MAX);
    put_op(b, VACED_OP_PICK); put_u(b, 9); put_u(b, 3); put_u(b, 9); put_u(b, 200); put_u(b, UINT32_MAX);
    put_op(b, VACED_OP_DONE); put_u(b, 9); put_u(b, 64);
    put_op(b, VACED_OP_FIRST); put_u(b, 0); put_u(b, 2); put_u(b, 3); put_u(b, 8); put_u(b, 4); put_u(b, MAX_BYTES);
    put_op(b, VACED_OP_SEGMENT); put_u(b, 123456789);
    if (flags & VACED_LOG_COLDNESS)
        put_u(b, 0x3fe0000000000000ull);        /* 0.5 */
    put_op(b, VACED_OP_CLOSE); put_u(b, 1000);
    if (flags & VACED_LOG_OVERSUBSCRIBED)
        put_u(b, 1);
    put_op(b, VACED_OP_COLL_BEGIN);
    put_op(b, VACED_OP_COLL_END);
    put_op(b, VACED_OP_SITE); put_u(b, 300);
    put_op(b, VACED_OP_SIM_END);
}

static void decodes_every_op(uint32_t flags)
{
    struct buf b = { .n = 0 };
    every_op(&b, flags);
    struct vaced_log log = log_of(&b, flags);
    struct vaced_log_event e, k;
    char err[256];
    size_t pos = 0, kpos = 0;
    int n = 0, got, kgot, agree = 1;
    struct vaced_log_event seen[VACED_OP_LAST + 1];
    memset(seen, 0, sizeof seen);
    while ((got = vaced_log_next(&log, &pos, &e, err, sizeof err)) == 1) {
        kgot = vaced_log_next_known(&log, &kpos, &k);
        agree &= kgot == 1 && kpos == pos && same(&e, &k);
        seen[e.op] = e;
        n++;
    }
    CHECK(got == 0);
    CHECK_EQ_I64(n, VACED_OP_LAST);
    CHECK_EQ_U64(pos, b.n);
    CHECK(agree);
    CHECK(vaced_log_next_known(&log, &kpos, &k) == 0 && k.offset == b.n);

    CHECK_EQ_U64(seen[VACED_OP_SLEEP].value, MAX_PS);
    struct vaced_log_event *s = &seen[VACED_OP_PKT_SENT];
    CHECK(s->peer == -1 && s->kind == VACED_PKT_RTS && s->bytes == MAX_BYTES);
    s = &seen[VACED_OP_PKT_RECV];
    CHECK(s->peer == RANKS - 1 && s->kind == VACED_PKT_EAGER && s->bytes == 300 && s->flag == 1);
    s = &seen[VACED_OP_HANDLE_BEGIN];
    CHECK(s->time.src == VACED_SRC_RAW && s->time.t == -1);
    s = &seen[VACED_OP_COMPLETE_BY];
    CHECK(s->msg == UINT32_MAX && s->time.src == VACED_SRC_DONE && s->time.msg == 7 &&
          s->time.bytes == 1u << 20);
    s = &seen[VACED_OP_ARRIVED];
    CHECK(s->msg == 1 && s->kind == VACED_PKT_EAGER_SYNC && s->time.src == VACED_SRC_ARRIVAL &&
          s->time.msg == 2 && s->bytes == 129);
    s = &seen[VACED_OP_POSTED];
    CHECK(s->msg == 300 && s->flag == 1);
    s = &seen[VACED_OP_FOUND];
    CHECK(s->msg == 5 && s->from == 4 && s->kind == VACED_PKT_RNDV_DATA && s->flag == 1 &&
          s->bytes == 1u << 30 && s->flag2 == 1);
    s = &seen[VACED_OP_COMPLETE_NOW];
    CHECK(s->msg == 6 && s->bytes == 0 && s->flag2 == 1);
    s = &seen[VACED_OP_PARKS];
    CHECK(s->time.src == VACED_SRC_HANDLED && s->flag == 1 && s->flag2 == 0);
    s = &seen[VACED_OP_DEFER];
    CHECK(s->peer == 2 && s->time.src == VACED_SRC_RAW && s->time.t == (int64_t)MAX_PS);
    CHECK_EQ_U64(seen[VACED_OP_UNMODELLED].value, UINT64_MAX);
    CHECK_EQ_U64(seen[VACED_OP_SITE].value, 300);
    CHECK(seen[VACED_OP_WAIT_COMPLETE].time.src == VACED_SRC_NOW);
    /* the lists: their length in value, their first item's offset in bits */
    s = &seen[VACED_OP_PICK];
    size_t at = (size_t)s->bits;
    CHECK(s->from == 9 && s->value == 3);
    CHECK(vaced_log_list_item(&log, &at) == 9 && vaced_log_list_item(&log, &at) == 200 &&
          vaced_log_list_item(&log, &at) == UINT32_MAX);
    s = &seen[VACED_OP_FIRST];
    at = (size_t)s->bits;
    CHECK(s->from == 0 && s->value == 2);
    CHECK(vaced_log_list_item(&log, &at) == 3 && vaced_log_list_bytes(&log, &at) == 8 &&
          vaced_log_list_item(&log, &at) == 4 && vaced_log_list_bytes(&log, &at) == MAX_BYTES);
    s = &seen[VACED_OP_SEGMENT];
    CHECK(s->value == 123456789 &&
          s->bits == (flags & VACED_LOG_COLDNESS ? 0x3fe0000000000000ull : 0));
    s = &seen[VACED_OP_CLOSE];
    CHECK(s->value == 1000 && s->bits == (flags & VACED_LOG_OVERSUBSCRIBED ? 1u : 0u));
}

/* A body ending in a bad event: refused with "mem.vlog: offset AT: WHY". */
static void refused(const struct buf *b, size_t at, const char *why, uint32_t flags, int line)
{
    struct vaced_log log = log_of(b, flags);
    struct vaced_log_event e;
    char err[256], want[256];
    size_t pos = 0;
    int got;
    while ((got = vaced_log_next(&log, &pos, &e, err, sizeof err)) == 1)
        ;
    snprintf(want, sizeof want, "mem.vlog: offset %zu: %s", at, why);
    if (!check_note_(got == -1 && !strcmp(err, want), __FILE__, line, want))
        printf("    got %d: %s\n", got, got < 0 ? err : "(accepted)");
}

#define REFUSED(at, why) refused(&b, at, why, 0, __LINE__)

static void refusals(void)
{
    struct buf b = { .n = 0 };
    /* each case: one good event (POLL, offset 0), then the bad one at 1 */
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, 0);
    REFUSED(1, "unknown event 0");
    char why[64];
    snprintf(why, sizeof why, "unknown event %d", VACED_OP_LAST + 1);
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_LAST + 1);
    REFUSED(1, why);
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_SENT); put_s(&b, RANKS);
    put_u(&b, 0); put_u(&b, 0);
    REFUSED(2, "peer 4 is not a rank of the job");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_SENT); put_s(&b, -2);
    put_u(&b, 0); put_u(&b, 0);
    REFUSED(2, "peer -2 is not a rank of the job");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_SENT); put_s(&b, 1);
    put_u(&b, VACED_PKT_OTHER + 1); put_u(&b, 0);
    REFUSED(3, "unknown packet kind 9");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_RECV); put_s(&b, 1); put_u(&b, 0);
    put_u(&b, MAX_BYTES + 1); put_u(&b, 0);
    REFUSED(4, "281474976710657 bytes: more than any message");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_RECV); put_s(&b, 1); put_u(&b, 0);
    put_u(&b, 200); put_u(&b, 2);
    REFUSED(6, "flag 2 is not 0 or 1");
    /* runs past the end: the last argument's bytes, then a continuation byte */
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PKT_SENT); put_s(&b, 1); put_u(&b, 0);
    REFUSED(4, "event 4 runs past the events' end");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_REPORT); put_u(&b, 1);
    b.d[b.n++] = 0x80;
    REFUSED(3, "event 15 runs past the events' end");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_SLEEP); put_u(&b, MAX_PS + 1);
    REFUSED(2, "a sleep of 4611686018427387905 ps");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_COMPLETE_BY);
    put_u(&b, (uint64_t)UINT32_MAX + 1); put_u(&b, VACED_SRC_NOW);
    REFUSED(2, "bad message id 4294967296");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_HANDLE_BEGIN); put_u(&b, VACED_SRC_LAST + 1);
    REFUSED(2, "bad target time in event 6");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_WAIT_COMPLETE); put_u(&b, VACED_SRC_RAW);
    put_s(&b, -2);
    REFUSED(2, "bad target time in event 23");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PARKS); put_u(&b, VACED_SRC_DONE);
    put_u(&b, 1); put_u(&b, MAX_BYTES + 1); put_u(&b, 0); put_u(&b, 0);
    REFUSED(2, "bad target time in event 16");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_PICK); put_u(&b, 1); put_u(&b, 2);
    put_u(&b, 1); put_u(&b, (uint64_t)UINT32_MAX + 1);
    REFUSED(5, "bad message id in a list");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_FIRST); put_u(&b, 1); put_u(&b, 2);
    put_u(&b, 1); put_u(&b, 8); put_u(&b, 2);
    REFUSED(6, "bad message id in a list");
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_SEGMENT); put_u(&b, MAX_PS + 1);
    REFUSED(2, "a measurement of 4611686018427387905 ps");
    /* the cold flag of CLOSE, read only when the header says it is there */
    b.n = 0; put_op(&b, VACED_OP_POLL); put_op(&b, VACED_OP_CLOSE); put_u(&b, 5); put_u(&b, 2);
    refused(&b, 3, "bad measurement in event 32", VACED_LOG_OVERSUBSCRIBED, __LINE__);
    b.d[3] = 0;                         /* without the flag, the next opcode */
    REFUSED(3, "unknown event 0");
}

/* `path` opened by vaced_log_open and in one read, by its path and as
 * `name` in directory `dir`: the same fields and bytes, or the same
 * reason. */
static void opens_alike(const char *path, int dir, const char *name, int line)
{
    struct vaced_log a, b;
    char ea[1024] = "", eb[1024] = "";
    int ra = vaced_log_open(&a, path, ea, sizeof ea);
    for (int way = 0; way < 2; way++) {
        int rb = way ? vaced_log_open_at(&b, dir, name, path, 1, eb, sizeof eb)
                     : vaced_log_open_at(&b, AT_FDCWD, path, path, 1, eb, sizeof eb);
        if (!CHECK(ra == rb && strcmp(ea, eb) == 0))
            printf("    line %d, way %d: %s: %d \"%s\" and %d \"%s\"\n", line, way, path, ra, ea, rb,
                   eb);
        if (ra || rb)
            continue;
        if (!CHECK(a.size == b.size && a.heap == b.heap && a.rank == b.rank && a.ranks == b.ranks &&
                   a.flags == b.flags && a.body == b.body && a.body_end == b.body_end &&
                   a.events == b.events && memcmp(a.data, b.data, a.size) == 0 &&
                   strcmp(a.path, b.path) == 0))
            printf("    line %d, way %d: %s: sizes %zu and %zu\n", line, way, path, a.size, b.size);
        vaced_log_close(&b);
    }
    if (!ra)
        vaced_log_close(&a);
}

/* A record of `bytes` bytes (its events SLEEPs, the first padded to fit)
 * in dir, valid or, with `bad`, its last byte changed. */
static void write_sized(const char *dir, size_t bytes, int bad)
{
    static struct vlog w;
    vlog_start(&w, 0, 1, 0);
    size_t fixed = w.at + 1 + 1 + 8;    /* the SIM_END, the trailer's opcode and hash */
    while (fixed + w.at - VACED_LOG_FIXED_HEADER - 6 + 4 + 3 < bytes && w.at + 16 < sizeof w.buf)
        VLOG(&w, VACED_OP_SLEEP, 1000000ull);   /* 4 bytes */
    VLOG(&w, VACED_OP_SIM_END);
    CHECK(vlog_finish(&w, dir, 0) == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/rank-000000.vlog", dir);
    if (bad) {
        FILE *f = fopen(path, "r+b");
        if (CHECK(f != NULL)) {
            fseek(f, -1, SEEK_END);
            fputc(0x5a, f);
            fclose(f);
        }
    }
}

static void one_read_opens_alike(void)
{
    char dir[] = "/tmp/test_log_reader.XXXXXX", path[600];
    const char *name = "rank-000000.vlog";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(fd >= 0);
    snprintf(path, sizeof path, "%s/rank-000000.vlog", dir);
    size_t sizes[] = { 60, 100, 1000, VACED_LOG_SMALL_FILE - 5, VACED_LOG_SMALL_FILE - 1,
                       VACED_LOG_SMALL_FILE, VACED_LOG_SMALL_FILE + 1, VACED_LOG_SMALL_FILE + 3,
                       VACED_LOG_SMALL_FILE + 7, 40000 };
    int seen_small = 0, seen_large = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int bad = 0; bad < 2; bad++) {
            write_sized(dir, sizes[i], bad);
            opens_alike(path, fd, name, __LINE__);
            struct vaced_log l;
            char e[1024];
            if (!bad && vaced_log_open_at(&l, AT_FDCWD, path, path, 1, e, sizeof e) == 0) {
                seen_small |= l.size == VACED_LOG_SMALL_FILE;
                seen_large |= l.size > VACED_LOG_SMALL_FILE && !l.heap;
                vaced_log_close(&l);
            }
        }
    CHECK(seen_small && seen_large);    /* the sizes on both sides of the limit were made */
    FILE *f = fopen(path, "wb");        /* empty, then shorter than a header */
    if (CHECK(f != NULL))
        fclose(f);
    opens_alike(path, fd, name, __LINE__);
    f = fopen(path, "wb");
    if (CHECK(f != NULL)) {
        fputs("VACEDLOG", f);
        fclose(f);
    }
    opens_alike(path, fd, name, __LINE__);
    opens_alike(dir, fd, ".", __LINE__);        /* a directory */
    unlink(path);
    opens_alike(path, fd, name, __LINE__);      /* no such file */
    close(fd);
    rmdir(dir);
}

int main(void)
{
    one_read_opens_alike();
    decodes_every_op(0);
    decodes_every_op(VACED_LOG_COLDNESS | VACED_LOG_OVERSUBSCRIBED);
    refusals();
    return CHECK_REPORT();
}
