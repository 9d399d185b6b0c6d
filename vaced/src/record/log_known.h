/* vaced_log_next_known (log_reader.h) in line, for the replay's loop over
 * every event: the decoding of an event the load checked, without a call. */
#ifndef VACED_LOG_KNOWN_H
#define VACED_LOG_KNOWN_H

#include <stddef.h>
#include <stdint.h>
#include "record/log_reader.h"

/* LEB128 that vaced_log_next accepted: ends before body_end, fits 64 bits. */
static inline uint64_t vaced_known_u(const unsigned char *d, size_t *pos)
{
    uint64_t b = d[(*pos)++];
    if (b < 0x80)
        return b;
    uint64_t x = b & 0x7f;
    for (int shift = 7;; shift += 7) {
        b = d[(*pos)++];
        x |= (b & 0x7f) << shift;
        if (b < 0x80)
            return x;
    }
}

static inline __attribute__((always_inline)) void vaced_known_time(const unsigned char *d, size_t *pos,
                                                             struct vaced_log_time *t)
{
    t->src = (int)vaced_known_u(d, pos);
    if (t->src == VACED_SRC_RAW) {
        uint64_t v = vaced_known_u(d, pos);
        t->t = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    } else if (t->src == VACED_SRC_DONE || t->src == VACED_SRC_ARRIVAL) {
        t->msg = (uint32_t)vaced_known_u(d, pos);
        if (t->src == VACED_SRC_DONE)
            t->bytes = vaced_known_u(d, pos);
    }
}

static inline void vaced_known_list(const unsigned char *d, size_t *pos, struct vaced_log_event *e,
                              int pairs)
{
    e->value = vaced_known_u(d, pos);
    e->bits = *pos;
    for (uint64_t i = 0; i < e->value << pairs; i++)
        vaced_known_u(d, pos);
}

static inline __attribute__((always_inline)) int
vaced_log_known_inline(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e)
{
    const unsigned char *d = log->data;
    uint64_t v;
    e->op = e->peer = e->kind = e->flag = e->flag2 = 0;
    e->bytes = e->value = e->bits = 0;
    e->msg = e->from = 0;
    e->time = (struct vaced_log_time){ 0 };
    e->offset = *pos;
    if (*pos >= log->body_end)
        return 0;
    /* the lines after this one, before they are needed: the replay reads
     * 64 ranks' files in turns, which the hardware's prefetching misses
     * (an integer address: it may lie past the file's end) */
    __builtin_prefetch((const void *)((uintptr_t)d + *pos + 128));
    e->op = d[(*pos)++];
    switch (e->op) {
        case VACED_OP_SLEEP: case VACED_OP_FIRE_BEGIN: case VACED_OP_UNMODELLED: case VACED_OP_SITE:
            e->value = vaced_known_u(d, pos);
            break;
        case VACED_OP_PKT_SENT: case VACED_OP_PKT_RECV:
            v = vaced_known_u(d, pos);
            e->peer = (int)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
            e->kind = (int)vaced_known_u(d, pos);
            e->bytes = vaced_known_u(d, pos);
            if (e->op == VACED_OP_PKT_RECV)
                e->flag = (int)vaced_known_u(d, pos);
            break;
        case VACED_OP_HANDLE_BEGIN: case VACED_OP_WAIT_COMPLETE: case VACED_OP_PROBE_FOUND:
            vaced_known_time(d, pos, &e->time);
            break;
        case VACED_OP_COMPLETE_BY:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            vaced_known_time(d, pos, &e->time);
            break;
        case VACED_OP_ARRIVED:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            e->kind = (int)vaced_known_u(d, pos);
            vaced_known_time(d, pos, &e->time);
            e->bytes = vaced_known_u(d, pos);
            break;
        case VACED_OP_POSTED:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            e->flag = (int)vaced_known_u(d, pos);
            break;
        case VACED_OP_FOUND:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            e->from = (uint32_t)vaced_known_u(d, pos);
            e->kind = (int)vaced_known_u(d, pos);
            e->flag = (int)vaced_known_u(d, pos);
            e->bytes = vaced_known_u(d, pos);
            e->flag2 = (int)vaced_known_u(d, pos);
            break;
        case VACED_OP_COMPLETE_NOW:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            e->bytes = vaced_known_u(d, pos);
            e->flag2 = (int)vaced_known_u(d, pos);
            break;
        case VACED_OP_REPORT: case VACED_OP_DONE:
            e->msg = (uint32_t)vaced_known_u(d, pos);
            e->bytes = vaced_known_u(d, pos);
            break;
        case VACED_OP_PARKS:
            vaced_known_time(d, pos, &e->time);
            e->flag = (int)vaced_known_u(d, pos);
            e->flag2 = (int)vaced_known_u(d, pos);
            break;
        case VACED_OP_DEFER:
            v = vaced_known_u(d, pos);
            e->peer = (int)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
            vaced_known_time(d, pos, &e->time);
            break;
        case VACED_OP_SEGMENT:
            e->value = vaced_known_u(d, pos);
            if (log->flags & VACED_LOG_COLDNESS)
                e->bits = vaced_known_u(d, pos);
            break;
        case VACED_OP_CLOSE:
            e->value = vaced_known_u(d, pos);
            if (log->flags & VACED_LOG_OVERSUBSCRIBED)
                e->bits = vaced_known_u(d, pos);
            break;
        case VACED_OP_PICK: case VACED_OP_FIRST:
            e->from = (uint32_t)vaced_known_u(d, pos);
            vaced_known_list(d, pos, e, e->op == VACED_OP_FIRST);
            break;
        default:                /* no arguments */
            break;
    }
    return 1;
}

#endif
