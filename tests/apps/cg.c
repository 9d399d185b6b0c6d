/* CG: conjugate gradient inside an inverse power iteration, written from
 * the published description of NPB CG (Bailey et al., "The NAS Parallel
 * Benchmarks"; NPB 2 report).
 *
 * The matrix: a random sparse symmetric positive-definite n x n matrix made
 * here, not NPB's.  Row i picks NONZER columns j != i with a counter-based
 * hash and a value v = +-(1 + h mod 2^20) / 2^21; A(i,j) and A(j,i) both
 * receive v (duplicates add up).  The diagonal is A(i,i) = sum_j |A(i,j)| +
 * d_i with d_i in [0.5, 1), so A is strictly diagonally dominant, hence SPD,
 * and its eigenvalues lie in [min d_i, max(2 sum |A(i,j)| + d_i)].  All values
 * are dyadic rationals with few bits, so every partial sum is exact and the
 * matrix is bit-for-bit the same for any decomposition.
 *
 * The algorithm (NPB's outer loop): x = (1, ..., 1) / sqrt(n); NITER times: solve A z = x
 * with 25 unpreconditioned CG iterations, zeta = 1 / (x.z), x = z / ||z||.
 * zeta converges to the smallest eigenvalue of A; the explicit residual
 * ||x - A z|| of each solve is reported like NPB's rnorm.
 *
 * Distribution (NPB's): p = 2^k ranks on an R x C grid, C = R or C = 2R.
 * Rank (r, c) holds the block of A with rows in row block r (n/R rows) and
 * columns in column block c (n/C columns).  Vectors are held by column
 * block, replicated down a grid column.  A product q = A p is a local block
 * product, an MPI_Allreduce along the grid row (sums the partial rows), and
 * an MPI_Sendrecv with the "transpose" rank that holds the needed part of
 * the result in row layout.  Dot products are a local sum and an
 * MPI_Allreduce along the grid row.
 *
 * Usage: cg [S|W|A]        ranks: a power of two (n must split into C blocks)
 * Verification: zeta against a stored reference (this program on 1 rank,
 * within 1e-10 relative), for class S also against the same computation done
 * serially on rank 0; the final explicit residual below 1e-5 ||x||; zeta
 * inside the matrix's Gershgorin interval.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CGITMAX 25

struct class_info {
    char name;
    int64_t n;
    int nonzer, niter;
    double ref_zeta;
};

/* ref_zeta: this program on 1 rank (2 to 8 ranks agree within 1e-14). */
static const struct class_info classes[] = {
    {'S', 2048, 7, 15, 2.000705466582373e+00},
    {'W', 16384, 8, 15, 1.967224999713191e+00},
    {'A', 131072, 12, 40, 2.525308956075052e+00},
};

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The k-th pick of row i: its column and value. */
static void pick(int64_t n, int64_t i, int k, int nonzer, int64_t *col, double *val)
{
    uint64_t h = mix((uint64_t) (i * nonzer + k) * 2 + 1);
    int64_t j = (int64_t) (h % (uint64_t) (n - 1));
    *col = j >= i ? j + 1 : j;                          /* never the diagonal */
    uint64_t g = mix((uint64_t) (i * nonzer + k) * 2 + 2);
    double v = (double) (1 + (g & 0xfffff)) / (double) (1 << 21);
    *val = (g >> 63) ? -v : v;
}

static double diag_extra(int64_t i)
{
    return 0.5 + (double) (mix(~(uint64_t) i) & 0xffff) / (double) (1 << 17);
}

/* The process grid and its communicators. */
struct grid {
    MPI_Comm comm, row;         /* all ranks; the ranks of my grid row */
    int rank, size, R, C, r, c, partner;
    int64_t n, nr, nc;          /* sizes of a row block and a column block */
    int64_t row0, col0;         /* my first row and first column */
    int64_t send_off;           /* offset in my row-block result sent to the partner */
};

