/* The recorder (record.c): with $VACED_RECORD set, the live library logs
 * every call MPICH makes into vaced.h (entry/), the model's decisions
 * (entry/progress_recorder.c) and the clock's measurements
 * (sim/clock_observers.c) to DIR/rank-NNNNNN.vlog (log_format.h,
 * docs/replay.md).  Calls the model makes to its own entry points are not
 * logged: the replay makes them again.  A process records one rank; the
 * replay never records. */
#ifndef VACED_RECORD_H
#define VACED_RECORD_H

#include <stdint.h>
#include "vaced.h"
#include "record/log_format.h"

extern int vaced_recording;     /* the log is open */
extern int vaced_rec_depth;     /* entry points running: only the outermost logs */

/* Opens DIR/rank-NNNNNN.vlog for $VACED_RECORD=DIR (no-op when unset).
 * Returns 0, or -1 after printing "vaced: record DIR: reason" (rank 0, or
 * any rank whose own file fails); the prediction goes on unrecorded. */
int vaced_record_open(int rank, int size, uint64_t eager_threshold, const char *target_path,
                      unsigned flags);
/* FNV-1a 64 of a target file's text: a record names its target so, and a
 * replay knows whether it re-times on the same one (0: unreadable). */
uint64_t vaced_record_target_hash(const char *path);
/* Writes the trailer and closes the log (vaced_sim_end). */
void vaced_record_close(void);

/* An entry point starts: 1 when it is the outermost (MPICH's call), which
 * it then logs.  Every call is paired with vaced_rec_leave(). */
static inline int vaced_rec_enter(void)
{
    return vaced_recording && vaced_rec_depth++ == 0;
}

static inline void vaced_rec_leave(void)
{
    if (vaced_recording)
        vaced_rec_depth--;
}

/* An event and its arguments. */
void vaced_rec_op(enum vaced_log_op op);
void vaced_rec_u(uint64_t v);
void vaced_rec_s(int64_t v);
/* A message record's id (0: none). */
void vaced_rec_msg(const struct vaced_msg *m);
/* A target time MPICH handed in, named by its source (enum vaced_log_src). */
void vaced_rec_time(vaced_time_t t);

/* The values a time may come from, as the model hands them out to MPICH
 * (the model's own questions hand nothing out).  Inline tests: a live run
 * without a record pays one load for them. */
void vaced_rec_note(enum vaced_log_src s, vaced_time_t t, uint32_t msg, uint64_t bytes);

static inline void vaced_rec_note_sent(vaced_time_t ta, vaced_time_t tr)
{
    vaced_rec_note(VACED_SRC_SENT_TA, ta, 0, 0);
    vaced_rec_note(VACED_SRC_SENT_TR, tr, 0, 0);
}

static inline void vaced_rec_note_received(vaced_time_t handled, vaced_time_t ta)
{
    vaced_rec_note(VACED_SRC_HANDLED, handled, 0, 0);
    vaced_rec_note(VACED_SRC_RECV_TA, ta, 0, 0);
}

static inline void vaced_rec_note_done(const struct vaced_msg *m, uint64_t bytes, vaced_time_t t)
{
    if (vaced_recording && vaced_rec_depth == 0)
        vaced_rec_note(VACED_SRC_DONE, t, m->id, bytes);
}

static inline void vaced_rec_note_arrival(const struct vaced_msg *m, vaced_time_t t)
{
    if (vaced_recording && vaced_rec_depth == 0)
        vaced_rec_note(VACED_SRC_ARRIVAL, t, m->id, 0);
}
/* MPICH asks a message's completion inside a wait (VACED_OP_DONE). */
void vaced_rec_done(const struct vaced_msg *m, uint64_t bytes);
/* The message whose completion MPICH last asked for, if it was t (0: not). */
uint32_t vaced_rec_last_done(vaced_time_t t);

/* A new message record gets its id (vaced_msg_init).  A request made
 * inside the model's own call (a bound packet's queued write) is never
 * reported to the model: it stays unnamed. */
uint32_t vaced_rec_new_msg(void);

static inline void vaced_rec_msg_init(struct vaced_msg *m)
{
    m->id = vaced_recording && vaced_rec_depth == 0 ? vaced_rec_new_msg() : 0;
}

/* A parked response fires: its calls are logged as a block, even though
 * the model, not MPICH, made the call that fired it. */
int vaced_rec_fire_begin(int defer_id);
void vaced_rec_fire_end(int saved_depth);
/* The id the next parked response gets. */
int vaced_rec_next_defer(void);

#endif
