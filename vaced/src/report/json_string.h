/* A C string written as a JSON string, for every JSON file the library
 * writes (the job's report and its per-call tables). */
#ifndef VACED_JSON_STRING_H
#define VACED_JSON_STRING_H

#include <stdio.h>

/* s as a JSON string, escaped; null for NULL. */
void vaced_json_string(FILE *f, const char *s);

#endif
