/* A C string as a JSON string (json_string.h). */
#include "report/json_string.h"

void vaced_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char) *s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char) *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}
