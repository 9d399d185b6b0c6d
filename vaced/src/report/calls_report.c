/* Rank 0: every rank's table of MPI calls merged, its call sites named,
 * written into the JSON (calls.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock/vtime.h"
#include "report/calls.h"
#include "report/json_string.h"
#include "report/symbolize.h"

static struct vaced_call_row *merged;
static struct vaced_site_name *names;   /* merged[i]'s caller */
static size_t merged_n;
static char table_state[80];    /* vaced_calls_table_state; "" before a merge */

static vaced_time_t row_total(const struct vaced_call_row *r)
{
    return vaced_breakdown_total(&r->sum);
}

static int by_key(const void *a, const void *b)
{
    const struct vaced_call_row *x = a, *y = b;
    int c = strcmp(x->func, y->func);
    if (!c)
        c = strcmp(x->module, y->module);
    return c ? c : (x->site > y->site) - (x->site < y->site);
}

static int heaviest_first(const void *a, const void *b)
{
    vaced_time_t x = row_total(a), y = row_total(b);
    return (x < y) - (x > y);
}

/* One row of a packed table at *p (end: the table's end); 0, or -1 if it
 * is cut short. */
static int unpack_row(const char **p, const char *end, struct vaced_call_row *r)
{
    const char *s = *p;
    const char *f = memchr(s, '\0', (size_t) (end - s));
    const char *m = f ? memchr(f + 1, '\0', (size_t) (end - f - 1)) : NULL;
    if (!m || (size_t) (end - m - 1) < 16 + 8 * VACED_TERMS)
        return -1;
    uint64_t offset;
    r->func = s;
    r->module = f + 1;
    memcpy(&offset, m + 1, 8);
    memcpy(&r->calls, m + 9, 8);
    memcpy(r->sum.term, m + 17, 8 * VACED_TERMS);
    r->site = (uintptr_t) offset;
    *p = m + 17 + 8 * VACED_TERMS;
    return 0;
}

/* A rank whose tables several threads turned off (calls.h). */
static int marks_threads(const char *table, int64_t len)
{
    uint64_t count;
    if (len != sizeof count)
        return 0;
    memcpy(&count, table, sizeof count);
    return count == VACED_CALLS_THREADS_MARK;
}

static int unpack_all(const char *packed, const int64_t *lens, int size,
                      struct vaced_call_row **rows, int **rank_of, size_t *n)
{
    size_t cap = 0;
    const char *p = packed;
    for (int rank = 0; rank < size; p += lens[rank], rank++) {
        const char *q = p, *end = p + lens[rank];
        uint64_t count;
        if (lens[rank] == 0)
            continue;           /* a rank that could not pack its table */
        if (lens[rank] < 8)
            return rank;
        memcpy(&count, q, 8);
        q += 8;
        for (uint64_t i = 0; i < count; i++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 256;
                struct vaced_call_row *nr = realloc(*rows, cap * sizeof **rows);
                int *nk = realloc(*rank_of, cap * sizeof **rank_of);
                if (nr)
                    *rows = nr;
                if (nk)
                    *rank_of = nk;
                if (!nr || !nk)
                    return rank;
            }
            if (unpack_row(&q, end, &(*rows)[*n]))
                return rank;
            (*rank_of)[(*n)++] = rank;
        }
        if (q != end)
            return rank;
    }
    return -1;
}

static size_t set_bytes;        /* of a rank_set: the job's ranks, a bit each */

static int count_ranks(const unsigned char *set)
{
    int n = 0;
    for (size_t i = 0; i < set_bytes; i++)
        n += __builtin_popcount(set[i]);
    return n;
}

/* The rows sorted by key, equal keys folded into the first, each with
 * the set of ranks it came from; 0 rows when out of memory. */
