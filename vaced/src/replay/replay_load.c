/* Loading a record for the replay (replay_load.h): every rank's file
 * opened and every event checked once, before anything is replayed. */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim/sim.h"
#include "sim/rank_state.h"
#include "replay/replay_load.h"
#include "replay/survey.h"
#include "record/fail.h"

/* One rank's file, opened (rank 0's already is), checked against its
 * place and surveyed; its first failure, if any, in err (allocated then:
 * a kilobyte a rank zeroed would be pages a replay of small files
 * notices). */
struct load_job {
    struct rank_run *r;
    int rank, size, segments, small, failed;
    char *err;
};

/* "rank-%06d.vlog" at name (at most 21 bytes with its NUL): what
 * snprintf writes, without its formatting machinery, which cost a small
 * file's load more than its read. */
static void rank_file_name(char *name, int rank)
{
    char digits[12];
    int n = 0;
    do
        digits[n++] = (char)('0' + rank % 10);
    while ((rank /= 10) > 0);
    while (n < 6)
        digits[n++] = '0';
    memcpy(name, "rank-", 5);
    for (int i = 0; i < n; i++)
        name[5 + i] = digits[n - 1 - i];
    memcpy(name + 5 + n, ".vlog", 6);
}

static void load_rank(const char *dir, size_t dirlen, int dirfd, struct load_job *j)
{
    char path[VACED_LOG_PATH_MAX + 32], why[1024], e[1024];
    struct rank_run *r = j->r;
    const char *name = path;
    if (dirlen + 32 <= sizeof path) {   /* "%s/rank-%06d.vlog" */
        memcpy(path, dir, dirlen);
        path[dirlen] = '/';
        rank_file_name(path + dirlen + 1, j->rank);
        if (dirfd != AT_FDCWD)
            name = path + dirlen + 1;
    } else {                            /* too long to open: named as snprintf cuts it */
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, j->rank);
        dirfd = AT_FDCWD;
    }
    j->failed = 1;
    if (!r->log.data && vaced_log_open_at(&r->log, dirfd, name, path, j->small, why, sizeof why)) {
        vaced_fail(e, sizeof e, "%s (the record has %d ranks)", why, j->size);
        goto failed;
    }
    if ((int)r->log.ranks != j->size || (int)r->log.rank != j->rank) {
        vaced_fail(e, sizeof e, "%s: offset 12: rank %u of %u, in a record of %d ranks", path,
                   r->log.rank, r->log.ranks, j->size);
        goto failed;
    }
    if (vaced_survey(r, j->segments, e, sizeof e))
        goto failed;
    r->pos = r->log.body;
    r->blocked_on = -1;
    j->failed = 0;
    return;
failed:
    j->err = strdup(e);         /* NULL: reported as out of memory */
}

struct load_pool {
    const char *dir;
    size_t dirlen;
    int dirfd;                  /* dir, open: each file's lookup is its name's alone */
    struct load_job *jobs;
    int n;
    atomic_int next;
};

static void *load_worker(void *arg)
{
    struct load_pool *p = arg;
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
        load_rank(p->dir, p->dirlen, p->dirfd, &p->jobs[i]);
    return NULL;
}

/* The ranks' model states, one block each, in one mapping: a block a
 * mapping cost a munmap each.  Small pages: most of a block is the wait
 * history, which the model never zeroes (an entry is written before it is
 * read), so a rank touches only the pages it uses and the kernel zeroes
 * no more.  Each block starts a page: what a rank touches of it is one
 * run from its second page (sim/rank_state.c), which a short program's
 * rank fills no further than that page. */
static size_t state_stride(void)
{
    size_t page = 4096;
    return (vaced_rank_state_size() + page - 1) / page * page;
}

static size_t states_bytes(int n)
{
    return (size_t)n * state_stride();
}

