/* Formatting of the rank lines, the job line and the JSON report. */
#ifndef VACED_REPORT_H
#define VACED_REPORT_H

#include <stdio.h>

struct vaced_rank_summary { int rank; double total, compute, communication; };

struct vaced_job_info {
    const char *target, *target_path, *cpu_source;
    int ranks;
};

/* True when the environment variable is set to something other than "" or "0". */
int getenv_flag(const char *name);

void vaced_print_rank_line(FILE *f, const struct vaced_rank_summary *s, int size);
/* all: ranks * 3 doubles (total, compute, communication) in rank order. */
void vaced_print_job_line(FILE *f, const struct vaced_job_info *job, const double *all);
/* Returns 0, or -1 when the file cannot be written. */
int vaced_write_json(const char *path, const struct vaced_job_info *job, const double *all);

#endif
