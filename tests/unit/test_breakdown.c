/* Unit tests of the breakdown's accumulator (vaced/src/report/breakdown.c):
 * a chain's spans, the split of a wait's jump along it (clipped to the
 * jump, the time before the chain's begin to its lead, after its end to
 * its last span, a backward jump to the lead), and that every split adds
 * up to the jump exactly.  Expected values are worked out by hand. */
#include <stdlib.h>

#include "check.h"
#include "report/breakdown.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

static void clear(struct vaced_breakdown *b)
{
    for (int i = 0; i < VACED_TERMS; i++)
        b->term[i] = 0;
}

/* An eager message: its sender begins at 10 us, o_s 1 us, copy 2 us,
 * network 15 us (lands at 28), o_r 1 us, copy out 2 us: done at 31 us. */
static void eager_chain(struct vaced_chain *c)
{
    vaced_chain_start(c, US(10), VACED_TERM_LATE_SENDER);
    vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, US(11));
    vaced_chain_to(c, VACED_TERM_COPY, US(13));
    vaced_chain_to(c, VACED_TERM_NETWORK, US(28));
    vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, US(29));
    vaced_chain_to(c, VACED_TERM_COPY, US(31));
}

static void test_chain(void)
{
    struct vaced_chain c;
    eager_chain(&c);
    CHECK_EQ_I64(c.begin, US(10));
    CHECK_EQ_I64(c.end, US(31));
    CHECK_EQ_I64(c.n, 5);
    /* an estimate that does not move forward adds nothing */
    vaced_chain_to(&c, VACED_TERM_NETWORK, US(30));
    CHECK_EQ_I64(c.n, 5);
    CHECK_EQ_I64(c.end, US(31));
    /* a span of the same term as the last one extends it */
    vaced_chain_to(&c, VACED_TERM_COPY, US(32));
    CHECK_EQ_I64(c.n, 5);
    CHECK_EQ_I64(c.until[4], US(32));
    /* a full chain's last span grows */
    vaced_chain_start(&c, 0, VACED_TERM_LATE_RECEIVER);
    for (int i = 1; i <= VACED_CHAIN_MAX + 3; i++)
        vaced_chain_to(&c, i % 2 ? VACED_TERM_NETWORK : VACED_TERM_COPY, US(i));
    CHECK_EQ_I64(c.n, VACED_CHAIN_MAX);
    CHECK_EQ_I64(c.end, US(VACED_CHAIN_MAX + 3));
    CHECK_EQ_I64(c.until[VACED_CHAIN_MAX - 1], US(VACED_CHAIN_MAX + 3));
}

static void test_split(void)
{
    struct vaced_chain c;
    struct vaced_breakdown b;
    eager_chain(&c);

    /* a wait from 4 us: 6 us before the sender began, then the whole chain */
    clear(&b);
    vaced_breakdown_split(&b, &c, US(4), US(31));
    CHECK_EQ_I64(b.term[VACED_TERM_LATE_SENDER], US(6));
    CHECK_EQ_I64(b.term[VACED_TERM_SEND_OVERHEAD], US(1));
    CHECK_EQ_I64(b.term[VACED_TERM_COPY], US(4));
    CHECK_EQ_I64(b.term[VACED_TERM_NETWORK], US(15));
    CHECK_EQ_I64(b.term[VACED_TERM_RECV_OVERHEAD], US(1));
    CHECK_EQ_I64(vaced_breakdown_total(&b), US(27));

    /* a wait from 20 us, the message in flight: the rest of its network
     * time and the receiver's work, no late sender */
    clear(&b);
    vaced_breakdown_split(&b, &c, US(20), US(31));
    CHECK_EQ_I64(b.term[VACED_TERM_LATE_SENDER], 0);
    CHECK_EQ_I64(b.term[VACED_TERM_SEND_OVERHEAD], 0);
    CHECK_EQ_I64(b.term[VACED_TERM_NETWORK], US(8));
    CHECK_EQ_I64(b.term[VACED_TERM_RECV_OVERHEAD], US(1));
    CHECK_EQ_I64(b.term[VACED_TERM_COPY], US(2));

    /* a jump beyond the chain's end (its CPU's turns): the last span's */
    clear(&b);
    vaced_breakdown_split(&b, &c, US(30), US(35));
    CHECK_EQ_I64(b.term[VACED_TERM_COPY], US(5));
    CHECK_EQ_I64(vaced_breakdown_total(&b), US(5));

    /* no chain (nothing known of the completion): all to the lead */
    struct vaced_chain none;
    vaced_chain_start(&none, US(50), VACED_TERM_LATE_SENDER);
    clear(&b);
    vaced_breakdown_split(&b, &none, US(40), US(50));
    CHECK_EQ_I64(b.term[VACED_TERM_LATE_SENDER], US(10));
    vaced_breakdown_split(&b, &none, US(50), US(53));  /* after its end: the lead too */
    CHECK_EQ_I64(b.term[VACED_TERM_LATE_SENDER], US(13));

    /* a backward jump keeps the sum exact: negative, to the lead */
    clear(&b);
    vaced_breakdown_split(&b, &c, US(31), US(30));
    CHECK_EQ_I64(b.term[VACED_TERM_LATE_SENDER], -US(1));
    CHECK_EQ_I64(vaced_breakdown_total(&b), -US(1));
}

/* Every split of random chains and jumps adds up to the jump. */
static void test_exact(void)
{
    srand(7);
    int ok = 1;
    for (int k = 0; k < 20000; k++) {
        struct vaced_chain c;
        struct vaced_breakdown b;
        vaced_time_t t = rand() % 1000000;
        vaced_chain_start(&c, t, rand() % 2 ? VACED_TERM_LATE_SENDER : VACED_TERM_LATE_RECEIVER);
        for (int i = rand() % 24; i > 0; i--) {
            t += rand() % 2000 - 200;             /* some do not move forward */
            vaced_chain_to(&c, rand() % VACED_TERMS, t);
        }
        vaced_time_t from = rand() % 1500000, to = from + rand() % 1500000 - 200000;
        clear(&b);
        vaced_breakdown_split(&b, &c, from, to);
        ok &= vaced_breakdown_total(&b) == to - from;
        for (int i = 0; i < VACED_TERMS && to >= from; i++)
            ok &= b.term[i] >= 0;
    }
    CHECK(ok);
}

static void test_accumulator(void)
{
    vaced_breakdown_reset();
    vaced_breakdown_add(VACED_TERM_COMPUTE, US(3));
    vaced_breakdown_add(VACED_TERM_POLL, US(1));
    vaced_breakdown_add(VACED_TERM_COMPUTE, US(2));
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_COMPUTE], US(5));
    CHECK_EQ_I64(vaced_breakdown_total(vaced_breakdown_st), US(6));
    vaced_breakdown_reset();
    CHECK_EQ_I64(vaced_breakdown_total(vaced_breakdown_st), 0);
    /* the JSON's keys, which the HTML report reads */
    CHECK(!strcmp(vaced_term_names[VACED_TERM_COMPUTE], "compute"));
    CHECK(!strcmp(vaced_term_names[VACED_TERM_LATE_RECEIVER], "late_receiver"));
    CHECK(!strcmp(vaced_term_names[VACED_TERM_COLLECTIVE_WAIT], "collective_wait"));
}

int main(void)
{
    test_chain();
    test_split();
    test_exact();
    test_accumulator();
    return CHECK_REPORT();
}
