/* Every rank's model state in one block, swappable (rank_state.c): the
 * modules' slots (job/state_slot.h) listed and bound together. */
#ifndef VACED_RANK_STATE_H
#define VACED_RANK_STATE_H

#include <stddef.h>
#include "job/state_slot.h"

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
