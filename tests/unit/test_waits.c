/* Unit tests of the wait history (Algorithm 3's handling time) and of the
 * event logic of the virtual clock: message stamps, receive completion,
 * waits and answers at receive post (Algorithm 2, eqs. 3 and 4).
 *
 * The clock's read-cost compensation is set huge so that every compute
 * segment counts as zero: virtual times are then exact, and each expected
 * value below is written out from the paper's formulas.
 *
 * Run: test_waits REPO_ROOT   (loads topo/paper-16.topo) */
#define _POSIX_C_SOURCE 200809L /* mkstemp (tmptext.h) */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "network/send.h"
#include "progress/sending.h"
#include "progress/progress_test.h"
#include "progress/early_queue.h"
#include "progress/receive.h"
#include "progress/handling.h"
#include "progress/wildcard_bounds.h"
#include "progress/matching.h"
#include "tmptext.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

static void test_history(void)
{
    struct vaced_waits w;
    vaced_waits_reset(&w);
    /* no progress point since the start: the current one handles it */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(5), US(3), 0), US(5));

    vaced_waits_record(&w, US(10), US(20));
    vaced_waits_record(&w, US(30), US(40));
    vaced_waits_record(&w, US(50), US(50));     /* a test: a zero-length progress point */
    vaced_time_t cur = US(70);
    /* arrives during the current progress point, or after it started */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(75), 0), US(75));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(70), 0), US(70));
    /* arrives while an earlier wait was progressing: handled on arrival */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(15), 0), US(15));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(30), 0), US(30));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(39), 0), US(39));
    /* arrives during computation: the next progress point handles it */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(20), 0), US(30));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(25), 0), US(30));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(45), 0), US(50));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(50), 0), cur);   /* the test at 50 had ended */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(60), 0), cur);
    /* before the rank's first progress point: that point handles it */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, cur, US(5), 0), US(10));

    /* the ring keeps the newest VACED_WAIT_HISTORY waits */
    vaced_waits_reset(&w);
    for (int i = 0; i < VACED_WAIT_HISTORY + 10; i++)
        vaced_waits_record(&w, US(10 * i), US(10 * i + 5));
    CHECK_EQ_U64(w.count, VACED_WAIT_HISTORY);
    vaced_time_t last = US(10 * (VACED_WAIT_HISTORY + 9));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, last + US(100), last - US(7), 0), last - US(7));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, last + US(100), last - US(3), 0), last);
    CHECK_EQ_I64(vaced_waits_handle_time(&w, last + US(100), last + US(3), 0), last + US(3));
    /* older than every kept wait, once some were dropped: on arrival */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, last + US(100), US(30), 0), US(30));
}

/* How long a rank had been idle in a wait when a message arrived. */
static void test_idle_since(void)
{
    struct vaced_waits w;
    vaced_waits_reset(&w);
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(5)), VACED_TIME_UNSET);    /* no wait yet */
    vaced_waits_record_blocked(&w, US(10), US(40), US(10), US(10), US(25), US(25));  /* handled a message at 25 */
    vaced_waits_record(&w, US(50), US(60));                   /* polls */
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(20)), US(10)); /* before that handling: since the start */
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(30)), US(25)); /* after it: since then */
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(45)), VACED_TIME_UNSET);  /* computing */
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(55)), VACED_TIME_UNSET);  /* polling: awake */
    w.depth = 1;                                              /* a running wait */
    w.start = w.active = w.active_from = US(70);
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(80)), US(70));
    w.active = w.active_from = US(85);
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(90)), US(85));
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(80)), US(70)); /* handled first only on the host */
    /* a message that arrived at 75 woke the rank until 95: one arriving at
     * 80 finds it awake (no second wake-up), one at 100 idle since 95 */
    w.active_from = US(75);
    w.active = US(95);
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(80)), US(80));
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(100)), US(95));
    CHECK_EQ_I64(vaced_waits_idle_since(&w, US(75)), US(70)); /* its own arrival, asked again */
}

/* paper-16: Bmem 6.38 GB/s, Bnet 4.16 GB/s, l(3) = 15 + 3 * 0.6 us */
static vaced_time_t copy_ps(double bytes) { return (vaced_time_t) (bytes / 6.38e9 * 1e12 + 0.5); }
static vaced_time_t net_ps(double bytes) { return (vaced_time_t) (bytes / 4.16e9 * 1e12 + 0.5) + US(16.8); }

