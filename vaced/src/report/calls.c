/* A rank's table of MPI calls by (function, call site) (calls.h).
 *
 * One thread owns the table: the one that started the simulation (inside
 * MPI_Init).  A binding entered on any other thread turns the tables off
 * for the rest of the run and touches nothing else here: the clock and
 * the breakdown the rows sum are one per rank, so another thread's calls
 * would be counted with the owner's time, and two threads would race on
 * the table.  The check is a compare with the thread pointer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "env/env.h"
#include "vaced.h"
#include "clock/clock.h"
#include "report/calls.h"
#include "report/trace_state.h"

#define MPICH_RANGES 8

static struct {
    int off;                    /* VACED_CALLS=0: no tables */
    uintptr_t owner;            /* the thread that owns the table (its thread pointer) */
    int threads;                /* another thread called MPI: the tables are off */
    int depth;                  /* nested bindings fold into the outermost */
    int collective;             /* the open call is a blocking collective */
    int open, started;
    const char *func;
    uintptr_t site;
    struct vaced_breakdown at_start;
    vaced_time_t start_tv;      /* tV at the open call's first activity */
    uint32_t trace_sites;       /* site lines written to the trace */
    struct vaced_call_row *rows;        /* open addressing, cap a power of 2 */
    size_t n, cap;
    uintptr_t lo[MPICH_RANGES], hi[MPICH_RANGES];
    int fortran[MPICH_RANGES];  /* the range is the Fortran bindings' library */
    int ranges;
    uintptr_t fortran_caller;   /* the program's call to a Fortran binding */
    char *packed;
} calls;

/* --- MPICH's own code: a binding called from there is not the program's */

static int add_mpich_ranges(struct dl_phdr_info *info, size_t size, void *unused)
{
    (void) size, (void) unused;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libmpi", 6) != 0)       /* libmpi, libmpifort, libmpicxx */
        return 0;
    for (int i = 0; i < info->dlpi_phnum && calls.ranges < MPICH_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            calls.fortran[calls.ranges] = strncmp(base, "libmpifort", 10) == 0;
            calls.lo[calls.ranges] = info->dlpi_addr + ph->p_vaddr;
            calls.hi[calls.ranges++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        }
    }
    return 0;
}

/* 0: a is not MPICH's; 1: it is; 2: it is in the Fortran bindings. */
static int in_mpich(uintptr_t a)
{
    for (int i = 0; i < calls.ranges; i++)
        if (a >= calls.lo[i] && a < calls.hi[i])
            return 1 + calls.fortran[i];
    return 0;
}

/* The calling thread: its thread pointer, one register read. */
static inline uintptr_t self(void)
{
    return (uintptr_t) __builtin_thread_pointer();
}

static inline int owned(void)
{
    return self() == calls.owner;
}

int *vaced_fortran_caller(int *need_init, void *caller)
{
    if (owned())
        calls.fortran_caller = (uintptr_t) caller;
    return need_init;
}

/* The program's address that called the binding: its return address; the
 * program's call to the Fortran binding that called it; else, when it is
 * inside MPICH (a binding not inlined), the first frame outside it. */
static uintptr_t program_caller(uintptr_t ra)
{
    int where = in_mpich(ra);
    uintptr_t fortran = calls.fortran_caller;
    calls.fortran_caller = 0;
    if (!where)
        return ra;
    if (where == 2 && fortran && !in_mpich(fortran))
        return fortran;
    void *frame[24];
    int n = backtrace(frame, 24);
    for (int i = 0; i < n; i++)
        if (!in_mpich((uintptr_t) frame[i]))
            return (uintptr_t) frame[i];
    return ra;
}

void vaced_calls_reset(void)
{
    free(calls.rows);
    free(calls.packed);
    memset(&calls, 0, sizeof calls);
    calls.owner = self();
    const char *env = vaced_env(VACED_ENV_CALLS);
    calls.off = env && (!strcmp(env, "0") || !strcmp(env, "off"));
    if (calls.off)
        return;
    dl_iterate_phdr(add_mpich_ranges, NULL);
    void *warm[2];
    backtrace(warm, 2);         /* loads the unwinder now, not inside a call */
}

/* --- the table ------------------------------------------------------------ */

static size_t slot_of(const char *func, uintptr_t site, size_t cap)
{
    uintptr_t h = site ^ ((uintptr_t) func << 7);
    h *= (uintptr_t) 0x9E3779B97F4A7C15u;
    return (size_t) (h >> 17) & (cap - 1);
}

