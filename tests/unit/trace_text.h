/* Test helper: a trace file read back whole, and its lines looked up.
 * Define _POSIX_C_SOURCE 200809L before any include. */
#ifndef VACED_TRACE_TEXT_H
#define VACED_TRACE_TEXT_H

#include <stdio.h>
#include <string.h>

static char text[1 << 17];

/* The file's text into `text` ("" if it cannot be read). */
static inline void read_back(const char *file)
{
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
}

/* Whether `line` is one whole line of the text. */
static inline int has_line(const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

/* How many lines begin with `prefix`. */
static inline int count_lines(const char *prefix)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        n += p == text || p[-1] == '\n';
    return n;
}

#endif
