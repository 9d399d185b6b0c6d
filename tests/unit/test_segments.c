/* Unit tests of the estimates' classes of segments (vaced/src/estimate/
 * segments.c) with the wake-up correction (wakeup.c): a loop with two
 * places of code between identical calls, a long segment and a short one,
 * each warm or cold (the CLOSE before it).  With the call sites in the
 * record the two places are two classes and each cold segment gives back
 * its own class's excess; without them they are one class whose warm
 * segments disagree, which the correction leaves as measured.
 *
 * Run: test_segments */
#include <stdlib.h>

#include "check.h"
#include "vlog_writer.h"
#include "estimate/wakeup.h"
#include "record/log_reader.h"

#define US 1000000ull
#define ITERATIONS 12

/* Iteration i: the long segment (40 us warm, 45 cold) before the call at
 * site 1, the short one (1 us warm, 3 cold) before the call at site 2;
 * every third iteration's segments start cold. */
static void write_loop(const char *dir, int sites)
{
    static struct vlog w;
    vlog_start(&w, 0, 1, VACED_LOG_OVERSUBSCRIBED);
    int cold = 0;
    for (int i = 0; i < ITERATIONS; i++) {
        for (int place = 1; place <= 2; place++) {
            uint64_t us = place == 1 ? (cold ? 45 : 40) : (cold ? 3 : 1);
            if (sites)
                VLOG(&w, VACED_OP_SITE, (uint64_t)place);
            VLOG(&w, VACED_OP_BEGIN);
            VLOG(&w, VACED_OP_SEGMENT, us * US);
            VLOG(&w, VACED_OP_END_ACT);
            cold = (i + (place == 2)) % 3 == 0;  /* for the segment after this call */
            VLOG(&w, VACED_OP_CLOSE, 0, (uint64_t)cold);
        }
    }
    VLOG(&w, VACED_OP_SIM_END);
    CHECK(vlog_finish(&w, dir, 0) == 0);
}

static struct vaced_wakeup correct(const char *dir, struct vaced_segments *s)
{
    char path[600], err[1024];
    struct vaced_log log;
    struct vaced_wakeup w = { 0 };
    snprintf(path, sizeof path, "%s/rank-000000.vlog", dir);
    CHECK(vaced_log_open(&log, path, err, sizeof err) == 0);
    CHECK(vaced_segments_read(&log, s, err, sizeof err) == 0);
    CHECK(vaced_wakeup_correct(s, &w) == 0);
    vaced_log_close(&log);
    return w;
}

int main(void)
{
    char root[] = "/tmp/test_segments.XXXXXX", with[600], without[600];
    CHECK(mkdtemp(root) != NULL);
    snprintf(with, sizeof with, "%s/sites", root);
    snprintf(without, sizeof without, "%s/none", root);
    write_loop(with, 1);
    write_loop(without, 0);

    struct vaced_segments s;
    struct vaced_wakeup w = correct(with, &s);
    CHECK(s.n == 2 * ITERATIONS);
    int long_cold = 0, short_cold = 0;
    for (size_t k = 0; k < s.n; k++) {
        int is_long = k % 2 == 0;
        CHECK_EQ_U64(s.ps[k], (is_long ? 40 : 1) * US);    /* every cold one back to warm */
        long_cold += is_long && s.cold[k];
        short_cold += !is_long && s.cold[k];
    }
    CHECK(long_cold > 0 && short_cold > 0);
    CHECK(w.removed_ps == (double)((5 * long_cold + 2 * short_cold) * US));
    CHECK(w.uncorrected_ps == 0);
    vaced_segments_free(&s);

    w = correct(without, &s);
    CHECK(w.removed_ps == 0);
    CHECK(w.uncorrected_ps == w.cold_ps && w.cold_ps > 0);
    vaced_segments_free(&s);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return CHECK_REPORT();
}
