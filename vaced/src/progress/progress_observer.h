/* What the progress model reports of its own answers and decisions, and
 * to whom: one table that the simulation's start fills (the recorder,
 * entry/progress_recorder.c).  Most of what a record keeps is MPICH's
 * calls, which entry/ logs before it calls the model; these are the
 * answers and choices the model makes deeper, also when no call of
 * MPICH's asked for them (a receive's gate, a test being settled, the
 * held-receive hook, Waitany), which the replay does not re-run.  Every
 * entry is set (no-ops where nobody listens): the model calls without
 * checks. */
#ifndef VACED_PROGRESS_OBSERVER_H
#define VACED_PROGRESS_OBSERVER_H

#include "vaced.h"

struct vaced_progress_observer {
    /* A message's arrival was read out (vaced_msg_arrival): a time handed
     * back later may be named by it. */
    void (*arrival_told)(const struct vaced_msg *m, vaced_time_t ta);
    /* A message's completion is asked inside a wait (vaced_msg_done),
     * where the handling it asks about is the wait's latest activity. */
    void (*done_asked)(const struct vaced_msg *m, uint64_t bytes);
    /* ... and was answered: t. */
    void (*done_told)(const struct vaced_msg *m, uint64_t bytes, vaced_time_t t);
    /* A wildcard took `best` (NULL: none) among the candidates of the
     * held receive `owner`, or of a receive or probe matching `spec`
     * (matching.h: vaced_pick_candidates lists them). */
    void (*picked)(void *owner, const void *spec, void *best);
    /* Waitany decided that the request completing at t is the target's
     * first among reqs (matching.h: vaced_first_candidates). */
    void (*first_decided)(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                          void *reqs);
    /* A feature the model does not time was used (vaced_unmodelled). */
    void (*unmodelled)(enum vaced_unmodelled kind);
    /* A parked response `id` (its order of parking) fires: MPICH's calls
     * until fire_end are its own; fire_end gets what fire_begin returned. */
    int (*fire_begin)(int id);
    void (*fire_end)(int begun);
};

/* The table in use; never NULL (at first, one that hears nothing). */
extern const struct vaced_progress_observer *vaced_progress_observer;

/* From now on, `o` hears the model (NULL: nobody). */
void vaced_progress_observe(const struct vaced_progress_observer *o);

#endif
