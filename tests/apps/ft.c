/* FT: a 3D FFT PDE solver, written from the published description of NPB FT
 * (Bailey et al., "The NAS Parallel Benchmarks"; NPB 2 report).
 *
 * It solves du/dt = alpha laplacian(u) on a periodic nx x ny x nz grid in
 * spectral space: u0 is filled with complex pseudo-random numbers (the NPB
 * generator, a = 5^13, x_0 = 314159265, real and imaginary parts taken in
 * turn, x fastest then y then z), transformed once with a forward 3D FFT; at
 * step t the spectrum is multiplied by exp(-4 alpha pi^2 (kx^2+ky^2+kz^2) t)
 * (k folded to [-n/2, n/2)), transformed back with an inverse 3D FFT
 * (unnormalised), and a checksum is formed: the sum of u(j mod nx, 3j mod
 * ny, 5j mod nz) for j = 1..1024, divided by nx ny nz.
 *
 * The FFTs are radix-2 complex FFTs written here.  Decomposition: slabs.  In
 * layout 1 each rank holds nz/p planes z (x fastest) and transforms along x
 * and y; an MPI_Alltoall transposes to layout 2, where each rank holds ny/p
 * rows y with z fastest, and transforms along z.  The spectrum and the
 * evolution live in layout 2; the inverse transform goes back to layout 1
 * (FFT along z, MPI_Alltoall, FFT along y and x).  The checksum is reduced
 * with MPI_Allreduce at every step.
 *
 * Usage: ft [S|W|A]       ranks: a power of two dividing ny and nz
 * Verification: the checksums of all steps against stored reference values
 * (relative error 1e-12; the values published for NPB FT, which this
 * program reproduces), for class S also against the same computation done
 * serially on rank 0; Parseval's identity for the forward transform.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK46 ((UINT64_C(1) << 46) - 1)
#define A_LCG UINT64_C(1220703125) /* 5^13 */
#define SEED UINT64_C(314159265)
#define ALPHA 1.0e-6
#define PI 3.141592653589793238
#define NCHECK 1024
#define MAXITER 6

typedef struct {
    double re, im;
} cplx;

/* ref: the checksums published for NPB FT classes S, W and A (13 digits);
 * this program reproduces them to about 1e-13. */
struct class_info {
    char name;
    int nx, ny, nz, niter;
    double ref[MAXITER][2];
};

static const struct class_info classes[] = {
    {'S', 64, 64, 64, 6,
     {{5.546087004964e+02, 4.845363331978e+02}, {5.546385409189e+02, 4.865304269511e+02},
      {5.546148406171e+02, 4.883910722336e+02}, {5.545423607415e+02, 4.901273169046e+02},
      {5.544255039624e+02, 4.917475857993e+02}, {5.542683411902e+02, 4.932597244941e+02}}},
    {'W', 128, 128, 32, 6,
     {{5.673612178944e+02, 5.293246849175e+02}, {5.631436885271e+02, 5.282149986629e+02},
      {5.594024089970e+02, 5.270996558037e+02}, {5.560698047020e+02, 5.260027904925e+02},
      {5.530898991250e+02, 5.249400845633e+02}, {5.504159734538e+02, 5.239212247086e+02}}},
    {'A', 256, 256, 128, 6,
     {{5.046735008193e+02, 5.114047905510e+02}, {5.059412319734e+02, 5.098809666433e+02},
      {5.069376896287e+02, 5.098144042213e+02}, {5.077892868474e+02, 5.101336130759e+02},
      {5.085233095391e+02, 5.104914655194e+02}, {5.091487099959e+02, 5.107917842803e+02}}},
};

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

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "ft: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* ---- radix-2 FFT ---- */

struct fft_plan {
    int n, logn;
    cplx *w;            /* w[k] = exp(-2 pi i k / n), k < n/2 */
    int *rev;           /* bit reversal */
};

static void plan_init(struct fft_plan *p, int n)
{
    p->n = n;
    p->logn = 0;
    while ((1 << p->logn) < n)
        p->logn++;
    p->w = xmalloc(sizeof(cplx) * (n / 2 + 1));
    p->rev = xmalloc(sizeof(int) * n);
    for (int k = 0; k < n / 2; k++) {
        double a = -2.0 * PI * k / n;
        p->w[k] = (cplx){cos(a), sin(a)};
    }
    for (int i = 0; i < n; i++) {
        int r = 0;
        for (int b = 0; b < p->logn; b++)
            r |= ((i >> b) & 1) << (p->logn - 1 - b);
        p->rev[i] = r;
    }
}