static void grid_setup(struct grid *g, MPI_Comm comm, int64_t n)
{
    g->comm = comm;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    int k = 0;
    while ((1 << k) < g->size)
        k++;
    g->R = 1 << (k / 2);
    g->C = 1 << (k - k / 2);
    g->r = g->rank / g->C;
    g->c = g->rank % g->C;
    g->n = n;
    g->nr = n / g->R;
    g->nc = n / g->C;
    g->row0 = g->r * g->nr;
    g->col0 = g->c * g->nc;
    int pr, pc;
    if (g->C == g->R) {
        pr = g->c;
        pc = g->r;
        g->send_off = 0;
    } else {                    /* C = 2R: an involution pairs the ranks */
        pr = g->c >> 1;
        pc = 2 * g->r + (g->c & 1);
        g->send_off = (g->c & 1) * g->nc;
    }
    g->partner = pr * g->C + pc;
    MPI_Comm_split(comm, g->r, g->c, &g->row);
}

/* My block of A in CSR form with local indices. */
struct csr {
    int64_t nrows, nnz;
    int64_t *start;
    int32_t *col;
    double *val;
    double gersh_lo, gersh_hi;  /* global Gershgorin bounds */
};

struct triplet {
    int64_t i, j;
    double v;
};

static int cmp_triplet(const void *a, const void *b)
{
    const struct triplet *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    return 0;   /* equal positions: values are exact dyadics, order irrelevant */
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "cg: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static void build_matrix(const struct grid *g, int nonzer, struct csr *a)
{
    int64_t cap = (g->nr + g->nc) * nonzer + g->nr, cnt = 0;
    struct triplet *t = xmalloc(sizeof *t * cap);
    double *absrow = calloc(g->nr, sizeof(double));
    /* entries (i, j) picked by my rows i, with j in my columns */
    for (int64_t i = g->row0; i < g->row0 + g->nr; i++)
        for (int k = 0; k < nonzer; k++) {
            int64_t j;
            double v;
            pick(g->n, i, k, nonzer, &j, &v);
            absrow[i - g->row0] += fabs(v);     /* row sum over all columns */
            if (j >= g->col0 && j < g->col0 + g->nc)
                t[cnt++] = (struct triplet){i, j, v};
        }
    /* entries (i, j) mirrored from picks of rows j: scan the rows j of my
     * columns for picks i in my rows; and row sums need every row's picks of
     * my rows, which we count from the column side below */
    double *absmirror = calloc(g->nr, sizeof(double));
    for (int64_t j = g->col0; j < g->col0 + g->nc; j++)
        for (int k = 0; k < nonzer; k++) {
            int64_t i;
            double v;
            pick(g->n, j, k, nonzer, &i, &v);
            if (i >= g->row0 && i < g->row0 + g->nr) {
                t[cnt++] = (struct triplet){i, j, v};
                absmirror[i - g->row0] += fabs(v);
            }
        }
    /* full row sums: my own picks (all columns) plus mirrored picks summed
     * over the grid row (each rank saw the rows j of its own columns) */
    double *mirror_all = xmalloc(sizeof(double) * g->nr);
    MPI_Allreduce(absmirror, mirror_all, (int) g->nr, MPI_DOUBLE, MPI_SUM, g->row);
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = g->row0; i < g->row0 + g->nr; i++) {
        double off = absrow[i - g->row0] + mirror_all[i - g->row0];
        double d = off + diag_extra(i);
        if (i >= g->col0 && i < g->col0 + g->nc)
            t[cnt++] = (struct triplet){i, i, d};
        lo = fmin(lo, d - off);
        hi = fmax(hi, d + off);
    }
    double b[2] = {-lo, hi}, gb[2];
    MPI_Allreduce(b, gb, 2, MPI_DOUBLE, MPI_MAX, g->comm);
    a->gersh_lo = -gb[0];
    a->gersh_hi = gb[1];
    qsort(t, cnt, sizeof *t, cmp_triplet);
    a->nrows = g->nr;
    a->start = xmalloc(sizeof(int64_t) * (g->nr + 1));
    a->col = xmalloc(sizeof(int32_t) * (cnt ? cnt : 1));
    a->val = xmalloc(sizeof(double) * (cnt ? cnt : 1));
    int64_t nnz = 0, k = 0;
    for (int64_t li = 0; li < g->nr; li++) {
        a->start[li] = nnz;
        while (k < cnt && t[k].i == g->row0 + li) {
            if (nnz > a->start[li] && a->col[nnz - 1] == t[k].j - g->col0)
                a->val[nnz - 1] += t[k].v;
            else {
                a->col[nnz] = (int32_t) (t[k].j - g->col0);
                a->val[nnz++] = t[k].v;
            }
            k++;
        }
    }
    a->start[g->nr] = nnz;
    a->nnz = nnz;
    free(t);
    free(absrow);
    free(absmirror);
    free(mirror_all);
}

