/* cli_json.h — the commands' JSON output, built with json-c.
 *
 * The builders return SCR_SUCCESS, or SCR_ERR_NOMEM when out of memory
 * (not logged: the caller says what it was building), having released the
 * value they were given, so that a document is built as one chain
 * (bad = bad || scr_cli_json_put(...)) and released once. scr_cli_json_print
 * writes one document to stdout (stdout holds nothing else then: progress
 * and messages go to stderr). */
#ifndef SCR_CLI_JSON_H
#define SCR_CLI_JSON_H

struct json_object;

/* obj[key] = value; value NULL counts as out of memory. */
int scr_cli_json_put(struct json_object *obj, const char *key, struct json_object *value);

/* obj[key] = value when has, else null (value, if any, is released). */
int scr_cli_json_put_or_null(struct json_object *obj, const char *key, int has,
                             struct json_object *value);

/* obj as one JSON document on stdout and a newline, indented, or on one line
 * when one_line; then obj is released. obj NULL means building it ran out
 * of memory. SCR_SUCCESS, else SCR_ERR_NOMEM or SCR_ERR_IO, logged. */
int scr_cli_json_print(struct json_object *obj, int one_line);

/* The end of a chain of builders: obj printed as above, or, when bad (some
 * builder ran out of memory), released and reported as out of memory. */
int scr_cli_json_print_built(struct json_object *obj, int bad, int one_line);

#endif