static void start(struct vaced_target *t, int rank)
{
    vaced_recv_turns_free();
    vaced_sim_test_start(rank, 16, t);
    vaced_clock_reset();
    vaced_send_reset();
    vaced_progress_reset();
    vaced_clock_test_set_read_cost(INT64_MAX / 4);    /* every compute segment is 0 */
    vaced_running = 1;
}

static void test_events(struct vaced_target *t)
{
    const vaced_time_t tol = 2;     /* ps of rounding per term */
    start(t, 0);
    vaced_clock_set(US(100));

    /* eq. 3: an eager DATA send advances tV by the copy only */
    vaced_activity_begin();
    vaced_time_t tr, ta = vaced_send_stamp(1, 100000, 1, &tr);
    vaced_activity_end();
    CHECK_NEAR_I64(tr, US(100) + copy_ps(100000), tol);
    CHECK_NEAR_I64(ta, US(100) + copy_ps(100000) + net_ps(100000), tol);
    CHECK_NEAR_I64(vaced_now(), US(100) + copy_ps(100000), tol);
    /* a REQ is header only and does not move tV */
    vaced_time_t before = vaced_now();
    vaced_activity_begin();
    ta = vaced_send_stamp(5, 0, 0, NULL);
    vaced_activity_end();
    CHECK_NEAR_I64(ta, before + US(16.8), tol);
    CHECK_EQ_I64(vaced_now(), before);
    /* to itself: hop 0, memory copies only */
    vaced_activity_begin();
    ta = vaced_send_stamp(0, 1000, 1, &tr);
    vaced_activity_end();
    CHECK_NEAR_I64(ta, tr + copy_ps(1000), tol);

    /* Algorithm 2: a wait ends at max(AWTstart, completion) */
    start(t, 0);
    vaced_clock_set(US(10));
    vaced_wait_begin();
    vaced_wait_complete(US(4));             /* already done on the target */
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(10));
    vaced_wait_begin();
    vaced_wait_complete(US(25));
    vaced_wait_complete(US(18));
    vaced_wait_complete(VACED_TIME_UNSET);  /* unknown completions are ignored */
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(25));
    /* nested waits fold into the outer one */
    vaced_wait_begin();
    vaced_wait_begin();
    vaced_wait_complete(US(30));
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(25));
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(30));
    /* DATA sent inside a wait but outside a handler moves tV by its copy;
     * a completion before that does not take tV back */
    vaced_wait_begin();
    vaced_wait_complete(US(31));
    vaced_send_stamp(1, 100000, 1, NULL);
    vaced_wait_end();
    CHECK_NEAR_I64(vaced_now(), US(30) + copy_ps(100000), tol);

    /* Fig. 4: DATA that arrived on the host early completes at its target
     * arrival plus the copy, in the wait whose span it falls in. */
    start(t, 0);
    vaced_waits_record(vaced_progress_test_waits(), US(0), US(10));
    vaced_waits_record(vaced_progress_test_waits(), US(20), US(30));
    vaced_clock_set(US(40));
    vaced_wait_begin();
    vaced_wait_complete(vaced_recv_done(US(25), 6380));    /* during wait 2 */
    vaced_wait_end();
    CHECK_NEAR_I64(vaced_now(), US(40), tol);   /* it was complete before this wait */
    CHECK_NEAR_I64(vaced_recv_done(US(15), 6380), US(20) + US(1), tol);   /* gap: next wait; 6380 B copy = 1 us */
    vaced_wait_begin();
    vaced_wait_complete(vaced_recv_done(US(55), 6380));   /* arrives later: wait for it */
    vaced_wait_end();
    CHECK_NEAR_I64(vaced_now(), US(55) + US(1), tol);

    /* a response made while handling a message leaves at its handling
     * time, and does not move the handler's tV */
    start(t, 0);
    vaced_clock_set(US(100));
    vaced_wait_begin();
    vaced_time_t handled = vaced_handle_begin(US(150));
    CHECK_EQ_I64(handled, US(150));
    ta = vaced_send_stamp(1, 0, 0, NULL);    /* the ACK of a REQ */
    vaced_handle_end();
    CHECK_NEAR_I64(ta, US(150) + US(16.8), tol);
    vaced_handle_begin(US(120));
    ta = vaced_send_stamp(1, 1000, 1, &tr);  /* the DATA after an ACK */
    vaced_handle_end();
    CHECK_NEAR_I64(tr, US(120) + copy_ps(1000), tol);
    CHECK_EQ_I64(vaced_now(), US(100));
    /* a receive posted inside a handling context (a collective schedule's
     * next round, started when the round before ended at 170 us) is posted
     * then, and the sends after it still leave then */
    vaced_handle_begin(US(170));
    vaced_respond_begin(US(90));                /* its message had arrived */
    ta = vaced_send_stamp(1, 0, 0, NULL);       /* an ACK, at the post */
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(170) + US(16.8), tol);
    ta = vaced_send_stamp(1, 1000, 1, &tr);     /* the round's own send */
    vaced_handle_end();
    CHECK_NEAR_I64(tr, US(170) + copy_ps(1000), tol);
    CHECK_EQ_I64(vaced_now(), US(100));
    vaced_wait_end();

    /* at receive post: answers leave at max(tV, ta); eager DATA that has
     * arrived is copied now (ADR), DATA still on its way is not */
    start(t, 0);
    vaced_clock_set(US(100));
    vaced_respond_begin(US(130));
    ta = vaced_send_stamp(1, 0, 0, NULL);
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(130) + US(16.8), tol);
    vaced_respond_begin(US(70));
    ta = vaced_send_stamp(1, 0, 0, NULL);
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(100) + US(16.8), tol);
    vaced_respond_end();                        /* harmless when not begun */
    CHECK_EQ_I64(vaced_recv_found(US(130), 6380), VACED_TIME_UNSET);
    CHECK_EQ_I64(vaced_now(), US(100));
    CHECK_NEAR_I64(vaced_recv_found(US(90), 6380), US(100) + US(1), tol);
    CHECK_NEAR_I64(vaced_now(), US(100) + US(1), tol);

    /* a receive posted at 100 us and matched only at 300 us (a wildcard
     * held until its first message was proven), one wait [150, 160] since:
     * it answers as the target would have, at the post for an arrival
     * before it, else when a progress point handled the arrival */
    start(t, 0);
    vaced_waits_record(vaced_progress_test_waits(), US(150), US(160));
    vaced_clock_set(US(300));
    vaced_respond_begin_at(US(70), US(100));
    ta = vaced_send_stamp(1, 0, 0, NULL);
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(100) + US(16.8), tol);
    vaced_respond_begin_at(US(155), US(100));  /* during the wait */
    ta = vaced_send_stamp(1, 0, 0, NULL);
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(155) + US(16.8), tol);
    vaced_respond_begin_at(US(120), US(100));  /* during computation: the wait's start */
    ta = vaced_send_stamp(1, 0, 0, NULL);
    vaced_respond_end();
    CHECK_NEAR_I64(ta, US(150) + US(16.8), tol);
    CHECK_NEAR_I64(vaced_recv_found_at(US(90), 6380, US(100)), US(100) + US(1), tol);
    CHECK_EQ_I64(vaced_recv_found_at(US(120), 6380, US(100)), VACED_TIME_UNSET);
    CHECK_NEAR_I64(vaced_now(), US(300), tol);  /* the copy ended the post, long ago */

    /* eager DATA from another rank found at a post at 300 us, a progress
     * point [150, 160] before it: read there if it came before 160 (ADR
     * at the post), not if it came while the rank computed since (the next
     * progress point reads it) */
    start(t, 0);
    vaced_waits_record(vaced_progress_test_waits(), US(150), US(160));
    vaced_clock_set(US(300));
    CHECK_EQ_I64(vaced_recv_found_read(US(200), 6380, VACED_TIME_UNSET), VACED_TIME_UNSET);
    CHECK_EQ_I64(vaced_now(), US(300));
    CHECK_EQ_I64(vaced_recv_found_read(US(320), 6380, VACED_TIME_UNSET), VACED_TIME_UNSET);
    CHECK_NEAR_I64(vaced_recv_found_read(US(120), 6380, US(250)), US(250) + US(1), tol);
    CHECK_EQ_I64(vaced_now(), US(300));
    CHECK_NEAR_I64(vaced_recv_found_read(US(155), 6380, VACED_TIME_UNSET), US(300) + US(1), tol);
    CHECK_NEAR_I64(vaced_now(), US(300) + US(1), tol);
    start(t, 0);
    vaced_clock_set(US(100) + US(1));

    /* completions found without a wait move tV forward, never back */
    vaced_complete_now(US(50));
    CHECK_NEAR_I64(vaced_now(), US(100) + US(1), tol);
    vaced_complete_now(US(200));
    CHECK_EQ_I64(vaced_now(), US(200));

    /* precision: a million seconds into a run, a 1-byte copy (0.157 ns)
     * still adds exactly its rounded picoseconds */
    vaced_clock_set(1000000 * VACED_PS_PER_S);
    vaced_activity_begin();
    for (int i = 0; i < 1000; i++)
        vaced_send_stamp(1, 1, 1, NULL);
    vaced_activity_end();
    CHECK_EQ_I64(vaced_now() - 1000000 * VACED_PS_PER_S, 1000 * copy_ps(1));
    vaced_clock_set(US(200));

    /* nothing moves once the simulation has ended */
    vaced_running = 0;
    vaced_complete_now(US(300));
    vaced_activity_begin();
    CHECK_EQ_I64(vaced_send_stamp(1, 100, 1, NULL), VACED_TIME_UNSET);
    CHECK_EQ_I64(vaced_now(), US(200));
}

