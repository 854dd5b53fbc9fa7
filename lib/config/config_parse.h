/* config_parse.h — the SCR configuration syntax, turned into key/value pairs.
 *
 * A configuration text is read line by line. On each line:
 *   - a '#' that starts a word (at the start of the line or after a blank)
 *     begins a comment that runs to the end of the line, so "/p/run#2" is a
 *     value while "SCR_FLUSH=4 # every 4th" ends at the 4;
 *   - the rest is one or more pairs KEY=VALUE, separated by blanks; blanks
 *     around '=' are allowed ("SCR_FLUSH = 4");
 *   - a KEY is letters, digits, '_', '.' and '-', and is folded to upper case
 *     (SCR matches parameter names without regard to case);
 *   - a VALUE runs to the next blank; in it "$NAME" and "${NAME}" are replaced
 *     by the environment variable NAME (empty when unset, with a warning);
 *     a '$' not followed by a name stays as it is.
 * A line with one pair sets a parameter ("SCR_CACHE_SIZE=2"); a line with
 * several is a descriptor whose first pair names the table and the entry
 * ("STORE=/ssd GROUP=NODE COUNT=2"). The parser does not tell them apart: it
 * hands every non-empty line's pairs to a callback.
 *
 * Errors: a key without '=', '=' without a key, an empty value, a bad
 * character in a key and an unterminated "${" stop the parse with
 * SCR_ERR_FORMAT and one logged message "<source>:<line>: <what>". */
#ifndef SCR_CONFIG_PARSE_H
#define SCR_CONFIG_PARSE_H

#include <stddef.h>

/* One KEY=VALUE of a line; both strings are NUL-terminated and owned by the parser. */
struct scr_config_pair {
    char *key;
    char *value;
};

/* Called once per non-empty line with its pairs, in order. source and line
 * say where it came from (for messages). Return SCR_SUCCESS to go on; any
 * other code stops the parse and is returned by the parse call. */
typedef int (*scr_config_line_fn)(void *ctx, const char *source, int line,
                                  const struct scr_config_pair *pairs, int npairs);

/* Parse len bytes of text (need not be NUL-terminated). source names the
 * text in messages, e.g. a file path or "SCR_Config". */
int scr_config_parse_text(const char *text, size_t len, const char *source, scr_config_line_fn fn,
                          void *ctx);

/* Expand $NAME and ${NAME} in value as in a configuration line (the rules
 * above: unset expands to nothing with a warning; an unterminated "${" or
 * "${...}" around anything but a name is SCR_ERR_FORMAT), into a new string
 * (*out_value, the caller frees). The environment and SCR_Config values go
 * through here too, so every place a value can be set reads it alike.
 * source and line name the value in messages ("<source>:<line>: ...";
 * line 0: "<source>: ..."). */
int scr_config_expand(const char *value, const char *source, int line, char **out_value);

/* Whether "key=value", written as a line or as one pair of a descriptor
 * line, reads back as the same key and value: key is key characters in
 * upper case, value is not empty, holds no blank, does not start a
 * comment and has no '$' that the reader would expand. A writer of
 * configuration lines (app.conf) checks this so that what it writes is
 * what the next reader gets. Does not log. */
int scr_config_pair_is_writable(const char *key, const char *value);

/* Parse a file. A missing file is SCR_ERR_NOTFOUND without a message (the
 * caller knows whether that is normal); other read errors are logged.
 * Files over 1 MiB are refused: no configuration is that large. */
int scr_config_parse_file(const char *path, scr_config_line_fn fn, void *ctx);

#endif
