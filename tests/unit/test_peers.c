/* Unit tests of the per-peer protocol state (vaced/src/progress/peers.c):
 * which packet kinds open and close a handshake, what a blocked rank says
 * it waits on, what it owes, and which packets the bound reports count. */
#include <stdio.h>

#include "check.h"
#include "progress/peers.h"

static void test_handshakes(void)
{
    CHECK(vaced_peers_init(4) == 0);
    CHECK_EQ_I64(vaced_blocked_on(-1), -2);    /* nothing known */
    CHECK_EQ_I64(vaced_blocked_on(1), 1);      /* its posted receive's source */

    vaced_peers_sent(2, VACED_PKT_RTS);        /* awaits 2's CTS */
    CHECK_EQ_I64(vaced_blocked_on(-1), 2);
    CHECK_EQ_I64(vaced_blocked_on(2), 2);
    CHECK_EQ_I64(vaced_blocked_on(1), -2);     /* two ranks: several */
    CHECK(vaced_peers_owes(2));                /* the rendezvous DATA */
    vaced_peers_sent(2, VACED_PKT_RNDV_DATA);
    CHECK(!vaced_peers_owes(2));
    CHECK_EQ_I64(vaced_blocked_on(-1), -2);

    vaced_peers_sent(1, VACED_PKT_EAGER_SYNC); /* awaits 1's ACK */
    CHECK_EQ_I64(vaced_blocked_on(-1), 1);
    CHECK(!vaced_peers_owes(1));
    vaced_peers_received(1, VACED_PKT_SYNC_ACK);
    CHECK_EQ_I64(vaced_blocked_on(-1), -2);

    vaced_peers_sent(3, VACED_PKT_CTS);        /* awaits 3's DATA */
    CHECK_EQ_I64(vaced_blocked_on(3), 3);
    vaced_peers_received(3, VACED_PKT_RNDV_DATA);
    CHECK_EQ_I64(vaced_blocked_on(3), 3);      /* the receive alone */
    CHECK_EQ_I64(vaced_blocked_on(-1), -2);

    vaced_peers_parked(0, 1);                  /* a response held for 0 */
    CHECK(vaced_peers_owes(0));
    CHECK_EQ_I64(vaced_blocked_on(1), -2);
    vaced_peers_parked(0, -1);
    CHECK(!vaced_peers_owes(0));
    CHECK_EQ_I64(vaced_blocked_on(1), 1);
    vaced_peers_free();
}

static void test_counts(void)
{
    CHECK(vaced_peers_init(3) == 0);
    vaced_peers_sent(1, VACED_PKT_EAGER);
    vaced_peers_sent(1, VACED_PKT_OTHER);      /* untimed, still a packet */
    vaced_peers_sent(1, VACED_PKT_BOUND);      /* the bound protocol's own: not counted */
    vaced_peers_sent(1, VACED_PKT_SELF);       /* no packet */
    vaced_peers_received(1, VACED_PKT_CTS);
    vaced_peers_received(1, VACED_PKT_BOUND);
    CHECK_EQ_U64(vaced_peers_count(1, 1), 2);
    CHECK_EQ_U64(vaced_peers_count(1, 0), 1);
    CHECK_EQ_U64(vaced_peers_count(2, 1), 0);
    /* outside the job's world (-1, or beyond its ranks): ignored */
    vaced_peers_sent(-1, VACED_PKT_RTS);
    vaced_peers_sent(3, VACED_PKT_RTS);
    vaced_peers_parked(-1, 1);
    CHECK_EQ_U64(vaced_peers_count(-1, 1), 0);
    CHECK(!vaced_peers_owes(-1) && !vaced_peers_owes(3));
    CHECK_EQ_I64(vaced_blocked_on(-1), -2);
    vaced_peers_free();
    CHECK_EQ_U64(vaced_peers_count(1, 1), 0);  /* freed: nothing left */
}

int main(void)
{
    test_handshakes();
    test_counts();
    return CHECK_REPORT();
}
