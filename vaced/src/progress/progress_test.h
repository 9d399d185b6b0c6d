/* Unit tests only (tests/unit/): the wait history, to record progress
 * points directly and count them. */
#ifndef VACED_PROGRESS_TEST_H
#define VACED_PROGRESS_TEST_H

#include "progress/waits.h"

static inline struct vaced_waits *vaced_progress_test_waits(void)
{
    return &vaced_progress_st->waits;
}

#endif
