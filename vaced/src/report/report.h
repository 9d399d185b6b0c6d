/* Formatting of the rank lines, the job line and the JSON report. */
#ifndef VACED_REPORT_H
#define VACED_REPORT_H

#include <stdio.h>
#include "vaced.h"

struct vaced_rank_summary { int rank; double total, compute, communication; };

struct vaced_job_info {
    const char *target, *target_path, *cpu_source;
    const char *program_clocks; /* "target" or "host": what the program's own clocks tell */
    const char *approximate;    /* "" or what the model did not time */
    int ranks;
};

/* $VACED_QUIET: 0 (unset, "" or "0") every line; 1 (any other value) no
 * rank lines; 2 ("all") not even rank 0's line (for test harnesses that
 * compare a program's output; the JSON file is still written). */
int quiet_level(void);

void vaced_print_rank_line(FILE *f, const struct vaced_rank_summary *s, int size);
/* all: VACED_SUMMARY_LEN doubles a rank (see vaced_sim_end), in rank order. */
void vaced_print_job_line(FILE *f, const struct vaced_job_info *job, const double *all);
/* The breakdown's terms summed over all ranks, each as a share of the sum. */
void vaced_print_breakdown_line(FILE *f, int ranks, const double *all);
/* Returns 0, or -1 when the file cannot be written. */
int vaced_write_json(const char *path, const struct vaced_job_info *job, const double *all);

#endif