struct work {
    double *x, *z, *p, *q, *r, *w, *wsum;
};

/* q (column layout) = A p (column layout) */
static void matvec(const struct grid *g, const struct csr *a, const double *p, double *q,
                   struct work *wk)
{
    for (int64_t i = 0; i < a->nrows; i++) {
        double s = 0;
        for (int64_t k = a->start[i]; k < a->start[i + 1]; k++)
            s += a->val[k] * p[a->col[k]];
        wk->w[i] = s;
    }
    double *rowres = wk->w;
    if (g->C > 1) {
        MPI_Allreduce(wk->w, wk->wsum, (int) g->nr, MPI_DOUBLE, MPI_SUM, g->row);
        rowres = wk->wsum;
    }
    if (g->partner == g->rank)
        memcpy(q, rowres + g->send_off, sizeof(double) * g->nc);
    else
        MPI_Sendrecv(rowres + g->send_off, (int) g->nc, MPI_DOUBLE, g->partner, 1, q,
                     (int) g->nc, MPI_DOUBLE, g->partner, 1, g->comm, MPI_STATUS_IGNORE);
}

static double dot(const struct grid *g, const double *u, const double *v)
{
    double s = 0, t;
    for (int64_t i = 0; i < g->nc; i++)
        s += u[i] * v[i];
    if (g->C == 1)
        return s;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, g->row);
    return t;
}

