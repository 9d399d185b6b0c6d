/* Where a rank's MPI time goes by MPI function and by call site
 * (docs/breakdown.md#per-call-and-per-call-site).
 *
 * A call's share is what the breakdown accrues from its first activity
 * (the compute segment that its first activity closes is the program's)
 * to its exit, so the calls' rows plus the computation outside them add
 * up to the rank's prediction, term by term.  Nothing here reads a clock:
 * an MPI call costs a hash look-up at its exit; the caller behind a
 * Fortran binding is that binding's (vaced_fortran_caller), and only a
 * caller inside MPICH otherwise takes a stack walk. */
#ifndef VACED_CALLS_H
#define VACED_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/breakdown.h"

/* One (MPI function, call site) of one rank, or of the job once merged. */
struct vaced_call_row {
    const char *func;           /* the binding's __func__, e.g. "internal_Send" */
    const char *module;         /* merged rows: the object file of the call site */
    uintptr_t site;             /* a rank's: the address; merged: its offset in module */
    uint64_t calls;
    int ranks;                  /* merged rows: how many ranks made such calls */
    unsigned char *rank_set;    /* merged rows: which (a bit a rank) */
    uint32_t trace_id;          /* a rank's: its number in the trace's site lines (0: none yet) */
    struct vaced_breakdown sum; /* what the calls accrued, by term */
};

/* The program's call site of the MPI call running now (its return
 * address, as the tables name it); 0 when none is, or without tables. */
uintptr_t vaced_calls_site(void);

/* The clock's first activity of a call starts here (clock.c). */
void vaced_calls_activity(void);
/* As vaced.h's vaced_call_enter and vaced_call_exit, which
 * entry/entry_calls.c calls: 1 when the call began (ended) a blocking
 * collective, the breakdown's collective_wait, which a record keeps. */
int vaced_model_call_enter(const char *func, void *caller);
int vaced_model_call_exit(void);

/* Zeroes this rank's table and finds MPICH's own code (simulation start). */
void vaced_calls_reset(void);

/* 1 once a thread other than the one that started the simulation entered
 * an MPI binding: the tables are off, and the rank packs only
 * VACED_CALLS_THREADS_MARK, a row count no table has. */
int vaced_calls_threads(void);
#define VACED_CALLS_THREADS_MARK UINT64_MAX

/* "internal_Send" -> "MPI_Send" into buf (size n); other names unchanged. */
const char *vaced_call_name(const char *func, char *buf, size_t n);

/* --- rank 0: the job's table (calls_report.c) --- */

/* Parses every rank's packed table and merges them; 0, or -1 with a
 * message on stderr if a table is malformed (the tables are left out).
 * A rank whose tables several threads turned off leaves them all out,
 * without a message: the JSON's "calls_table" says why. */
int vaced_calls_merge(const void *packed, const int64_t *lens, int size);

/* Whether the job's tables were merged, and if not why: "on", or
 * "off: ..."; NULL before a merge (a replay has no tables). */
const char *vaced_calls_table_state(void);

/* The merged rows, heaviest first (NULL, 0 when no table was merged);
 * sites are named, and one line's copies folded, when the JSON is written. */
const struct vaced_call_row *vaced_calls_merged(size_t *n);

/* The JSON's "calls_table" (vaced_calls_table_state), "calls" and
 * "call_sites" members, each preceded by ",\n"; the last two only when
 * the tables were merged, nothing after no merge.  Names the sites first (addr2line),
 * so a run without a JSON spawns nothing.  rank_seconds: the sum of every
 * rank's prediction, which the shares divide. */
void vaced_calls_write_json(FILE *f, double rank_seconds);

/* Frees the merged table. */
void vaced_calls_free(void);

#endif
