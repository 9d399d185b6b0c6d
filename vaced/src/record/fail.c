/* A refusal's reason (fail.h). */
#include <stdarg.h>
#include <stdio.h>
#include "record/fail.h"

int vaced_fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}