/* NPB's conj_grad: z ~ A^-1 x by CGITMAX CG iterations; returns ||x - A z||. */
static double conj_grad(const struct grid *g, const struct csr *a, struct work *wk)
{
    int64_t nc = g->nc;
    double *x = wk->x, *z = wk->z, *p = wk->p, *q = wk->q, *r = wk->r;
    for (int64_t i = 0; i < nc; i++) {
        z[i] = 0;
        r[i] = x[i];
        p[i] = x[i];
    }
    double rho = dot(g, r, r);
    for (int it = 0; it < CGITMAX; it++) {
        matvec(g, a, p, q, wk);
        double alpha = rho / dot(g, p, q);
        for (int64_t i = 0; i < nc; i++) {
            z[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rho0 = rho;
        rho = dot(g, r, r);
        double beta = rho / rho0;
        for (int64_t i = 0; i < nc; i++)
            p[i] = r[i] + beta * p[i];
    }
    matvec(g, a, z, r, wk);
    for (int64_t i = 0; i < nc; i++)
        r[i] = x[i] - r[i];
    return sqrt(dot(g, r, r));
}

/* The timed part: NITER outer iterations; returns zeta and the last rnorm. */
static double power_iteration(const struct grid *g, const struct csr *a, int niter,
                              struct work *wk, double *rnorm, int print)
{
    double zeta = 0;
    for (int64_t i = 0; i < g->nc; i++)
        wk->x[i] = 1.0 / sqrt((double) g->n);
    for (int it = 1; it <= niter; it++) {
        double xnorm = sqrt(dot(g, wk->x, wk->x));
        *rnorm = conj_grad(g, a, wk) / xnorm;
        double xz = dot(g, wk->x, wk->z), zz = dot(g, wk->z, wk->z);
        zeta = 1.0 / xz;
        double s = 1.0 / sqrt(zz);
        for (int64_t i = 0; i < g->nc; i++)
            wk->x[i] = s * wk->z[i];
        if (print)
            printf("  iteration %3d: ||x - Az|| / ||x|| = %.6e, zeta = %.15e\n", it, *rnorm, zeta);
    }
    return zeta;
}

static void work_alloc(const struct grid *g, struct work *wk)
{
    double **v[] = {&wk->x, &wk->z, &wk->p, &wk->q, &wk->r};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        *v[i] = xmalloc(sizeof(double) * g->nc);
    wk->w = xmalloc(sizeof(double) * g->nr);
    wk->wsum = xmalloc(sizeof(double) * g->nr);
}

static void work_free(struct work *wk, struct csr *a)
{
    free(wk->x);
    free(wk->z);
    free(wk->p);
    free(wk->q);
    free(wk->r);
    free(wk->w);
    free(wk->wsum);
    free(a->start);
    free(a->col);
    free(a->val);
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
    int pow2 = (size & (size - 1)) == 0;
    if (!ci || !pow2 || (ci && (int64_t) size > ci->n / 2)) {
        if (rank == 0) {
            if (!ci)
                fprintf(stderr, "cg: usage: cg [S|W|A] (got '%s')\n", arg);
            else
                fprintf(stderr, "cg: the number of ranks must be a power of two up to %lld, got %d\n",
                        (long long) ci->n / 2, size);
        }
        MPI_Finalize();
        return 2;
    }

    struct grid g;
    grid_setup(&g, MPI_COMM_WORLD, ci->n);
    struct csr a;
    build_matrix(&g, ci->nonzer, &a);
    int64_t nnz = a.nnz, gnnz;
    MPI_Allreduce(&nnz, &gnnz, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("CG class %c: n = %lld, %lld nonzeros, %d outer x %d CG iterations, %d ranks "
               "(%d x %d grid)\n", ci->name, (long long) ci->n, (long long) gnnz, ci->niter,
               CGITMAX, size, g.R, g.C);
    struct work wk;
    work_alloc(&g, &wk);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), rnorm;
    double zeta = power_iteration(&g, &a, ci->niter, &wk, &rnorm, rank == 0);
    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        printf(" zeta = %.15e, final ||x - Az|| / ||x|| = %.6e, Gershgorin [%.6f, %.6f]\n", zeta,
               rnorm, a.gersh_lo, a.gersh_hi);
        int res = rnorm < 1e-5, in = zeta >= a.gersh_lo && zeta <= a.gersh_hi;
        printf(" residual below 1e-5: %s; zeta inside the Gershgorin interval: %s\n",
               res ? "yes" : "NO", in ? "yes" : "NO");
        ok &= res && in;
        if (ci->ref_zeta != 0) {
            int ref = fabs(zeta - ci->ref_zeta) <= 1e-10 * fabs(ci->ref_zeta);
            printf(" stored reference zeta %.15e: %s\n", ci->ref_zeta, ref ? "agrees" : "DIFFERS");
            ok &= ref;
        } else {
            printf(" no stored reference for class %c\n", ci->name);
            ok = 0;
        }
        if (ci->name == 'S') {
            struct grid sg;
            struct csr sa;
            struct work swk;
            grid_setup(&sg, MPI_COMM_SELF, ci->n);
            build_matrix(&sg, ci->nonzer, &sa);
            work_alloc(&sg, &swk);
            double srnorm, szeta = power_iteration(&sg, &sa, ci->niter, &swk, &srnorm, 0);
            int same = fabs(szeta - zeta) <= 1e-10 * fabs(szeta) && sa.nnz == gnnz;
            printf(" serial reference: zeta = %.15e, %lld nonzeros: %s\n", szeta,
                   (long long) sa.nnz, same ? "agrees" : "DIFFERS");
            ok &= same;
            work_free(&swk, &sa);
            MPI_Comm_free(&sg.row);
        }
        printf("VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
        printf("APP=CG CLASS=%c RANKS=%d TIME=%.6f VERIFIED=%s\n", ci->name, size, tmax,
               ok ? "yes" : "no");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    work_free(&wk, &a);
    MPI_Comm_free(&g.row);
    MPI_Finalize();
    return ok ? 0 : 1;
}
