/* Packets a wait read unexpected, read later (late_reads.c).  The
 * scheduler (replay.c) asks before each event which put-off reads are
 * due and runs their events itself. */
#ifndef VACED_REPLAY_LATE_READS_H
#define VACED_REPLAY_LATE_READS_H

#include "replay/ranks.h"

/* e reads a packet not come yet: if a wait read it unexpected, puts the
 * read off (r->pos past it) and returns 1; else 0; -1 failed. */
int vaced_late_defer(struct rank_run *r, const struct vaced_log_event *e);
/* Before an event: the next put-off read whose packet has come, taken
 * off: 1 with its three events (the packet, its arrival, the handling's
 * end) in ev, for the caller to run before it asks again; 0 none left. */
int vaced_late_due(struct rank_run *r, struct vaced_log_event ev[3]);
/* Then, before event e: 1 e can go, 0 it needs a put-off read whose
 * packet has still to come (r->blocked_on set). */
int vaced_late_ready(struct rank_run *r, const struct vaced_log_event *e);
void vaced_late_free(struct rank_run *r);

#endif
