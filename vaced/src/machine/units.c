/* Numbers with units. Numbers are scanned by hand rather than with strtod:
 * strtod follows the program's LC_NUMERIC (an MPI program may set a locale
 * whose decimal point is ','), and it accepts hex, inf and nan. The unit's
 * power of ten is folded into the decimal exponent, so "4.16 GB/s" becomes
 * exactly 416e7 rather than 4.16 * 1e9 with a second rounding. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "machine/target_impl.h"

/* value = mant * 10^exp10 */
struct dec {
    uint64_t mant;
    int exp10;
};

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

/* Scan digits[.digits][(e|E)[+-]digits] (or .digits...) at s. Returns the
 * characters used, 0 when s does not start with a number. */
static size_t scan_dec(const char *s, struct dec *d)
{
    const char *p = s;
    int ndig = 0;
    d->mant = 0;
    d->exp10 = 0;
    for (; is_digit(*p); p++, ndig++) {
        if (d->mant < 100000000000000000ULL) /* room for one more digit */
            d->mant = d->mant * 10 + (uint64_t)(*p - '0');
        else
            d->exp10++; /* digits beyond 18 only scale */
    }
    if (*p == '.') {
        p++;
        for (; is_digit(*p); p++, ndig++) {
            if (d->mant < 100000000000000000ULL) {
                d->mant = d->mant * 10 + (uint64_t)(*p - '0');
                d->exp10--;
            }
        }
    }
    if (ndig == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        int sign = 1, e = 0;
        if (*q == '+' || *q == '-')
            sign = (*q++ == '-') ? -1 : 1;
        if (is_digit(*q)) { /* else the 'e' belongs to the unit */
            for (; is_digit(*q); q++)
                if (e < 100000)
                    e = e * 10 + (*q - '0');
            d->exp10 += sign * e;
            p = q;
        }
    }
    return (size_t)(p - s);
}

static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                             1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* mant * 10^exp10; one correctly rounded step when mant < 2^53 and
 * |exp10| <= 22 (every realistic value), inf/0 when out of range. */
static double dec_value(struct dec d)
{
    double v = (double)d.mant;
    int e = d.exp10;
    if (d.mant == 0)
        return 0;
    for (; e > 22 && isfinite(v); e -= 22)
        v *= 1e22;
    for (; e < -22 && v > 0; e += 22)
        v /= 1e22;
    if (!isfinite(v) || v == 0)
        return v;
    return e >= 0 ? v * p10[e] : v / p10[-e];
}

size_t vaced_scan_number(const char *s, double *v)
{
    struct dec d;
    size_t n = scan_dec(s, &d);
    *v = n ? dec_value(d) : 0;
    return n;
}

struct unit {
    const char *name;
    int exp10; /* value *= 10^exp10 * 2^shift2 */
    int shift2;
};

static const struct unit bw_units[] = {
    {"B/s", 0, 0},     {"KB/s", 3, 0},    {"kB/s", 3, 0},    {"MB/s", 6, 0},
    {"GB/s", 9, 0},    {"TB/s", 12, 0},   {"KiB/s", 0, 10},  {"MiB/s", 0, 20},
    {"GiB/s", 0, 30},  {"TiB/s", 0, 40},  {"bit/s", 0, -3},  {"Kbit/s", 3, -3},
    {"kbit/s", 3, -3}, {"Mbit/s", 6, -3}, {"Gbit/s", 9, -3}, {"Tbit/s", 12, -3},
    {NULL, 0, 0}};
static const struct unit time_units[] = { /* to picoseconds */
    {"s", 12, 0}, {"ms", 9, 0}, {"us", 6, 0}, {"ns", 3, 0}, {"ps", 0, 0}, {NULL, 0, 0}};
