/* The load's pass over a rank's events (survey.c). */
#ifndef VACED_REPLAY_SURVEY_H
#define VACED_REPLAY_SURVEY_H

#include <stddef.h>
#include "replay/ranks.h"

/* Checks every event of r's opened record once, counting its messages
 * (r->nmsgs) and finding its fire blocks (r->fires), so the replay never
 * meets a bad one midway; with `segments`, keeps its compute segments and
 * hashes its sequence of calls for uniform.h.  0, or -1 with
 * "FILE: offset N: reason" in err: the first bad event's, as
 * vaced_log_next and the checks below it give it. */
int vaced_survey(struct rank_run *r, int segments, char *err, size_t len);

#endif
