/* Simulation start and end (events E_start and E_end) and the reports. */
#define _GNU_SOURCE     /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "env/env.h"
#include "cputime/cputime_cache.h"
#include "sim/sim.h"
#include "clock/clock.h"
#include "clock/program_clocks.h"
#include "network/send.h"
#include "report/trace.h"
#include "report/segment_causes.h"
#include "report/report.h"
#include "progress/waits.h"
#include "progress/wildcard_bounds.h"
#include "progress/matching.h"
#include "progress/early_queue.h"
#include "progress/peers.h"
#include "report/awaited.h"
#include "report/breakdown.h"
#include "report/calls.h"
#include "record/record.h"
#include "entry/progress_recorder.h"
/* The one arrow up: a live run may take its computation from a record
 * ($VACED_COMPUTE_FROM), which replay/'s reader decodes. */
#include "sim/compute_from.h"
#include "sim/rank_state.h"
#include "sim/clock_observers.h"
#include "machine/target.h"


#ifndef VACED_TOPO_DIR
#define VACED_TOPO_DIR "topo"
#endif
#define VACED_DEFAULT_TARGET "paper-1024"

/* $VACED_TARGET is a path when it names a file, else a name looked up as
 * NAME.topo in $VACED_TOPO_DIR and then in the installed topo directory. */
static int resolve_target(const char *spec, char *path, size_t len)
{
    if (strchr(spec, '/')) {
        snprintf(path, len, "%s", spec);
        return 0;
    }
    const char *dirs[] = { vaced_env(VACED_ENV_TOPO_DIR), VACED_TOPO_DIR };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i])
            continue;
        snprintf(path, len, "%s/%s.topo", dirs[i], spec);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return 0;
        }
    }
    snprintf(path, len, "%s", spec);
    return -1;
}

/* Every rank reads the same description, so rank 0 alone says what is
 * wrong; the others give it time to say so before the job ends (mpiexec
 * kills them once rank 0 exits). */
static int refuse(int rank)
{
    if (rank != 0) {
        struct timespec pause = { 5, 0 };
        nanosleep(&pause, NULL);
    }
    return 1;
}

/* More ranks on this host than cores this process may run on: Hydra
 * says how many ranks it started here (MPI_LOCALNRANKS); without it, the
 * whole job is taken to be here. */
static int host_oversubscribed(int size)
{
    const char *local = vaced_env(VACED_ENV_LOCAL_RANKS);
    long ranks = local && *local ? strtol(local, NULL, 10) : size;
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;

    return ranks > cores;
}

/* $VACED_RECORD: the header says what the clock's measurements hold.  The
 * recorder hears the model's answers while the record is open. */
static void record_open(int rank, int size)
{
    unsigned flags = (vaced_clock_canary_open() ? VACED_LOG_COLDNESS : 0) |
                     (vaced_clock_oversubscribed() ? VACED_LOG_OVERSUBSCRIBED : 0);
    vaced_record_open(rank, size, vaced_target_eager_threshold(vaced_sim_st->target),
                      vaced_sim_st->target_path, flags);
    vaced_progress_recorder_install();
}

/* Every module's state zeroed, before anything else of a start.  The
 * table of MPI calls is the live run's (a replay makes no calls): its
 * reset loads the unwinder, which a replay would pay for nothing. */
static void reset_rank(int rank, int size, int live)
{
    memset(vaced_sim_st, 0, sizeof *vaced_sim_st);
    vaced_clock_reset();
    vaced_clock_observers_install();
    vaced_send_reset();
    vaced_progress_reset();
    vaced_breakdown_reset();
    if (live)
        vaced_calls_reset();
    vaced_sim_st->rank = rank;
    vaced_sim_st->size = size;
}

