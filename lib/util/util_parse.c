/* util_parse.c — strict parsers of numbers written as text. */
#include "util_parse.h"
#include "scr_err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int scr_parse_int64(const char *s, int64_t *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == ' ') return SCR_ERR_TYPE;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0') return SCR_ERR_TYPE;
    *out = (int64_t)v;
    return SCR_SUCCESS;
}

int scr_parse_uint64(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9') return SCR_ERR_TYPE; /* strtoull accepts "-1" */
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return SCR_ERR_TYPE;
    *out = (uint64_t)v;
    return SCR_SUCCESS;
}

int scr_parse_double(const char *s, double *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == ' ') return SCR_ERR_TYPE;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v)) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

int scr_parse_crc32(const char *s, uint32_t *out)
{
    char *end;
    if (s == NULL || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
        return SCR_ERR_TYPE;
    errno = 0;
    unsigned long long v = strtoull(s + 2, &end, 16);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX || s[2] == '-' || s[2] == '+')
        return SCR_ERR_TYPE;
    *out = (uint32_t)v;
    return SCR_SUCCESS;
}

int scr_parse_bool(const char *text, int *out)
{
    if (text == NULL) return SCR_ERR_TYPE;
    if (strcmp(text, "0") == 0)
        *out = 0;
    else if (strcmp(text, "1") == 0)
        *out = 1;
    else
        return SCR_ERR_TYPE;
    return SCR_SUCCESS;
}

/* The multiplier of a unit suffix ("", "K", "KB", "KiB", ...), 0 if unknown. */
static uint64_t unit_factor(const char *unit)
{
    static const char letters[] = "KMGTP";
    if (*unit == '\0' || strcasecmp(unit, "B") == 0) return 1;
    const char *at = strchr(letters, toupper((unsigned char)unit[0]));
    if (at == NULL) return 0;
    const char *rest = unit + 1;
    if (*rest != '\0' && strcasecmp(rest, "B") != 0 && strcasecmp(rest, "iB") != 0) return 0;
    uint64_t f = 1;
    for (const char *l = letters; l <= at; l++) f *= 1024;
    return f;
}

int scr_parse_bytes(const char *text, uint64_t *out)
{
    if (text == NULL || !isdigit((unsigned char)text[0])) return SCR_ERR_TYPE;
    const char *p = text;
    while (isdigit((unsigned char)*p)) p++;
    int has_fraction = 0;
    if (*p == '.') {
        has_fraction = 1;
        p++;
        if (!isdigit((unsigned char)*p)) return SCR_ERR_TYPE;
        while (isdigit((unsigned char)*p)) p++;
    }
    uint64_t factor = unit_factor(p);
    if (factor == 0) return SCR_ERR_TYPE;
    char number[64];
    size_t n = (size_t)(p - text);
    if (n >= sizeof(number)) return SCR_ERR_TYPE;
    memcpy(number, text, n);
    number[n] = '\0';
    if (!has_fraction) {
        uint64_t v;
        if (scr_parse_uint64(number, &v) != SCR_SUCCESS || v > UINT64_MAX / factor)
            return SCR_ERR_TYPE;
        *out = v * factor;
        return SCR_SUCCESS;
    }
    double d;
    if (scr_parse_double(number, &d) != SCR_SUCCESS) return SCR_ERR_TYPE;
    double bytes = d * (double)factor;
    if (!isfinite(bytes) || bytes >= 18446744073709551616.0) return SCR_ERR_TYPE;
    *out = (uint64_t)bytes;
    return SCR_SUCCESS;
}
