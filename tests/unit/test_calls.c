/* Unit tests of the per-call tables (vaced/src/report/calls.c,
 * calls_report.c, symbolize.c): a call's share starts at its first
 * activity (the segment that activity closes is the program's), nested
 * bindings fold into the outermost, a call without an activity is counted
 * with no time, two ranks' tables merge by (function, site), a site is
 * named by the file and line of the call in this very file, and a second
 * thread in MPI turns the tables off without corrupting them. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vaced.h"
#include "report/calls.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

static int send_line;   /* the line of the call to fake_send in run_calls */

/* Stands for a binding: its return address is in its caller. */
static __attribute__((noinline)) void fake_send(vaced_time_t before, vaced_time_t inside)
{
    vaced_call_enter("internal_Send", __builtin_return_address(0));
    vaced_breakdown_add(VACED_TERM_COMPUTE, before);    /* the program's segment */
    vaced_calls_activity();
    vaced_breakdown_add(VACED_TERM_NETWORK, inside);
    vaced_call_enter("internal_Isend", __builtin_return_address(0));    /* nested */
    vaced_calls_activity();
    vaced_breakdown_add(VACED_TERM_COPY, inside);
    vaced_call_exit();
    vaced_call_exit();
}

static __attribute__((noinline)) void fake_comm_rank(void)
{
    vaced_call_enter("internal_Comm_rank", __builtin_return_address(0));
    vaced_call_exit();
}

static __attribute__((noinline)) void run_calls(void)
{
    volatile int reps = 3;      /* one call site: the loop is not unrolled */
    for (int i = 0; i < reps; i++) {
        send_line = __LINE__ + 1;
        fake_send(US(5), US(2));
    }
    fake_comm_rank();
    vaced_call_exit();          /* unbalanced: ignored */
}

static const struct vaced_call_row *row_named(const struct vaced_call_row *rows, size_t n,
                                              const char *func)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].func, func))
            return &rows[i];
    return NULL;
}

/* Rank 0's merge of two ranks' packed tables, a then b, as the gather
 * lays them out. */
static int merge_two(const void *a, size_t alen, const void *b, size_t blen)
{
    char *two = malloc(alen + blen);
    memcpy(two, a, alen);
    memcpy(two + alen, b, blen);
    int64_t lens[2] = {(int64_t) alen, (int64_t) blen};
    int rc = vaced_calls_merge(two, lens, 2);
    free(two);
    return rc;
}

static void test_tables(void)
{
    vaced_running = 1;
    vaced_breakdown_reset();
    vaced_calls_reset();
    run_calls();

    const void *packed;
    size_t len = vaced_calls_packed(&packed);
    CHECK(len > 8);
    CHECK_EQ_I64(merge_two(packed, len, packed, len), 0);

    size_t n;
    const struct vaced_call_row *rows = vaced_calls_merged(&n);
    CHECK_EQ_I64((int64_t) n, 2);       /* the nested Isend folded into Send */
    const struct vaced_call_row *send = row_named(rows, n, "internal_Send");
    const struct vaced_call_row *rank = row_named(rows, n, "internal_Comm_rank");
    CHECK(send && rank);
    if (!send || !rank)
        return;
    CHECK(send == &rows[0]);            /* heaviest first */
    CHECK_EQ_I64((int64_t) send->calls, 6);
    CHECK_EQ_I64(send->ranks, 2);
    CHECK_EQ_I64(send->sum.term[VACED_TERM_COMPUTE], 0);
    CHECK_EQ_I64(send->sum.term[VACED_TERM_NETWORK], 6 * US(2));
    CHECK_EQ_I64(send->sum.term[VACED_TERM_COPY], 6 * US(2));
    CHECK_EQ_I64((int64_t) rank->calls, 2);
    CHECK_EQ_I64(vaced_breakdown_total(&rank->sum), 0);
    CHECK(strstr(send->module, "test_calls") != NULL);

    char buf[64];
    CHECK_EQ_STR(vaced_call_name("internal_Send", buf, sizeof buf), "MPI_Send");
    CHECK_EQ_STR(vaced_call_name("MPI_T_init_thread", buf, sizeof buf), "MPI_T_init_thread");

    char *json = NULL;
    size_t json_len = 0;
    FILE *f = open_memstream(&json, &json_len);
    vaced_calls_write_json(f, 1.0);
    fclose(f);
    CHECK_CONTAINS(json, "\"calls_table\": \"on\"");
    CHECK_CONTAINS(json, "\"calls\": [");
    CHECK_CONTAINS(json, "{\"function\": \"MPI_Send\", \"calls\": 6, \"total_s\": 0.000024000000");
    CHECK_CONTAINS(json, "\"caller\": \"run_calls\"");
    CHECK_CONTAINS(json, "test_calls.c\"");
    char line[32];
    snprintf(line, sizeof line, "\"line\": %d,", send_line);
    CHECK_CONTAINS(json, line);
    free(json);
    vaced_calls_free();
    vaced_running = 0;
}

