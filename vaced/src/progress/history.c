#include "vaced.h"
#include "progress/history.h"

void vaced_waits_reset(struct vaced_waits *w)
{
    w->head = w->count = 0;
    w->dropped = 0;
    w->depth = 0;
    w->start = w->done = w->active = w->active_from = 0;
    w->handling = 0;
    w->responding = 0;
    w->outer_handling = 0;
    w->outer_handle_ts = 0;
    w->handle_ts = 0;
}

static const struct vaced_span *span_at(const struct vaced_waits *w, unsigned i)
{
    return &w->hist[(w->head + i) % VACED_WAIT_HISTORY];
}

static void record(struct vaced_waits *w, struct vaced_span span)
{
    if (w->count == VACED_WAIT_HISTORY) {
        w->head = (w->head + 1) % VACED_WAIT_HISTORY;
        w->count--;
        w->dropped = 1;
    }
    w->hist[(w->head + w->count) % VACED_WAIT_HISTORY] = span;
    w->count++;
}

void vaced_waits_record(struct vaced_waits *w, vaced_time_t start, vaced_time_t end)
{
    record(w, (struct vaced_span){ start, end, start, start, start, start, 0 });
}

void vaced_waits_record_blocked(struct vaced_waits *w, vaced_time_t start, vaced_time_t end,
                                vaced_time_t busy_from, vaced_time_t busy,
                                vaced_time_t active, vaced_time_t active_from)
{
    record(w, (struct vaced_span){ start, end, busy_from, busy, active, active_from, 1 });
}

/* Index of the last recorded wait that started at or before ta; the
 * caller has checked that the first one did.  Most arrivals fall in the
 * last few waits, so those are looked at first: a replay keeps every
 * rank's history, more than the caches hold, and a binary search over it
 * misses in them at every step. */
static unsigned last_started(const struct vaced_waits *w, vaced_time_t ta)
{
    unsigned hi = w->count - 1;
    for (int k = 0; k < 8 && hi > 0; k++, hi--)
        if (span_at(w, hi)->start <= ta)
            return hi;
    unsigned lo = 0;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        if (span_at(w, mid)->start <= ta)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A handling that ends after ta but began with an earlier arrival kept the
 * rank awake at ta (a second message that comes while the rank is being
 * woken costs no second wake-up); one begun at ta is this message's own
 * (asked again, the same answer), one begun later was handled first only
 * on the host and says nothing about ta. */
static vaced_time_t idle_from(vaced_time_t start, vaced_time_t active, vaced_time_t active_from,
                              vaced_time_t ta)
{
    if (active <= ta)
        return active > start ? active : start;
    return active_from < ta && active_from > start ? ta : start;
}

vaced_time_t vaced_waits_idle_since(const struct vaced_waits *w, vaced_time_t ta)
{
    if (w->depth > 0 && ta >= w->start)
        return idle_from(w->start, w->active, w->active_from, ta);
    if (w->count == 0 || ta < span_at(w, 0)->start)
        return VACED_TIME_UNSET;
    const struct vaced_span *s = span_at(w, last_started(w, ta));
    return s->blocked && s->end >= ta ? idle_from(s->start, s->active, s->active_from, ta) : VACED_TIME_UNSET;
}

/* When span s, reached by a message at `a` (its arrival, or the span's
 * start), handles it; VACED_TIME_UNSET when it cannot.  A poll handles
 * what reaches it; a wait once its turns are done, if the message's work
 * fits before its end (work 0: if that is before its end). */
static vaced_time_t span_handles(const struct vaced_span *s, vaced_time_t a, vaced_time_t work)
{
    if (!s->blocked)
        return a;
    vaced_time_t h = a < s->busy_from ? a : vaced_time_max(a, s->busy);
    if (work > 0 ? h + work <= s->end : h < s->end || (h == a && s->busy_from == s->busy))
        return h;
    return VACED_TIME_UNSET;
}

vaced_time_t vaced_waits_handler(const struct vaced_waits *w, vaced_time_t cur, vaced_time_t ta,
                                 vaced_time_t work, enum vaced_handler *by)
{
    *by = VACED_BY_CURRENT;
    if (ta >= cur)
        return ta;
    if (w->count == 0)
        return cur;     /* no progress point since the start: this one */
    if (ta < span_at(w, 0)->start) {
        /* before the oldest kept wait: its start, if it is the rank's first
         * progress point; otherwise history is gone and arrival is the
         * best bound left */
        *by = w->dropped || span_at(w, 0)->blocked ? VACED_BY_WAIT : VACED_BY_POLL;
        return w->dropped ? ta : span_at(w, 0)->start;
    }
    unsigned i = last_started(w, ta);
    vaced_time_t h = VACED_TIME_UNSET;
    if (span_at(w, i)->end > ta)
        h = span_handles(span_at(w, i), ta, work);     /* arrived while that wait was progressing */
    /* Arrived during computation, or that wait could not take it: the
     * next progress point that can handles it. */
    while (h == VACED_TIME_UNSET && ++i < w->count)
        h = span_handles(span_at(w, i), span_at(w, i)->start, work);
    if (h == VACED_TIME_UNSET)
        return cur;
    *by = span_at(w, i)->blocked ? VACED_BY_WAIT : VACED_BY_POLL;
    return h;
}

vaced_time_t vaced_waits_handle_time(const struct vaced_waits *w, vaced_time_t cur, vaced_time_t ta,
                                     vaced_time_t work)
{
    enum vaced_handler by;
    return vaced_waits_handler(w, cur, ta, work, &by);
}
