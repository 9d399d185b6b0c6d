/* The environment variables the library reads, in one table (env.c),
 * documented once, in docs/usage.md#environment.  Every read goes through
 * vaced_env: a variable the library honours is a line of that table. */
#ifndef VACED_ENV_H
#define VACED_ENV_H

enum vaced_env {
    VACED_ENV_TARGET,           /* the target description: a path, or a name */
    VACED_ENV_TOPO_DIR,         /* searched first for a target's name */
    VACED_ENV_QUIET,            /* fewer output lines */
    VACED_ENV_JSON,             /* rank 0's JSON file */
    VACED_ENV_CALLS,            /* 0 or off: no per-call tables */
    VACED_ENV_TRACE,            /* the directory of the ranks' traces */
    VACED_ENV_OTF2,             /* the front end's: a job without it gets a note */
    VACED_ENV_CPUTIME,          /* the CPU-time source */
    VACED_ENV_CPUTIME_CACHE,    /* where auto's choice is remembered, or off */
    VACED_ENV_CANARY,           /* off: no cache canary */
    VACED_ENV_HOST_CLOCKS,      /* the program's clocks stay the host's */
    VACED_ENV_RECORD,           /* the directory of the record */
    VACED_ENV_COMPUTE_FROM,     /* a record whose compute segments a live run takes */
    VACED_ENV_RECORD_SITES,     /* 1: the record names each MPI call's call site */
    VACED_ENV_LOCAL_RANKS,      /* Hydra's: ranks started on this host */
    VACED_ENV_TRANSPORT,        /* same-host links: shm (default), unix or tcp */
    VACED_ENV_RING_KB,          /* a same-host ring's data KiB, a direction */
    VACED_ENV_SEGMENT_CAUSES,   /* the directory of the ranks' segment causes */
    VACED_ENVS
};

/* The variable's value now; NULL when it is unset. */
const char *vaced_env(enum vaced_env v);

#endif
