/* Unit tests of the replay's queues of packets in flight (vaced/src/replay/
 * ranks.c): each connection's stamps come out in the order they went in,
 * with their protocol changes, however the pushes and pops interleave (the
 * ring wraps, and grows while wrapped) and however many connections carry
 * packets; a rank waiting for a sender's
 * packet becomes runnable when it is pushed; the counts over the replay.
 *
 * Run: test_stamps */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "replay/ranks.h"

#define RANKS 3

static struct rank_run ranks[RANKS];
static char err[256];

static void start(void)
{
    vaced_ranks_reset(err, sizeof err);
    for (int i = 0; i < RANKS; i++) {
        memset(&ranks[i], 0, sizeof ranks[i]);
        ranks[i].blocked_on = -1;
    }
    CHECK(vaced_ranks_start(ranks, RANKS) == 0);
    while (vaced_ranks_next_runnable() >= 0)    /* all start runnable */
        ;
}

/* From rank 1 to rank 0: `push` stamps in each round, then `pop` of them
 * read, 40 rounds, every stamp checked as it comes out. */
static void in_order(int push, int pop)
{
    start();
    struct rank_run *to = &ranks[0];
    vaced_time_t next_in = 1, next_out = 1;
    int bad = 0;
    for (int round = 0; round < 40; round++) {
        for (int k = 0; k < push; k++, next_in++)
            bad |= vaced_stamp_push(1, 0, 1000 * next_in, (int32_t)(next_in % 7) - 1) != 0;
        for (int k = 0; k < pop && vaced_stamp_ready(to, 1); k++, next_out++) {
            CHECK_EQ_I64(vaced_stamp_next_conv(to, 1), (next_out % 7) - 1);
            int32_t conv = -2;
            vaced_time_t t = vaced_stamp_pop(to, 1, &conv);
            if (t != 1000 * next_out || conv != (int32_t)(next_out % 7) - 1) {
                bad = 1;
                break;
            }
        }
    }
    CHECK(!bad);
    CHECK_EQ_U64(vaced_stamp_pushed(to, 1), (uint64_t)(next_in - 1));
    CHECK_EQ_U64(vaced_stamp_popped(to, 1), (uint64_t)(next_out - 1));
    /* the rest, in order */
    while (vaced_stamp_q(to, 1)->count) {
        int32_t conv;
        if (vaced_stamp_pop(to, 1, &conv) != 1000 * next_out++)
            bad = 1;
    }
    CHECK(!bad && next_out == next_in);
    int32_t conv = 5;
    CHECK_EQ_I64(vaced_stamp_pop(to, 1, &conv), VACED_TIME_UNSET);     /* empty */
    CHECK_EQ_I64(vaced_stamp_next_conv(to, 1), -1);
    CHECK_EQ_U64(vaced_stamp_pushed(&ranks[2], 1) + vaced_stamp_pushed(&ranks[0], 2), 0);
    vaced_ranks_stop(1);
}

/* A rank blocked on a sender runs again once that sender's packet comes,
 * not another's. */
static void wakes_the_waiter(void)
{
    start();
    ranks[0].blocked_on = 2;
    CHECK(vaced_stamp_push(1, 0, 5, -1) == 0);
    CHECK(!vaced_ranks_any_runnable());
    CHECK(vaced_stamp_push(2, 0, 6, -1) == 0);
    CHECK_EQ_I64(vaced_ranks_next_runnable(), 0);
    CHECK_EQ_I64(ranks[0].blocked_on, -1);
    CHECK(!vaced_ranks_any_runnable());
    vaced_ranks_stop(1);
}

/* Every connection of a job where each rank sends each other one: the
 * queues, made at each connection's first packet, outgrow their first
 * table (a few a rank) and keep what was pushed before they moved. */
#define MANY 40
static void every_connection(void)
{
    static struct rank_run many[MANY];
    vaced_ranks_reset(err, sizeof err);
    for (int i = 0; i < MANY; i++)
        many[i] = (struct rank_run){ .blocked_on = -1 };
    CHECK(vaced_ranks_start(many, MANY) == 0);
    int bad = 0;
    for (int round = 0; round < 2; round++)
        for (int from = 0; from < MANY; from++)
            for (int to = 0; to < MANY; to++)
                bad |= vaced_stamp_push(from, to, 1000 * (from * MANY + to) + round, from - to) != 0;
    for (int to = 0; to < MANY; to++)
        for (int from = 0; from < MANY; from++)
            for (int round = 0; round < 2; round++) {
                int32_t conv = 0;
                bad |= vaced_stamp_pop(&many[to], from, &conv) != 1000 * (from * MANY + to) + round;
                bad |= conv != from - to;
            }
    CHECK(!bad);
    CHECK_EQ_U64(vaced_stamp_pushed(&many[3], 7), 2);
    CHECK(!vaced_stamp_ready(&many[3], 7));
    vaced_ranks_stop(1);
}

int main(void)
{
    in_order(1, 1);
    in_order(3, 2);     /* grows while wrapped */
    in_order(5, 4);
    in_order(7, 1);
    in_order(2, 3);
    in_order(13, 12);
    wakes_the_waiter();
    every_connection();
    return CHECK_REPORT();
}
