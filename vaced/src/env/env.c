/* The environment variables the library reads (env.h). */
#include <stdlib.h>
#include "env/env.h"

static const char *const names[VACED_ENVS] = {
    [VACED_ENV_TARGET] = "VACED_TARGET",
    [VACED_ENV_TOPO_DIR] = "VACED_TOPO_DIR",
    [VACED_ENV_QUIET] = "VACED_QUIET",
    [VACED_ENV_JSON] = "VACED_JSON",
    [VACED_ENV_CALLS] = "VACED_CALLS",
    [VACED_ENV_TRACE] = "VACED_TRACE",
    [VACED_ENV_OTF2] = "VACED_OTF2",
    [VACED_ENV_CPUTIME] = "VACED_CPUTIME",
    [VACED_ENV_CPUTIME_CACHE] = "VACED_CPUTIME_CACHE",
    [VACED_ENV_CANARY] = "VACED_CANARY",
    [VACED_ENV_HOST_CLOCKS] = "VACED_HOST_CLOCKS",
    [VACED_ENV_RECORD] = "VACED_RECORD",
    [VACED_ENV_COMPUTE_FROM] = "VACED_COMPUTE_FROM",
    [VACED_ENV_RECORD_SITES] = "VACED_RECORD_SITES",
    [VACED_ENV_LOCAL_RANKS] = "MPI_LOCALNRANKS",
    [VACED_ENV_TRANSPORT] = "VACED_TRANSPORT",
    [VACED_ENV_RING_KB] = "VACED_RING_KB",
    [VACED_ENV_SEGMENT_CAUSES] = "VACED_SEGMENT_CAUSES",
};

/* Read each time, not cached: a test sets a variable between two starts. */
const char *vaced_env(enum vaced_env v)
{
    return getenv(names[v]);
}