static size_t fold(struct vaced_call_row *rows, const int *rank_of, size_t n)
{
    struct { struct vaced_call_row row; int rank; } *tagged = malloc(n * sizeof *tagged);
    if (!tagged)
        return 0;
    for (size_t i = 0; i < n; i++) {
        tagged[i].row = rows[i];
        tagged[i].rank = rank_of[i];
    }
    qsort(tagged, n, sizeof *tagged, by_key);   /* the row leads the struct */
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        struct vaced_call_row *r = &tagged[i].row;
        struct vaced_call_row *last = out ? &rows[out - 1] : NULL;
        if (!last || by_key(last, r)) {
            last = &rows[out++];
            *last = *r;
            last->sum = (struct vaced_breakdown){0};
            last->calls = 0;
            last->rank_set = calloc(set_bytes, 1);
            if (!last->rank_set) {
                while (out--)
                    free(rows[out].rank_set);
                free(tagged);
                return 0;
            }
        }
        last->calls += r->calls;
        for (int t = 0; t < VACED_TERMS; t++)
            last->sum.term[t] += r->sum.term[t];
        last->rank_set[tagged[i].rank / 8] |= (unsigned char) (1u << (tagged[i].rank % 8));
    }
    free(tagged);
    for (size_t i = 0; i < out; i++)
        rows[i].ranks = count_ranks(rows[i].rank_set);
    return out;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Sites the debug information puts on one line (a loop the compiler
 * unrolled, inlined copies) are one row to the reader: folded into the
 * heaviest, whose offset stays. */
static void fold_lines(void)
{
    size_t out = 0;
    for (size_t i = 0; i < merged_n; i++) {
        struct vaced_call_row *r = &merged[i];
        struct vaced_site_name *s = &names[i];
        size_t j = 0;
        while (j < out && !(s->file && s->line > 0 && !strcmp(merged[j].func, r->func) &&
                            !strcmp(merged[j].module, r->module) && same_str(names[j].file, s->file) &&
                            names[j].line == s->line && same_str(names[j].function, s->function)))
            j++;
        if (j == out) {
            merged[out] = *r;
            names[out++] = *s;
            continue;
        }
        merged[j].calls += r->calls;
        for (size_t b = 0; b < set_bytes; b++)
            merged[j].rank_set[b] |= r->rank_set[b];
        merged[j].ranks = count_ranks(merged[j].rank_set);
        for (int t = 0; t < VACED_TERMS; t++)
            merged[j].sum.term[t] += r->sum.term[t];
        free(r->rank_set);
        free((char *) r->func);
        free((char *) r->module);
        free(s->function);
        free(s->file);
    }
    merged_n = out;
}

int vaced_calls_merge(const void *packed, const int64_t *lens, int size)
{
    struct vaced_call_row *rows = NULL;
    int *rank_of = NULL;
    size_t n = 0;
    vaced_calls_free();
    int any = 0, threads = 0;
    const char *p = packed;
    for (int rank = 0; rank < size; p += lens[rank], rank++) {
        any |= lens[rank] > 0;
        threads += marks_threads(p, lens[rank]);
    }
    if (!any) {
        snprintf(table_state, sizeof table_state, "off: VACED_CALLS=0");
        return 0;
    }
    if (threads) {              /* one rank's rows would be a part of the job's */
        snprintf(table_state, sizeof table_state, "off: several threads called MPI on %d of %d ranks",
                 threads, size);
        return 0;
    }
    int bad = unpack_all(packed, lens, size, &rows, &rank_of, &n);
    if (bad >= 0) {
        fprintf(stderr, "vaced: rank %d's table of MPI calls is malformed or too large; "
                "the JSON leaves the call tables out\n", bad);
        snprintf(table_state, sizeof table_state, "off: rank %d's table is malformed or too large", bad);
        free(rows);
        free(rank_of);
        return -1;
    }
    set_bytes = ((size_t) size + 7) / 8;
    n = fold(rows, rank_of, n);
    free(rank_of);
    for (size_t i = 0; i < n; i++) {    /* own the strings: the packed tables go */
        rows[i].func = strdup(rows[i].func);
        rows[i].module = strdup(rows[i].module);
    }
    qsort(rows, n, sizeof *rows, heaviest_first);
    merged = rows;
    merged_n = n;
    snprintf(table_state, sizeof table_state, "on");
    return 0;
}

const char *vaced_calls_table_state(void)
{
    return table_state[0] ? table_state : NULL;
}

/* The merged sites named (addr2line runs) and the lines the compiler
 * copied folded: only for a JSON that will show them. */
