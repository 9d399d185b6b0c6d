/* Unit tests of the same-host link switch and host key
 * (vaced/src/transport/host_key.c): the switch's values (rings, Unix
 * sockets alone, TCP) and the key's mode, and a key that
 * is stable, shared with a forked child, changed by a new network
 * namespace and never truncated. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "vaced_host.h"
#include "vaced_link.h"

static void test_switch(void)
{
    char shm[256], unix_only[256];

    unsetenv("VACED_TRANSPORT");
    CHECK(vaced_local_links() && vaced_link_rings());
    setenv("VACED_TRANSPORT", "", 1);
    CHECK(vaced_local_links() && vaced_link_rings());
    setenv("VACED_TRANSPORT", "shm", 1);
    CHECK(vaced_local_links() && vaced_link_rings());
    CHECK(vaced_host_key(shm, sizeof shm) == 0);
    setenv("VACED_TRANSPORT", "unix", 1);
    CHECK(vaced_local_links() && !vaced_link_rings());
    CHECK(vaced_host_key(unix_only, sizeof unix_only) == 0);
    CHECK(strcmp(shm, unix_only) != 0);        /* they would not understand each other */
    setenv("VACED_TRANSPORT", "tcp", 1);
    CHECK(!vaced_local_links() && !vaced_link_rings());
    setenv("VACED_TRANSPORT", "shm?", 1);      /* unknown: TCP, with a note */
    CHECK(!vaced_local_links() && !vaced_link_rings());
    unsetenv("VACED_TRANSPORT");
}

/* The child's key, written through a pipe; "" if it had none. */
static void child_key(int new_netns, char *out, size_t len)
{
    int fds[2];
    out[0] = '\0';
    if (pipe(fds) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        char k[256] = "";
        close(fds[0]);
        if (new_netns && unshare(CLONE_NEWNET) != 0)
            _exit(3);
        if (vaced_host_key(k, sizeof k) != 0)
            _exit(2);
        ssize_t w = write(fds[1], k, strlen(k) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        out[0] = '\0';
}

static void test_key(void)
{
    char a[256], b[256], c[256], small[8] = "x";

    CHECK(vaced_host_key(a, sizeof a) == 0);
    CHECK(strlen(a) > 36);                     /* the boot id and more */
    CHECK(vaced_host_key(b, sizeof b) == 0);
    CHECK(strcmp(a, b) == 0);
    child_key(0, c, sizeof c);
    CHECK(strcmp(a, c) == 0);                  /* another process, same host */
    CHECK(vaced_host_key(small, sizeof small) == -1);
    CHECK(small[0] == '\0');                   /* no truncated key to compare */

    /* unshare needs root, as tests/netns does */
    child_key(1, c, sizeof c);
    CHECK(c[0] != '\0');
    CHECK(strcmp(a, c) != 0);                  /* another namespace: TCP */
    CHECK(strncmp(a, c, 36) == 0);             /* the same boot */
}

int main(void)
{
    test_switch();
    test_key();
    return CHECK_REPORT();
}
