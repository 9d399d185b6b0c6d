/* A synthetic record for unit tests (record/log_format.h): a header, the
 * events as opcodes and LEB128 arguments, a trailer with its hash. */
#ifndef VACED_TEST_VLOG_WRITER_H
#define VACED_TEST_VLOG_WRITER_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "record/log_format.h"

struct vlog {
    unsigned char buf[65536];
    size_t at, events;
};

static void vlog_le(unsigned char *d, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = (unsigned char)(v >> (8 * i));
}

static size_t vlog_leb(unsigned char *d, uint64_t v)
{
    size_t n = 0;
    do {
        d[n] = v & 0x7f;
        v >>= 7;
        d[n++] |= v ? 0x80 : 0;
    } while (v);
    return n;
}

static void vlog_start(struct vlog *w, int rank, int ranks, uint32_t flags)
{
    const char *target = "t.topo";
    memset(w, 0, sizeof *w);
    memcpy(w->buf, VACED_LOG_MAGIC, 8);
    vlog_le(w->buf + 8, VACED_LOG_VERSION, 4);
    vlog_le(w->buf + 12, (uint64_t)rank, 4);
    vlog_le(w->buf + 16, (uint64_t)ranks, 4);
    vlog_le(w->buf + 20, flags, 4);
    vlog_le(w->buf + 24, 65536, 8);
    vlog_le(w->buf + 32, 0x1234, 8);
    vlog_le(w->buf + 40, strlen(target), 2);
    memcpy(w->buf + VACED_LOG_FIXED_HEADER, target, strlen(target));
    w->at = VACED_LOG_FIXED_HEADER + strlen(target);
}

/* An event: op and its n unsigned arguments. */
static void vlog_event(struct vlog *w, int op, int n, const uint64_t *args)
{
    w->buf[w->at++] = (unsigned char)op;
    for (int i = 0; i < n; i++)
        w->at += vlog_leb(w->buf + w->at, args[i]);
    w->events++;
}

#define VLOG(w, op, ...) vlog_event(w, op, (int)(sizeof((uint64_t[]){ 0, __VA_ARGS__ }) / 8 - 1), \
                                    (uint64_t[]){ 0, __VA_ARGS__ } + 1)

/* The trailer, and the file DIR/rank-NNNNNN.vlog; 0 or -1. */
static int vlog_finish(struct vlog *w, const char *dir, int rank)
{
    w->buf[w->at++] = VACED_OP_TRAILER;
    uint64_t h = vaced_log_hash(VACED_FNV_OFFSET, w->buf, w->at);
    w->at += vlog_leb(w->buf + w->at, w->events);
    vlog_le(w->buf + w->at, h, 8);
    w->at += 8;
    char path[512];
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, rank);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(w->buf, 1, w->at, f) == w->at;
    if (f && fclose(f))
        ok = 0;
    return ok ? 0 : -1;
}

#endif
