/* The trace's step and wait lines (trace.h): how each advance of tV inside
 * an MPI call was made.  With the compute and poll spans they account for
 * every picosecond of a rank's prediction, and a wait's line names what it
 * waited for, so that vaced critical-path can walk back from the slowest
 * rank's end across ranks and split the path by the breakdown's terms
 * exactly as the breakdown splits each rank (docs/critical-path.md). */
#include "report/trace_path.h"

static void put_time(FILE *f, vaced_time_t t)
{
    if (t == VACED_TIME_UNSET)
        fputs(",-", f);
    else if (t < 0)             /* an estimate before the run's start */
        fprintf(f, ",-%lld.%012lld", VACED_TRACE_S(-t));
    else
        fprintf(f, ",%lld.%012lld", VACED_TRACE_S(t));
}

void vaced_trace_on_step(vaced_time_t start, vaced_time_t mid, vaced_time_t end,
                         enum vaced_term t1, enum vaced_term t2)
{
    FILE *f = vaced_trace_st->file;
    if (end <= start)
        return;
    fputs("step", f);
    put_time(f, start);
    put_time(f, mid);
    put_time(f, end);
    fprintf(f, ",%s,%s\n", vaced_term_names[t1], vaced_term_names[t2]);
}

void vaced_trace_on_wait(vaced_time_t from, vaced_time_t cut, vaced_time_t to, vaced_time_t ovh,
                         const struct vaced_trace_awaited *w, const struct vaced_chain *c)
{
    FILE *f = vaced_trace_st->file;
    /* a jump that moves tV back (the breakdown's negative lead) is not a
     * span of the timeline */
    if (!f || to <= from)
        return;
    fputs("wait", f);
    put_time(f, from);
    put_time(f, cut);
    put_time(f, to);
    put_time(f, ovh);
    if (w->dir < 0 || w->peer < 0)
        fputs(",-,-1,-1", f);
    else
        fprintf(f, ",%s,%d,%u", w->dir ? "send" : "recv", w->peer, w->seq);
    put_time(f, w->sent);
    put_time(f, w->landed);
    put_time(f, w->rts_sent);
    put_time(f, w->rts_landed);
    fprintf(f, ",%s", vaced_term_names[c->lead]);
    put_time(f, c->begin);
    for (int i = 0; i < c->n; i++) {
        fprintf(f, ",%s", vaced_term_names[c->term[i]]);
        put_time(f, c->until[i]);
    }
    fputc('\n', f);
}