static void plan_free(struct fft_plan *p)
{
    free(p->w);
    free(p->rev);
}

/* In place on a contiguous line; sign -1: forward (exp(-i)), +1: inverse, unnormalised. */
static void fft_line(const struct fft_plan *p, cplx *a, int sign)
{
    int n = p->n;
    for (int i = 0; i < n; i++) {
        int j = p->rev[i];
        if (j > i) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2, step = n / 2; len <= n; len <<= 1, step >>= 1) {
        int half = len / 2;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < half; k++) {
                cplx w = p->w[k * step];
                if (sign > 0)
                    w.im = -w.im;
                cplx *x = &a[s + k], *y = &a[s + k + half];
                double tr = w.re * y->re - w.im * y->im, ti = w.re * y->im + w.im * y->re;
                y->re = x->re - tr;
                y->im = x->im - ti;
                x->re += tr;
                x->im += ti;
            }
    }
}

/* ---- distributed 3D FFT ---- */

struct ft {
    MPI_Comm comm;
    int rank, size;
    int nx, ny, nz, nzl, nyl, z0, y0;
    size_t nlocal;              /* points per rank, both layouts */
    struct fft_plan px, py, pz;
    cplx *line, *sbuf, *rbuf;
};

static void ft_init(struct ft *f, MPI_Comm comm, int nx, int ny, int nz)
{
    f->comm = comm;
    MPI_Comm_rank(comm, &f->rank);
    MPI_Comm_size(comm, &f->size);
    f->nx = nx;
    f->ny = ny;
    f->nz = nz;
    f->nzl = nz / f->size;
    f->nyl = ny / f->size;
    f->z0 = f->rank * f->nzl;
    f->y0 = f->rank * f->nyl;
    f->nlocal = (size_t) nx * ny * f->nzl;
    plan_init(&f->px, nx);
    plan_init(&f->py, ny);
    plan_init(&f->pz, nz);
    int m = nx > ny ? nx : ny;
    f->line = xmalloc(sizeof(cplx) * (m > nz ? m : nz));
    f->sbuf = xmalloc(sizeof(cplx) * f->nlocal);
    f->rbuf = xmalloc(sizeof(cplx) * f->nlocal);
}

static void ft_free(struct ft *f)
{
    plan_free(&f->px);
    plan_free(&f->py);
    plan_free(&f->pz);
    free(f->line);
    free(f->sbuf);
    free(f->rbuf);
}

/* layout 1: a[(zl * ny + y) * nx + x]; transforms along x then y */
static void fft_xy(struct ft *f, cplx *a, int sign)
{
    int nx = f->nx, ny = f->ny;
    for (int zl = 0; zl < f->nzl; zl++) {
        cplx *plane = a + (size_t) zl * nx * ny;
        if (sign < 0)
            for (int y = 0; y < ny; y++)
                fft_line(&f->px, plane + (size_t) y * nx, sign);
        for (int x = 0; x < nx; x++) {
            for (int y = 0; y < ny; y++)
                f->line[y] = plane[(size_t) y * nx + x];
            fft_line(&f->py, f->line, sign);
            for (int y = 0; y < ny; y++)
                plane[(size_t) y * nx + x] = f->line[y];
        }
        if (sign > 0)
            for (int y = 0; y < ny; y++)
                fft_line(&f->px, plane + (size_t) y * nx, sign);
    }
}

/* layout 2: b[(yl * nx + x) * nz + z]; transforms along z */
static void fft_z(struct ft *f, cplx *b, int sign)
{
    for (size_t l = 0; l < (size_t) f->nyl * f->nx; l++)
        fft_line(&f->pz, b + l * f->nz, sign);
}

