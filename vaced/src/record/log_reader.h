/* Reading a rank's record (log_format.h): the header, then one event at
 * a time.  Every read is bounds-checked; a bad file is refused with its
 * path, the byte offset and the reason, never read past. */
#ifndef VACED_LOG_READER_H
#define VACED_LOG_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "vaced.h"
#include "record/log_format.h"

/* Small: a replay holds one a rank, and touching a page costs more than
 * most of what the replay does with it (the target's path is read from
 * the header, at data + VACED_LOG_FIXED_HEADER, body - that long). */
struct vaced_log {
    char *path;                 /* the file's name: vaced_log_open's copy, freed by close */
    const unsigned char *data;  /* the whole file, mapped, or read if small (heap) */
    size_t size;
    size_t slack;               /* bytes readable after it (zeros): a decoder's read-ahead */
    int heap;
    uint32_t version, rank, ranks, flags;
    uint64_t eager_threshold;
    uint64_t target_hash;       /* FNV-1a 64 of the recorded target's text */
    size_t body, body_end;      /* the events: [body, body_end); body_end is the trailer's */
    uint64_t events;            /* as the trailer counts them */
};

/* Maps and checks `path`: header, trailer and hash.  0, or -1 with
 * "PATH: offset N: reason" in err. */
int vaced_log_open(struct vaced_log *log, const char *path, char *err, size_t len);
/* A file of at most this many bytes is read into the heap (log->heap),
 * a larger one mapped. */
#define VACED_LOG_SMALL_FILE (16u << 10)
/* A file read into the heap has this many zero bytes after it (slack). */
#define VACED_LOG_SLACK 64u
/* The same for `name` in directory `dir` (an open descriptor, whose
 * lookup is shorter than the whole path's, or AT_FDCWD), named `path` in
 * messages; a file likely `small` (at most VACED_LOG_SMALL_FILE, as its
 * record's other files: a replay's ranks) is read in one read, without
 * fstat. */
int vaced_log_open_at(struct vaced_log *log, int dir, const char *name, const char *path, int small,
                      char *err, size_t len);
void vaced_log_close(struct vaced_log *log);

/* A target time named by its source (enum vaced_log_src). */
struct vaced_log_time {
    int src;
    int64_t t;                  /* VACED_SRC_RAW */
    uint32_t msg;               /* VACED_SRC_DONE, VACED_SRC_ARRIVAL */
    uint64_t bytes;             /* VACED_SRC_DONE */
};

/* One event, decoded: the fields its opcode has (log_format.h). */
struct vaced_log_event {
    int op;
    size_t offset;              /* of its opcode in the file */
    int peer;
    int kind;
    uint64_t bytes;
    uint32_t msg, from;
    int flag;                   /* held, complete, at_post, carries a stamp, the answer... */
    int flag2;                  /* blocking; the answer of COMPLETE_NOW and PARKS */
    uint64_t value;             /* ps of SEGMENT, CLOSE and SLEEP; a defer id; an unmodelled
                                 * kind; the length of PICK's list */
    uint64_t bits;              /* SEGMENT: the coldness's bits; CLOSE: the cold flag;
                                 * PICK, FIRST: the offset of its list */
    struct vaced_log_time time;
};

/* Decodes the event at *pos (body <= *pos < body_end) and advances *pos.
 * Returns 1, 0 at the trailer, or -1 with "PATH: offset N: reason". */
int vaced_log_next(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e,
                   char *err, size_t len);

/* The same for a file whose every event vaced_log_next has accepted (the
 * replay's load checks them all first): decoded again without the
 * checks, the same event.  1, or 0 at the trailer. */
int vaced_log_next_known(const struct vaced_log *log, size_t *pos, struct vaced_log_event *e);

/* The clock's measurements an event holds (NULL: none was read, all 0):
 * SEGMENT's segment and coldness, CLOSE's poll charge and cold flag. */
static inline void vaced_log_segment(const struct vaced_log_event *e, vaced_time_t *seg,
                                     double *coldness)
{
    uint64_t bits = e ? e->bits : 0;
    *seg = e ? (vaced_time_t)e->value : 0;
    memcpy(coldness, &bits, sizeof *coldness);
}

static inline void vaced_log_close_values(const struct vaced_log_event *e, vaced_time_t *charge,
                                          int *cold)
{
    *charge = e ? (vaced_time_t)e->value : 0;
    *cold = e ? (int)e->bits : 0;
}

/* The next id of an event's list (PICK, FIRST), which vaced_log_next
 * checked: *at starts at the event's `bits`; in FIRST's, each id is
 * followed by its message's bytes. */
uint32_t vaced_log_list_item(const struct vaced_log *log, size_t *at);
uint64_t vaced_log_list_bytes(const struct vaced_log *log, size_t *at);

#endif