static void *map_states(int n)
{
    void *p = mmap(NULL, states_bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* The ranks' messages, by id, in one mapping after the surveys counted
 * them (each rank's from a 64-byte boundary), its pages made at once: a
 * replay makes every message it counted, and a page fault at each 4 KB
 * page it first touched cost more.  (Huge pages cost more still: the
 * kernel finds and zeroes 2 MB blocks.) */
static size_t msgs_slot(uint32_t nmsgs)
{
    size_t b = ((size_t)nmsgs + 1) * sizeof(struct vaced_msg);
    return (b + 63) & ~(size_t)63;
}

static int map_msgs(struct rank_run *rs, int n)
{
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += msgs_slot(rs[i].nmsgs);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    if (p == MAP_FAILED)
        return -1;
    for (int i = 0; i < n; i++) {
        rs[i].msgs = p;
        p = (char *)p + msgs_slot(rs[i].nmsgs);
    }
    return 0;
}

static void unmap_msgs(struct rank_run *rs, int n)
{
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += msgs_slot(rs[i].nmsgs);
    if (n && rs[0].msgs)
        munmap(rs[0].msgs, bytes);
}

/* Threads for loading: `loaders`, or if 0 the CPUs this process may run
 * on; at most 8, and no more than ranks. */
static int load_threads(int ranks, int loaders)
{
    cpu_set_t set;
    int n = loaders ? loaders : sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    n = n < 8 ? n : 8;
    return n < ranks ? n : ranks;
}

/* The first of ranks [from, n) whose file is not there, in err: -1; else 0. */
static int missing(const char *dir, int from, int n, char *err, size_t len)
{
    char path[VACED_LOG_PATH_MAX + 32];
    for (int i = from; i < n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, i);
        if (stat(path, &st) != 0)
            return vaced_fail(err, len, "%s: %s (the record has %d ranks)", path, strerror(errno), n);
    }
    return 0;
}

int vaced_replay_load(const char *dir, int segments, int loaders, struct rank_run **ranks, int *size,
                      char *err, size_t len)
{
    char path[VACED_LOG_PATH_MAX + 32], why[1024];
    struct vaced_log first;
    *ranks = NULL;
    *size = 0;
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, 0);
    if (vaced_log_open(&first, path, why, sizeof why))
        return vaced_fail(err, len, "%s", why);
    int n = (int)first.ranks;   /* at most VACED_LOG_MAX_RANKS: vaced_log_open checks */
    /* A missing file is named before anything else is said of the record,
     * and the count in rank 0's header, which its hash does not cover, is
     * believed only once the last rank's file is there (a corrupted count
     * must not allocate for millions of ranks first).  The others are
     * looked for only if the load fails: a stat a rank cost more than the
     * rest of a small file's load. */
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", dir, n - 1);
    struct stat st;
    if (n > 1 && stat(path, &st) != 0) {
        vaced_log_close(&first);
        return missing(dir, 1, n, err, len);
    }
    struct rank_run *rs = calloc((size_t)n, sizeof *rs);
    struct load_pool pool = { dir, strlen(dir), AT_FDCWD, calloc((size_t)n, sizeof *pool.jobs), n,
                              0 };
    void *states = map_states(n);
    if (!rs || !pool.jobs || !states) {
        vaced_log_close(&first);
        free(rs);
        free(pool.jobs);
        if (states)
            munmap(states, states_bytes(n));
        if (missing(dir, 1, n, err, len))
            return -1;
        return vaced_fail(err, len, "out of memory for %d ranks", n);
    }
    /* the others' files are read as rank 0's, in one read if it was small */
    int small = first.heap;
    rs[0].log = first;
    for (int i = 0; i < n; i++) {
        pool.jobs[i] = (struct load_job){ .r = &rs[i], .rank = i, .size = n, .segments = segments,
                                          .small = small };
        rs[i].state = (char *)states + (size_t)i * state_stride();
    }
    if (n > 1) {
        int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        pool.dirfd = fd >= 0 ? fd : AT_FDCWD;   /* else by their paths */
    }
    /* ranks load independently: the files' hashes and surveys on every
     * CPU the replay may use */
    pthread_t tid[8];
    int threads = load_threads(n, loaders), started = 0;
    while (started < threads - 1 && pthread_create(&tid[started], NULL, load_worker, &pool) == 0)
        started++;
    load_worker(&pool);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (pool.dirfd != AT_FDCWD)
        close(pool.dirfd);
    /* the first failure in rank order, as a serial load would report it,
     * after a missing file */
    for (int i = 0; i < n; i++) {
        struct load_job *j = &pool.jobs[i];
        int opened = rs[i].log.data && (int)rs[i].log.ranks == n && (int)rs[i].log.rank == i;
        if (i && opened && rs[0].log.data &&
            (rs[i].log.target_hash != rs[0].log.target_hash ||
             rs[i].log.eager_threshold != rs[0].log.eager_threshold)) {
            if (!missing(dir, 1, n, err, len))
                vaced_fail(err, len, "%s: offset 24: recorded on another target than rank 0",
                           rs[i].log.path);
            goto bad;
        }
        if (j->failed) {
            if (!missing(dir, 1, n, err, len))
                vaced_fail(err, len, "%s", j->err ? j->err : "out of memory");
            goto bad;
        }
    }
    if (map_msgs(rs, n)) {
        vaced_fail(err, len, "out of memory for the messages of %d ranks", n);
        goto bad;
    }
    free(pool.jobs);
    *ranks = rs;
    *size = n;
    return 0;
bad:
    for (int i = 0; i < n; i++)
        free(pool.jobs[i].err);
    free(pool.jobs);
    vaced_replay_unload(rs, n);         /* what a rank did not reach is zeroed: nothing to free */
    return -1;
}

/* A rank whose model never started has no state to release. */
void vaced_replay_unload(struct rank_run *ranks, int size)
{
    void *states = ranks && size ? ranks[0].state : NULL;
    for (int i = 0; ranks && i < size; i++) {
        struct rank_run *r = &ranks[i];
        if (r->state && r->started) {
            vaced_rank_state_bind(r->state);
            vaced_sim_release();
        }
        vaced_log_close(&r->log);
        free(r->fires);
        free(r->seg_off);
        free(r->seg_ps);
    }
    if (ranks)
        unmap_msgs(ranks, size);
    vaced_rank_state_bind_live();
    if (states)
        munmap(states, states_bytes(size));
    free(ranks);
}