static vaced_time_t fired_ta[8];
static int fired;

/* A parked response: sends a REQ-sized message and notes its stamp. */
static void fire_note(void *arg)
{
    (void) arg;
    fired_ta[fired++] = vaced_send_stamp(1, 0, 0, NULL);
}

static void test_early_queue(struct vaced_target *t)
{
    const vaced_time_t tol = 2, l3 = US(16.8);
    start(t, 0);
    vaced_clock_set(US(100));
    /* nothing seen yet: the target holds any message in its buffer */
    CHECK(vaced_unseen(US(50)));
    vaced_waits_record(vaced_progress_test_waits(), US(10), US(60));
    CHECK(!vaced_unseen(US(50)));              /* the wait that ended at 60 saw it */
    CHECK(vaced_unseen(US(70)));
    CHECK(vaced_early(US(120)));               /* after now, outside a wait */
    CHECK(!vaced_early(US(90)));

    fired = 0;
    vaced_park(1, US(200), fire_note, NULL);     /* parked at tV = 100 */
    vaced_park(1, US(180), fire_note, NULL);
    vaced_clock_set(US(150));
    vaced_poll();                              /* a test at 150: nothing due */
    CHECK_EQ_I64(fired, 0);
    vaced_clock_set(US(250));
    vaced_poll();                              /* a test at 250: both due, in due order */
    CHECK_EQ_I64(fired, 2);
    /* answered at the first progress point after arrival: this test */
    CHECK_NEAR_I64(fired_ta[0], US(250) + l3, tol);
    CHECK_NEAR_I64(fired_ta[1], US(250) + l3, tol);
    CHECK_EQ_I64(vaced_now(), US(250));

    /* polls closer than 1 us merge; farther ones are new progress points */
    unsigned before = vaced_progress_test_waits()->count;
    vaced_clock_set(US(250.5));
    vaced_poll();
    CHECK_EQ_U64(vaced_progress_test_waits()->count, before);
    vaced_clock_set(US(260));
    vaced_poll();
    CHECK_EQ_U64(vaced_progress_test_waits()->count, before + 1);

    /* a blocking wait sends everything parked when it starts: what arrives
     * later is answered on arrival, inside the wait */
    fired = 0;
    vaced_park(1, US(300), fire_note, NULL);
    vaced_park(1, US(265), fire_note, NULL);
    vaced_clock_set(US(280));
    vaced_wait_begin();
    CHECK_EQ_I64(fired, 2);
    CHECK_NEAR_I64(fired_ta[0], US(280) + l3, tol);      /* arrived before the wait */
    CHECK_NEAR_I64(fired_ta[1], US(300) + l3, tol);      /* arrives during it */
    CHECK(!vaced_early(US(400)));              /* inside a wait nothing is early */
    vaced_wait_end();

    /* parked at a post: never answered before the post */
    fired = 0;
    vaced_clock_set(US(500));
    vaced_park(1, US(290), fire_note, NULL);
    vaced_clock_set(US(510));
    vaced_wait_begin();
    vaced_wait_end();
    CHECK_EQ_I64(fired, 1);
    CHECK_NEAR_I64(fired_ta[0], US(510) + l3, tol);
    vaced_free_parked();
}

