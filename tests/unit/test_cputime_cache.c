/* Unit tests of the host's remembered CPU-time source
 * (vaced/src/cputime/cputime_cache.c): the first auto init probes and writes the
 * record, later ones reuse it; a record from another boot, a garbled one, or
 * one naming a source that does not open is probed over; explicit requests
 * and VACED_CPUTIME_CACHE=off leave no record; a symlink is not followed;
 * of 8 processes starting together exactly one probes; and a probe that
 * falls back to the thread clock (here: glibc without rseq) is not
 * remembered.  Where the host's choice is the thread clock itself, the
 * checks that need a record give way to checks that none is written. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cputime/cputime_cache.h"

static char dir[] = "/tmp/vaced-cache-test.XXXXXX";

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");

    buf[0] = '\0';
    if (f) {
        size_t got = fread(buf, 1, n - 1, f);
        buf[got] = '\0';
        fclose(f);
    }
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *path_of(const char *name)
{
    static char p[256];

    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* init through the record at path; returns the source, *cached its flag */
static enum vaced_cpu_source init_at(const char *path, const char *request, int *cached, char *why,
                                     size_t n)
{
    setenv("VACED_CPUTIME_CACHE", path, 1);
    enum vaced_cpu_source s = vaced_cputime_init_cached(request, why, n, cached);
    vaced_cputime_fini();
    return s;
}

static void test_probe_then_reuse(void)
{
    char rec[512], boot[64] = "", want[128], why[512];
    int cached = -1;
    char *p = path_of("rec");

    enum vaced_cpu_source first = init_at(p, NULL, &cached, why, sizeof why);
    CHECK(cached == 0);
    slurp(p, rec, sizeof rec);
    if (first == VACED_CPU_THREAD) {
        /* nothing cheaper passed here (or a check failed once): nothing is
         * remembered, and the next rank probes again */
        CHECK(rec[0] == '\0');
        init_at(p, NULL, &cached, why, sizeof why);
        CHECK(cached == 0);
        return;
    }
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    snprintf(want, sizeof want, "boot=%s ", boot);
    CHECK(!strncmp(rec, "vaced-cputime 1 ", 16));
    CHECK(strstr(rec, want) != NULL);
    snprintf(want, sizeof want, " src=%s ", vaced_cputime_source_name(first));
    CHECK(strstr(rec, want) != NULL);

    enum vaced_cpu_source again = init_at(p, "auto", &cached, why, sizeof why);
    CHECK(cached == 1);
    CHECK(again == first);
    CHECK(strstr(why, "remembered in") != NULL);
    CHECK(strstr(why, p) != NULL);

    /* another boot's record: probed over and replaced (unless this probe
     * fell back to the thread clock, a check failing once under load,
     * which is not remembered: a CI run met it here) */
    spit(p, "vaced-cputime 1 boot=00000000-0000-0000-0000-000000000000 paranoid=2 src=thread why=\n");
    enum vaced_cpu_source probed = init_at(p, NULL, &cached, why, sizeof why);
    CHECK(cached == 0);
    slurp(p, rec, sizeof rec);
    snprintf(want, sizeof want, "boot=%s ", boot);
    CHECK((strstr(rec, want) != NULL) == (probed != VACED_CPU_THREAD));

    /* garbage, and a source name that does not exist */
    spit(p, "\x01\x02 not a record");
    probed = init_at(p, NULL, &cached, why, sizeof why);
    CHECK(cached == 0);
    init_at(p, NULL, &cached, why, sizeof why);
    CHECK(cached == (probed != VACED_CPU_THREAD));
    if (probed == VACED_CPU_THREAD)
        return;     /* no record to corrupt */
    slurp(p, rec, sizeof rec);
    char *src = strstr(rec, " src=");
    if (CHECK(src != NULL)) {
        memcpy(src, " src=nosuch", 11);
        spit(p, rec);
        init_at(p, NULL, &cached, why, sizeof why);
        CHECK(cached == 0);
    }
}