static int grow(void)
{
    size_t cap = calls.cap ? 2 * calls.cap : 64;
    struct vaced_call_row *rows = calloc(cap, sizeof *rows);
    if (!rows)
        return -1;
    for (size_t i = 0; i < calls.cap; i++) {
        const struct vaced_call_row *r = &calls.rows[i];
        if (!r->func)
            continue;
        size_t j = slot_of(r->func, r->site, cap);
        while (rows[j].func)
            j = (j + 1) & (cap - 1);
        rows[j] = *r;
    }
    free(calls.rows);
    calls.rows = rows;
    calls.cap = cap;
    return 0;
}

static struct vaced_call_row *row_of(const char *func, uintptr_t site)
{
    if (2 * (calls.n + 1) > calls.cap && grow())
        return NULL;            /* out of memory: the call goes uncounted */
    size_t i = slot_of(func, site, calls.cap);
    for (;; i = (i + 1) & (calls.cap - 1)) {
        struct vaced_call_row *r = &calls.rows[i];
        if (r->func == func && r->site == site)
            return r;
        if (!r->func) {
            r->func = func;
            r->site = site;
            calls.n++;
            return r;
        }
    }
}

/* --- the bindings' hooks (vaced.h) ----------------------------------------- */

/* The blocking collectives, whose waits are for peers late into them
 * (the breakdown's collective_wait); their large-count forms end in _c. */
static int names_collective(const char *func)
{
    static const char *const names[] = {
        "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
        "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce",
        "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather",
        "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw",
    };
    if (strncmp(func, "internal_", 9) != 0)
        return 0;
    func += 9;
    size_t n = strlen(func);
    if (n > 2 && !strcmp(func + n - 2, "_c"))
        n -= 2;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && !strncmp(func, names[i], n))
            return 1;
    return 0;
}

/* names_collective, remembered by the name's address (one a binding). */
static int is_collective(const char *func)
{
    static struct { const char *func; int yes; } seen[128];
    size_t i = ((uintptr_t) func >> 3) % 128;
    if (seen[i].func != func) {
        seen[i].func = func;
        seen[i].yes = names_collective(func);
    }
    return seen[i].yes;
}

/* Calls that neither communicate nor wait, which the threads of a program
 * that funnels its communication through one thread still make (timing
 * themselves, asking the thread level): another thread's are left out of
 * the table, which stays on. */
static int threads_may_call(const char *func)
{
    static const char *const names[] = {
        "internal_Wtime", "internal_Wtick", "internal_Initialized", "internal_Finalized",
        "internal_Query_thread", "internal_Is_thread_main",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(func, names[i]))
            return 1;
    return 0;
}

/* A binding entered on a thread that does not own the table: while the
 * simulation runs, the tables go off (calls.h).  The call is not the
 * table's, nor a collective of the breakdown's: both are the owner's. */
static __attribute__((noinline, cold)) int other_thread(const char *func)
{
    if (vaced_running && calls.owner && !threads_may_call(func))
        __atomic_store_n(&calls.threads, 1, __ATOMIC_RELAXED);
    return 0;
}

int vaced_model_call_enter(const char *func, void *caller)
{
    if (__builtin_expect(!owned(), 0))
        return other_thread(func);
    if (calls.depth++ || !vaced_running)
        return 0;
    calls.collective = is_collective(func);
    if (calls.collective)
        vaced_breakdown_collective_begin();
    if (calls.off)
        return calls.collective;
    calls.open = 1;
    calls.started = 0;
    calls.func = func;
    calls.site = program_caller((uintptr_t) caller);
    return calls.collective;
}

uintptr_t vaced_calls_site(void)
{
    return owned() && calls.open ? calls.site : 0;
}

void vaced_calls_activity(void)
{
    if (owned() && calls.open && !calls.started) {
        calls.started = 1;
        calls.at_start = *vaced_breakdown_st;
        calls.start_tv = vaced_now();
    }
}

static void trace_call(struct vaced_call_row *r);

/* Counts the open call (its time so far) and closes it. */
static void close_call(void)
{
    calls.open = 0;
    struct vaced_call_row *r = row_of(calls.func, calls.site);
    if (!r)
        return;
    r->calls++;
    if (!calls.started)
        return;
    for (int t = 0; t < VACED_TERMS; t++)
        r->sum.term[t] += vaced_breakdown_st->term[t] - calls.at_start.term[t];
    if (vaced_trace_st->file)
        trace_call(r);
}