/* A blocking collective's late_sender is collective_wait, in the rank's
 * sums and in its row; a point-to-point call's stays late_sender. */
static __attribute__((noinline)) void fake_call(const char *func, vaced_time_t late)
{
    vaced_call_enter(func, __builtin_return_address(0));
    vaced_calls_activity();
    vaced_breakdown_add(VACED_TERM_LATE_SENDER, late);
    vaced_breakdown_add(VACED_TERM_NETWORK, US(1));
    vaced_call_exit();
}

static void test_collectives(void)
{
    vaced_running = 1;
    vaced_breakdown_reset();
    vaced_calls_reset();
    fake_call("internal_Allreduce", US(7));
    fake_call("internal_Alltoallv_c", US(3));
    fake_call("internal_Sendrecv", US(5));
    fake_call("internal_Iallreduce", US(2));    /* nonblocking: its wait is the program's */
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_COLLECTIVE_WAIT], US(10));
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_LATE_SENDER], US(7));
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_NETWORK], US(4));

    const void *packed;
    int64_t len = (int64_t) vaced_calls_packed(&packed);
    CHECK_EQ_I64(vaced_calls_merge(packed, &len, 1), 0);
    size_t n;
    const struct vaced_call_row *rows = vaced_calls_merged(&n);
    const struct vaced_call_row *all = row_named(rows, n, "internal_Allreduce");
    const struct vaced_call_row *sr = row_named(rows, n, "internal_Sendrecv");
    CHECK(all && all->sum.term[VACED_TERM_COLLECTIVE_WAIT] == US(7) &&
          all->sum.term[VACED_TERM_LATE_SENDER] == 0);
    CHECK(sr && sr->sum.term[VACED_TERM_LATE_SENDER] == US(5) &&
          sr->sum.term[VACED_TERM_COLLECTIVE_WAIT] == 0);
    vaced_calls_free();

    /* the split does not depend on the tables */
    setenv("VACED_CALLS", "0", 1);
    vaced_breakdown_reset();
    vaced_calls_reset();
    fake_call("internal_Barrier", US(4));
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_COLLECTIVE_WAIT], US(4));
    CHECK_EQ_I64((int64_t) vaced_calls_packed(&packed), 0);
    int64_t none[2] = {0, 0};
    CHECK_EQ_I64(vaced_calls_merge(NULL, none, 2), 0);
    CHECK(vaced_calls_table_state() && !strcmp(vaced_calls_table_state(), "off: VACED_CALLS=0"));
    vaced_calls_free();
    unsetenv("VACED_CALLS");
    vaced_running = 0;
}

/* A table cut short is refused with the rank named; nothing is merged. */
static void test_malformed(void)
{
    const char cut[12] = {2, 0, 0, 0, 0, 0, 0, 0, 'x', 0, 'y', 0};
    int64_t lens[1] = {sizeof cut};
    CHECK_EQ_I64(vaced_calls_merge(cut, lens, 1), -1);
    size_t n;
    CHECK(vaced_calls_merged(&n) == NULL && n == 0);
}

/* --- several threads ------------------------------------------------------ */

/* A binding with an activity; the breakdown is the owner's to move (the
 * clock's observers do that), so other threads leave it be here. */
static __attribute__((noinline)) void fake_round(const char *func, int owner)
{
    vaced_call_enter(func, __builtin_return_address(0));
    vaced_calls_activity();
    if (owner)
        vaced_breakdown_add(VACED_TERM_NETWORK, 1);
    vaced_call_exit();
}

/* Another thread's call inside the owner's open call: it sees no site. */
static void *one_call(void *site_seen)
{
    int need_init = 0;
    vaced_fortran_caller(&need_init, (void *) 0x1234);
    vaced_call_enter("internal_Barrier", __builtin_return_address(0));
    vaced_calls_activity();
    *(uintptr_t *) site_seen = vaced_calls_site();
    vaced_call_exit();
    return NULL;
}

