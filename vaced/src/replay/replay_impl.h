/* What the replay keeps for each recorded rank (replay.c), and loading
 * a record's files into it (replay_load.c). */
#ifndef VACED_REPLAY_IMPL_H
#define VACED_REPLAY_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "vaced.h"
#include "replay/log_reader.h"

/* The stamps of the packets one rank sent another and the other has not
 * read yet, in order. */
struct stamps {
    vaced_time_t *ta;
    uint32_t head, count, cap;
};

struct fire_block {
    size_t at;                  /* its FIRE_BEGIN; 0: not in the record */
    size_t end;                 /* just past its FIRE_END */
    int fired;                  /* the model fired it in the replay */
};

struct rank_run {
    struct vaced_log log;
    size_t pos;                 /* the next event of the rank's own thread of calls */
    size_t *cursor;             /* where its clock reads measurements: pos, or a fire block's */
    void *state;
    struct vaced_msg *msgs;     /* by id; [0] stands for requests the record does not name:
                                 * MPICH's preallocated, complete ones and those older than
                                 * the simulation */
    uint32_t nmsgs, msgs_made;
    struct fire_block *fires;   /* by defer id */
    uint32_t nfires, defers;
    struct stamps *in;          /* by sender */
    int blocked_on;             /* a sender whose packet it needs; -1: none */
    int started;                /* its model state was started */
    int done;
    vaced_time_t sent_ta, sent_tr, handled, recv_ta;
    double out[VACED_SUMMARY_LEN];
};

/* Opens every rank's file of the record in `dir` and checks every event
 * once (counting messages, finding the fire blocks), so a replay never
 * meets a bad one midway: *ranks gets *size ranks, each with its model
 * state block (unbound, zeroed).  0, or -1 with "FILE: offset N: reason"
 * in err (what was loaded is freed). */
int vaced_replay_load(const char *dir, struct rank_run **ranks, int *size, char *err, size_t len);
/* Frees them, each rank's model state with it (not the shared target). */
void vaced_replay_unload(struct rank_run *ranks, int size);

#endif