int vaced_model_call_exit(void)
{
    if (!owned() || calls.depth == 0 || --calls.depth)
        return 0;
    int collective = calls.collective && vaced_running;
    if (collective)
        vaced_breakdown_collective_end();   /* before the row takes its terms */
    calls.collective = 0;
    if (calls.open && vaced_running)
        close_call();
    calls.open = 0;
    return collective;
}

const char *vaced_call_name(const char *func, char *buf, size_t n)
{
    if (strncmp(func, "internal_", 9) != 0)
        return func;
    snprintf(buf, n, "MPI_%s", func + 9);
    return buf;
}

/* --- packed for rank 0 -------------------------------------------------------
 * u64 rows; per row: the function's name and the site's object file, each
 * NUL-terminated, then u64 offset in that file (as addr2line reads it),
 * u64 calls, and the VACED_TERMS terms as i64 picoseconds. */

struct site_module { uintptr_t addr; const char *name; uintptr_t bias; };

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void) size;
    struct site_module *m = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && m->addr >= lo && m->addr < lo + ph->p_memsz) {
            m->name = info->dlpi_name;
            m->bias = info->dlpi_addr;
            return 1;
        }
    }
    return 0;
}

/* The object file of a site and the site's offset in it, as addr2line
 * reads it (the return address is past the call: the call's line is the
 * byte before). */
static const char *site_module(uintptr_t site, uint64_t *offset)
{
    static char exe[4096];
    struct site_module m = {site - 1, NULL, 0};
    dl_iterate_phdr(find_module, &m);
    if (!m.name) {
        *offset = site;
        return "";
    }
    *offset = site - 1 - m.bias;
    if (m.name[0])
        return m.name;
    if (!exe[0]) {
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[len > 0 ? len : 0] = '\0';
    }
    return exe;
}

/* The trace's lines of a call (trace.h): its site's line the first time. */
static void trace_call(struct vaced_call_row *r)
{
    FILE *f = vaced_trace_st->file;
    if (!r->trace_id) {
        uint64_t offset;
        const char *module = site_module(r->site, &offset);
        char name[128];
        r->trace_id = ++calls.trace_sites;
        fprintf(f, "site,%u,%s,%d,0x%llx,%s\n", r->trace_id, vaced_call_name(r->func, name, sizeof name),
                is_collective(r->func), (unsigned long long) offset, module);
    }
    fprintf(f, "call,%u,%lld.%012lld,%lld.%012lld\n", r->trace_id, VACED_TRACE_S(calls.start_tv),
            VACED_TRACE_S(vaced_now()));
}

int vaced_calls_threads(void)
{
    return __atomic_load_n(&calls.threads, __ATOMIC_RELAXED);
}

static char *put(char *p, const void *v, size_t n)
{
    memcpy(p, v, n);
    return p + n;
}

size_t vaced_calls_packed(const void **buf)
{
    *buf = NULL;
    if (calls.off)
        return 0;
    if (vaced_calls_threads()) {
        static const uint64_t mark = VACED_CALLS_THREADS_MARK;
        *buf = &mark;
        return sizeof mark;
    }
    if (calls.open && vaced_running)        /* MPI_Finalize itself */
        close_call();
    size_t bytes = 8;
    uint64_t offset;
    for (size_t i = 0; i < calls.cap; i++)
        if (calls.rows[i].func)
            bytes += strlen(calls.rows[i].func) + strlen(site_module(calls.rows[i].site, &offset)) + 2 +
                     16 + 8 * VACED_TERMS;
    free(calls.packed);
    calls.packed = malloc(bytes);
    if (!calls.packed)
        return 0;
    uint64_t rows = calls.n;
    char *p = put(calls.packed, &rows, 8);
    for (size_t i = 0; i < calls.cap; i++) {
        const struct vaced_call_row *r = &calls.rows[i];
        if (!r->func)
            continue;
        const char *module = site_module(r->site, &offset);
        p = put(p, r->func, strlen(r->func) + 1);
        p = put(p, module, strlen(module) + 1);
        p = put(p, &offset, 8);
        p = put(p, &r->calls, 8);
        p = put(p, r->sum.term, 8 * VACED_TERMS);
    }
    *buf = calls.packed;
    return (size_t) (p - calls.packed);
}
