#include <stdlib.h>
#include <string.h>
#include "report.h"

int quiet_level(void)
{
    const char *v = getenv("VACED_QUIET");
    if (!v || !*v || !strcmp(v, "0"))
        return 0;
    return !strcmp(v, "all") || !strcmp(v, "2") ? 2 : 1;
}

/* One fprintf per line, flushed, so lines of many ranks do not interleave. */
void vaced_print_rank_line(FILE *f, const struct vaced_rank_summary *s, int size)
{
    fprintf(f, "vaced: rank %d of %d: predicted %.9f s (compute %.9f s, communication %.9f s)\n",
            s->rank, size, s->total, s->compute, s->communication);
    fflush(f);
}

static int slowest_rank(const double *all, int ranks)
{
    int best = 0;
    for (int r = 1; r < ranks; r++)
        if (all[3 * r] > all[3 * best])
            best = r;
    return best;
}

void vaced_print_job_line(FILE *f, const struct vaced_job_info *job, const double *all)
{
    int r = slowest_rank(all, job->ranks);
    fprintf(f, "vaced: prediction %.9f s on target %s (%d ranks; slowest rank %d: compute %.9f s,"
            " communication %.9f s; cpu time %s)\n",
            all[3 * r], job->target, job->ranks, r, all[3 * r + 1], all[3 * r + 2], job->cpu_source);
    fflush(f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char) *s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char) *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

int vaced_write_json(const char *path, const struct vaced_job_info *job, const double *all)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"target\": ");
    json_string(f, job->target);
    fprintf(f, ",\n  \"target_file\": ");
    json_string(f, job->target_path);
    fprintf(f, ",\n  \"cpu_time_source\": ");
    json_string(f, job->cpu_source);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"prediction_s\": %.12f,\n  \"per_rank\": [\n",
            job->ranks, all[3 * slowest_rank(all, job->ranks)]);
    for (int r = 0; r < job->ranks; r++)
        fprintf(f, "    {\"rank\": %d, \"total_s\": %.12f, \"compute_s\": %.12f, \"communication_s\": %.12f}%s\n",
                r, all[3 * r], all[3 * r + 1], all[3 * r + 2], r + 1 < job->ranks ? "," : "");
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}
