/* Call sites named by addr2line, one run per object file and batch. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report/symbolize.h"

extern char **environ;

#define BATCH 200

/* "file:line" or "file:line (discriminator N)" or "??:0" into out. */
static void take_location(char *text, struct vaced_site_name *out)
{
    char *paren = strstr(text, " (");
    if (paren)
        *paren = '\0';
    char *colon = strrchr(text, ':');
    if (!colon)
        return;
    *colon = '\0';
    out->line = atoi(colon + 1);
    if (strcmp(text, "??") != 0)
        out->file = strdup(text);
}

/* Reads addr2line's two lines an address from fd into out[idx[0..n)]. */
static void read_answers(int fd, struct vaced_site_name *out, const size_t *idx, size_t n)
{
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return;
    }
    char fn[4096], loc[4096];
    for (size_t i = 0; i < n && fgets(fn, sizeof fn, f) && fgets(loc, sizeof loc, f); i++) {
        fn[strcspn(fn, "\n")] = '\0';
        loc[strcspn(loc, "\n")] = '\0';
        struct vaced_site_name *s = &out[idx[i]];
        if (strcmp(fn, "??") != 0)
            s->function = strdup(fn);
        take_location(loc, s);
    }
    fclose(f);
}

/* addr2line on module for rows idx[0..n) (n <= BATCH). */
static void run_batch(const char *module, const struct vaced_call_row *rows,
                      struct vaced_site_name *out, const size_t *idx, size_t n)
{
    char hex[BATCH][24];
    char *argv[BATCH + 7] = {"addr2line", "-f", "-C", "-e", (char *) module};
    int argc = 5;
    for (size_t i = 0; i < n; i++) {
        snprintf(hex[i], sizeof hex[i], "0x%llx", (unsigned long long) rows[idx[i]].site);
        argv[argc++] = hex[i];
    }
    argv[argc] = NULL;
    int pipefd[2];
    if (pipe(pipefd))
        return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int failed = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (failed) {
        close(pipefd[0]);
        return;
    }
    read_answers(pipefd[0], out, idx, n);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

void vaced_symbolize(const struct vaced_call_row *rows, struct vaced_site_name *out, size_t n)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    char *done = calloc(n ? n : 1, 1);
    if (!idx || !done)
        goto out;
    for (size_t i = 0; i < n; i++) {
        while (!done[i] && rows[i].module[0]) {
            size_t k = 0;       /* this module's rows not yet named, BATCH at a time */
            for (size_t j = i; j < n && k < BATCH; j++)
                if (!done[j] && !strcmp(rows[j].module, rows[i].module)) {
                    idx[k++] = j;
                    done[j] = 1;
                }
            run_batch(rows[i].module, rows, out, idx, k);
        }
    }
out:
    free(idx);
    free(done);
}
