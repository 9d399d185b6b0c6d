/* vaced.h's MPI calls, as MPICH's bindings make them: the call tables'
 * (report/calls.c), and a blocking collective's beginning and end logged
 * in a record (record.h: outside any call that logs itself), which the
 * breakdown's collective_wait needs again in a replay. */
#include "report/calls.h"
#include "record/record.h"

static void log_op(enum vaced_log_op op)
{
    if (vaced_rec_enter())
        vaced_rec_op(op);
    vaced_rec_leave();
}

void vaced_call_enter(const char *func, void *caller)
{
    if (vaced_model_call_enter(func, caller))
        log_op(VACED_OP_COLL_BEGIN);
}

void vaced_call_exit(void)
{
    if (vaced_model_call_exit())
        log_op(VACED_OP_COLL_END);
}
