/* vaced-replay: re-times a record (VACED_RECORD) on a target, without
 * running the program again (docs/replay.md).  Built by the `vaced`
 * front end from this file and vaced/src, like vaced-check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "replay/replay.h"
#include "record/log_reader.h"

static const char usage[] =
    "usage: vaced-replay DIR --target T [--json FILE] [--quiet] [--uniform-compute] [--stats]\n"
    "                    [--loaders N]\n"
    "\n"
    "Re-times the execution recorded in DIR (VACED_RECORD=DIR, or vaced run\n"
    "--record DIR) on target T, a path or a name as VACED_TARGET, for the\n"
    "record's number of ranks.  Prints the rank lines and the job line as a\n"
    "live run does; notes where T could have changed the execution.\n"
    "\n"
    "  --target T    the target description (required)\n"
    "  --json FILE   write the JSON report to FILE (as VACED_JSON)\n"
    "  --quiet       no rank lines (as VACED_QUIET=1)\n"
    "  --uniform-compute\n"
    "                each rank's k-th compute segment re-timed as the median of\n"
    "                the k-th segments of the ranks with its sequence of calls:\n"
    "                the prediction without the host's measurement noise, for\n"
    "                programs whose ranks do the same work (docs/replay.md)\n"
    "  --loaders N   load the record with N threads (default: one a CPU this\n"
    "                process may use, at most 8); for replays run side by side\n"
    "  --stats       on stderr: events replayed, host seconds, events a second,\n"
    "                the same over the process's CPU time, and that CPU time\n"
    "                split into the record's load and the events\n"
    "  --dump R      print rank R's record, one event a line, and exit\n";

static const char *const op_name[VACED_OP_LAST + 1] = {
    [VACED_OP_BEGIN] = "begin", [VACED_OP_END_ACT] = "end", [VACED_OP_SLEEP] = "sleep",
    [VACED_OP_PKT_SENT] = "sent", [VACED_OP_PKT_RECV] = "received",
    [VACED_OP_HANDLE_BEGIN] = "handle_begin", [VACED_OP_HANDLE_END] = "handle_end",
    [VACED_OP_RESPOND_END] = "respond_end", [VACED_OP_MSG_INIT] = "msg_init",
    [VACED_OP_COMPLETE_BY] = "complete_by", [VACED_OP_ARRIVED] = "arrived",
    [VACED_OP_POSTED] = "posted", [VACED_OP_FOUND] = "found",
    [VACED_OP_COMPLETE_NOW] = "complete_now", [VACED_OP_REPORT] = "report",
    [VACED_OP_PARKS] = "parks", [VACED_OP_DEFER] = "defer", [VACED_OP_FIRE_BEGIN] = "fire_begin",
    [VACED_OP_FIRE_END] = "fire_end", [VACED_OP_POLL] = "poll", [VACED_OP_SITE] = "site",
    [VACED_OP_TEST_FAILED] = "test_failed", [VACED_OP_WAIT_BEGIN] = "wait_begin",
    [VACED_OP_WAIT_COMPLETE] = "wait_complete", [VACED_OP_WAIT_END] = "wait_end",
    [VACED_OP_PROBE_FOUND] = "probe_found", [VACED_OP_UNMODELLED] = "unmodelled",
    [VACED_OP_SIM_END] = "sim_end", [VACED_OP_PICK] = "pick", [VACED_OP_FIRST] = "first", [VACED_OP_DONE] = "done", [VACED_OP_SEGMENT] = "segment", [VACED_OP_CLOSE] = "close",
    [VACED_OP_COLL_BEGIN] = "coll_begin", [VACED_OP_COLL_END] = "coll_end",
};
static const char *const src_name[VACED_SRC_LAST + 1] = {
    "unset", "raw", "sent_ta", "sent_tr", "handled", "recv_ta", "done", "arrival", "now",
};

static int dump(const char *dir, int rank)
{
    char path[4200], err[2048];
    struct vaced_log log;
    struct vaced_log_event e;
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, rank);
    if (vaced_log_open(&log, path, err, sizeof err)) {
        fprintf(stderr, "vaced replay: %s\n", err);
        return 1;
    }
    printf("# %s: rank %u of %u, target %.*s, eager threshold %llu, flags %u, %llu events\n", path,
           log.rank, log.ranks, (int)(log.body - VACED_LOG_FIXED_HEADER),
           (const char *)log.data + VACED_LOG_FIXED_HEADER, (unsigned long long)log.eager_threshold,
           log.flags, (unsigned long long)log.events);
    size_t pos = log.body;
    int got;
    while ((got = vaced_log_next(&log, &pos, &e, err, sizeof err)) == 1) {
        printf("%zu %s peer=%d kind=%d bytes=%llu msg=%u from=%u flag=%d,%d value=%llu bits=%llu",
               e.offset, op_name[e.op], e.peer, e.kind, (unsigned long long)e.bytes, e.msg, e.from,
               e.flag, e.flag2, (unsigned long long)e.value, (unsigned long long)e.bits);
        if (e.time.src)
            printf(" time=%s:%lld:%u:%llu", src_name[e.time.src], (long long)e.time.t,
                   e.time.msg, (unsigned long long)e.time.bytes);
        printf("\n");
    }
    vaced_log_close(&log);
    if (got < 0)
        fprintf(stderr, "vaced replay: %s\n", err);
    return got < 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *target = NULL;
    int stats = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            target = argv[++i];
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
            setenv("VACED_JSON", argv[++i], 1);
        } else if (!strcmp(argv[i], "--quiet")) {
            setenv("VACED_QUIET", "1", 1);
        } else if (!strcmp(argv[i], "--dump") && i + 2 < argc + 1 && i + 1 < argc && dir) {
            return dump(dir, atoi(argv[i + 1]));
        } else if (!strcmp(argv[i], "--uniform-compute")) {
            vaced_replay_uniform_compute(1);
        } else if (!strcmp(argv[i], "--loaders") && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1024) {
                fprintf(stderr, "vaced replay: --loaders %s: not a number of threads\n", argv[i]);
                return 2;
            }
            vaced_replay_loaders((int)n);
        } else if (!strcmp(argv[i], "--stats")) {
            stats = 1;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "vaced replay: unexpected argument '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    if (!dir || !target) {
        fprintf(stderr, "vaced replay: %s\n%s", !dir ? "no record directory" : "no --target",
                usage);
        return 2;
    }
    char err[2048];
    struct timespec t0, t1, c0, c1;
    unsigned long long events = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    vaced_replay_exit_after(1);
    int rc = vaced_replay_run(dir, target, &events, err, sizeof err);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc) {
        fprintf(stderr, "vaced replay: %s\n", err);
        return 1;
    }
    if (stats) {
        double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr, "vaced replay: %llu events in %.3f s: %.2f million events a second\n",
                events, s, s > 0 ? 1e-6 * (double)events / s : 0);
        /* what the replay itself took of the CPUs, whoever else runs (the
         * loading threads' included) */
        double c = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        fprintf(stderr, "vaced replay: %.3f s of CPU: %.2f million events a CPU second\n", c,
                c > 0 ? 1e-6 * (double)events / c : 0);
        /* a record of many ranks and few events is mostly its load */
        double load = vaced_replay_load_cpu_s(), rest = c - load;
        fprintf(stderr, "vaced replay: of which loading the record %.2f ms, the replay %.2f ms: "
                "%.2f million events a CPU second once loaded\n", 1e3 * load, 1e3 * rest,
                rest > 0 ? 1e-6 * (double)events / rest : 0);
    }
    return 0;
}
