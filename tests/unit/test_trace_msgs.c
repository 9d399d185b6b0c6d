/* Unit tests of the trace's message lines (vaced/src/report/trace_msgs.c):
 * the model's message events, as MPICH's hooks report them, become send
 * and recv lines numbered per pair; receives completed out of order,
 * rendezvous sends whose data leave out of order, sends to self, a held
 * wildcard given its message, a receive no wait reports, and many open
 * at once.
 *
 * Run: test_trace_msgs */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sim/sim_test.h"
#include "report/trace.h"
#include "report/trace_msgs.h"
#include "trace_text.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */
#define MANY 1000

/* A packet from `peer` opening a message, handled into receive m. */
static void arrive(struct vaced_msg *m, int peer, enum vaced_pkt_kind kind, uint64_t bytes)
{
    vaced_trace_received(peer, kind, bytes);
    vaced_trace_arrived(m, kind, 0);
}

int main(void)
{
    char dir[] = "/tmp/vaced-trace-msgs-XXXXXX", file[128];
    if (!CHECK(mkdtemp(dir)))
        return CHECK_REPORT();
    setenv("VACED_TRACE", dir, 1);
    vaced_sim_test_start(2, 8, NULL);
    CHECK(vaced_trace_open(2) == 0);
    struct vaced_msg a, b, c, d, e, u, many[MANY];

    /* eager sends to 3 and 5: numbered per peer */
    vaced_trace_sent(3, VACED_PKT_EAGER, 8, US(1));
    vaced_trace_sent(5, VACED_PKT_EAGER_SYNC, 16, US(2));
    vaced_trace_sent(3, VACED_PKT_EAGER, 24, US(3));
    vaced_trace_sent(3, VACED_PKT_CTS, 0, US(4));         /* a handshake: no message */
    vaced_trace_sent(-1, VACED_PKT_EAGER, 8, US(4));      /* outside the world: none */

    /* three messages from 1, completed in the order 2, 0, 1 */
    vaced_trace_init(&a);
    vaced_trace_init(&b);
    vaced_trace_init(&c);
    arrive(&a, 1, VACED_PKT_EAGER, 100);
    arrive(&b, 1, VACED_PKT_EAGER, 200);
    vaced_trace_received(1, VACED_PKT_CTS, 0);             /* a handshake between them */
    arrive(&c, 1, VACED_PKT_EAGER, 300);
    vaced_trace_report(&c, 300, US(10));
    vaced_trace_report(&a, 100, US(11));
    vaced_trace_report(&b, 200, US(12));
    vaced_trace_report(&b, 200, US(13));                   /* reported twice: one line */

    /* two rendezvous sends to 4, their data leaving in the other order */
    vaced_trace_init(&d);
    vaced_trace_sent(4, VACED_PKT_RTS, 0, US(20));
    vaced_trace_init(&e);
    vaced_trace_sent(4, VACED_PKT_RTS, 0, US(21));
    vaced_trace_sent(4, VACED_PKT_RNDV_DATA, 70000, US(30));
    vaced_trace_complete_by(&e);
    vaced_trace_complete_by(&d);                           /* no data just sent: nothing */
    vaced_trace_sent(4, VACED_PKT_RNDV_DATA, 90000, US(31));
    vaced_trace_complete_by(&d);

    /* a rendezvous receive from 6: its size is the receive's */
    vaced_trace_init(&a);
    arrive(&a, 6, VACED_PKT_RTS, 0);
    vaced_trace_report(&a, 123456, US(40));

    /* a send to self, received */
    vaced_trace_init(&b);
    vaced_trace_sent(2, VACED_PKT_SELF, 64, US(50));
    vaced_trace_arrived(&b, VACED_PKT_SELF, 64);
    vaced_trace_report(&b, 0, US(51));

    /* a held wildcard receive c given the message unexpected request u holds */
    vaced_trace_init(&u);
    vaced_trace_init(&c);
    arrive(&u, 7, VACED_PKT_EAGER, 32);
    vaced_trace_given(&c, &u);
    vaced_trace_report(&u, 32, US(59));                    /* u no longer has it */
    vaced_trace_report(&c, 32, US(60));

    /* a blocking receive no wait reports: written when its request is reused */
    vaced_trace_init(&d);
    arrive(&d, 1, VACED_PKT_EAGER, 48);
    vaced_trace_done(&d, 48, US(70));
    vaced_trace_init(&d);

    /* MANY messages from 5 open at once, reported last first */
    for (int i = 0; i < MANY; i++) {
        vaced_trace_init(&many[i]);
        arrive(&many[i], 5, VACED_PKT_EAGER, (uint64_t)i);
    }
    for (int i = MANY - 1; i >= 0; i--)
        vaced_trace_report(&many[i], (uint64_t)i, US(100 + i));

    /* a receive complete but unreported when the trace ends */
    vaced_trace_init(&e);
    arrive(&e, 3, VACED_PKT_EAGER, 8);
    vaced_trace_done(&e, 8, US(2000));
    vaced_trace_close(2);

    snprintf(file, sizeof file, "%s/vaced-trace.2.csv", dir);
    read_back(file);
    CHECK_CONTAINS(text, "kind,start_s,end_s\n");
    CHECK_CONTAINS(text, "send,3,0,8,0.000001000000\n");
    CHECK_CONTAINS(text, "send,5,0,16,0.000002000000\n");
    CHECK_CONTAINS(text, "send,3,1,24,0.000003000000\n");
    CHECK_CONTAINS(text, "recv,1,2,300,0.000010000000\n");
    CHECK_CONTAINS(text, "recv,1,0,100,0.000011000000\n");
    CHECK_CONTAINS(text, "recv,1,1,200,0.000012000000\n");
    CHECK_CONTAINS(text, "send,4,1,70000,0.000021000000\n");
    CHECK_CONTAINS(text, "send,4,0,90000,0.000020000000\n");
    CHECK_CONTAINS(text, "recv,6,0,123456,0.000040000000\n");
    CHECK_CONTAINS(text, "send,2,0,64,0.000050000000\n");
    CHECK_CONTAINS(text, "recv,2,0,64,0.000051000000\n");
    CHECK_CONTAINS(text, "recv,7,0,32,0.000060000000\n");
    CHECK_CONTAINS(text, "recv,1,3,48,0.000070000000\n");
    CHECK_CONTAINS(text, "recv,5,0,0,0.000100000000\n");
    CHECK_CONTAINS(text, "recv,5,999,999,0.001099000000\n");
    CHECK_CONTAINS(text, "recv,3,0,8,0.002000000000\n");
    CHECK_EQ_I64(count_lines("send,"), 6);
    CHECK_EQ_I64(count_lines("recv,"), 8 + MANY);
    CHECK(strstr(text, "recv,7,0,32,0.000059") == NULL);
    CHECK(strstr(text, "recv,1,1,200,0.000013") == NULL);
    for (int i = 0; i < MANY; i += 37) {
        char line[64];
        snprintf(line, sizeof line, "recv,5,%d,%d,", i, i);
        CHECK_CONTAINS(text, line);
    }

    /* untraced: the hooks write nothing and keep nothing */
    vaced_trace_sent(3, VACED_PKT_EAGER, 8, US(1));
    vaced_trace_init(&a);
    arrive(&a, 1, VACED_PKT_EAGER, 8);
    vaced_trace_report(&a, 8, US(1));
    CHECK(vaced_trace_st->file == NULL && vaced_trace_st->count == 0);

    unlink(file);
    rmdir(dir);
    return CHECK_REPORT();
}
