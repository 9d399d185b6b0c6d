/* The virtual clock: compute segments measured in host CPU time (paper 3.2). */
#include <stdint.h>
#include "state.h"

struct vaced_state vaced_st;
int vaced_running;

/* A segment's CPU time holds the end of the read that opened it and the
 * start of the read that closes it: one read's cost, which the target,
 * running uninstrumented, does not spend.  The median of back-to-back
 * read gaps estimates it (the minimum underestimates the typical read). */
int64_t vaced_calibrate_read_cost(void)
{
    enum { N = 63 };
    int64_t gap[N];
    for (int i = 0; i < N; i++) {
        int64_t a = vaced_cputime_ns(), b = vaced_cputime_ns(), g = b - a;
        int j = i;
        for (; j > 0 && gap[j - 1] > g; j--)    /* insertion sort */
            gap[j] = gap[j - 1];
        gap[j] = g;
    }
    return gap[N / 2];
}

static vaced_time_t running_segment(void)
{
    int64_t ns = vaced_cputime_ns() - vaced_st.t1_ns - vaced_st.read_cost_ns;
    return ns > 0 ? vaced_time_from_ns(ns) : 0;
}

void vaced_activity_begin(void)
{
    if (!vaced_running)
        return;
    if (vaced_st.depth++ == 0) {
        /* E*start: t2 = cpu(); tV += t2 - t1 */
        vaced_time_t seg = running_segment();
        vaced_st.tv += seg;
        vaced_st.compute += seg;
    }
}

void vaced_activity_end(void)
{
    if (!vaced_running || vaced_st.depth == 0)
        return;
    if (--vaced_st.depth == 0)
        vaced_st.t1_ns = vaced_cputime_ns();    /* E*end: t1 = cpu() */
}

vaced_time_t vaced_now(void)
{
    return vaced_st.tv;
}

double vaced_wtime(void)
{
    vaced_time_t t = vaced_st.tv;
    if (vaced_running && vaced_st.depth == 0)
        t += running_segment();
    return vaced_time_to_s(t);
}

double vaced_wtick(void)
{
    return 1e-9;        /* every CPU-time source counts nanoseconds */
}
