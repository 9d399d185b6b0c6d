/* Per-message overheads (overhead.h). */
#include "state.h"
#include "overhead.h"

vaced_time_t vaced_send_overhead(int dest)
{
    if (!vaced_st.target || dest == vaced_st.rank)
        return 0;
    return vaced_target_send_overhead(vaced_st.target);
}

vaced_time_t vaced_recv_overhead(void)
{
    return vaced_st.target ? vaced_target_recv_overhead(vaced_st.target) : 0;
}