/* Spends `ms` of this thread's CPU time. */
static void burn_ms(double ms)
{
    int64_t until = vaced_cputime_ns() + (int64_t) (ms * 1e6);
    volatile double x = 1;
    while (vaced_cputime_ns() < until)
        x = x * 1.0000001 + 1e-9;
}

/* A test that finds nothing counts its CPU time as computation (the program
 * chose to poll), except what went into work the model times otherwise
 * (bound protocol, message handling) before vaced_test_restart(): 20 us of
 * that, then 10 us of polling.  Case 0: no restart; 1: a poll that
 * restarts; 2: a restart in an activity that is no poll (a no-op), after
 * case 1's poll ended; 3: as 0, with 1 ms in all, which counts
 * VACED_TEST_CHARGE_MAX_NS only. */
static void test_polling_cost(struct vaced_target *t)
{
    vaced_time_t counted[4];
    for (int c = 0; c < 4; c++) {
        /* host noise (an interrupt, the hypervisor) only adds CPU time:
         * the least of five tries is judged */
        for (int try = 0; try < 5; try++) {
            start(t, 0);
            vaced_clock_test_set_read_cost(0);
            vaced_clock_test_set_t1(vaced_cputime_ns());
            if (c == 2) {               /* a poll that ends: not polling after */
                vaced_activity_begin();
                vaced_poll();
                vaced_activity_end();
                vaced_clock_set(0);
                vaced_clock_test_set_compute(0);
            }
            vaced_activity_begin();
            if (c == 1)
                vaced_poll();
            burn_ms(c == 3 ? 0.99 : 0.02);
            if (c == 1 || c == 2)
                vaced_test_restart();
            burn_ms(0.01);
            vaced_test_failed();
            vaced_activity_end();
            if (try == 0 || vaced_now() < counted[c])
                counted[c] = vaced_now();
        }
    }
    /* each also holds the CPU time between start() and the activity (the
     * clock reads around it, under a microsecond): up to 5 us is allowed */
    vaced_time_t cap = vaced_time_from_ns(VACED_TEST_CHARGE_MAX_NS);
    CHECK(counted[0] >= US(29) && counted[0] <= cap + US(5));   /* all of it */
    CHECK(counted[1] >= US(9.5) && counted[1] < US(20));        /* the polling only */
    CHECK(counted[2] >= US(29) && counted[2] <= cap + US(5));   /* no poll: all of it */
    CHECK(counted[3] >= cap && counted[3] <= cap + US(5));      /* 1 ms: the cap */
}