/* A remembered perf-mmap is reopened: where it cannot be, the rank probes. */
static void test_source_that_does_not_open(void)
{
    char rec[512], why[512];
    int cached = -1;
    char *p = path_of("rec");

    if (init_at(p, NULL, &cached, why, sizeof why) == VACED_CPU_THREAD)
        return;         /* no record to edit: test_probe_then_reuse covers it */
    slurp(p, rec, sizeof rec);
    char *src = strstr(rec, " src=");
    if (!CHECK(src != NULL))
        return;
    char *rest = strstr(src, " why=");
    char edited[600];
    snprintf(edited, sizeof edited, "%.*s src=perf-mmap%s", (int)(src - rec), rec, rest ? rest : "\n");
    spit(p, edited);
    int opens = vaced_cputime_force(VACED_CPU_PERF_MMAP, NULL, 0) == 0;
    vaced_cputime_fini();
    enum vaced_cpu_source s = init_at(p, NULL, &cached, why, sizeof why);
    if (opens) {
        CHECK(cached == 1);
        CHECK(s == VACED_CPU_PERF_MMAP);
    } else {
        CHECK(cached == 0);
        slurp(p, rec, sizeof rec);
        CHECK(strstr(rec, " src=perf-mmap ") == NULL);
    }
}

static void test_no_record(void)
{
    struct stat st;
    int cached = -1;
    char why[512];

    CHECK(init_at(path_of("explicit"), "thread", &cached, why, sizeof why) == VACED_CPU_THREAD);
    CHECK(cached == 0);
    CHECK(stat(path_of("explicit"), &st) != 0);

    setenv("VACED_CPUTIME", "thread", 1);
    CHECK(init_at(path_of("explicit"), NULL, &cached, why, sizeof why) == VACED_CPU_THREAD);
    CHECK(stat(path_of("explicit"), &st) != 0);
    unsetenv("VACED_CPUTIME");

    init_at("off", NULL, &cached, why, sizeof why);
    CHECK(cached == 0);
    CHECK(stat("off", &st) != 0);

    /* a symlink planted at the path is not followed, nor written through */
    spit(path_of("victim"), "keep");
    char victim[256];
    snprintf(victim, sizeof victim, "%s", path_of("victim"));
    CHECK(symlink(victim, path_of("link")) == 0);
    init_at(path_of("link"), NULL, &cached, why, sizeof why);
    CHECK(cached == 0);
    char buf[64];
    slurp(victim, buf, sizeof buf);
    CHECK(!strcmp(buf, "keep"));
}

/* 8 processes start together: one probes, 7 wait on the lock and reuse. */
static void test_ranks_starting_together(void)
{
    enum { N = 8 };
    int go[2];
    pid_t pid[N];
    int probed = 0, reused = 0;
    char *p = path_of("together");

    if (!CHECK(pipe(go) == 0))
        return;
    setenv("VACED_CPUTIME_CACHE", p, 1);
    for (int i = 0; i < N; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) < 0)     /* released all at once */
                _exit(9);
            int cached = -1;
            vaced_cputime_init_cached(NULL, NULL, 0, &cached);
            _exit(cached == 1 ? 1 : cached == 0 ? 0 : 8);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int i = 0; i < N; i++) {
        int status;
        if (pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] && WIFEXITED(status)) {
            probed += WEXITSTATUS(status) == 0;
            reused += WEXITSTATUS(status) == 1;
        }
    }
    char rec[512];
    slurp(p, rec, sizeof rec);
    if (rec[0]) {
        CHECK_EQ_I64(probed, 1);
        CHECK_EQ_I64(reused, N - 1);
    } else {    /* the thread clock: not remembered, every process probed */
        CHECK_EQ_I64(probed, N);
    }
}

/* A process whose glibc registers no rseq area (GLIBC_TUNABLES) cannot use
 * the rseq source: its probe falls back, and a fallback to the thread clock
 * is not remembered.  Runs this program again with the tunable set. */
static void test_fallback_not_remembered(const char *self)
{
    char cmd[1024], line[128] = "";
    char *p = path_of("norseq");

    snprintf(cmd, sizeof cmd, "GLIBC_TUNABLES=glibc.pthread.rseq=0 VACED_CPUTIME_CACHE=%s %s probe", p,
             self);
    FILE *f = popen(cmd, "r");
    if (!CHECK(f != NULL))
        return;
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    pclose(f);
    char rec[512];
    slurp(p, rec, sizeof rec);
    CHECK(strncmp(line, "source=", 7) == 0);
    CHECK(strncmp(line, "source=rseq", 11) != 0);
    if (!strncmp(line, "source=thread", 13))
        CHECK(rec[0] == '\0');
    else
        CHECK(strstr(rec, " src=") != NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "probe")) {    /* test_fallback_not_remembered's child */
        int cached;
        printf("source=%s\n", vaced_cputime_source_name(vaced_cputime_init_cached(NULL, NULL, 0, &cached)));
        return 0;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    unsetenv("VACED_CPUTIME");
    test_probe_then_reuse();
    test_source_that_does_not_open();
    test_no_record();
    test_ranks_starting_together();
    test_fallback_not_remembered(argv[0]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
    }
    return CHECK_REPORT();
}