int vaced_sim_start(int rank, int size, const struct vaced_device *device,
                    uint64_t *eager_threshold)
{
    char err[1024];
    const char *spec = vaced_env(VACED_ENV_TARGET);
    if (!spec || !*spec)
        spec = VACED_DEFAULT_TARGET;
    reset_rank(rank, size, 1);
    if (vaced_sim_load_target(spec, size, vaced_sim_st->target_path,
                              sizeof vaced_sim_st->target_path, &vaced_sim_st->target, err,
                              sizeof err)) {
        if (rank == 0)
            fprintf(stderr, "vaced: %s\n", err);
        return refuse(rank);
    }
    if (vaced_peers_init(size)) {
        fprintf(stderr, "vaced: rank %d: out of memory for %d peers' protocol state\n", rank, size);
        return refuse(rank);
    }
    if ((vaced_target_net_warmup(vaced_sim_st->target) > 0 && vaced_send_count_connections(size)) ||
        vaced_awaited_start(size)) {
        fprintf(stderr, "vaced: rank %d: out of memory for %d connections' message counts (net_warmup_messages)\n",
                rank, size);
        return refuse(rank);
    }
    /* The source is named in the job line; why it is not the cheapest
     * possible one only matters to a user who asked for another. */
    char why[256] = "";
    const char *request = vaced_env(VACED_ENV_CPUTIME);
    vaced_sim_st->cpu_source = vaced_cputime_init_cached(request, why, sizeof why, NULL);
    if (why[0] && rank == 0 && request && *request)
        fprintf(stderr, "vaced: CPU time source %s: %s\n",
                vaced_cputime_source_name(vaced_sim_st->cpu_source), why);
    /* The overheads follow the canary where the target says how its
     * calibration's computation cooled it (VACED_CANARY=off: by the
     * computation's length alone, as without overhead_coldness). */
    const char *canary = vaced_env(VACED_ENV_CANARY);
    if (vaced_target_has_coldness(vaced_sim_st->target) && !(canary && !strcmp(canary, "off")))
        vaced_clock_open_canary();
    vaced_trace_open(rank);     /* a trace it cannot write is reported, not fatal */
    vaced_causes_open(rank);    /* VACED_SEGMENT_CAUSES: what the host did to each segment */
    vaced_bounds_start(device ? device->send_bound : NULL);
    vaced_matching_start(device);
    *eager_threshold = vaced_target_eager_threshold(vaced_sim_st->target);
    vaced_program_clocks_start();       /* the clocks' origins: now */
    vaced_clock_set_oversubscribed(host_oversubscribed(size));
    if (vaced_compute_from_open(rank, size))
        return refuse(rank);
    vaced_clock_start();                        /* E_start: tV = 0; t1 = cpu() */
    record_open(rank, size);
    vaced_running = 1;
    return 0;
}

int vaced_sim_load_target(const char *spec, int size, char *path, size_t pathlen,
                          struct vaced_target **t, char *err, size_t len)
{
    if (resolve_target(spec, path, pathlen)) {
        snprintf(err, len, "target '%s': no such file, and no %s.topo in $VACED_TOPO_DIR or %s",
                 spec, spec, VACED_TOPO_DIR);
        return -1;
    }
    return vaced_target_load(path, size, t, err, len) ? -1 : 0;
}

int vaced_sim_start_replay(int rank, int size, struct vaced_target *t, const char *path,
                           int oversubscribed, int uniform)
{
    reset_rank(rank, size, 0);
    vaced_sim_st->replay = uniform ? 2 : 1;
    vaced_sim_st->target = t;
    /* snprintf's "%s", without its formatting machinery: a rank's start */
    size_t n = strnlen(path, sizeof vaced_sim_st->target_path - 1);
    memcpy(vaced_sim_st->target_path, path, n);
    vaced_sim_st->target_path[n] = '\0';
    if (vaced_peers_init(size) ||
        (vaced_target_net_warmup(t) > 0 && vaced_send_count_connections(size)) ||
        vaced_awaited_start(size))
        return -1;
    vaced_bounds_start(NULL);
    vaced_matching_start(NULL);
    vaced_clock_set_oversubscribed(oversubscribed);
    vaced_clock_start();
    vaced_running = 1;
    return 0;
}

void vaced_sim_release(void)
{
    vaced_free_parked();
    vaced_bounds_free();
    vaced_sim_st->target = NULL;        /* the replay's, shared */
    vaced_send_free();
    vaced_awaited_free();
    vaced_peers_free();
    vaced_recv_turns_free();
}

