/* What each compute segment went through on the host (segment_causes.h). */
#define _GNU_SOURCE             /* RUSAGE_THREAD */
#include "report/segment_causes.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "env/env.h"

const double vaced_causes_length_below[VACED_CAUSES_LENGTHS - 1] = { 10e-6, 100e-6, 1e-3 };

static void sum_add(struct vaced_causes_sum *s, double cpu_s)
{
    s->segments++;
    s->cpu_s += cpu_s;
}

void vaced_causes_add(struct vaced_segment_causes *c, const struct vaced_segment_sample *s)
{
    int k = 0;
    while (k < VACED_CAUSES_LENGTHS - 1 && s->cpu_s >= vaced_causes_length_below[k])
        k++;
    sum_add(&c->all, s->cpu_s);
    sum_add(&c->length[k], s->cpu_s);
    c->wall_s += s->wall_s;
    c->faults += s->faults;
    c->preemptions += s->preemptions;
    if (s->faults > 0)
        sum_add(&c->faulted, s->cpu_s);
    if (s->preemptions > 0)
        sum_add(&c->preempted, s->cpu_s);
    if (s->cold) {
        sum_add(&c->cold, s->cpu_s);
        sum_add(&c->cold_length[k], s->cpu_s);
    }
    if (s->faults == 0 && s->preemptions == 0 && !s->cold)
        sum_add(&c->clean, s->cpu_s);
}

static void write_sum(FILE *f, const char *name, const struct vaced_causes_sum *s)
{
    fprintf(f, "\"%s\": {\"segments\": %lld, \"cpu_s\": %.9f}", name, (long long)s->segments,
            s->cpu_s);
}

void vaced_causes_write(FILE *f, int rank, const struct vaced_segment_causes *c)
{
    fprintf(f, "{\"rank\": %d, \"wall_s\": %.9f, \"faults\": %lld, \"preemptions\": %lld,\n ", rank,
            c->wall_s, (long long)c->faults, (long long)c->preemptions);
    write_sum(f, "all", &c->all);
    fputs(",\n ", f);
    write_sum(f, "faulted", &c->faulted);
    fputs(",\n ", f);
    write_sum(f, "preempted", &c->preempted);
    fputs(",\n ", f);
    write_sum(f, "cold", &c->cold);
    fputs(",\n ", f);
    write_sum(f, "clean", &c->clean);
    fputs(",\n \"by_length\": [", f);
    for (int k = 0; k < VACED_CAUSES_LENGTHS; k++) {
        fprintf(f, "%s\n  {\"below_s\": ", k ? "," : "");
        if (k < VACED_CAUSES_LENGTHS - 1)
            fprintf(f, "%g", vaced_causes_length_below[k]);
        else
            fputs("null", f);
        fputs(", ", f);
        write_sum(f, "all", &c->length[k]);
        fputs(", ", f);
        write_sum(f, "cold", &c->cold_length[k]);
        fputc('}', f);
    }
    fputs("]}\n", f);
}

int vaced_causes_on;

/* The live run's state: one rank a process, never replayed. */
static struct {
    int cold;
    char dir[4096];
    struct rusage at;
    double wall_at;
    struct vaced_segment_causes sums;
} live;

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int vaced_causes_open(int rank)
{
    const char *dir = vaced_env(VACED_ENV_SEGMENT_CAUSES);
    if (!dir || !*dir)
        return 0;
    if (strlen(dir) + 64 > sizeof live.dir) {
        fprintf(stderr, "vaced: rank %d: VACED_SEGMENT_CAUSES directory name too long; ignored\n",
                rank);
        return -1;
    }
    memset(&live, 0, sizeof live);
    strcpy(live.dir, dir);
    vaced_causes_on = 1;
    vaced_causes_mark_start(0);
    return 0;
}

void vaced_causes_mark_start(int cold)
{
    live.cold = cold;
    getrusage(RUSAGE_THREAD, &live.at);
    live.wall_at = wall_now();
}

void vaced_causes_mark_end(double cpu_s)
{
    struct rusage now;
    getrusage(RUSAGE_THREAD, &now);
    struct vaced_segment_sample s = {
        .cpu_s = cpu_s,
        .wall_s = wall_now() - live.wall_at,
        .faults = (now.ru_minflt - live.at.ru_minflt) + (now.ru_majflt - live.at.ru_majflt),
        .preemptions = now.ru_nivcsw - live.at.ru_nivcsw,
        .cold = live.cold,
    };
    vaced_causes_add(&live.sums, &s);
}

void vaced_causes_close(int rank)
{
    if (!vaced_causes_on)
        return;
    vaced_causes_on = 0;
    char path[sizeof live.dir + 64];
    snprintf(path, sizeof path, "%s/segment-causes.%d.json", live.dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vaced: rank %d: cannot write '%s': %s\n", rank, path, strerror(errno));
        return;
    }
    vaced_causes_write(f, rank, &live.sums);
    if (fclose(f) != 0)
        fprintf(stderr, "vaced: rank %d: writing '%s' failed\n", rank, path);
}
