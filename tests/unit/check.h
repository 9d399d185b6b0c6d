/* Minimal checks for unit test programs (one .c per program, no framework).
 * Each failed check prints one line "file:line: CHECK failed: ...".
 * End main() with `return CHECK_REPORT();`, which prints exactly one line
 * "N passed, M failed" and returns non-zero if M > 0. */
#ifndef VACED_CHECK_H
#define VACED_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed_, check_failed_;

/* Count one check; on failure print where and why. Returns ok. */
static inline int check_note_(int ok, const char *file, int line, const char *what)
{
    if (ok) {
        check_passed_++;
    } else {
        check_failed_++;
        printf("%s:%d: CHECK failed: %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) check_note_(!!(cond), __FILE__, __LINE__, #cond)

#define CHECK_EQ_I64(a, b)                                                       \
    do {                                                                         \
        int64_t ca_ = (int64_t)(a), cb_ = (int64_t)(b);                          \
        if (ca_ == cb_) {                                                        \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: %s == %s (%" PRId64 " != %" PRId64 ")\n", \
                   __FILE__, __LINE__, #a, #b, ca_, cb_);                         \
        }                                                                        \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                       \
    do {                                                                         \
        uint64_t ca_ = (uint64_t)(a), cb_ = (uint64_t)(b);                       \
        if (ca_ == cb_) {                                                        \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", \
                   __FILE__, __LINE__, #a, #b, ca_, cb_);                         \
        }                                                                        \
    } while (0)

/* |a - b| <= tol, integers (e.g. picoseconds). */
#define CHECK_NEAR_I64(a, b, tol)                                                \
    do {                                                                         \
        int64_t ca_ = (int64_t)(a), cb_ = (int64_t)(b), ct_ = (int64_t)(tol);    \
        int64_t cd_ = ca_ > cb_ ? ca_ - cb_ : cb_ - ca_;                         \
        if (cd_ <= ct_) {                                                        \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: %s ~= %s within %s (%" PRId64 " vs %" PRId64 \
                   ")\n", __FILE__, __LINE__, #a, #b, #tol, ca_, cb_);            \
        }                                                                        \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                       \
    do {                                                                         \
        const char *ca_ = (a), *cb_ = (b);                                       \
        if (ca_ && cb_ && strcmp(ca_, cb_) == 0) {                               \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__, \
                   __LINE__, #a, #b, ca_ ? ca_ : "(null)", cb_ ? cb_ : "(null)"); \
        }                                                                        \
    } while (0)

/* Substring test, for error messages. */
#define CHECK_CONTAINS(hay, needle)                                              \
    do {                                                                         \
        const char *ch_ = (hay), *cn_ = (needle);                                \
        if (ch_ && cn_ && strstr(ch_, cn_)) {                                    \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: \"%s\" contains \"%s\"\n", __FILE__,      \
                   __LINE__, ch_ ? ch_ : "(null)", cn_ ? cn_ : "(null)");          \
        }                                                                        \
    } while (0)

/* Prefix test, for "file:line: " of error messages. */
#define CHECK_STARTS_WITH(s, prefix)                                             \
    do {                                                                         \
        const char *cs_ = (s), *cp_ = (prefix);                                  \
        if (cs_ && cp_ && strncmp(cs_, cp_, strlen(cp_)) == 0) {                 \
            check_passed_++;                                                     \
        } else {                                                                 \
            check_failed_++;                                                     \
            printf("%s:%d: CHECK failed: \"%s\" starts with \"%s\"\n", __FILE__, \
                   __LINE__, cs_ ? cs_ : "(null)", cp_ ? cp_ : "(null)");          \
        }                                                                        \
    } while (0)

#define CHECK_REPORT()                                                           \
    (printf("%d passed, %d failed\n", check_passed_, check_failed_),             \
     check_failed_ > 0 ? 1 : 0)

#endif