void vaced_sim_end(double out[VACED_SUMMARY_LEN])
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_SIM_END);
    if (vaced_running) {
        vaced_activity_begin();                 /* E_end: tV += t2 - t1 */
        vaced_trace_close(vaced_sim_st->rank);
        vaced_causes_close(vaced_sim_st->rank);
        vaced_fire_parked(INT64_MAX);         /* before connections close */
        vaced_running = 0;
        vaced_sim_st->ended = 1;
        vaced_bounds_activity_point();          /* "finalizing" to pending askers */
        vaced_clock_close_canary();
    }
    struct vaced_rank_summary s = {
        .rank = vaced_sim_st->rank,
        .total = vaced_time_to_s(vaced_clock_tv()),
        .compute = vaced_time_to_s(vaced_clock_compute()),
    };
    s.communication = s.total - s.compute;
    if (vaced_sim_st->ended && quiet_level() == 0)
        vaced_print_rank_line(stdout, &s, vaced_sim_st->size);
    out[0] = s.total;
    out[1] = s.compute;
    out[2] = s.communication;
    out[3] = vaced_sim_st->unmodelled;
    vaced_time_t cold = vaced_clock_compute_cold();
    out[4] = cold == VACED_TIME_UNSET ? -1 : vaced_time_to_s(cold);
    for (int i = 0; i < VACED_TERMS; i++)
        out[VACED_SUMMARY_BREAKDOWN + i] = vaced_time_to_s(vaced_breakdown_st->term[i]);
    vaced_rec_leave();
    vaced_record_close();
}

void vaced_report_calls(const void *packed, const int64_t *lens, int size)
{
    vaced_calls_merge(packed, lens, size);
}

int vaced_report_job(const double *all, int size)
{
    unsigned unmodelled = 0;
    char approx[256] = "";
    for (int r = 0; r < size; r++)
        unmodelled |= (unsigned) all[VACED_SUMMARY_LEN * r + 3];
    for (unsigned kind = 1; kind <= VACED_UNMODELLED_LAST; kind <<= 1)
        if (unmodelled & kind)
            snprintf(approx + strlen(approx), sizeof approx - strlen(approx), "%s%s",
                     approx[0] ? ", " : "", vaced_unmodelled_what(kind));
    struct vaced_job_info job = {
        .approximate = approx,
        .target = vaced_sim_st->target ? vaced_target_name(vaced_sim_st->target) : "?",
        .target_path = vaced_sim_st->target_path,
        .cpu_source = vaced_sim_st->replay == 2 ? "recorded, uniform across ranks"
                      : vaced_sim_st->replay ? "recorded"
                                             : vaced_cputime_source_name(vaced_sim_st->cpu_source),
        .program_clocks = vaced_sim_st->replay ? "recorded"
                          : vaced_program_clocks_on() ? "target" : "host",
        .ranks = size,
    };
    if (quiet_level() < 2) {
        vaced_print_job_line(stdout, &job, all);
        vaced_print_breakdown_line(stdout, size, all);
    }
    const char *json = vaced_env(VACED_ENV_JSON);
    if (json && *json && vaced_write_json(json, &job, all)) {
        fprintf(stderr, "vaced: cannot write VACED_JSON file '%s'; the prediction is the line above\n", json);
        return 1;
    }
    /* vaced run converts the traces and removes VACED_OTF2 from the ranks'
     * environment; seen here, the job was started by mpiexec directly. */
    const char *otf2 = vaced_env(VACED_ENV_OTF2);
    if (otf2 && *otf2 && !vaced_sim_st->replay)
        fprintf(stderr, "vaced: note: VACED_OTF2 is read by `vaced run`, which converts the ranks' "
                "traces; under mpiexec, set VACED_TRACE=DIR and run `vaced otf2 DIR %s`\n", otf2);
    return 0;
}


void vaced_shutdown(void)
{
    vaced_running = 0;
    vaced_calls_free();
    vaced_trace_close(vaced_sim_st->rank);   /* a job that never reached vaced_sim_end */
    vaced_free_parked();
    vaced_bounds_free();
    vaced_target_free(vaced_sim_st->target);
    vaced_sim_st->target = NULL;
    vaced_send_free();
    vaced_awaited_free();
    vaced_peers_free();
    vaced_recv_turns_free();
    vaced_cputime_fini();
}
