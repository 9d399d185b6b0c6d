/* perf_event TASK-CLOCK per thread, encoded by libpfm4. */
#define _GNU_SOURCE
#include "cputime/cputime_perf.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Encoding is per process and pfm_initialize is costly.  libpfm is loaded
 * only then: linked in, its relocations would cost every rank CPU time
 * and private pages at start-up, although most ranks never encode (the
 * host's source is remembered, cputime_cache.h, and is often not a perf
 * one). */
static pthread_once_t enc_once = PTHREAD_ONCE_INIT;
static struct perf_event_attr enc_attr;
static int enc_flags;
static char enc_err[160];

#define LIBPFM "libpfm.so.4"

static void encode(void)
{
    void *lib = dlopen(LIBPFM, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(enc_err, sizeof enc_err, "%s", dlerror());
        return;
    }
    /* typed as pfmlib's own declarations */
    __typeof__(pfm_initialize) *init = (__typeof__(init))dlsym(lib, "pfm_initialize");
    __typeof__(pfm_strerror) *strerr = (__typeof__(strerr))dlsym(lib, "pfm_strerror");
    __typeof__(pfm_get_os_event_encoding) *get_encoding =
        (__typeof__(get_encoding))dlsym(lib, "pfm_get_os_event_encoding");
    if (!init || !strerr || !get_encoding) {
        snprintf(enc_err, sizeof enc_err, "%s lacks pfm_initialize, pfm_strerror or "
                 "pfm_get_os_event_encoding", LIBPFM);
        return;
    }
    pfm_perf_encode_arg_t arg;
    int r = init();

    if (r != PFM_SUCCESS) {
        snprintf(enc_err, sizeof enc_err, "pfm_initialize: %s", strerr(r));
        return;
    }
    memset(&arg, 0, sizeof arg);
    arg.attr = &enc_attr;
    arg.size = sizeof arg;
    r = get_encoding("perf::TASK-CLOCK", PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (r != PFM_SUCCESS) {
        snprintf(enc_err, sizeof enc_err, "libpfm cannot encode perf::TASK-CLOCK: %s", strerr(r));
        return;
    }
    enc_flags = arg.flags;
    if (enc_attr.size == 0)
        enc_attr.size = sizeof enc_attr;
}

int vaced_perf_open(struct vaced_perf_ev *ev, char *why, size_t whylen)
{
    struct perf_event_attr a;
    long pagesz = sysconf(_SC_PAGESIZE);
    void *pg;
    int fd;

    pthread_once(&enc_once, encode);
    if (enc_err[0]) {
        snprintf(why, whylen, "%s", enc_err);
        return -1;
    }
    a = enc_attr;
    a.disabled = 0;    /* count from now on */
    a.inherit = 0;     /* this thread only, not threads it creates */
    a.read_format = 0; /* read(2) returns the bare count */
    fd = perf_event_open(&a, 0, -1, -1, (unsigned long)enc_flags | PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "perf_event_open(TASK-CLOCK): %s", strerror(errno));
        return -1;
    }
    /* One page, no ring buffer: only the self-monitoring header. */
    pg = mmap(NULL, (size_t)pagesz, PROT_READ, MAP_SHARED, fd, 0);
    ev->fd = fd;
    ev->pg = pg == MAP_FAILED ? NULL : pg;
    ev->open = 1;
    return 0;
}

void vaced_perf_close(struct vaced_perf_ev *ev)
{
    if (!ev->open)
        return;
    if (ev->pg)
        munmap((void *)ev->pg, (size_t)sysconf(_SC_PAGESIZE));
    close(ev->fd);
    memset(ev, 0, sizeof *ev);
}

int vaced_perf_mmap_usable(const struct vaced_perf_ev *ev, char *why, size_t whylen)
{
    if (!VACED_HAVE_TSC) {
        snprintf(why, whylen, "no TSC read on this architecture");
        return 0;
    }
    if (!ev->pg) {
        snprintf(why, whylen, "mmap of the event page failed");
        return 0;
    }
    /* The kernel offers cap_user_time only with a stable TSC-based
     * sched_clock; a paravirt one (kvm-clock) leaves it unset. */
    if (!ev->pg->cap_user_time) {
        snprintf(why, whylen, "no cap_user_time (sched_clock not TSC-based)");
        return 0;
    }
    return 1;
}

int64_t vaced_perf_read_ns(const struct vaced_perf_ev *ev)
{
    uint64_t v;

    if (read(ev->fd, &v, sizeof v) != (ssize_t)sizeof v)
        return -1;
    return (int64_t)v;
}