/* topo/paper-16.topo with `extra` lines added; NULL (a failed check) if it
 * does not load. */
static struct vaced_target *paper16_with(const char *paper16, const char *extra)
{
    char text[4096];
    FILE *f = fopen(paper16, "r");
    size_t n = f ? fread(text, 1, sizeof text - 256, f) : 0;
    if (f)
        fclose(f);
    snprintf(text + n, sizeof text - n, "\n%s", extra);
    struct vaced_target *t = NULL;
    if (!CHECK(n > 0 && load_text(text, 16, &t) == 0)) {
        printf("  %s\n", errbuf);
        return NULL;
    }
    return t;
}

/* A message that finds its receiver blocked longer than wakeup_after is
 * handled wakeup_latency late; idle counts from the wait's latest handling. */
static void test_wakeup_events(const char *paper16)
{
    struct vaced_target *t = paper16_with(paper16, "wakeup_latency = 10 us\nwakeup_after = 20 us\n");
    if (!t)
        return;
    start(t, 0);
    vaced_clock_set(US(100));
    vaced_wait_begin();
    vaced_wait_complete(vaced_recv_done(US(110), 0));   /* idle 10 us: awake */
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(110));
    vaced_wait_begin();
    vaced_wait_complete(vaced_recv_done(US(150), 0));   /* idle 40 us: asleep */
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(160));
    vaced_clock_set(US(200));
    vaced_wait_begin();
    vaced_wait_complete(vaced_recv_done(US(210), 0));
    vaced_wait_complete(vaced_recv_done(US(225), 0));   /* 15 us after the first: awake */
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(225));
    /* messages handled later on the host, in a recorded wait: idle from its
     * start when its latest handling began after them; none while that
     * handling (the wake-up of the message at 150, until 160) went on */
    CHECK_EQ_I64(vaced_recv_done(US(145), 0), US(155));  /* 35 us into [110, 160] */
    CHECK_EQ_I64(vaced_recv_done(US(155), 0), US(155));  /* the rank was being woken */
    CHECK_EQ_I64(vaced_recv_done(US(205), 0), US(205));  /* 5 us into [200, 225] */
    CHECK_EQ_I64(vaced_recv_done(US(180), 0), US(200));  /* arrived while computing */
    vaced_running = 0;
    vaced_target_free(t);
}

