/* Unit tests of combining executions (vaced/src/estimate/combine.c): each
 * rank's k-th segment becomes the median, or the least, of its k-th
 * segments over the executions in which it made the same calls; a rank
 * whose calls differ in one execution is combined from the others; the
 * rest of the record is copied byte for byte and the result is a valid
 * record (trailer, hash) whose segments grow or shrink in their encoding;
 * a record of another job is refused with its path.
 *
 * Run: test_combine */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "vlog_writer.h"
#include "estimate/combine.h"
#include "record/log_format.h"
#include "record/log_reader.h"

/* Rank `rank` of `ranks`: segments ps[0..n-1], each followed by one
 * activity; `sends` of them start an eager send (the rank's calls). */
static void write_record(const char *dir, int rank, int ranks, const uint64_t *ps, int n, int sends)
{
    static struct vlog w;
    vlog_start(&w, rank, ranks, 0);
    for (int k = 0; k < n; k++) {
        VLOG(&w, VACED_OP_BEGIN);
        VLOG(&w, VACED_OP_SEGMENT, ps[k]);
        if (k < sends)      /* peer (zigzag), kind, bytes */
            VLOG(&w, VACED_OP_PKT_SENT, 2 * (uint64_t)(1 - rank), VACED_PKT_EAGER, 8);
        VLOG(&w, VACED_OP_END_ACT);
    }
    VLOG(&w, VACED_OP_SIM_END);
    VLOG(&w, VACED_OP_SEGMENT, 5);
    CHECK(vlog_finish(&w, dir, rank) == 0);
}

/* The segments of a record's rank file, into ps (n of them). */
static int read_back(const char *dir, int rank, uint64_t *ps, int max)
{
    char path[512], err[1024];
    struct vaced_log log;
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, rank);
    if (vaced_log_open(&log, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    struct vaced_log_event e;
    size_t pos = log.body;
    int n = 0;
    while (vaced_log_next(&log, &pos, &e, err, sizeof err) == 1)
        if (e.op == VACED_OP_SEGMENT && n < max)
            ps[n++] = e.value;
    vaced_log_close(&log);
    return n;
}

static int same_file(const char *a, const char *b)
{
    char x[8192], y[8192];
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    size_t n = f ? fread(x, 1, sizeof x, f) : 0, m = g ? fread(y, 1, sizeof y, g) : 0;
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return f && g && n == m && !memcmp(x, y, n);
}

int main(void)
{
    char root[] = "/tmp/test_combine.XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char e1[600], e2[600], e3[600], out[600], self[600], other[600];
    snprintf(e1, sizeof e1, "%s/e1", root);
    snprintf(e2, sizeof e2, "%s/e2", root);
    snprintf(e3, sizeof e3, "%s/e3", root);
    snprintf(out, sizeof out, "%s/out", root);
    snprintf(self, sizeof self, "%s/self", root);
    snprintf(other, sizeof other, "%s/other", root);

    /* rank 0: a stall of one execution in each of two segments; the
     * medians need more bytes than the first execution's values */
    const uint64_t r0[3][3] = { { 10, 20, 30 }, { 1000000, 18, 90 }, { 11, 1000, 31 } };
    /* rank 1: its third execution made one more send */
    const uint64_t r1[3][3] = { { 100, 200, 300 }, { 110, 220, 330 }, { 1, 1, 1 } };
    const char *dirs[3] = { e1, e2, e3 };
    for (int x = 0; x < 3; x++) {
        write_record(dirs[x], 0, 2, r0[x], 3, 1);
        write_record(dirs[x], 1, 2, r1[x], 3, x == 2 ? 2 : 1);
    }
    mkdir(out, 0777);
    struct vaced_combined res;
    char err[2048];
    CHECK(vaced_combine_records(out, dirs, 3, 0, VACED_COMBINE_MEDIAN, &res, err, sizeof err) == 0);
    CHECK(res.ranks == 2 && res.combined == 2 && res.executions_min == 2);
    CHECK(res.segments == 8);
    uint64_t ps[8];
    CHECK(read_back(out, 0, ps, 8) == 4);
    CHECK(ps[0] == 11 && ps[1] == 20 && ps[2] == 31 && ps[3] == 5);
    CHECK(read_back(out, 1, ps, 8) == 4);      /* the mean of two: executions 1 and 2 */
    CHECK(ps[0] == 105 && ps[1] == 210 && ps[2] == 315 && ps[3] == 5);

    /* the least of each segment's measurements: no stall survives */
    CHECK(vaced_combine_records(out, dirs, 3, 0, VACED_COMBINE_MIN, &res, err, sizeof err) == 0);
    CHECK(res.combined == 2 && res.executions_min == 2 && res.segments == 8);
    CHECK(read_back(out, 0, ps, 8) == 4);
    CHECK(ps[0] == 10 && ps[1] == 18 && ps[2] == 30 && ps[3] == 5);
    CHECK(read_back(out, 1, ps, 8) == 4);      /* executions 1 and 2 */
    CHECK(ps[0] == 100 && ps[1] == 200 && ps[2] == 300 && ps[3] == 5);

    /* one execution three times: the same bytes */
    mkdir(self, 0777);
    const char *thrice[3] = { e1, e1, e1 };
    CHECK(vaced_combine_records(self, thrice, 3, 0, VACED_COMBINE_MIN, &res, err, sizeof err) == 0);
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/rank-000001.vlog", self);
    snprintf(b, sizeof b, "%s/rank-000001.vlog", e1);
    CHECK(same_file(a, b));

    /* another job's record (3 ranks) is refused, named */
    write_record(other, 0, 3, r0[0], 3, 1);
    const char *mixed[2] = { e1, other };
    CHECK(vaced_combine_records(out, mixed, 2, 0, VACED_COMBINE_MIN, &res, err, sizeof err) == -1);
    CHECK(strstr(err, "other/rank-000000.vlog") != NULL && strstr(err, "not an execution") != NULL);

    /* a missing execution is refused with the file's name */
    const char *missing[2] = { e1, "/nonexistent-vaced-record" };
    CHECK(vaced_combine_records(out, missing, 2, 0, VACED_COMBINE_MIN, &res, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent-vaced-record/rank-000000.vlog") != NULL);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return CHECK_REPORT();
}
