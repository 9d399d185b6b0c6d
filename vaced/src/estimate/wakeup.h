/* The wake-up penalty taken out of a rank's segments (wakeup.c,
 * docs/replay.md#the-wake-up-correction).  On a host with more ranks
 * than cores a rank that sleeps in a wait is woken on a core whose caches
 * and TLB other ranks used meanwhile, and the segment after the wait
 * pays for refilling them; a target rank, alone on its core, does not.
 * Within one class of segments (segments.h), the cold instances' median
 * over the warm ones' is that penalty; each cold segment gives it back,
 * never below the warm median.  A class is corrected only when it has
 * warm instances enough to trust and they agree (the range of their
 * middle 80 % within half their median or 1 us: one place in the code,
 * not several). */
#ifndef VACED_ESTIMATE_WAKEUP_H
#define VACED_ESTIMATE_WAKEUP_H

#include "estimate/segments.h"

#define VACED_WAKEUP_MIN_WARM 3         /* warm instances a class needs */

struct vaced_wakeup {
    double cold_ps;             /* the cold segments, as measured */
    double removed_ps;          /* what the correction took off them */
    double uncorrected_ps;      /* cold segments of classes it could not correct */
};

/* Corrects s's cold segments in place and adds to w (not zeroed).  0, or
 * -1 when out of memory (s unchanged). */
int vaced_wakeup_correct(struct vaced_segments *s, struct vaced_wakeup *w);

#endif
