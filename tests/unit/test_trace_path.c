/* Unit tests of the trace's step and wait lines (vaced/src/report/
 * trace_path.c) and of how a wait names its message (trace_msgs.c,
 * vaced_trace_name): the lines' fields in the documented order, unknown
 * times as '-', an estimate before the run's start with its sign, no line
 * for an empty step or a backward jump; a receive named until its request
 * goes, a rendezvous or eager-sync send named after its line is written.
 *
 * Run: test_trace_path */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/sim_test.h"
#include "report/trace.h"
#include "report/trace_msgs.h"
#include "report/trace_path.h"
#include "trace_text.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

static void test_names(void)
{
    struct vaced_msg r, rts, sync, other;
    int peer = -1, is_send = -1;
    uint32_t seq = 99;

    /* a receive from 1: named from its arrival until its request goes */
    vaced_trace_init(&r);
    CHECK(!vaced_trace_name(&r, &peer, &seq, &is_send));
    vaced_trace_received(1, VACED_PKT_EAGER, 8);
    vaced_trace_arrived(&r, VACED_PKT_EAGER, 8);
    CHECK(vaced_trace_name(&r, &peer, &seq, &is_send));
    CHECK_EQ_I64(peer, 1);
    CHECK_EQ_I64(seq, 0);
    CHECK_EQ_I64(is_send, 0);
    vaced_trace_done(&r, 8, US(5));
    CHECK(vaced_trace_name(&r, &peer, &seq, &is_send));    /* still: a wait may report it */
    vaced_trace_report(&r, 8, US(5));
    CHECK(!vaced_trace_name(&r, &peer, &seq, &is_send));

    /* a rendezvous send to 3: named after its data leaves and its line is out */
    vaced_trace_init(&rts);
    vaced_trace_sent(3, VACED_PKT_EAGER, 8, US(6));        /* seq 0 to 3 */
    vaced_trace_sent(3, VACED_PKT_RTS, 0, US(7));          /* seq 1 */
    vaced_trace_sent(3, VACED_PKT_RNDV_DATA, 4096, US(9));
    vaced_trace_complete_by(&rts);
    CHECK(vaced_trace_name(&rts, &peer, &seq, &is_send));
    CHECK_EQ_I64(peer, 3);
    CHECK_EQ_I64(seq, 1);
    CHECK_EQ_I64(is_send, 1);
    /* a second complete_by writes no second line */
    vaced_trace_sent(3, VACED_PKT_RNDV_DATA, 4096, US(10));
    vaced_trace_complete_by(&rts);

    /* an eager-sync send to 4: written at once, named too */
    vaced_trace_init(&sync);
    vaced_trace_sent(4, VACED_PKT_EAGER_SYNC, 16, US(11));
    CHECK(vaced_trace_name(&sync, &peer, &seq, &is_send));
    CHECK_EQ_I64(peer, 4);
    CHECK_EQ_I64(seq, 0);
    CHECK_EQ_I64(is_send, 1);

    /* a request reused: its old name goes; a receive reusing a send's record
     * is a receive */
    vaced_trace_init(&rts);
    CHECK(!vaced_trace_name(&rts, &peer, &seq, &is_send));
    vaced_trace_init(&sync);
    vaced_trace_received(4, VACED_PKT_EAGER, 8);
    vaced_trace_arrived(&sync, VACED_PKT_EAGER, 8);
    CHECK(vaced_trace_name(&sync, &peer, &seq, &is_send));
    CHECK_EQ_I64(is_send, 0);
    vaced_trace_init(&other);
    CHECK(!vaced_trace_name(&other, &peer, &seq, &is_send));
}