static const struct unit size_units[] = {
    {"B", 0, 0},   {"KB", 3, 0},   {"kB", 3, 0},   {"MB", 6, 0},  {"GB", 9, 0},
    {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {NULL, 0, 0}};

/* Parse "number unit" into a positive finite double in the base unit.
 * what names the quantity for messages ("a bandwidth such as 4.16 GB/s"). */
static int parse_quantity_z(const struct vaced_cfg *c, const struct vaced_entry *e,
                            const struct unit *units, const char *what, int allow_zero,
                            double *out)
{
    const char *s = e->val;
    struct dec d;
    if (*s == '-' && scan_dec(s + 1, &d) > 0)
        return vaced_cfg_error(c, e->line, "'%s' must not be negative", e->key);
    size_t n = scan_dec(s, &d);
    if (n == 0)
        return vaced_cfg_error(c, e->line, "'%s': expected %s, got '%s'", e->key,
                               what, s);
    s += n;
    while (is_blank(*s))
        s++;
    if (*s == '\0')
        return vaced_cfg_error(c, e->line, "'%s': missing unit (expected %s)", e->key,
                               what);
    const struct unit *u = units;
    while (u->name && strcmp(u->name, s) != 0)
        u++;
    if (!u->name) {
        char list[160] = "";
        for (const struct unit *v = units; v->name; v++) {
            strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, v->name, sizeof list - strlen(list) - 1);
        }
        return vaced_cfg_error(c, e->line, "'%s': unknown unit '%.40s' (units:%s)",
                               e->key, s, list);
    }
    if (d.mant == 0) {
        if (allow_zero) {
            *out = 0;
            return 0;
        }
        return vaced_cfg_error(c, e->line, "'%s' must be greater than zero", e->key);
    }
    d.exp10 += u->exp10;
    double v = dec_value(d);
    if (u->shift2 >= 0)
        v *= (double)(1ULL << u->shift2);
    else
        v /= (double)(1ULL << -u->shift2);
    if (!isfinite(v) || v == 0)
        return vaced_cfg_error(c, e->line, "'%s': value out of range", e->key);
    *out = v;
    return 0;
}

static int parse_quantity(const struct vaced_cfg *c, const struct vaced_entry *e,
                          const struct unit *units, const char *what, double *out)
{
    return parse_quantity_z(c, e, units, what, 0, out);
}

int vaced_parse_bandwidth(const struct vaced_cfg *c, const struct vaced_entry *e,
                          double *bytes_per_s)
{
    return parse_quantity(c, e, bw_units, "a bandwidth such as 4.16 GB/s", bytes_per_s);
}

/* A time > 0, or (allow_zero) exactly 0 as well. */
static int parse_time_z(const struct vaced_cfg *c, const struct vaced_entry *e,
                        int allow_zero, vaced_time_t *ps)
{
    double v;
    if (parse_quantity_z(c, e, time_units, "a time such as 15 us", allow_zero, &v))
        return -1;
    if (v == 0) {
        *ps = 0;
        return 0;
    }
    if (v > (double)VACED_MAX_TIME_PS)
        return vaced_cfg_error(c, e->line, "'%s' is longer than the limit of 1000 s",
                               e->key);
    if (v < 0.5)
        return vaced_cfg_error(c, e->line, "'%s' is below 1 ps", e->key);
    *ps = (vaced_time_t)(v + 0.5);
    return 0;
}

int vaced_parse_time(const struct vaced_cfg *c, const struct vaced_entry *e,
                     vaced_time_t *ps)
{
    return parse_time_z(c, e, 0, ps);
}

int vaced_parse_time_or_zero(const struct vaced_cfg *c, const struct vaced_entry *e,
                             vaced_time_t *ps)
{
    return parse_time_z(c, e, 1, ps);
}

/* A size > 0, or (allow_zero) exactly 0 as well. */
static int parse_size_z(const struct vaced_cfg *c, const struct vaced_entry *e, int allow_zero,
                        uint64_t *bytes)
{
    double v;
    if (parse_quantity_z(c, e, size_units, "a size such as 128 KiB", allow_zero, &v))
        return -1;
    if (v > 9007199254740992.0) /* 2^53: whole numbers stay exact below it */
        return vaced_cfg_error(c, e->line, "'%s' is too large", e->key);
    if (v != (double)(uint64_t)v)
        return vaced_cfg_error(c, e->line, "'%s' is not a whole number of bytes",
                               e->key);
    *bytes = (uint64_t)v;
    return 0;
}

