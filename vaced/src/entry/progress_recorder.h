/* The recorder as the progress model's observer (progress_recorder.c). */
#ifndef VACED_PROGRESS_RECORDER_H
#define VACED_PROGRESS_RECORDER_H

/* While a record is open the recorder hears the model's answers and
 * choices, else nobody does (every start, after the record opens). */
void vaced_progress_recorder_install(void);

#endif