/* Another thread timing itself, as the threads of a funneled program do. */
static void *clock_reads(void *unused)
{
    (void) unused;
    fake_round("internal_Wtime", 0);
    fake_round("internal_Query_thread", 0);
    return NULL;
}

#define ROUNDS 50000
static const char *const stress_funcs[] = {"internal_Send", "internal_Recv", "internal_Bcast",
                                           "internal_Wait"};

static void *many_calls(void *arg)
{
    const char *func = stress_funcs[(uintptr_t) arg % 4];
    for (int i = 0; i < ROUNDS; i++)
        fake_round(func, arg == NULL);
    return NULL;
}

static void test_threads(void)
{
    vaced_running = 1;
    vaced_breakdown_reset();
    vaced_calls_reset();
    fake_round("internal_Send", 1);
    CHECK_EQ_I64(vaced_calls_threads(), 0);

    /* a thread before the simulation runs (MPI_Init's own) changes nothing */
    vaced_running = 0;
    uintptr_t site = 1;
    pthread_t t;
    pthread_create(&t, NULL, one_call, &site);
    pthread_join(t, NULL);
    vaced_running = 1;
    CHECK_EQ_I64(vaced_calls_threads(), 0);
    /* nor does another thread's clock read, which the table leaves out */
    pthread_create(&t, NULL, clock_reads, NULL);
    pthread_join(t, NULL);
    CHECK_EQ_I64(vaced_calls_threads(), 0);
    {
        const void *p;
        int64_t l = (int64_t) vaced_calls_packed(&p);
        CHECK_EQ_I64(vaced_calls_merge(p, &l, 1), 0);
        size_t n;
        const struct vaced_call_row *rows = vaced_calls_merged(&n);
        CHECK(n == 1 && rows && !strcmp(rows[0].func, "internal_Send") && rows[0].calls == 1);
        vaced_calls_free();
    }

    /* a second thread while it runs: the owner's open collective stays
     * open, the other thread sees no call site, the tables go off */
    vaced_call_enter("internal_Allreduce", __builtin_return_address(0));
    vaced_calls_activity();
    CHECK(vaced_calls_site() != 0);
    pthread_create(&t, NULL, one_call, &site);
    pthread_join(t, NULL);
    vaced_breakdown_add(VACED_TERM_LATE_SENDER, US(3));
    vaced_call_exit();
    CHECK_EQ_I64(site, 0);
    CHECK_EQ_I64(vaced_calls_threads(), 1);
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_COLLECTIVE_WAIT], US(3));

    /* threads racing the owner: the owner's calls still balance, and
     * every rank packs the mark, which the merge reports, not refuses */
    pthread_t racer[3];
    for (uintptr_t i = 0; i < 3; i++)
        pthread_create(&racer[i], NULL, many_calls, (void *) (i + 1));
    many_calls((void *) 0);
    for (int i = 0; i < 3; i++)
        pthread_join(racer[i], NULL);
    fake_call("internal_Barrier", US(4));
    CHECK_EQ_I64(vaced_breakdown_st->term[VACED_TERM_COLLECTIVE_WAIT], US(7));

    const void *packed;
    size_t len = vaced_calls_packed(&packed);
    CHECK_EQ_I64((int64_t) len, 8);
    vaced_calls_reset();                /* another rank's table, single-threaded */
    CHECK_EQ_I64(vaced_calls_threads(), 0);
    fake_round("internal_Send", 1);
    const void *single;
    size_t single_len = vaced_calls_packed(&single);
    CHECK(single_len > 8);
    CHECK_EQ_I64(merge_two(single, single_len, packed, len), 0);
    size_t n;
    CHECK(vaced_calls_merged(&n) == NULL && n == 0);
    CHECK(vaced_calls_table_state() &&
          !strcmp(vaced_calls_table_state(), "off: several threads called MPI on 1 of 2 ranks"));

    char *json = NULL;
    size_t json_len = 0;
    FILE *f = open_memstream(&json, &json_len);
    vaced_calls_write_json(f, 1.0);
    fclose(f);
    CHECK_CONTAINS(json, ",\n  \"calls_table\": \"off: several threads called MPI on 1 of 2 ranks\"");
    CHECK(!strstr(json, "\"calls\": [") && !strstr(json, "call_sites"));
    free(json);
    vaced_calls_free();
    CHECK(vaced_calls_table_state() == NULL);
    vaced_running = 0;
}

int main(void)
{
    test_tables();
    test_collectives();
    test_malformed();
    test_threads();
    return CHECK_REPORT();
}