/* layout 1 -> layout 2 */
static void transpose_12(struct ft *f, const cplx *a, cplx *b)
{
    int nx = f->nx, ny = f->ny, nzl = f->nzl, nyl = f->nyl, p = f->size;
    size_t blk = (size_t) nzl * nyl * nx, k = 0;
    for (int q = 0; q < p; q++)
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++) {
                memcpy(f->sbuf + k, a + ((size_t) zl * ny + q * nyl + yl) * nx, sizeof(cplx) * nx);
                k += nx;
            }
    if (p > 1)
        MPI_Alltoall(f->sbuf, (int) (2 * blk), MPI_DOUBLE, f->rbuf, (int) (2 * blk), MPI_DOUBLE,
                     f->comm);
    else
        memcpy(f->rbuf, f->sbuf, sizeof(cplx) * blk);
    k = 0;
    for (int q = 0; q < p; q++)
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++)
                for (int x = 0; x < nx; x++)
                    b[((size_t) yl * nx + x) * f->nz + q * nzl + zl] = f->rbuf[k++];
}

/* layout 2 -> layout 1 */
static void transpose_21(struct ft *f, const cplx *b, cplx *a)
{
    int nx = f->nx, ny = f->ny, nzl = f->nzl, nyl = f->nyl, p = f->size;
    size_t blk = (size_t) nzl * nyl * nx, k = 0;
    for (int q = 0; q < p; q++)
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++)
                for (int x = 0; x < nx; x++)
                    f->sbuf[k++] = b[((size_t) yl * nx + x) * f->nz + q * nzl + zl];
    if (p > 1)
        MPI_Alltoall(f->sbuf, (int) (2 * blk), MPI_DOUBLE, f->rbuf, (int) (2 * blk), MPI_DOUBLE,
                     f->comm);
    else
        memcpy(f->rbuf, f->sbuf, sizeof(cplx) * blk);
    k = 0;
    for (int q = 0; q < p; q++)
        for (int zl = 0; zl < nzl; zl++)
            for (int yl = 0; yl < nyl; yl++) {
                memcpy(a + ((size_t) zl * ny + q * nyl + yl) * nx, f->rbuf + k, sizeof(cplx) * nx);
                k += nx;
            }
}

/* initial conditions in layout 1 */
static void init_u(struct ft *f, cplx *a)
{
    const double r46 = 1.0 / (double) (UINT64_C(1) << 46);
    uint64_t x = mulmod46(powmod46(A_LCG, 2 * (uint64_t) f->nx * f->ny * f->z0), SEED);
    for (size_t i = 0; i < f->nlocal; i++) {
        x = mulmod46(A_LCG, x);
        a[i].re = (double) x * r46;
        x = mulmod46(A_LCG, x);
        a[i].im = (double) x * r46;
    }
}

static double sumsq(const struct ft *f, const cplx *a)
{
    double s = 0, t;
    for (size_t i = 0; i < f->nlocal; i++)
        s += a[i].re * a[i].re + a[i].im * a[i].im;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, f->comm);
    return t;
}

static int fold(int k, int n) { return k < n / 2 ? k : k - n; }

/* The whole computation; checksums per step into sums[niter][2]; returns the
 * relative Parseval error of the forward transform. */
