/* A module's per-rank state, swappable (sim/rank_state.c lists them).
 *
 * Each module keeps its per-rank state in one struct reached through a
 * pointer, which points at the module's live statics: the live library
 * simulates the one rank its process runs and never rebinds.  A replay
 * re-times a recorded execution of many ranks in one process: it gives
 * each simulated rank a block of state and binds the block of the rank
 * whose event it runs, so the same model code runs for every rank at the
 * cost of one pointer load per access. */
#ifndef VACED_STATE_SLOT_H
#define VACED_STATE_SLOT_H

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

#endif
