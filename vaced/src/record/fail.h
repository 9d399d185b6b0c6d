/* A refusal's reason, written into the caller's buffer: the readers and
 * writers of records (replay/, estimate/) say why they refuse a record
 * in (err, len), as "PATH: offset N: reason", and return -1. */
#ifndef VACED_FAIL_H
#define VACED_FAIL_H

#include <stddef.h>

/* Formats into err (len bytes) and returns -1. */
int vaced_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
