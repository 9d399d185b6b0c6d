/* Same-host links: whether they are on (and carry rings), and the key that proves two ranks
 * share a network namespace (vaced_host.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "vaced_host.h"
#include "vaced_link.h"
#include "env/env.h"

/* 2: Unix connections carrying shared-memory rings (shm, the default),
 * 1: Unix connections alone (unix), 0: TCP (tcp, or anything else). */
static int transport_mode(void)
{
    const char *v = vaced_env(VACED_ENV_TRANSPORT);
    if (v == NULL || v[0] == '\0' || strcmp(v, "shm") == 0)
        return 2;
    if (strcmp(v, "unix") == 0)
        return 1;
    if (strcmp(v, "tcp") != 0) {
        static int noted;
        if (!noted++)
            fprintf(stderr, "vaced: VACED_TRANSPORT=%s is none of shm, unix, tcp: using tcp\n", v);
    }
    return 0;
}

int vaced_local_links(void)
{
    return transport_mode() > 0;
}

int vaced_link_rings(void)
{
    return transport_mode() == 2;
}

/* The boot id alone is not enough: network namespaces of one boot (the
 * emulated hosts of tests/netns) each have their own abstract names.  The
 * mode ends the key: a rank that sends rings and one that does not speak
 * differently over the same socket, so they meet over TCP instead. */
int vaced_host_key(char *buf, size_t len)
{
    char boot[64] = "";
    struct stat ns;
    FILE *f;
    int n;

    if (len > 0)
        buf[0] = '\0';
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f == NULL)
        return -1;
    n = fscanf(f, "%63[0-9a-fA-F-]", boot);
    fclose(f);
    if (n != 1 || stat("/proc/self/ns/net", &ns) != 0)
        return -1;
    n = snprintf(buf, len, "%s.%llx.%llx%s", boot, (unsigned long long) ns.st_dev,
                 (unsigned long long) ns.st_ino, vaced_link_rings() ? ".shm" : "");
    if (n < 0 || (size_t) n >= len) {
        if (len > 0)
            buf[0] = '\0';
        return -1;
    }
    return 0;
}
