/* adopt_rule.c — match a file's path against an ownership pattern. */
#include "adopt_rule.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <string.h>

/* Rank numbers have at most this many digits (INT_MAX has 10). */
#define MAX_RANK_DIGITS 10

int scr_adopt_rule_parse(const char *pattern, struct scr_adopt_rule *rule)
{
    int ranks = 0;
    if (pattern == NULL || pattern[0] == '\0') {
        scr_err("the ownership rule is empty; it needs one %%d where the rank is, e.g. "
                "'rank_%%d.ckpt'");
        return SCR_ERR_ARG;
    }
    for (const char *p = pattern; *p != '\0'; p++) {
        if (*p != '%') continue;
        if (p[1] == 'd')
            ranks++;
        else if (p[1] != '%') {
            scr_err("ownership rule '%s': '%%%c' is not understood (use %%d for the rank, %%%% for "
                    "a '%%')",
                    pattern, p[1] != '\0' ? p[1] : ' ');
            return SCR_ERR_ARG;
        }
        p++;
    }
    if (ranks != 1) {
        scr_err("ownership rule '%s' has %d %%d; it needs exactly one, where the rank is (e.g. "
                "'rank_%%d.ckpt')",
                pattern, ranks);
        return SCR_ERR_ARG;
    }
    rule->pattern = pattern;
    return SCR_SUCCESS;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Whether s matches pattern p; the rank %d took goes to *rank. */
static int match(const char *p, const char *s, long long *rank)
{
    for (;;) {
        if (*p == '\0') return *s == '\0';
        if (p[0] == '%' && p[1] == '%') {
            if (*s != '%') return 0;
            p += 2;
            s++;
            continue;
        }
        if (p[0] == '%' && p[1] == 'd') {
            int n = 0;
            while (n < MAX_RANK_DIGITS + 1 && is_digit(s[n])) n++;
            if (n > MAX_RANK_DIGITS) return 0; /* no rank has that many digits */
            for (; n > 0; n--) {               /* the longest run that lets the rest match */
                if (!match(p + 2, s + n, rank)) continue;
                long long v = 0;
                for (int i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
                *rank = v;
                return 1;
            }
            return 0;
        }
        if (*p == '*') {
            for (size_t k = 0;; k++) {
                if (match(p + 1, s + k, rank)) return 1;
                if (s[k] == '\0' || s[k] == '/') return 0;
            }
        }
        if (*p != *s) return 0;
        p++;
        s++;
    }
}

int scr_adopt_rule_match(const struct scr_adopt_rule *rule, const char *path, int *out_rank)
{
    long long rank = -1;
    if (!match(rule->pattern, path, &rank) || rank < 0 || rank > INT_MAX) return 0;
    *out_rank = (int)rank;
    return 1;
}
