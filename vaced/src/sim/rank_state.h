/* One rank's model state, swappable (rank_state.c).
 *
 * Each module keeps its per-rank state in one struct reached through a
 * pointer, which points at the module's live statics: the live library
 * simulates the one rank its process runs and never rebinds.  A replay
 * re-times a recorded execution of many ranks in one process: it gives
 * each simulated rank a block of vaced_rank_state_size() bytes and binds
 * the block of the rank whose event it runs, so the same model code runs
 * for every rank at the cost of one pointer load per access. */
#ifndef VACED_RANK_STATE_H
#define VACED_RANK_STATE_H

#include <stddef.h>

/* A module's state: the address of its pointer, its live statics, and
 * their size. */
struct vaced_state_slot {
    void *ptr;                  /* a `struct X **`, written through memcpy */
    void *live;
    size_t size;
};

/* Defines slot `name` for pointer `ptr` to live statics `live`; the
 * assignment in the assertion (never evaluated) rejects a pointer of
 * another type. */
#define VACED_STATE_SLOT(name, ptr, live)                                         \
    _Static_assert(sizeof((ptr) = &(live)) == sizeof(void *), #ptr " points at " #live); \
    const struct vaced_state_slot name = { &(ptr), &(live), sizeof(live) }

/* Bytes one rank's state needs: every slot, each aligned to
 * alignof(max_align_t). */
size_t vaced_rank_state_size(void);
/* Points every module's state at its part of `block`: zeroed (a fresh
 * rank, which vaced_sim_start or the modules' resets then initialise) or
 * bound before, vaced_rank_state_size() bytes, aligned as malloc's. */
void vaced_rank_state_bind(void *block);
/* Points every module's state back at its live statics. */
void vaced_rank_state_bind_live(void);

#endif