static void name_sites(void)
{
    if (names || !(names = calloc(merged_n ? merged_n : 1, sizeof *names)))
        return;
    vaced_symbolize(merged, names, merged_n);
    fold_lines();
}

const struct vaced_call_row *vaced_calls_merged(size_t *n)
{
    *n = merged_n;
    return merged;
}

void vaced_calls_free(void)
{
    for (size_t i = 0; i < merged_n; i++) {
        free((char *) merged[i].func);
        free((char *) merged[i].module);
        free(merged[i].rank_set);
        if (names) {
            free(names[i].function);
            free(names[i].file);
        }
    }
    free(merged);
    free(names);
    merged = NULL;
    names = NULL;
    merged_n = 0;
    table_state[0] = '\0';
}

/* --- JSON ------------------------------------------------------------------ */

static void json_totals(FILE *f, uint64_t calls, const struct vaced_breakdown *b, double rank_seconds)
{
    double total = vaced_time_to_s(vaced_breakdown_total(b));
    fprintf(f, "\"calls\": %llu, \"total_s\": %.12f, \"share\": %.6f, \"breakdown\": {",
            (unsigned long long) calls, total, rank_seconds > 0 ? total / rank_seconds : 0.0);
    for (int t = 0; t < VACED_TERMS; t++)
        fprintf(f, "%s\"%s\": %.12f", t ? ", " : "", vaced_term_names[t],
                vaced_time_to_s(b->term[t]));
    fputc('}', f);
}

/* The MPI functions: the merged rows folded by function, heaviest first. */
static void write_functions(FILE *f, double rank_seconds)
{
    struct vaced_call_row *fn = calloc(merged_n ? merged_n : 1, sizeof *fn);
    size_t n = 0;
    if (!fn)
        return;
    for (size_t i = 0; i < merged_n; i++) {
        size_t j = 0;
        while (j < n && strcmp(fn[j].func, merged[i].func))
            j++;
        if (j == n)
            fn[n++].func = merged[i].func;
        fn[j].calls += merged[i].calls;
        for (int t = 0; t < VACED_TERMS; t++)
            fn[j].sum.term[t] += merged[i].sum.term[t];
    }
    qsort(fn, n, sizeof *fn, heaviest_first);
    fprintf(f, ",\n  \"calls\": [");
    for (size_t j = 0; j < n; j++) {
        char name[128];
        fprintf(f, "%s\n    {\"function\": ", j ? "," : "");
        vaced_json_string(f, vaced_call_name(fn[j].func, name, sizeof name));
        fprintf(f, ", ");
        json_totals(f, fn[j].calls, &fn[j].sum, rank_seconds);
        fputc('}', f);
    }
    fprintf(f, "%s]", n ? "\n  " : "");
    free(fn);
}

void vaced_calls_write_json(FILE *f, double rank_seconds)
{
    if (!table_state[0])
        return;
    fprintf(f, ",\n  \"calls_table\": ");
    vaced_json_string(f, table_state);
    if (!merged)
        return;
    name_sites();
    write_functions(f, rank_seconds);
    fprintf(f, ",\n  \"call_sites\": [");
    for (size_t i = 0; i < merged_n; i++) {
        const struct vaced_call_row *r = &merged[i];
        const struct vaced_site_name *s = names ? &names[i] : &(struct vaced_site_name){0};
        char name[128];
        fprintf(f, "%s\n    {\"function\": ", i ? "," : "");
        vaced_json_string(f, vaced_call_name(r->func, name, sizeof name));
        fprintf(f, ", \"caller\": ");
        vaced_json_string(f, s->function);
        fprintf(f, ", \"file\": ");
        vaced_json_string(f, s->file);
        if (s->line > 0)
            fprintf(f, ", \"line\": %d", s->line);
        else
            fprintf(f, ", \"line\": null");
        fprintf(f, ", \"module\": ");
        vaced_json_string(f, r->module[0] ? r->module : NULL);
        fprintf(f, ", \"offset\": \"0x%llx\", \"ranks\": %d, ", (unsigned long long) r->site, r->ranks);
        json_totals(f, r->calls, &r->sum, rank_seconds);
        fputc('}', f);
    }
    fprintf(f, "%s]", merged_n ? "\n  " : "");
}
