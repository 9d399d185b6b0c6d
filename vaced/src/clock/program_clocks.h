/* The program's own clocks tell target time (program_clocks.c). */
#ifndef VACED_PROGRAM_CLOCKS_H
#define VACED_PROGRAM_CLOCKS_H

#include <stdint.h>
#include <time.h>

/* At simulation start: each clock's host reading becomes its origin, and
 * the program's reads turn to target time unless $VACED_HOST_CLOCKS is
 * set (and not "0"). */
void vaced_program_clocks_start(void);
/* Whether the program's clocks tell target time (for the job line). */
int vaced_program_clocks_on(void);
/* What the program reads on target clock `id` now, in nanoseconds. */
int64_t vaced_program_clock_ns(clockid_t id);

#endif