int vaced_parse_size(const struct vaced_cfg *c, const struct vaced_entry *e,
                     uint64_t *bytes)
{
    return parse_size_z(c, e, 0, bytes);
}

int vaced_parse_size_or_zero(const struct vaced_cfg *c, const struct vaced_entry *e,
                             uint64_t *bytes)
{
    return parse_size_z(c, e, 1, bytes);
}

/* One count at *ps (digits only); advances *ps. */
static int scan_count(const struct vaced_cfg *c, const struct vaced_entry *e,
                      const char **ps, long min, long max, long *out)
{
    const char *s = *ps;
    const char *tok = s;
    int toklen = 0; /* messages quote this value only, not the rest of a list */
    while (tok[toklen] != '\0' && !is_blank(tok[toklen]) && toklen < 40)
        toklen++;
    int neg = (*s == '-');
    if (neg)
        s++;
    if (!is_digit(*s))
        return vaced_cfg_error(c, e->line, "'%s': expected a whole number, got '%.*s'",
                               e->key, toklen, tok);
    long v = 0;
    int big = 0;
    for (; is_digit(*s); s++) {
        if (v > (LONG_MAX - 9) / 10)
            big = 1;
        else
            v = v * 10 + (*s - '0');
    }
    if (*s != '\0' && !is_blank(*s))
        return vaced_cfg_error(c, e->line, "'%s': expected a whole number, got '%.*s'",
                               e->key, toklen, tok);
    if (neg && (v > 0 || big))
        return vaced_cfg_error(c, e->line, "'%s' must not be negative", e->key);
    if (big || v > max)
        return vaced_cfg_error(c, e->line, "'%s': %.*s is above the limit of %ld",
                               e->key, toklen, tok, max);
    if (v < min)
        return vaced_cfg_error(c, e->line, "'%s' must be at least %ld (got %ld)",
                               e->key, min, v);
    *out = v;
    *ps = s;
    return 0;
}

int vaced_parse_count(const struct vaced_cfg *c, const struct vaced_entry *e,
                      long min, long max, long *out)
{
    const char *s = e->val;
    if (*s == '\0')
        return vaced_cfg_error(c, e->line, "'%s' has no value", e->key);
    if (scan_count(c, e, &s, min, max, out))
        return -1;
    while (is_blank(*s))
        s++;
    if (*s != '\0')
        return vaced_cfg_error(c, e->line, "'%s' takes one number", e->key);
    return 0;
}

int vaced_parse_count_list(const struct vaced_cfg *c, const struct vaced_entry *e,
                           long min, long max, int *out, int maxn, int *n)
{
    const char *s = e->val;
    *n = 0;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (*s == '\0')
            return 0;
        long v;
        if (scan_count(c, e, &s, min, max, &v))
            return -1;
        if (*n == maxn)
            return vaced_cfg_error(c, e->line, "'%s' has more than %d values", e->key,
                                   maxn);
        out[(*n)++] = (int)v;
    }
}

int vaced_parse_count_tuple(const struct vaced_cfg *c, const struct vaced_entry *e,
                            long min, long max, int *out, int n, const char *what)
{
    const char *s = e->val;
    int got = 0;
    for (;;) { /* every value is checked, and counted so "got" is exact */
        while (is_blank(*s))
            s++;
        if (*s == '\0')
            break;
        long v;
        if (scan_count(c, e, &s, min, max, &v))
            return -1;
        if (got < n)
            out[got] = (int)v;
        got++;
    }
    if (got != n)
        return vaced_cfg_error(c, e->line, "'%s' needs %d values (%s), got %d", e->key,
                               n, what, got);
    return 0;
}
