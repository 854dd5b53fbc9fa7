/* cli_json.c — the commands' JSON output, built with json-c. */
#include "cli_json.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

int scr_cli_json_put(struct json_object *obj, const char *key, struct json_object *value)
{
    if (obj == NULL || value == NULL || json_object_object_add(obj, key, value) != 0) {
        json_object_put(value);
        return SCR_ERR_NOMEM;
    }
    return SCR_SUCCESS;
}

int scr_cli_json_put_or_null(struct json_object *obj, const char *key, int has,
                             struct json_object *value)
{
    if (has) return scr_cli_json_put(obj, key, value);
    json_object_put(value);
    return obj == NULL || json_object_object_add(obj, key, NULL) != 0 ? SCR_ERR_NOMEM : SCR_SUCCESS;
}

int scr_cli_json_print(struct json_object *obj, int one_line)
{
    int flags =
        (one_line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED) |
        JSON_C_TO_STRING_NOSLASHESCAPE;
    const char *text = obj != NULL ? json_object_to_json_string_ext(obj, flags) : NULL;
    int rc = SCR_SUCCESS;
    if (text == NULL) {
        scr_err("out of memory building JSON");
        rc = SCR_ERR_NOMEM;
    } else if (printf("%s\n", text) < 0 || fflush(stdout) != 0) {
        scr_err("writing to standard output failed: %s", strerror(errno));
        rc = SCR_ERR_IO;
    }
    json_object_put(obj);
    return rc;
}

int scr_cli_json_print_built(struct json_object *obj, int bad, int one_line)
{
    if (bad) {
        json_object_put(obj);
        obj = NULL;
    }
    return scr_cli_json_print(obj, one_line);
}