/* The overheads by the computation before the MPI call: after 200 us of
 * computation the call's messages pay the factor at 200 us (beyond the last
 * point: 2 and 3), asked again the same; the next call, with nothing
 * computed before it, the factor at 0. */
static void test_overhead_factors(const char *paper16)
{
    struct vaced_target *t = paper16_with(paper16, "send_overhead = 4 us\nrecv_overhead = 2 us\n"
                                                   "send_overhead_factors = 0:0.5 100:2\n"
                                                   "recv_overhead_factors = 0:1 100:3\n");
    if (!t)
        return;
    const vaced_time_t tol = US(1);      /* the host's CPU time between the calls */
    start(t, 0);
    vaced_clock_test_set_read_cost(0);
    vaced_clock_test_set_t1(vaced_cputime_ns() - 200000);       /* 200 us of computation */
    vaced_activity_begin();
    vaced_time_t t0 = vaced_now();
    CHECK_NEAR_I64(t0, US(200), US(5));                 /* and the lines between: preemption */
    vaced_send_stamp(5, 0, 0, NULL);
    CHECK_NEAR_I64(vaced_now() - t0, US(8), tol);      /* 4 us x 2 */
    vaced_send_stamp(5, 0, 0, NULL);
    CHECK_NEAR_I64(vaced_now() - t0, US(16), tol);     /* the same call: + 4 us x 2 */
    vaced_activity_end();
    vaced_activity_begin();                             /* right after: 4 us x 0.5 */
    t0 = vaced_now();
    vaced_send_stamp(5, 0, 0, NULL);
    CHECK_NEAR_I64(vaced_now() - t0, US(2), tol);
    vaced_activity_end();
    vaced_clock_test_set_t1(vaced_cputime_ns() - 200000);
    vaced_wait_begin();
    vaced_time_t t1 = vaced_now();
    vaced_time_t a = vaced_recv_done(t1 + US(10), 0);
    CHECK_NEAR_I64(a - t1, US(16), tol);                /* + 2 us x 3 */
    CHECK_EQ_I64(vaced_recv_done(t1 + US(10), 0), a);   /* asked again */
    vaced_wait_complete(a);
    vaced_wait_end();
    vaced_wait_begin();
    t1 = vaced_now();
    CHECK_NEAR_I64(vaced_recv_done(t1 + US(10), 0) - t1, US(12), tol);  /* + 2 us x 1 */
    vaced_wait_end();

    vaced_running = 0;
    vaced_target_free(t);
}

/* The receiving CPU's turns: in start order whatever the order added,
 * idle between them when the next starts later. */
