/* Unit tests of a message's record (vaced/src/progress/message.c): its
 * lifecycle from creation to the wait that reports it, each answer against
 * the paper-16 target's closed forms (6380 B copy = 1 us). */
#include <stdio.h>

#include "check.h"
#include "paper16.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "network/send.h"
#include "progress/progress_test.h"
#include "progress/early_queue.h"
#include "progress/receive.h"
#include "progress/handling.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

static void start(struct vaced_target *t)
{
    vaced_recv_turns_free();
    vaced_sim_test_start(0, 16, t);
    vaced_clock_reset();
    vaced_send_reset();
    vaced_progress_reset();
    vaced_clock_test_set_read_cost(INT64_MAX / 4);    /* every compute segment is 0 */
    vaced_running = 1;
}

static void test_send(void)
{
    struct vaced_msg m;
    vaced_msg_init(&m);
    CHECK_EQ_I64(vaced_msg_done(&m, 0), VACED_TIME_UNSET);
    CHECK_EQ_I64(vaced_msg_arrival(&m), VACED_TIME_UNSET);
    CHECK_EQ_I64(m.posted, VACED_TIME_UNSET);
    CHECK(vaced_msg_complete_now(&m, 0));      /* nothing to wait for on the target */
    vaced_msg_complete_by(&m, US(120));        /* its DATA copied */
    vaced_msg_complete_by(&m, US(110));        /* an earlier answer does not undo it */
    CHECK_EQ_I64(vaced_msg_done(&m, 0), US(120));
    CHECK(!vaced_msg_complete_now(&m, 0));     /* tV = 100 */
    vaced_clock_set(US(120));
    CHECK(vaced_msg_complete_now(&m, 0));
    vaced_msg_report(&m, 0);                   /* outside a wait: tV moves to it */
    CHECK_EQ_I64(vaced_clock_tv(), US(120));
}

static void test_eager_receive(void)
{
    struct vaced_msg m;
    vaced_clock_set(US(100));
    vaced_msg_init(&m);
    vaced_msg_posted(&m, 0);
    CHECK_EQ_I64(m.posted, US(100));
    vaced_msg_arrived(&m, VACED_PKT_EAGER, US(150), 6380);
    CHECK_EQ_I64(vaced_msg_arrival(&m), US(150));
    CHECK(!m.data_in);
    /* not yet reported: the handling of its arrival plus the copy */
    CHECK_EQ_I64(vaced_msg_done(&m, 6380), US(151));
    CHECK(!vaced_msg_complete_now(&m, 6380));
    vaced_wait_begin();
    vaced_msg_report(&m, 6380);
    vaced_wait_end();
    CHECK_EQ_I64(vaced_clock_tv(), US(151));
    /* the answer is kept: later progress points do not move it */
    vaced_clock_set(US(300));
    CHECK_EQ_I64(vaced_msg_done(&m, 6380), US(151));
    CHECK(vaced_msg_complete_now(&m, 6380));
}

static void test_self_and_rendezvous(void)
{
    struct vaced_msg self, rndv, held;
    vaced_clock_set(US(300));
    vaced_msg_init(&self);
    vaced_msg_arrived(&self, VACED_PKT_SELF, US(300), 6380);   /* copied by the send */
    CHECK_EQ_I64(vaced_msg_done(&self, 6380), US(301));

    vaced_msg_init(&rndv);
    vaced_msg_arrived(&rndv, VACED_PKT_RTS, US(310), 63800);
    CHECK(!rndv.data_in);
    vaced_msg_arrived(&rndv, VACED_PKT_RNDV_DATA, US(340), 63800);
    CHECK(rndv.data_in);
    CHECK_EQ_I64(vaced_msg_arrival(&rndv), US(340));

    /* a receive posted at 300 and given a message later keeps its post */
    vaced_msg_init(&held);
    vaced_msg_posted(&held, 0);
    vaced_clock_set(US(400));
    vaced_msg_found(&held, &self, VACED_PKT_SELF, 1, 6380, 0);
    vaced_respond_end();
    CHECK_EQ_I64(held.posted, US(300));
    CHECK_EQ_I64(vaced_msg_arrival(&held), US(300));
    CHECK_EQ_I64(vaced_msg_done(&held, 6380), US(301));
}

static void test_found_at_post(void)
{
    struct vaced_msg m;
    /* eager DATA that a progress point read before the post: copied at
     * the post, tV advances by the copy */
    vaced_clock_set(US(500));
    vaced_poll();                               /* a progress point at 500 */
    vaced_clock_set(US(520));
    vaced_msg_init(&m);
    vaced_msg_arrived(&m, VACED_PKT_EAGER, US(490), 6380);
    vaced_msg_found(&m, NULL, VACED_PKT_EAGER, 1, 6380, 0);
    vaced_respond_end();
    CHECK_EQ_I64(vaced_msg_done(&m, 6380), US(521));
    CHECK_EQ_I64(vaced_clock_tv(), US(521));
    /* DATA that came after the last progress point: the next wait's */
    vaced_msg_init(&m);
    vaced_msg_arrived(&m, VACED_PKT_EAGER, US(515), 6380);
    vaced_msg_found(&m, NULL, VACED_PKT_EAGER, 1, 6380, 0);
    vaced_respond_end();
    CHECK_EQ_I64(vaced_clock_tv(), US(521));
    vaced_wait_begin();
    vaced_msg_report(&m, 6380);
    vaced_wait_end();
    CHECK_EQ_I64(vaced_clock_tv(), US(522));
}

int main(int argc, char **argv)
{
    struct vaced_target *t = paper16_load(argc, argv);
    if (!t)
        return CHECK_REPORT();
    start(t);
    vaced_clock_set(US(100));
    test_send();
    test_eager_receive();
    test_self_and_rendezvous();
    test_found_at_post();
    vaced_running = 0;
    vaced_free_parked();
    vaced_recv_turns_free();
    vaced_target_free(t);
    return CHECK_REPORT();
}
