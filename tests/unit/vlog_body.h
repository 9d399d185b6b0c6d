/* A record's events in memory, written by hand for the decoder's tests
 * (test_log_reader.c, test_survey.c): opcodes and their LEB128 arguments
 * (record/log_format.h), encoded here, apart from the recorder's encoder
 * the tests check against. */
#ifndef VACED_TEST_VLOG_BODY_H
#define VACED_TEST_VLOG_BODY_H

#include <stddef.h>
#include <stdint.h>

struct buf {
    unsigned char d[8192];
    size_t n, events;
};

static void put_u(struct buf *b, uint64_t v)
{
    do {
        b->d[b->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

/* Signed: zigzag, as log_format.h has it. */
static void put_s(struct buf *b, int64_t v)
{
    put_u(b, (uint64_t)(v << 1) ^ (uint64_t)(v >> 63));
}

static void put_op(struct buf *b, int op)
{
    b->d[b->n++] = (unsigned char)op;
    b->events++;
}

#endif
