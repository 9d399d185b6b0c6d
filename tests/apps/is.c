/* IS: parallel integer sort, written from the published description of
 * NPB IS (Bailey et al., "The NAS Parallel Benchmarks"; NPB 2 report).
 *
 * N keys in [0, MAXKEY) are drawn with the NPB generator (x_{k+1} = a x_k
 * mod 2^46, a = 5^13, x_0 = 314159265): key = floor(MAXKEY/4 * (u1+u2+u3+u4))
 * with four consecutive uniforms, which gives a bell-shaped distribution.
 * Rank r generates keys [rN/p, (r+1)N/p) by jumping ahead in the generator,
 * so the key sequence does not depend on the number of ranks.
 *
 * Each of the 10 iterations i changes two keys (key[i] = i, key[i+10] =
 * MAXKEY - i) and ranks all keys:
 *   - local counts of 1024 equal-width buckets, MPI_Allreduce of the counts;
 *   - contiguous bucket ranges are assigned to ranks so that each gets about
 *     N/p keys;
 *   - MPI_Alltoall of the per-destination key counts, MPI_Alltoallv of the
 *     keys (packed by bucket);
 *   - a counting sort of the received keys over the rank's key range, which
 *     yields every key's global rank.
 * After the last iteration the keys are written out in sorted order and
 * verified: sorted within each rank and across neighbouring ranks
 * (MPI_Sendrecv of the boundary keys), no key lost or added (count and an
 * order-independent hash of the multiset, MPI_Allreduce), the global ranks
 * found for three probe values in every iteration (the two changed keys and
 * MAXKEY/2 + i) equal direct counts of smaller keys in that iteration's
 * unsorted keys, and for class S the whole sorted sequence equals a serial
 * sort done on rank 0.
 *
 * Usage: is [S|W|A]    any number of ranks up to 1024 (the bucket count)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK46 ((UINT64_C(1) << 46) - 1)
#define A_LCG UINT64_C(1220703125) /* 5^13 */
#define SEED UINT64_C(314159265)
#define LOG2_BUCKETS 10
#define NBUCKETS (1 << LOG2_BUCKETS)
#define ITERATIONS 10

static uint64_t mulmod46(uint64_t a, uint64_t x) { return (a * x) & MASK46; }

static uint64_t powmod46(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1)
            r = mulmod46(r, a);
        a = mulmod46(a, a);
        e >>= 1;
    }
    return r;
}

/* Keys [k0, k1) of the global sequence into key[0 .. k1-k0). */
static void make_keys(int64_t k0, int64_t k1, int log2_maxkey, int32_t *key)
{
    const double r46 = 1.0 / (double) (UINT64_C(1) << 46);
    const double k = (double) (1 << log2_maxkey) / 4;
    uint64_t x = mulmod46(powmod46(A_LCG, 4 * (uint64_t) k0), SEED);
    for (int64_t i = k0; i < k1; i++) {
        double s = 0;
        for (int j = 0; j < 4; j++) {
            x = mulmod46(A_LCG, x);
            s += (double) x * r46;
        }
        key[i - k0] = (int32_t) (k * s);
    }
}

/* An order-independent hash of a multiset of keys: a sum of mixed values mod 2^64. */
static uint64_t key_hash(const int32_t *key, int64_t n)
{
    uint64_t h = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (uint64_t) key[i] + UINT64_C(0x9e3779b97f4a7c15);
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        h += z ^ (z >> 31);
    }
    return h;
}

static void set_iteration_keys(int it, int64_t k0, int64_t k1, int32_t maxkey, int32_t *key)
{
    if (it >= k0 && it < k1)
        key[it - k0] = it;
    if (it + ITERATIONS >= k0 && it + ITERATIONS < k1)
        key[it + ITERATIONS - k0] = maxkey - it;
}

/* Values whose global rank is checked after every iteration: the two keys
 * the iteration changed and one in the middle of the range. */
