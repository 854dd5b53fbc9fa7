/* util_parse.h — strict parsers of numbers written as text.
 *
 * Each parser reads the whole string or nothing: no leading space, no sign
 * where the type has none, no trailing character, no overflow. *out is
 * written only on success and left as it was otherwise. Parsers do not log:
 * the caller knows which file, key or option held the text and says so.
 * Numbers are decimal; a CRC32 is "0x" followed by hex digits (the form SCR
 * writes). Each returns SCR_SUCCESS, or SCR_ERR_TYPE for text that is not
 * a value of its type (NULL included). */
#ifndef SCR_UTIL_PARSE_H
#define SCR_UTIL_PARSE_H

#include <stdint.h>

int scr_parse_int64(const char *s, int64_t *out);
int scr_parse_uint64(const char *s, uint64_t *out);
int scr_parse_double(const char *s, double *out); /* finite values only */
int scr_parse_crc32(const char *s, uint32_t *out);

/* A size in bytes: a decimal number, possibly with a fraction (the bytes are
 * rounded down), and an optional unit: B, or K, M, G, T or P (powers of
 * 1024, any case, alone or followed by B or iB): "4096", "64KB", "1.5GiB". */
int scr_parse_bytes(const char *text, uint64_t *out);

/* A switch: "0" or "1", nothing else. */
int scr_parse_bool(const char *text, int *out);

#endif
