/* Test helper: load a target description given as text, through a
 * temporary file. Define _POSIX_C_SOURCE 200809L before any include. */
#ifndef VACED_TMPTEXT_H
#define VACED_TMPTEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/target.h"

static char errbuf[512];
static char tmp_path[64]; /* the last temporary file, for expected messages */

/* Write len bytes to a fresh temporary file; returns its path. */
static const char *write_tmp(const char *text, size_t len)
{
    strcpy(tmp_path, "/tmp/vaced-topo-XXXXXX");
    int fd = mkstemp(tmp_path);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        perror("temp file");
        exit(2);
    }
    close(fd);
    return tmp_path;
}

/* Load len bytes of text as a description; error text lands in errbuf. */
static int load_bytes(const char *text, size_t len, int nranks, struct vaced_target **t)
{
    const char *p = write_tmp(text, len);
    int rc = vaced_target_load(p, nranks, t, errbuf, sizeof errbuf);
    unlink(p);
    return rc;
}

static int load_text(const char *text, int nranks, struct vaced_target **t)
{
    return load_bytes(text, strlen(text), nranks, t);
}

#endif
