/* A rank's compute segments as a record holds them (segments.c), with
 * what the estimates need beside their lengths: whether each started
 * cold (the rank slept in the call before it) and its class, the calls
 * around it. */
#ifndef VACED_ESTIMATE_SEGMENTS_H
#define VACED_ESTIMATE_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>
#include "record/log_reader.h"

/* A segment's class stands for the program's code it ran: the call
 * sites of the MPI calls before and after it where the record names them
 * (VACED_RECORD_SITES=1), and the program's steps (sends started,
 * receives posted, waits, tests, collectives) in the two MPI activities
 * before it and in the one after it.  Segments of one loop body's place
 * share a class. */
struct vaced_segments {
    uint64_t *ps;               /* lengths, in the record's order */
    uint64_t *cls;
    unsigned char *cold;
    size_t n, cap;
    uint64_t calls;             /* the hash of the rank's calls (replay/uniform.h) */
};

/* Reads every segment of an opened record into s (zeroed first).  0, or
 * -1 with the reader's "PATH: offset N: reason" or "out of memory". */
int vaced_segments_read(const struct vaced_log *log, struct vaced_segments *s, char *err, size_t len);
void vaced_segments_free(struct vaced_segments *s);

#endif
