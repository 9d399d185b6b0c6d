/* The clock's observers (clock_observers.c). */
#ifndef VACED_CLOCK_OBSERVERS_H
#define VACED_CLOCK_OBSERVERS_H

/* The recorder, trace, breakdown, call tables and bounds hear the clock
 * from now on (every start, live or replayed). */
void vaced_clock_observers_install(void);

#endif