static double run(struct ft *f, int niter, double sums[][2], double *elapsed)
{
    cplx *u = xmalloc(sizeof(cplx) * f->nlocal);       /* layout 1 */
    cplx *u0 = xmalloc(sizeof(cplx) * f->nlocal);      /* spectrum, layout 2 */
    cplx *u1 = xmalloc(sizeof(cplx) * f->nlocal);      /* evolved spectrum, layout 2 */
    double *ex = xmalloc(sizeof(double) * f->nlocal);  /* exp(-4 alpha pi^2 |k|^2) */
    init_u(f, u);
    double before = sumsq(f, u);
    for (int yl = 0; yl < f->nyl; yl++) {
        int ky = fold(f->y0 + yl, f->ny);
        for (int x = 0; x < f->nx; x++) {
            int kx = fold(x, f->nx);
            for (int z = 0; z < f->nz; z++) {
                int kz = fold(z, f->nz);
                ex[((size_t) yl * f->nx + x) * f->nz + z] =
                    exp(-4.0 * ALPHA * PI * PI * (double) (kx * kx + ky * ky + kz * kz));
            }
        }
    }
    double ntotal = (double) f->nx * f->ny * f->nz;

    MPI_Barrier(f->comm);
    double t0 = MPI_Wtime();
    fft_xy(f, u, -1);
    transpose_12(f, u, u0);
    fft_z(f, u0, -1);
    double parseval_time = MPI_Wtime();
    double after = sumsq(f, u0);        /* not timed */
    t0 += MPI_Wtime() - parseval_time;
    memcpy(u1, u0, sizeof(cplx) * f->nlocal);
    for (int t = 1; t <= niter; t++) {
        for (size_t i = 0; i < f->nlocal; i++) {     /* u1 = u0 ex^t */
            u1[i].re *= ex[i];
            u1[i].im *= ex[i];
        }
        memcpy(u0, u1, sizeof(cplx) * f->nlocal);
        fft_z(f, u0, +1);
        transpose_21(f, u0, u);
        fft_xy(f, u, +1);
        double cs[2] = {0, 0};
        for (int j = 1; j <= NCHECK; j++) {
            int q = j % f->nx, r = (3 * j) % f->ny, s = (5 * j) % f->nz;
            if (s >= f->z0 && s < f->z0 + f->nzl) {
                cplx v = u[((size_t) (s - f->z0) * f->ny + r) * f->nx + q];
                cs[0] += v.re;
                cs[1] += v.im;
            }
        }
        MPI_Allreduce(cs, sums[t - 1], 2, MPI_DOUBLE, MPI_SUM, f->comm);
        sums[t - 1][0] /= ntotal;
        sums[t - 1][1] /= ntotal;
    }
    *elapsed = MPI_Wtime() - t0;
    free(u);
    free(u0);
    free(u1);
    free(ex);
    return fabs(after - ntotal * before) / (ntotal * before);
}

static int pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

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
    if (!ci || !pow2(size) || size > ci->ny || size > ci->nz) {
        if (rank == 0) {
            if (!ci)
                fprintf(stderr, "ft: usage: ft [S|W|A] (got '%s')\n", arg);
            else
                fprintf(stderr, "ft: the number of ranks must be a power of two up to %d, got %d\n",
                        ci->ny < ci->nz ? ci->ny : ci->nz, size);
        }
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("FT class %c: %d x %d x %d grid, %d steps, %d ranks\n", ci->name, ci->nx, ci->ny,
               ci->nz, ci->niter, size);

    struct ft f;
    ft_init(&f, MPI_COMM_WORLD, ci->nx, ci->ny, ci->nz);
    double sums[MAXITER][2], elapsed, tmax;
    double parseval = run(&f, ci->niter, sums, &elapsed);
    ft_free(&f);
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        int have_ref = ci->ref[0][0] != 0, ref_ok = have_ref;
        for (int t = 0; t < ci->niter; t++) {
            double e = hypot(sums[t][0] - ci->ref[t][0], sums[t][1] - ci->ref[t][1]) /
                       hypot(ci->ref[t][0], ci->ref[t][1]);
            ref_ok &= e <= 1e-12;
            printf("  step %d: checksum %.15e %.15e   (rel. error %.1e)\n", t + 1, sums[t][0],
                   sums[t][1], e);
        }
        printf(" stored reference checksums: %s\n",
               !have_ref ? "NONE" : ref_ok ? "agree" : "DIFFER");
        printf(" Parseval, forward transform: relative error %.1e\n", parseval);
        ok &= ref_ok && parseval < 1e-12;
        if (ci->name == 'S') {
            struct ft s;
            double ssums[MAXITER][2], sel;
            ft_init(&s, MPI_COMM_SELF, ci->nx, ci->ny, ci->nz);
            run(&s, ci->niter, ssums, &sel);
            ft_free(&s);
            int same = 1;
            for (int t = 0; t < ci->niter; t++)
                same &= hypot(ssums[t][0] - sums[t][0], ssums[t][1] - sums[t][1]) <=
                        1e-12 * hypot(ssums[t][0], ssums[t][1]);
            printf(" serial reference: %s\n", same ? "agrees" : "DIFFERS");
            ok &= same;
        }
        printf("VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
        printf("APP=FT CLASS=%c RANKS=%d TIME=%.6f VERIFIED=%s\n", ci->name, size, tmax,
               ok ? "yes" : "no");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
