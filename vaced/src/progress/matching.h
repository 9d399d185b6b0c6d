/* The matching rules as the target applies them (matching.c). */
#ifndef VACED_MATCHING_H
#define VACED_MATCHING_H

#include "vaced.h"

/* The matching rules (matching.c) read the device's queues: set at the
 * simulation's start; a receive is posted held. */
void vaced_matching_start(const struct vaced_device *device);
void vaced_matching_hold(void);

#endif