#define NPROBES 3
static int32_t probe_value(int j, int it, int32_t maxkey)
{
    return j == 0 ? it : j == 1 ? maxkey - it : maxkey / 2 + it;
}

struct class_info {
    char name;
    int log2_keys, log2_maxkey;
};

static const struct class_info classes[] = {
    {'S', 16, 11},
    {'W', 20, 16},
    {'A', 25, 21},
};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "is: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const char *arg = argc > 1 ? argv[1] : "S";
    const struct class_info *ci = NULL;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (arg[0] == classes[i].name && arg[1] == '\0')
            ci = &classes[i];
    if (!ci || size > NBUCKETS) {
        if (rank == 0) {
            if (!ci)
                fprintf(stderr, "is: usage: is [S|W|A] (got '%s')\n", arg);
            else
                fprintf(stderr, "is: at most %d ranks (one bucket each), got %d\n", NBUCKETS,
                        size);
        }
        MPI_Finalize();
        return 2;
    }

    const int64_t nkeys = INT64_C(1) << ci->log2_keys;
    const int32_t maxkey = 1 << ci->log2_maxkey;
    const int shift = ci->log2_maxkey - LOG2_BUCKETS;
    const int64_t k0 = nkeys * rank / size, k1 = nkeys * (rank + 1) / size;
    const int64_t nmine = k1 - k0;
    if (rank == 0)
        printf("IS class %c: 2^%d keys in [0, 2^%d), %d buckets, %d iterations, %d ranks\n",
               ci->name, ci->log2_keys, ci->log2_maxkey, NBUCKETS, ITERATIONS, size);

    int32_t *key = xmalloc(sizeof(int32_t) * nmine);
    int32_t *sendbuf = xmalloc(sizeof(int32_t) * nmine);
    make_keys(k0, k1, ci->log2_maxkey, key);
    int32_t *original = xmalloc(sizeof(int32_t) * nmine);
    memcpy(original, key, sizeof(int32_t) * nmine);
    int64_t recv_cap = 2 * (nmine + 1);
    int32_t *recvbuf = xmalloc(sizeof(int32_t) * recv_cap);
    int32_t *count = xmalloc(sizeof(int32_t) * ((size_t) maxkey + 1));
    int bcount[NBUCKETS], btotal[NBUCKETS], bstart[NBUCKETS];
    int *first_bucket = xmalloc(sizeof(int) * (size + 1));
    int *scount = xmalloc(sizeof(int) * size), *rcount = xmalloc(sizeof(int) * size);
    int *sdispl = xmalloc(sizeof(int) * size), *rdispl = xmalloc(sizeof(int) * size);
    int64_t nrecv = 0, prefix[NBUCKETS + 1], probe_rank[ITERATIONS][NPROBES];
    int32_t lo = 0, hi = 0;     /* my key range [lo, hi) */
    int ok = 1;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 1; it <= ITERATIONS; it++) {
        set_iteration_keys(it, k0, k1, maxkey, key);

        /* bucket counts, global totals */
        memset(bcount, 0, sizeof bcount);
        for (int64_t i = 0; i < nmine; i++)
            bcount[key[i] >> shift]++;
        MPI_Allreduce(bcount, btotal, NBUCKETS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

        /* contiguous bucket ranges, about nkeys/size keys per rank, at least one bucket each */
        prefix[0] = 0;
        for (int j = 0; j < NBUCKETS; j++)
            prefix[j + 1] = prefix[j] + btotal[j];
        first_bucket[0] = 0;
        for (int r = 1, b = 0; r < size; r++) {
            int64_t goal = nkeys * r / size;
            while (b < NBUCKETS && prefix[b] < goal)
                b++;
            if (b < first_bucket[r - 1] + 1)
                b = first_bucket[r - 1] + 1;
            if (b > NBUCKETS - (size - r))
                b = NBUCKETS - (size - r);
            first_bucket[r] = b;
        }
        first_bucket[size] = NBUCKETS;

        /* pack keys by bucket */
        bstart[0] = 0;
        for (int j = 1; j < NBUCKETS; j++)
            bstart[j] = bstart[j - 1] + bcount[j - 1];
        for (int64_t i = 0; i < nmine; i++)
            sendbuf[bstart[key[i] >> shift]++] = key[i];
        for (int r = 0; r < size; r++) {
            scount[r] = 0;
            for (int j = first_bucket[r]; j < first_bucket[r + 1]; j++)
                scount[r] += bcount[j];
            sdispl[r] = r ? sdispl[r - 1] + scount[r - 1] : 0;
        }
        MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
        nrecv = 0;
        for (int r = 0; r < size; r++) {
            rdispl[r] = (int) nrecv;
            nrecv += rcount[r];
        }
        if (nrecv > recv_cap) {
            free(recvbuf);
            recv_cap = nrecv + nrecv / 4;
            recvbuf = xmalloc(sizeof(int32_t) * recv_cap);
        }
        MPI_Alltoallv(sendbuf, scount, sdispl, MPI_INT, recvbuf, rcount, rdispl, MPI_INT,
                      MPI_COMM_WORLD);

        /* counting sort over my key range: count[k - lo] = number of keys < k */
        lo = first_bucket[rank] << shift;
        hi = first_bucket[rank + 1] << shift;
        memset(count, 0, sizeof(int32_t) * ((size_t) (hi - lo) + 1));
        for (int64_t i = 0; i < nrecv; i++)
            count[recvbuf[i] - lo + 1]++;
        for (int32_t k = 1; k <= hi - lo; k++)
            count[k] += count[k - 1];

        /* partial verification data: global ranks of a few probe values */
        for (int j = 0; j < NPROBES; j++) {
            int32_t v = probe_value(j, it, maxkey);
            probe_rank[it - 1][j] = v >= lo && v < hi ? prefix[first_bucket[rank]] + count[v - lo] : -1;
        }
    }
    /* sorted output of the last iteration: keys with the ranks just computed */
    int32_t *sorted = xmalloc(sizeof(int32_t) * (nrecv ? nrecv : 1));
    for (int64_t i = 0; i < nrecv; i++) {
        int32_t k = recvbuf[i];
        sorted[count[k - lo]++] = k;
    }
    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* verification: local order, order across ranks, conservation */
    int64_t bad = 0;
    for (int64_t i = 1; i < nrecv; i++)
        bad += sorted[i - 1] > sorted[i];
    for (int64_t i = 0; i < nrecv; i++)
        bad += sorted[i] < lo || sorted[i] >= hi;
    /* the last key of the lower neighbour (-1 if it has none) */
    int32_t mylast = nrecv ? sorted[nrecv - 1] : -1, prevlast = -1;
    MPI_Sendrecv(&mylast, 1, MPI_INT, rank + 1 < size ? rank + 1 : MPI_PROC_NULL, 7, &prevlast,
                 1, MPI_INT, rank > 0 ? rank - 1 : MPI_PROC_NULL, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (nrecv && prevlast > sorted[0])
        bad++;
    int64_t totals[2] = {bad, nrecv}, gtotals[2];
    MPI_Allreduce(totals, gtotals, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t hashes[2] = {key_hash(key, nmine), key_hash(sorted, nrecv)}, ghashes[2];
    MPI_Allreduce(hashes, ghashes, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

    /* probe ranks against direct counts on the unsorted keys of each iteration */
    int64_t probe_bad = 0;
    {
        int64_t got[ITERATIONS][NPROBES], want[ITERATIONS][NPROBES];
        MPI_Allreduce(probe_rank, got, ITERATIONS * NPROBES, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        for (int it = 1; it <= ITERATIONS; it++)
            for (int j = 0; j < NPROBES; j++) {
                int32_t v = probe_value(j, it, maxkey);
                int64_t c = 0;
                for (int64_t i = 0; i < nmine; i++)
                    c += original[i] < v;
                /* the keys changed in iterations 1..it replace their originals */
                for (int m = 1; m <= it; m++) {
                    int64_t pos[2] = {m, m + ITERATIONS};
                    int32_t val[2] = {m, maxkey - m};
                    for (int q = 0; q < 2; q++)
                        if (pos[q] >= k0 && pos[q] < k1)
                            c += (val[q] < v) - (original[pos[q] - k0] < v);
                }
                want[it - 1][j] = c;
            }
        int64_t wsum[ITERATIONS][NPROBES];
        MPI_Allreduce(want, wsum, ITERATIONS * NPROBES, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        for (int it = 0; it < ITERATIONS; it++)
            for (int j = 0; j < NPROBES; j++)
                probe_bad += got[it][j] != wsum[it][j];
        if (rank == 0)
            printf(" iteration %d: ranks of keys %d, %d, %d: %lld, %lld, %lld\n", ITERATIONS,
                   probe_value(0, ITERATIONS, maxkey), probe_value(1, ITERATIONS, maxkey),
                   probe_value(2, ITERATIONS, maxkey), (long long) got[ITERATIONS - 1][0],
                   (long long) got[ITERATIONS - 1][1], (long long) got[ITERATIONS - 1][2]);
    }

    if (rank == 0) {
        printf(" out-of-order keys: %lld, keys after sort: %lld of %lld, multiset hash %s\n",
               (long long) gtotals[0], (long long) gtotals[1], (long long) nkeys,
               ghashes[0] == ghashes[1] ? "preserved" : "CHANGED");
        printf(" probe ranks (3 keys x %d iterations) against direct counts: %lld wrong\n",
               ITERATIONS, (long long) probe_bad);
        ok &= gtotals[0] == 0 && gtotals[1] == nkeys && ghashes[0] == ghashes[1] && probe_bad == 0;
    }

    /* class S: the whole sorted sequence against a serial sort */
    if (ci->name == 'S') {
        int *cnts = NULL, *displs = NULL;
        int32_t *all = NULL;
        if (rank == 0) {
            cnts = xmalloc(sizeof(int) * size);
            displs = xmalloc(sizeof(int) * size);
            all = xmalloc(sizeof(int32_t) * nkeys);
        }
        int n = (int) nrecv;
        MPI_Gather(&n, 1, MPI_INT, cnts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int r = 0; r < size; r++)
                displs[r] = r ? displs[r - 1] + cnts[r - 1] : 0;
        MPI_Gatherv(sorted, n, MPI_INT, all, cnts, displs, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            int32_t *ref = xmalloc(sizeof(int32_t) * nkeys);
            int64_t *c = calloc((size_t) maxkey + 1, sizeof(int64_t));
            make_keys(0, nkeys, ci->log2_maxkey, ref);
            for (int it = 1; it <= ITERATIONS; it++)
                set_iteration_keys(it, 0, nkeys, maxkey, ref);
            for (int64_t i = 0; i < nkeys; i++)
                c[ref[i]]++;
            int64_t pos = 0;
            for (int32_t k = 0; k < maxkey; k++)
                for (int64_t j = 0; j < c[k]; j++)
                    ref[pos++] = k;
            int same = gtotals[1] == nkeys && memcmp(ref, all, sizeof(int32_t) * nkeys) == 0;
            printf(" serial reference sort: %s\n", same ? "identical" : "DIFFERS");
            ok &= same;
            free(ref);
            free(c);
            free(all);
            free(cnts);
            free(displs);
        }
    }

    if (rank == 0) {
        printf("VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
        printf("APP=IS CLASS=%c RANKS=%d TIME=%.6f VERIFIED=%s\n", ci->name, size, tmax,
               ok ? "yes" : "no");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(key);
    free(original);
    free(sendbuf);
    free(recvbuf);
    free(sorted);
    free(count);
    free(first_bucket);
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    MPI_Finalize();
    return ok ? 0 : 1;
}
