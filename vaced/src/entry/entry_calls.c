/* vaced.h's MPI calls, as MPICH's bindings make them: the call tables'
 * (report/calls.c), and in a record (record.h: outside any call that
 * logs itself) a blocking collective's beginning and end, which the
 * breakdown's collective_wait needs again in a replay, and with
 * VACED_RECORD_SITES=1 the call site of each call that comes from
 * another site than the one before, which the estimates' classes of
 * segments need (estimate/segments.h). */
#include <stdlib.h>
#include <string.h>
#include "env/env.h"
#include "report/calls.h"
#include "record/record.h"

static void log_op(enum vaced_log_op op)
{
    if (vaced_rec_enter())
        vaced_rec_op(op);
    vaced_rec_leave();
}

/* The rank's call sites by address, numbered in order of first call: an
 * open-addressed table that doubles at half full.  A live run is one
 * rank a process, so one table. */
static struct {
    int on;                     /* -1: not read yet */
    uintptr_t *addr;
    uint32_t *id;
    size_t cap, n;
    uintptr_t last;
} sites = { .on = -1 };

static uint32_t *slot(uintptr_t a)
{
    size_t i = (size_t)(a * 0x9e3779b97f4a7c15ull >> 17) & (sites.cap - 1);
    while (sites.addr[i] && sites.addr[i] != a)
        i = (i + 1) & (sites.cap - 1);
    sites.addr[i] = a;
    return &sites.id[i];
}

static int grow(void)
{
    size_t old = sites.cap, cap = old ? 2 * old : 256;
    uintptr_t *oa = sites.addr;
    uint32_t *oi = sites.id;
    sites.addr = calloc(cap, sizeof *sites.addr);
    sites.id = calloc(cap, sizeof *sites.id);
    if (!sites.addr || !sites.id) {
        free(sites.addr);
        free(sites.id);
        sites.addr = oa;
        sites.id = oi;
        return -1;
    }
    sites.cap = cap;
    for (size_t i = 0; i < old; i++)
        if (oa[i])
            *slot(oa[i]) = oi[i];
    free(oa);
    free(oi);
    return 0;
}

static void log_site(void)
{
    if (sites.on < 0) {
        const char *v = vaced_env(VACED_ENV_RECORD_SITES);
        sites.on = v && !strcmp(v, "1");
    }
    if (!sites.on || !vaced_recording)
        return;
    uintptr_t a = vaced_calls_site();
    if (!a || a == sites.last)
        return;
    if (2 * (sites.n + 1) > sites.cap && grow())
        return;                 /* out of memory: the sites stop, the record stays valid */
    sites.last = a;
    uint32_t *id = slot(a);
    if (!*id)
        *id = (uint32_t)++sites.n;
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_SITE);
        vaced_rec_u(*id);
    }
    vaced_rec_leave();
}

void vaced_call_enter(const char *func, void *caller)
{
    if (vaced_model_call_enter(func, caller))
        log_op(VACED_OP_COLL_BEGIN);
    log_site();
}

void vaced_call_exit(void)
{
    if (vaced_model_call_exit())
        log_op(VACED_OP_COLL_END);
}
