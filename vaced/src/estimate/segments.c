/* Reading a rank's segments and their classes (segments.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/segments.h"
#include "record/log_format.h"
#include "replay/uniform.h"


static uint64_t step(uint64_t h, unsigned char token)
{
    return vaced_fnv1a(h, &token, 1);
}

/* The program's steps of an activity (the tokens of uniform.c's sequence,
 * and the waits, tests and collectives' bounds). */
static uint64_t add_step(uint64_t h, const struct vaced_log_event *e)
{
    switch (e->op) {
        case VACED_OP_PKT_SENT:
            if (e->kind == VACED_PKT_EAGER || e->kind == VACED_PKT_EAGER_SYNC ||
                e->kind == VACED_PKT_RTS || e->kind == VACED_PKT_SELF)
                return step(h, 's');
            return h;
        case VACED_OP_POSTED:
        case VACED_OP_FOUND: return step(h, 'r');
        case VACED_OP_WAIT_BEGIN: return step(h, 'w');
        case VACED_OP_TEST_FAILED: return step(h, 't');
        case VACED_OP_COLL_BEGIN: return step(h, 'C');
        case VACED_OP_COLL_END: return step(h, 'c');
        case VACED_OP_SLEEP: return step(h, 'z');
        default: return h;
    }
}

/* The sites of the calls before and after the segment when the record
 * names them (VACED_OP_SITE), and the steps around it. */
static uint64_t class_of(uint64_t before2, uint64_t before, uint64_t after, uint64_t site_before,
                         uint64_t site_after)
{
    return (((before2 * 31 + before) * 31 + after) * 31 + site_before) * 1000003 + site_after;
}

static int push(struct vaced_segments *s, uint64_t ps, uint64_t cls, int cold)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *p = realloc(s->ps, cap * sizeof *p);
        if (p)
            s->ps = p;
        uint64_t *c = p ? realloc(s->cls, cap * sizeof *c) : NULL;
        if (c)
            s->cls = c;
        unsigned char *k = c ? realloc(s->cold, cap) : NULL;
        if (!k)
            return -1;
        s->cold = k;
        s->cap = cap;
    }
    s->ps[s->n] = ps;
    s->cls[s->n] = cls;
    s->cold[s->n++] = (unsigned char)cold;
    return 0;
}

int vaced_segments_read(const struct vaced_log *log, struct vaced_segments *s, char *err, size_t len)
{
    memset(s, 0, sizeof *s);
    struct vaced_log_event e;
    struct vaced_call_seq calls;
    size_t pos = log->body;
    uint64_t before2 = VACED_FNV_OFFSET, before = VACED_FNV_OFFSET, act = VACED_FNV_OFFSET;
    uint64_t site = 0, site_before = 0, site_after = 0;
    uint64_t pending = 0;
    int fire = 0, have = 0, cold_next = 0, pending_cold = 0, got;
    vaced_call_seq_start(&calls);
    while ((got = vaced_log_next(log, &pos, &e, err, len)) == 1) {
        vaced_call_seq_add(&calls, &e);
        switch (e.op) {
            case VACED_OP_FIRE_BEGIN: fire++; continue;
            case VACED_OP_FIRE_END: fire -= fire > 0; continue;
            case VACED_OP_SITE:
                site = e.value;
                continue;
            case VACED_OP_CLOSE:
                cold_next = (log->flags & VACED_LOG_OVERSUBSCRIBED) && e.bits;
                continue;
            case VACED_OP_SEGMENT:
                /* the class needs the activity after the segment: the
                 * previous segment is complete now */
                if (have && push(s, pending, class_of(before2, before, act, site_before, site_after),
                                 pending_cold))
                    goto oom;
                site_before = site_after;
                site_after = site;  /* the call this activity belongs to */
                before2 = before;
                before = act;
                act = VACED_FNV_OFFSET;
                pending = e.value;
                pending_cold = cold_next;
                have = 1;
                continue;
            default:
                break;
        }
        if (fire)
            continue;
        act = add_step(act, &e);
    }
    if (got < 0) {
        vaced_segments_free(s);
        return -1;
    }
    if (have && push(s, pending, class_of(before2, before, act, site_before, site_after), pending_cold))
        goto oom;
    s->calls = calls.hash;
    return 0;
oom:
    vaced_segments_free(s);
    snprintf(err, len, "%s: out of memory for its segments", log->path);
    return -1;
}

void vaced_segments_free(struct vaced_segments *s)
{
    free(s->ps);
    free(s->cls);
    free(s->cold);
    memset(s, 0, sizeof *s);
}