static void test_lines(void)
{
    struct vaced_chain c;
    vaced_trace_step(US(1), US(1), US(3), VACED_TERM_SEND_OVERHEAD, VACED_TERM_COPY);
    vaced_trace_step(US(4), US(4), US(4), VACED_TERM_RECV_OVERHEAD, VACED_TERM_COPY); /* empty */

    vaced_chain_start(&c, US(10), VACED_TERM_LATE_SENDER);
    vaced_chain_to(&c, VACED_TERM_SEND_OVERHEAD, US(11));
    vaced_chain_to(&c, VACED_TERM_NETWORK, US(28));
    vaced_chain_to(&c, VACED_TERM_COPY, US(31));
    struct vaced_trace_awaited named = {
        .dir = 0, .peer = 1, .seq = 7, .sent = US(10), .landed = US(28),
        .rts_sent = VACED_TIME_UNSET, .rts_landed = VACED_TIME_UNSET,
    };
    vaced_trace_on_wait(US(5), US(31), US(33), US(1), &named, &c);

    struct vaced_trace_awaited unnamed = {
        .dir = -1, .peer = -1, .sent = VACED_TIME_UNSET, .landed = VACED_TIME_UNSET,
        .rts_sent = VACED_TIME_UNSET, .rts_landed = VACED_TIME_UNSET,
    };
    vaced_chain_start(&c, US(40), VACED_TERM_LATE_SENDER);
    vaced_trace_on_wait(US(35), US(40), US(40), 0, &unnamed, &c);
    vaced_trace_on_wait(US(50), US(45), US(45), 0, &unnamed, &c);     /* backward: none */

    /* a send ended by its receiver's answer; its chain began before 0 */
    vaced_chain_start(&c, -US(2), VACED_TERM_LATE_RECEIVER);
    vaced_chain_to(&c, VACED_TERM_NETWORK, US(60));
    struct vaced_trace_awaited answer = {
        .dir = 1, .peer = 0, .seq = 2, .sent = US(58), .landed = US(60),
        .rts_sent = US(52), .rts_landed = US(55),
    };
    vaced_trace_on_wait(US(55), US(60), US(60), 0, &answer, &c);
}

int main(void)
{
    char dir[] = "/tmp/vaced-trace-path-XXXXXX", file[128];
    if (!CHECK(mkdtemp(dir)))
        return CHECK_REPORT();
    setenv("VACED_TRACE", dir, 1);
    vaced_sim_test_start(2, 8, NULL);
    CHECK(vaced_trace_open(2) == 0);
    CHECK(vaced_tracing());
    test_names();
    test_lines();
    vaced_trace_close(2);
    CHECK(!vaced_tracing());
    snprintf(file, sizeof file, "%s/vaced-trace.2.csv", dir);
    read_back(file);

    CHECK(has_line("step,0.000001000000,0.000001000000,0.000003000000,send_overhead,copy"));
    CHECK_EQ_I64(count_lines("step,"), 1);
    CHECK(has_line("wait,0.000005000000,0.000031000000,0.000033000000,0.000001000000,recv,1,7,"
                   "0.000010000000,0.000028000000,-,-,late_sender,0.000010000000,"
                   "send_overhead,0.000011000000,network,0.000028000000,copy,0.000031000000"));
    CHECK(has_line("wait,0.000035000000,0.000040000000,0.000040000000,0.000000000000,-,-1,-1,"
                   "-,-,-,-,late_sender,0.000040000000"));
    CHECK(has_line("wait,0.000055000000,0.000060000000,0.000060000000,0.000000000000,send,0,2,"
                   "0.000058000000,0.000060000000,0.000052000000,0.000055000000,late_receiver,"
                   "-0.000002000000,network,0.000060000000"));
    CHECK_EQ_I64(count_lines("wait,"), 3);
    /* the message lines are as before: the rendezvous send's once */
    CHECK(has_line("send,3,1,4096,0.000007000000"));
    CHECK_EQ_I64(count_lines("send,3,1,"), 1);
    CHECK(has_line("send,4,0,16,0.000011000000"));
    CHECK(has_line("recv,1,0,8,0.000005000000"));

    unlink(file);
    rmdir(dir);
    return CHECK_REPORT();
}
