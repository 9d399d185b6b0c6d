/* LD_PRELOAD library for bench/run.sh: per-process statistics of MPI ranks,
 * written when the process exits.
 *
 *   cc -O2 -shared -fPIC -o rankstat.so bench/rankstat.c -ldl
 *   LD_PRELOAD=$PWD/rankstat.so RANKSTAT_DIR=/tmp/st mpiexec -n 4 ./prog
 *
 * Every process that has PMI_RANK in its environment (the ranks Hydra starts,
 * not mpiexec or its proxies) writes RANKSTAT_DIR/rank.<PMI_RANK>:
 *
 *   rank=R pid=N vmhwm_kb=K pss_kb=S fds=F clock_thread=A clock_process=B clock_mono=C clock_other=D
 *
 * - vmhwm_kb: peak resident set (VmHWM of /proc/self/status); shared pages,
 *   such as libmpi's code, count in full in every rank.
 * - pss_kb: proportional set size (Pss of /proc/self/smaps_rollup: shared
 *   pages divided among the processes that map them) when the program
 *   calls MPI_Finalize.
 * - fds: open file descriptors when the program calls MPI_Finalize (the
 *   sockets to the peers it talked to are still open then).
 *   pss_kb and fds are -1 when the program's finalize does not go through
 *   the C symbol MPI_Finalize (Fortran programs).
 * - clock_*: calls of clock_gettime by clock id, counted only with
 *   RANKSTAT_CLOCKS=1. libmpi calls libc's clock_gettime through the PLT,
 *   so this wrapper sees every call (the vDSO serves it behind libc).
 *   Counting is a relaxed atomic increment; otherwise the wrapper only
 *   forwards.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int (*real_cg)(clockid_t, struct timespec *);
static int counting, fds_at_finalize = -1;
static long pss_at_finalize = -1;
static unsigned long n_thread, n_process, n_mono, n_other;

static void resolve(void)
{
    real_cg = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!real_cg)
        resolve();
    if (counting) {
        switch (id) {
        case CLOCK_THREAD_CPUTIME_ID: __atomic_fetch_add(&n_thread, 1, __ATOMIC_RELAXED); break;
        case CLOCK_PROCESS_CPUTIME_ID: __atomic_fetch_add(&n_process, 1, __ATOMIC_RELAXED); break;
        case CLOCK_MONOTONIC: __atomic_fetch_add(&n_mono, 1, __ATOMIC_RELAXED); break;
        default: __atomic_fetch_add(&n_other, 1, __ATOMIC_RELAXED); break;
        }
    }
    return real_cg(id, ts);
}

__attribute__((constructor)) static void rankstat_init(void)
{
    const char *c = getenv("RANKSTAT_CLOCKS");

    resolve();
    counting = c && !strcmp(c, "1");
}

static long vmhwm_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) {
            kb = atol(line + 6);
            break;
        }
    fclose(f);
    return kb;
}

/* proportional set size now (shared pages divided among their users) */
static long pss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Pss:", 4)) {
            kb = atol(line + 4);
            break;
        }
    fclose(f);
    return kb;
}

static int open_fds(void)
{
    int n = 0;
    struct dirent *e;
    DIR *d = opendir("/proc/self/fd");

    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;       /* less the directory's own descriptor */
}

/* MPI_Finalize of the program, found by the dynamic linker before libmpi's */
int MPI_Finalize(void)
{
    int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");

    fds_at_finalize = open_fds();
    pss_at_finalize = pss_kb();
    return real ? real() : 1;
}

__attribute__((destructor)) static void rankstat_fini(void)
{
    const char *dir = getenv("RANKSTAT_DIR"), *rank = getenv("PMI_RANK");
    char path[4096];
    FILE *f;

    if (!dir || !rank)
        return;
    snprintf(path, sizeof path, "%s/rank.%s", dir, rank);
    if (!(f = fopen(path, "w")))
        return;
    fprintf(f, "rank=%s pid=%ld vmhwm_kb=%ld pss_kb=%ld fds=%d clock_thread=%lu clock_process=%lu clock_mono=%lu clock_other=%lu\n",
            rank, (long)getpid(), vmhwm_kb(), pss_at_finalize, fds_at_finalize, n_thread, n_process, n_mono, n_other);
    fclose(f);
}