static void test_turns(void)
{
    struct vaced_turns q = { 0 };
    vaced_time_t first;
    CHECK_EQ_I64(vaced_turns_finish(&q, US(7), &first), US(7));        /* none */
    CHECK_EQ_I64(first, US(7));
    vaced_turns_add(&q, US(10), US(5));
    CHECK_EQ_I64(vaced_turns_finish(&q, US(7), &first), US(15));       /* one: start + work */
    CHECK_EQ_I64(first, US(10));
    CHECK_EQ_I64(vaced_turns_finish(&q, US(7), &first), US(7));        /* emptied */
    /* three at once, then one after a gap */
    vaced_turns_add(&q, US(100), US(4));
    vaced_turns_add(&q, US(10), US(5));
    vaced_turns_add(&q, US(10), US(5));
    vaced_turns_add(&q, US(12), US(5));
    CHECK_EQ_I64(vaced_turns_finish(&q, 0, &first), US(104));          /* 10..25 busy, 100..104 */
    CHECK_EQ_I64(first, US(10));
    for (int i = 0; i < 1000; i++)                                      /* grows past its first block */
        vaced_turns_add(&q, US(1000 - i), US(1));
    CHECK_EQ_I64(vaced_turns_finish(&q, 0, &first), US(1001));         /* from 1, back to back */
    vaced_turns_free(&q);
    CHECK(q.items == NULL && q.count == 0);
}

/* A recorded wait that took turns from 20 to 30 handles a message that
 * came before them at once, one that came during them when they are
 * done, if its own work fits before the wait's end; one that took turns
 * until its end leaves its messages to the next progress point that can
 * take them (a poll always can). */
static void test_history_turns(void)
{
    struct vaced_waits w;
    vaced_waits_reset(&w);
    vaced_waits_record_blocked(&w, US(10), US(40), US(20), US(30), US(10), US(10));
    vaced_waits_record_blocked(&w, US(50), US(60), US(50), US(60), US(50), US(50));
    vaced_waits_record(&w, US(70), US(70));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(15), 0), US(15));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(25), 0), US(30));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(35), 0), US(35));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(55), 0), US(70));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(15), US(3)), US(15));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(25), US(5)), US(30));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(25), US(15)), US(70));  /* past both waits' ends */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(38), US(5)), US(70));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(55), US(1)), US(70));
    vaced_waits_record_blocked(&w, US(75), US(76), US(75), US(75), US(75), US(75));
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(72), US(1)), US(75));   /* fits in [75, 76] */
    CHECK_EQ_I64(vaced_waits_handle_time(&w, US(80), US(72), US(2)), US(80));   /* only the current one */
}

/* Receives one wait completes take turns on the receiving CPU
 * (recv_overhead and the copy out): three that had arrived before the
 * wait end 3 turns after its start, not 1; two that arrive during it
 * 2 us apart, 5 us each, end 10 us after the first; a single receive ends
 * at vaced_recv_done's time, also outside a wait. */
static void test_recv_turns(const char *paper16)
{
    struct vaced_target *t = paper16_with(paper16, "recv_overhead = 5 us\n");
    if (!t)
        return;
    const vaced_time_t tol = 3, c = vaced_target_copy_time(t, 1000);
    start(t, 0);
    vaced_waits_record(vaced_progress_test_waits(), US(50), US(50));       /* a poll before */
    vaced_clock_set(US(100));
    vaced_wait_begin();
    vaced_time_t kept = 0;
    for (int i = 0; i < 3; i++)
        kept = vaced_wait_complete_recv(US(90), 1000);
    vaced_wait_end();
    /* kept for the request (MPICH asks again after the wait): its handling
     * plus its work, a time the wait has passed */
    CHECK_NEAR_I64(kept, US(100) + US(5) + c, tol);
    CHECK_NEAR_I64(vaced_now(), US(100) + 3 * (US(5) + c), tol);
    vaced_clock_set(US(150));
    vaced_wait_begin();
    vaced_wait_complete_recv(US(202), 0);           /* added out of order */
    vaced_wait_complete_recv(US(200), 0);
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(210));
    vaced_wait_begin();
    vaced_time_t one = vaced_recv_done(US(300), 1000);
    vaced_wait_complete_recv(US(300), 1000);
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), one);
    CHECK_NEAR_I64(one, US(305) + c, tol);
    /* outside a wait (found complete on the host): a wait of its own, so
     * one that came during its turn follows it; one done before tV changes
     * nothing */
    vaced_wait_complete_recv(US(400), 0);
    CHECK_EQ_I64(vaced_now(), US(405));
    CHECK_EQ_I64(vaced_wait_complete_recv(US(402), 0), US(410));
    CHECK_EQ_I64(vaced_now(), US(410));
    CHECK_EQ_I64(vaced_wait_complete_recv(US(170), 0), US(175));
    CHECK_EQ_I64(vaced_now(), US(410));
    /* its turn is in history: a message that came with it, whose work
     * (no copy) would fit before the turn's end, still waits for the turn */
    CHECK_NEAR_I64(vaced_wait_complete_recv(US(420), 1000), US(425) + c, tol);
    CHECK_NEAR_I64(vaced_recv_done(US(420), 0), US(425) + c + US(5), tol);
    /* the wait [150, 210] took turns from 200 to its end: a message that
     * came at 203 is handled at the next progress point, the wait from
     * 210; one that came at 170, before the turns, at once */
    CHECK_EQ_I64(vaced_recv_done(US(203), 0), US(210) + US(5));
    CHECK_EQ_I64(vaced_recv_done(US(170), 0), US(170) + US(5));
    vaced_running = 0;
    vaced_recv_turns_free();
    vaced_target_free(t);
}

