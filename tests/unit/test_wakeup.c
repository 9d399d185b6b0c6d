/* Unit tests of the wake-up correction (vaced/src/estimate/wakeup.c): in a
 * class whose warm segments agree, each cold segment gives back the cold
 * median's excess over the warm median, never going below the warm
 * median, and a cold segment already below it is kept; a class whose warm
 * segments disagree, or that has too few of them, is left as measured and
 * counted as uncorrected; other classes' segments are untouched.
 *
 * Run: test_wakeup */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "estimate/wakeup.h"

#define US 1000000ull           /* ps */

struct seg {
    uint64_t cls, us;
    int cold;
};

static void fill(struct vaced_segments *s, const struct seg *v, size_t n)
{
    memset(s, 0, sizeof *s);
    s->ps = malloc(n * sizeof *s->ps);
    s->cls = malloc(n * sizeof *s->cls);
    s->cold = malloc(n);
    for (size_t i = 0; i < n; i++) {
        s->ps[i] = v[i].us * US;
        s->cls[i] = v[i].cls;
        s->cold[i] = (unsigned char)v[i].cold;
    }
    s->n = s->cap = n;
}

int main(void)
{
    const struct seg v[] = {
        /* class 1: warm 10 10 10 10 11, cold 15 16 15 and 8: penalty 5 */
        { 1, 10, 0 }, { 1, 15, 1 }, { 1, 10, 0 }, { 1, 16, 1 }, { 1, 11, 0 },
        { 1, 10, 0 }, { 1, 15, 1 }, { 1, 10, 0 }, { 1, 8, 1 },
        /* class 1's cold instance 12 gives back 2 only: not below the warm median */
        { 1, 12, 1 },
        /* class 2: warm 1 100 5 60 200 disagree: its cold 300 stays */
        { 2, 1, 0 }, { 2, 100, 0 }, { 2, 5, 0 }, { 2, 60, 0 }, { 2, 200, 0 }, { 2, 300, 1 },
        /* class 3: two warm instances only: its cold 50 stays */
        { 3, 20, 0 }, { 3, 21, 0 }, { 3, 50, 1 },
        /* class 4: warm only */
        { 4, 7, 0 }, { 4, 9, 0 }, { 4, 8, 0 },
    };
    size_t n = sizeof v / sizeof v[0];
    struct vaced_segments s;
    fill(&s, v, n);
    struct vaced_wakeup w = { 0 };
    CHECK(vaced_wakeup_correct(&s, &w) == 0);
    const uint64_t want[] = { 10, 10, 10, 11, 11, 10, 10, 10, 8, 10,
                              1, 100, 5, 60, 200, 300, 20, 21, 50, 7, 9, 8 };
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_U64(s.ps[i], want[i] * US);
    CHECK(w.cold_ps == (double)((15 + 16 + 15 + 8 + 12 + 300 + 50) * US));
    CHECK(w.removed_ps == (double)((5 + 5 + 5 + 2) * US));
    CHECK(w.uncorrected_ps == (double)((300 + 50) * US));
    vaced_segments_free(&s);
    return CHECK_REPORT();
}
