/* The host's remembered CPU-time source (cputime_cache.h). */
#define _GNU_SOURCE
#include "env/env.h"
#include "cputime/cputime_cache.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_VERSION 1

/* First line of a small /proc file, newline stripped; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "re");

    buf[0] = '\0';
    if (!f)
        return;
    if (fgets(buf, (int)n, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* What a record must match: this boot and this perf policy. */
static void host_key(char *buf, size_t n)
{
    char boot[64], paranoid[16];

    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof paranoid);
    snprintf(buf, n, "vaced-cputime %d boot=%s paranoid=%s", RECORD_VERSION, boot, paranoid);
}

static int is_auto(const char *request)
{
    if (!request || !*request)
        request = vaced_env(VACED_ENV_CPUTIME);
    return !request || !*request || !strcmp(request, "auto");
}

/* The record's path in buf; 0 if the cache is off. */
static int record_path(char *buf, size_t n)
{
    const char *p = vaced_env(VACED_ENV_CPUTIME_CACHE);
    struct stat st;

    if (p && !strcmp(p, "off"))
        return 0;
    if (p && *p) {
        snprintf(buf, n, "%s", p);
        return 1;
    }
    snprintf(buf, n, "%s/vaced-cputime.%u",
             stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp",
             (unsigned)getuid());
    return 1;
}

/* Opens and locks the record; -1 when there is none to use (no file can be
 * made, or it is not a regular file of ours: another user's file in a
 * shared directory is never trusted). */
static int open_locked(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != getuid() || flock(fd, LOCK_EX)) {
        close(fd);
        return -1;
    }
    return fd;
}

static enum vaced_cpu_source source_named(const char *name)
{
    for (int s = VACED_CPU_THREAD; s <= VACED_CPU_RSEQ; s++)
        if (!strcmp(name, vaced_cputime_source_name(s)))
            return s;
    return -1;
}

/* The remembered source if the record matches key; why gets its reason. */
static int read_record(int fd, const char *key, char *why, size_t whylen)
{
    char buf[512], name[16];
    ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
    size_t klen = strlen(key);

    if (got <= 0)
        return -1;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    if (strncmp(buf, key, klen) || sscanf(buf + klen, " src=%15s", name) != 1)
        return -1;
    const char *w = strstr(buf + klen, " why=");
    if (why && whylen)
        snprintf(why, whylen, "%s", w ? w + 5 : "");
    return source_named(name);
}

static void write_record(int fd, const char *key, enum vaced_cpu_source s, const char *why)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s src=%s why=%s\n", key, vaced_cputime_source_name(s),
                     why ? why : "");

    if (n > 0 && (size_t)n < sizeof buf && ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) == n)
        return;
    (void)!ftruncate(fd, 0); /* no half record: the next rank probes */
}

enum vaced_cpu_source vaced_cputime_init_cached(const char *request, char *why, size_t whylen,
                                                int *cached)
{
    char path[4096], key[160], reason[320] = "";
    int fd;

    if (cached)
        *cached = 0;
    if (!is_auto(request) || !record_path(path, sizeof path) || (fd = open_locked(path)) < 0)
        return vaced_cputime_init(request, why, whylen);
    host_key(key, sizeof key);
    int s = read_record(fd, key, reason, sizeof reason);
    /* A remembered source is opened again, not trusted blindly: one that
     * no longer opens sends this rank back to the full probe. */
    if (s >= 0 && vaced_cputime_force(s, NULL, 0) == 0) {
        if (cached)
            *cached = 1;
        if (why && whylen)
            snprintf(why, whylen, "%s%s(remembered in %s)", reason, reason[0] ? " " : "", path);
    } else {
        s = vaced_cputime_init(request, reason, sizeof reason);
        /* The thread clock is the fallback of a failed check, and a check
         * can fail once under load (a 2048-rank start-up saw "a sleep did
         * not clear the rseq guard"): it is not remembered, so it cannot
         * hold the host to its costliest source for a whole boot. */
        if (s != VACED_CPU_THREAD)
            write_record(fd, key, s, reason);
        if (why && whylen)
            snprintf(why, whylen, "%s", reason);
    }
    close(fd); /* drops the lock */
    return s;
}
