/* Call sites named by function, file and line, as the program's debug
 * information says (binutils' addr2line). */
#ifndef VACED_SYMBOLIZE_H
#define VACED_SYMBOLIZE_H

#include <stddef.h>
#include "report/calls.h"

struct vaced_site_name {
    char *function, *file;      /* NULL where unknown */
    int line;                   /* 0 where unknown */
};

/* Fills out[i] for rows[i] (module, offset), n rows; leaves unknown what
 * addr2line cannot name or when it cannot run. */
void vaced_symbolize(const struct vaced_call_row *rows, struct vaced_site_name *out, size_t n);

#endif