/* DATA a poll reads (MPI_Test, MPI_Iprobe: the rank's CPU is the
 * program's) costs the rank its work, recv_overhead 5 us and the copy: a
 * test finds the receive complete from the handling's start and the
 * report charges the work; a wait after the poll charges it as a turn at
 * its start.  (Before: the work ran beside the computation, free, and a
 * test found the receive complete only one work later.) */
static void test_poll_turns(const char *paper16)
{
    struct vaced_target *t = paper16_with(paper16, "recv_overhead = 5 us\n");
    if (!t)
        return;
    const vaced_time_t tol = 3, c = vaced_target_copy_time(t, 1000), work = US(5) + c;
    start(t, 0);
    vaced_waits_record(vaced_progress_test_waits(), US(50), US(50));       /* a test at 50 */
    vaced_clock_set(US(100));
    /* arrived at 40: the test at 50 read it; the test at 100 reports it */
    CHECK_EQ_I64(vaced_recv_visible(US(40), 1000), US(50));
    CHECK_NEAR_I64(vaced_recv_done(US(40), 1000), US(50) + work, tol);
    CHECK_NEAR_I64(vaced_wait_complete_recv(US(40), 1000), US(100) + work, tol);
    CHECK_NEAR_I64(vaced_now(), US(100) + work, tol);
    /* arrived at 110 while the rank computed: the test at 120 reads it,
     * complete as it returns */
    vaced_clock_set(US(120));
    vaced_waits_record(vaced_progress_test_waits(), US(120), US(120));
    CHECK_EQ_I64(vaced_recv_visible(US(110), 0), US(120));
    CHECK_EQ_I64(vaced_wait_complete_recv(US(110), 0), US(125));
    CHECK_EQ_I64(vaced_now(), US(125));
    /* not arrived yet: no test finds it */
    CHECK(vaced_recv_visible(US(130), 0) > vaced_now());
    /* arrived at 140, read by a test at 145; the wait from 150 pays its
     * turn first */
    vaced_waits_record(vaced_progress_test_waits(), US(145), US(145));
    vaced_clock_set(US(150));
    vaced_wait_begin();
    CHECK_EQ_I64(vaced_wait_complete_recv(US(140), 0), US(155));
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(155));
    /* a wait handles a message where its CPU was free: no charge after */
    vaced_wait_begin();
    vaced_wait_complete(US(200));
    vaced_wait_end();
    vaced_clock_set(US(220));
    CHECK_EQ_I64(vaced_recv_visible(US(170), 0), US(175));
    CHECK_EQ_I64(vaced_wait_complete_recv(US(170), 0), US(175));
    CHECK_EQ_I64(vaced_now(), US(220));
    vaced_running = 0;
    vaced_recv_turns_free();
    vaced_target_free(t);
}

int main(int argc, char **argv)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/topo/paper-16.topo", argc > 1 ? argv[1] : ".");
    test_history();
    test_idle_since();
    test_turns();
    test_history_turns();
    struct vaced_target *t = NULL;
    if (CHECK(vaced_target_load(path, 16, &t, err, sizeof err) == 0)) {
        test_events(t);
        test_early_queue(t);
        test_polling_cost(t);
        vaced_target_free(t);
        test_wakeup_events(path);
        test_overhead_factors(path);
        test_recv_turns(path);
        test_poll_turns(path);
    } else {
        printf("cannot load %s: %s\n", path, err);
    }
    return CHECK_REPORT();
}
