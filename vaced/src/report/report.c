#include <stdlib.h>
#include <string.h>
#include "env/env.h"
#include "report/report.h"
#include "report/json_string.h"
#include "report/breakdown.h"
#include "report/calls.h"

_Static_assert(VACED_SUMMARY_BREAKDOWN + VACED_TERMS <= VACED_SUMMARY_LEN,
               "the rank summary holds every term of the breakdown");

int quiet_level(void)
{
    const char *v = vaced_env(VACED_ENV_QUIET);
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

/* all[] holds VACED_SUMMARY_LEN values a rank: total, compute, communication, ... */
#define FIELD(all, r, k) ((all)[VACED_SUMMARY_LEN * (r) + (k)])

static int slowest_rank(const double *all, int ranks)
{
    int best = 0;
    for (int r = 1; r < ranks; r++)
        if (FIELD(all, r, 0) > FIELD(all, best, 0))
            best = r;
    return best;
}

/* The share of all ranks' computation that began cold on an oversubscribed
 * host; -1 when no rank's host was. */
static double cold_share(const double *all, int ranks)
{
    double cold = 0, compute = 0;
    int noted = 0;
    for (int r = 0; r < ranks; r++)
        if (FIELD(all, r, 4) >= 0) {
            noted = 1;
            cold += FIELD(all, r, 4);
            compute += FIELD(all, r, 1);
        }
    return !noted ? -1 : compute > 0 ? cold / compute : 0;
}

void vaced_print_job_line(FILE *f, const struct vaced_job_info *job, const double *all)
{
    int r = slowest_rank(all, job->ranks);
    double cold = cold_share(all, job->ranks);
    char cold_note[64] = "";
    if (cold >= 0)
        snprintf(cold_note, sizeof cold_note, "; cold starts %.1f %% of compute", cold * 100);
    fprintf(f, "vaced: prediction %.9f s on target %s (%d ranks; slowest rank %d: compute %.9f s,"
            " communication %.9f s%s; program clocks %s; cpu time %s)%s%s\n",
            FIELD(all, r, 0), job->target, job->ranks, r, FIELD(all, r, 1), FIELD(all, r, 2),
            cold_note, job->program_clocks, job->cpu_source,
            job->approximate[0] ? " APPROXIMATE: not modelled: " : "", job->approximate);
    fflush(f);
}

/* Each term's share of all ranks' time: where the job's time went. */
void vaced_print_breakdown_line(FILE *f, int ranks, const double *all)
{
    double sum[VACED_TERMS] = { 0 }, total = 0;
    for (int r = 0; r < ranks; r++)
        for (int i = 0; i < VACED_TERMS; i++) {
            sum[i] += FIELD(all, r, VACED_SUMMARY_BREAKDOWN + i);
            total += FIELD(all, r, VACED_SUMMARY_BREAKDOWN + i);
        }
    char line[512];
    int n = snprintf(line, sizeof line, "vaced: breakdown (all ranks):");
    for (int i = 0; i < VACED_TERMS && n < (int)sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %.1f %%", i ? "," : "",
                      vaced_term_names[i], total > 0 ? 100 * sum[i] / total : 0.0);
    fprintf(f, "%s\n", line);
    fflush(f);
}

int vaced_write_json(const char *path, const struct vaced_job_info *job, const double *all)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"target\": ");
    vaced_json_string(f, job->target);
    fprintf(f, ",\n  \"target_file\": ");
    vaced_json_string(f, job->target_path);
    fprintf(f, ",\n  \"cpu_time_source\": ");
    vaced_json_string(f, job->cpu_source);
    fprintf(f, ",\n  \"program_clocks\": ");
    vaced_json_string(f, job->program_clocks);
    fprintf(f, ",\n  \"approximate\": %s,\n  \"not_modelled\": ",
            job->approximate[0] ? "true" : "false");
    vaced_json_string(f, job->approximate);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"prediction_s\": %.12f,\n  \"cold_start_share\": ",
            job->ranks, FIELD(all, slowest_rank(all, job->ranks), 0));
    double cold = cold_share(all, job->ranks);
    if (cold >= 0)
        fprintf(f, "%.6f", cold);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"per_rank\": [\n");
    for (int r = 0; r < job->ranks; r++) {
        fprintf(f, "    {\"rank\": %d, \"total_s\": %.12f, \"compute_s\": %.12f, \"communication_s\": %.12f,"
                " \"compute_cold_s\": %.12f, \"breakdown\": {",
                r, FIELD(all, r, 0), FIELD(all, r, 1), FIELD(all, r, 2),
                FIELD(all, r, 4) > 0 ? FIELD(all, r, 4) : 0.0);
        for (int i = 0; i < VACED_TERMS; i++)
            fprintf(f, "%s\"%s\": %.12f", i ? ", " : "", vaced_term_names[i],
                    FIELD(all, r, VACED_SUMMARY_BREAKDOWN + i));
        fprintf(f, "}}%s\n", r + 1 < job->ranks ? "," : "");
    }
    fprintf(f, "  ]");
    double rank_seconds = 0;
    for (int r = 0; r < job->ranks; r++)
        rank_seconds += FIELD(all, r, 0);
    vaced_calls_write_json(f, rank_seconds);
    fprintf(f, "\n}\n");
    return fclose(f) == 0 ? 0 : -1;
}
