/* What a replay's load asks of the kernel, measured alone: the CPU time
 * of opening, reading and closing every rank file of a record, one
 * system call each (as record/log_reader.c does) and, where liburing is
 * installed, as one io_uring submission of linked open/read/close
 * operations on direct descriptors; and of the first touch of a number
 * of fresh anonymous pages (each a fault, a zeroed page and its charge).
 * Prints the median, lowest and highest of --reps repetitions, which
 * alternate the ways.  Results: results/replay-speed-notes.md.
 *
 *   cc -O2 -o /tmp/load-kernel-costs bench/load-kernel-costs.c -luring
 *   taskset -c 1 /tmp/load-kernel-costs RECORD_DIR [--pages N] [--reps N]
 *
 * Without liburing-dev, or built with -DNO_URING (and without -luring),
 * the io_uring row is left out. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if !defined(NO_URING) && __has_include(<liburing.h>)
#include <liburing.h>
#define HAVE_URING 1
#endif

#define READ_MAX (16u << 10)    /* as VACED_LOG_SMALL_FILE: files above it are mapped */

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void row(const char *what, double *v, int n, int per)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("%-34s %9.1f %9.1f %9.1f %9.2f\n", what, v[n / 2], v[0], v[n - 1], v[n / 2] / per);
}

static double syscalls(int dir, char (*name)[32], int n, char *buf)
{
    double t0 = cpu_us();
    for (int i = 0; i < n; i++) {
        int fd = openat(dir, name[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read(fd, buf + (size_t)i * (READ_MAX + 1), READ_MAX + 1) < 0) {
            perror(name[i]);
            exit(1);
        }
        close(fd);
    }
    return cpu_us() - t0;
}

#ifdef HAVE_URING
/* the ring's set-up and release included: a load would pay them */
static double uring(int dir, char (*name)[32], int n, char *buf)
{
    double t0 = cpu_us();
    struct io_uring ring;
    if (io_uring_queue_init((unsigned)(3 * n), &ring, 0) ||
        io_uring_register_files_sparse(&ring, (unsigned)n)) {
        fprintf(stderr, "io_uring: not available here\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        struct io_uring_sqe *s = io_uring_get_sqe(&ring);
        io_uring_prep_openat_direct(s, dir, name[i], O_RDONLY, 0, (unsigned)i);
        s->flags |= IOSQE_IO_LINK;
        s = io_uring_get_sqe(&ring);
        io_uring_prep_read(s, i, buf + (size_t)i * (READ_MAX + 1), READ_MAX + 1, 0);
        s->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;     /* a short read is the file's end */
        s = io_uring_get_sqe(&ring);
        io_uring_prep_close_direct(s, (unsigned)i);
    }
    io_uring_submit_and_wait(&ring, (unsigned)(3 * n));
    struct io_uring_cqe *c;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, c) {
        if (c->res < 0) {
            fprintf(stderr, "io_uring: %s\n", strerror(-c->res));
            exit(1);
        }
        seen++;
    }
    io_uring_cq_advance(&ring, seen);
    io_uring_queue_exit(&ring);
    return cpu_us() - t0;
}
#endif

static double touch(size_t pages)
{
    char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    double t0 = cpu_us();
    for (size_t i = 0; i < pages; i++)
        p[i * 4096] = 1;
    double t = cpu_us() - t0;
    munmap(p, pages * 4096);
    return t;
}

int main(int argc, char **argv)
{
    const char *dirname = NULL;
    int reps = 21, pages = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pages") && i + 1 < argc)
            pages = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !dirname)
            dirname = argv[i];
        else {
            fprintf(stderr, "usage: load-kernel-costs RECORD_DIR [--pages N] [--reps N]\n");
            return 2;
        }
    }
    if (!dirname || reps < 1 || pages < 1) {
        fprintf(stderr, "usage: load-kernel-costs RECORD_DIR [--pages N] [--reps N]\n");
        return 2;
    }
    int dir = open(dirname, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        perror(dirname);
        return 1;
    }
    int n = 0;
    while (n < 1 << 16) {
        char probe[32];
        snprintf(probe, sizeof probe, "rank-%06d.vlog", n);
        if (faccessat(dir, probe, R_OK, 0))
            break;
        n++;
    }
    if (!n) {
        fprintf(stderr, "%s: no rank-000000.vlog\n", dirname);
        return 1;
    }
    char (*name)[32] = malloc((size_t)n * sizeof *name);
    char *buf = malloc((size_t)n * (READ_MAX + 1));
    double *sys = malloc((size_t)reps * sizeof *sys), *ring = malloc((size_t)reps * sizeof *ring),
           *pg = malloc((size_t)reps * sizeof *pg);
    if (!name || !buf || !sys || !ring || !pg)
        return 1;
    for (int i = 0; i < n; i++)
        snprintf(name[i], sizeof name[i], "rank-%06d.vlog", i);
    for (int r = 0; r < reps; r++) {
        sys[r] = syscalls(dir, name, n, buf);
#ifdef HAVE_URING
        ring[r] = uring(dir, name, n, buf);
#endif
        pg[r] = touch((size_t)pages);
    }
    printf("%d files of %s, %d repetitions; CPU us:\n", n, dirname, reps);
    printf("%-34s %9s %9s %9s %9s\n", "", "median", "lowest", "highest", "a unit");
    row("openat, read, close (a file)", sys, reps, n);
#ifdef HAVE_URING
    row("io_uring, set-up included (a file)", ring, reps, n);
#endif
    char what[64];
    snprintf(what, sizeof what, "first touch of %d pages (a page)", pages);
    row(what, pg, reps, pages);
    return 0;
}
