/* Unit tests of the segment causes (vaced/src/report/segment_causes.c):
 * the sums by kind and by length, and the live observer against what the
 * kernel saw: a segment that touches fresh pages faults, one that shares
 * its CPU with a busy process is preempted, one after a sleep is cold. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "report/segment_causes.h"

static void test_sums(void)
{
    struct vaced_segment_causes c = { 0 };
    struct vaced_segment_sample s[] = {
        { .cpu_s = 5e-6, .wall_s = 6e-6 },                              /* clean, short */
        { .cpu_s = 20e-6, .wall_s = 20e-6, .faults = 3 },               /* faulted */
        { .cpu_s = 2e-3, .wall_s = 4e-3, .preemptions = 1, .cold = 1 }, /* long, both */
        { .cpu_s = 8e-6, .wall_s = 9e-6, .cold = 1 },                   /* cold, short */
        { .cpu_s = 10e-6, .wall_s = 10e-6 },                            /* a bound: the next length */
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        vaced_causes_add(&c, &s[i]);
    CHECK_EQ_I64(c.all.segments, 5);
    CHECK(c.all.cpu_s > 2.042e-3 && c.all.cpu_s < 2.044e-3);
    CHECK_EQ_I64(c.faulted.segments, 1);
    CHECK_EQ_I64(c.preempted.segments, 1);
    CHECK_EQ_I64(c.cold.segments, 2);
    CHECK_EQ_I64(c.clean.segments, 2);
    CHECK(c.clean.cpu_s > 14.9e-6 && c.clean.cpu_s < 15.1e-6);
    CHECK_EQ_I64(c.faults, 3);
    CHECK_EQ_I64(c.preemptions, 1);
    CHECK(c.wall_s > 4.044e-3 && c.wall_s < 4.046e-3);
    CHECK_EQ_I64(c.length[0].segments, 2);      /* 5 and 8 us */
    CHECK_EQ_I64(c.length[1].segments, 2);      /* 20 and 10 us */
    CHECK_EQ_I64(c.length[2].segments, 0);
    CHECK_EQ_I64(c.length[3].segments, 1);      /* 2 ms */
    CHECK_EQ_I64(c.cold_length[0].segments, 1);
    CHECK_EQ_I64(c.cold_length[3].segments, 1);
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double burnt;   /* kept: the loop is not optimised away */

/* Burns `seconds` of this thread's CPU time. */
static double burn(double seconds)
{
    double from = cpu_now();
    while (cpu_now() - from < seconds)
        for (int i = 0; i < 1000; i++)
            burnt += i;
    return cpu_now() - from;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static const char *field(const char *json, const char *key)
{
    const char *at = strstr(json, key);
    return at ? at + strlen(key) : "";
}

static void test_live(void)
{
    char dir[] = "/tmp/vaced-causes-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("VACED_SEGMENT_CAUSES", dir, 1);
    CHECK(vaced_causes_open(3) == 0);

    /* A segment that first touches 64 fresh pages. */
    vaced_causes_segment_start(0);
    double t0 = cpu_now();
    size_t len = 64 * 4096;
    char *fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(fresh != MAP_FAILED);
    memset(fresh, 1, len);
    vaced_causes_segment_end(cpu_now() - t0);
    munmap(fresh, len);

    /* A cold segment, sharing this CPU with a busy child for 100 ms of
     * CPU time: the scheduler must switch to the child meanwhile. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            burn(1);
    }
    usleep(20000);
    vaced_causes_segment_start(1);
    vaced_causes_segment_end(burn(0.1));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    vaced_causes_close(3);
    unsetenv("VACED_SEGMENT_CAUSES");

    char path[128];
    snprintf(path, sizeof path, "%s/segment-causes.3.json", dir);
    const char *json = read_text(path);
    CHECK(json != NULL);
    if (json) {
        CHECK(atoll(field(json, "\"faults\": ")) >= 64);
        CHECK(atoll(field(json, "\"preemptions\": ")) >= 1);
        CHECK(atoll(field(json, "\"all\": {\"segments\": ")) == 2);
        CHECK(atoll(field(json, "\"faulted\": {\"segments\": ")) >= 1);  /* the fork may add COW faults */
        CHECK(atoll(field(json, "\"preempted\": {\"segments\": ")) >= 1);  /* a loaded host may add one */
        CHECK(atoll(field(json, "\"cold\": {\"segments\": ")) == 1);
        CHECK(atoll(field(json, "\"clean\": {\"segments\": ")) == 0);
        /* Preempted: the second segment's wall time exceeds its CPU time. */
        CHECK(atof(field(json, "\"wall_s\": ")) > atof(field(json, "\"all\": {\"segments\": 2, \"cpu_s\": ")));
    }
    unlink(path);
    rmdir(dir);
}

/* A directory that cannot be written: a message at the end, no crash. */
static void test_unwritable(void)
{
    setenv("VACED_SEGMENT_CAUSES", "/proc/no-such-dir", 1);
    CHECK(vaced_causes_open(0) == 0);
    vaced_causes_segment_start(0);
    vaced_causes_segment_end(1e-6);
    vaced_causes_close(0);
    unsetenv("VACED_SEGMENT_CAUSES");
    CHECK(vaced_causes_open(0) == 0);   /* unset: off */
    vaced_causes_segment_end(1e-6);     /* heard by nobody */
    vaced_causes_close(0);
}

int main(void)
{
    test_sums();
    test_live();
    test_unwritable();
    return CHECK_REPORT();
}
