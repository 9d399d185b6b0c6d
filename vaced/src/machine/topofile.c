/* Reading a description file into `key = value` entries. Only syntax,
 * known keys and duplicates are checked here; values are parsed later by
 * whoever owns the key, so topologies can bring their own keys. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "machine/target_impl.h"

static void verror(const struct vaced_cfg *c, const char *path, int line,
                   const char *fmt, va_list ap)
{
    if (!c->err || c->errlen == 0)
        return;
    int k = line > 0 ? snprintf(c->err, c->errlen, "%s:%d: ", path, line)
                     : snprintf(c->err, c->errlen, "%s: ", path);
    if (k >= 0 && (size_t)k < c->errlen)
        vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
}

int vaced_cfg_error(const struct vaced_cfg *c, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(c, c->path, line, fmt, ap);
    va_end(ap);
    return -1;
}

int vaced_file_error(const struct vaced_cfg *c, const char *path, int line,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(c, path, line, fmt, ap);
    va_end(ap);
    return -1;
}

const struct vaced_entry *vaced_cfg_get(const struct vaced_cfg *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->ent[i].key, key) == 0)
            return &c->ent[i];
    return NULL;
}

const struct vaced_entry *vaced_cfg_need(const struct vaced_cfg *c, const char *key)
{
    const struct vaced_entry *e = vaced_cfg_get(c, key);
    if (!e)
        vaced_cfg_error(c, 0, "missing key '%s'", key);
    return e;
}

/* Own line reader rather than fgets: it must see NUL bytes and tell an
 * overlong line from a last line without newline. */
int vaced_read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n + 1 >= cap)
            return -1;
        buf[n++] = (char)ch;
    }
    buf[n] = '\0';
    *len = n;
    if (ferror(f))
        return -2;
    return (ch == EOF && n == 0) ? 0 : 1;
}

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }
static int is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

char *vaced_clean_line(const struct vaced_cfg *c, const char *path, int lineno,
                       char *s, size_t len)
{
    if (len > 0 && s[len - 1] == '\r') /* CRLF files */
        s[--len] = '\0';
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
            vaced_file_error(c, path, lineno, "control character (byte 0x%02x)", ch);
            return NULL;
        }
    }
    char *hash = strchr(s, '#');
    if (hash)
        *hash = '\0';
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && is_blank(s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Split one line (length len, may hold NULs) into an entry.
 * Returns 1 entry, 0 nothing on the line, -1 error reported. */
static int lex_line(struct vaced_cfg *c, int lineno, char *s, size_t len,
                    int (*known)(const char *key), struct vaced_entry *e)
{
    s = vaced_clean_line(c, c->path, lineno, s, len);
    if (!s)
        return -1;
    if (*s == '\0')
        return 0;

    if (!is_alpha(*s))
        return vaced_cfg_error(c, lineno, "expected 'key = value'");
    char *k = s;
    while (is_alpha(*s) || is_digit(*s) || *s == '_')
        s++;
    size_t klen = (size_t)(s - k);
    while (is_blank(*s))
        s++;
    if (*s != '=')
        return vaced_cfg_error(c, lineno, "expected '=' after key '%.*s'",
                               (int)(klen < 64 ? klen : 64), k);
    s++;
    while (is_blank(*s))
        s++;
    if (klen >= VACED_KEY_MAX)
        return vaced_cfg_error(c, lineno, "unknown key '%.*s...'", VACED_KEY_MAX, k);
    memcpy(e->key, k, klen);
    e->key[klen] = '\0';
    if (!known(e->key))
        return vaced_cfg_error(c, lineno, "unknown key '%s'", e->key);
    const struct vaced_entry *first = vaced_cfg_get(c, e->key);
    if (first)
        return vaced_cfg_error(c, lineno, "duplicate key '%s' (first set on line %d)",
                               e->key, first->line);
    /* s fits: it is a suffix of a line shorter than VACED_LINE_MAX */
    strcpy(e->val, s);
    e->line = lineno;
    return 1;
}

int vaced_cfg_read(struct vaced_cfg *c, int (*known)(const char *key))
{
    FILE *f = fopen(c->path, "r");
    if (!f)
        return vaced_cfg_error(c, 0, "cannot open: %s", strerror(errno));
    char buf[VACED_LINE_MAX];
    int rc = 0;
    for (int lineno = 1;; lineno++) {
        size_t len;
        if (lineno == INT_MAX) { /* the line counter must not overflow */
            rc = vaced_cfg_error(c, 0, "more than %d lines", INT_MAX - 1);
            break;
        }
        int r = vaced_read_line(f, buf, sizeof buf, &len);
        if (r == 0)
            break;
        if (r == -1) {
            rc = vaced_cfg_error(c, lineno, "line too long (more than %d characters)",
                                 VACED_LINE_MAX - 1);
            break;
        }
        if (r == -2) {
            rc = vaced_cfg_error(c, 0, "read error: %s", strerror(errno));
            break;
        }
        struct vaced_entry *e = &c->ent[c->n];
        int l = lex_line(c, lineno, buf, len, known, e);
        if (l < 0) {
            rc = -1;
            break;
        }
        if (l > 0 && ++c->n == VACED_CFG_MAX) {
            /* cannot happen while known keys are fewer than VACED_CFG_MAX */
            rc = vaced_cfg_error(c, lineno, "too many keys");
            break;
        }
    }
    fclose(f);
    return rc;
}
