/* halt_file.c — halt conditions, their locked updates and the halt decision. */
#include "halt_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define KEY_CHECKPOINTS_LEFT "CheckpointsLeft"
#define KEY_EXIT_AFTER "ExitAfter"
#define KEY_EXIT_BEFORE "ExitBefore"
#define KEY_HALT_SECONDS "HaltSeconds"
#define KEY_EXIT_REASON "ExitReason"

int scr_halt_file_path(const char *prefix, char **out_path)
{
    if (prefix == NULL || prefix[0] == '\0') {
        scr_err("halt file: no prefix directory given");
        return SCR_ERR_ARG;
    }
    return scr_path_join(prefix, ".scr/halt.scr", out_path);
}

/* --- typed values ----------------------------------------------------------- */

/* The keys with a number, their range and how a message describes them. */
static const struct {
    const char *key;
    int64_t max;
    const char *expected;
} number_keys[] = {
    {KEY_CHECKPOINTS_LEFT, INT_MAX, "a count of checkpoints (0 or more)"},
    {KEY_EXIT_AFTER, INT64_MAX, "a time in seconds since the epoch"},
    {KEY_EXIT_BEFORE, INT64_MAX, "a time in seconds since the epoch"},
    {KEY_HALT_SECONDS, INT64_MAX, "a number of seconds (0 or more)"},
};
#define NNUMBER_KEYS (sizeof(number_keys) / sizeof(number_keys[0]))

static int get_number(const scr_kvtree *halt, const char *key, int64_t max, int64_t *out)
{
    int64_t v;
    int rc = scr_kvtree_util_get_int64(halt, key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (v < 0 || v > max) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

static int set_number(scr_kvtree *halt, const char *key, int64_t max, int64_t value)
{
    if (halt == NULL) {
        scr_err("halt file: setting %s without a tree", key);
        return SCR_ERR_ARG;
    }
    if (value < 0 || value > max) {
        scr_err("halt file: %s cannot be %lld", key, (long long)value);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_int64(halt, key, value);
}

static int unset_key(scr_kvtree *halt, const char *key)
{
    if (halt == NULL) {
        scr_err("halt file: clearing %s without a tree", key);
        return SCR_ERR_ARG;
    }
    scr_kvtree_unset(halt, key);
    return SCR_SUCCESS;
}

static int get_reason(const scr_kvtree *halt, const char **out)
{
    const char *reason;
    int rc = scr_kvtree_util_get_str(halt, KEY_EXIT_REASON, &reason);
    if (rc != SCR_SUCCESS) return rc;
    if (reason[0] == '\0') return SCR_ERR_TYPE;
    *out = reason;
    return SCR_SUCCESS;
}

int scr_halt_file_set_checkpoints_left(scr_kvtree *halt, int count)
{
    return set_number(halt, KEY_CHECKPOINTS_LEFT, INT_MAX, count);
}

int scr_halt_file_get_checkpoints_left(const scr_kvtree *halt, int *out_count)
{
    int64_t v;
    if (out_count == NULL) return SCR_ERR_ARG;
    int rc = get_number(halt, KEY_CHECKPOINTS_LEFT, INT_MAX, &v);
    if (rc == SCR_SUCCESS) *out_count = (int)v;
    return rc;
}

int scr_halt_file_unset_checkpoints_left(scr_kvtree *halt)
{
    return unset_key(halt, KEY_CHECKPOINTS_LEFT);
}

int scr_halt_file_set_exit_after(scr_kvtree *halt, int64_t seconds)
{
    return set_number(halt, KEY_EXIT_AFTER, INT64_MAX, seconds);
}

int scr_halt_file_get_exit_after(const scr_kvtree *halt, int64_t *out_seconds)
{
    if (out_seconds == NULL) return SCR_ERR_ARG;
    return get_number(halt, KEY_EXIT_AFTER, INT64_MAX, out_seconds);
}

int scr_halt_file_unset_exit_after(scr_kvtree *halt)
{
    return unset_key(halt, KEY_EXIT_AFTER);
}

int scr_halt_file_set_exit_before(scr_kvtree *halt, int64_t seconds)
{
    return set_number(halt, KEY_EXIT_BEFORE, INT64_MAX, seconds);
}

int scr_halt_file_get_exit_before(const scr_kvtree *halt, int64_t *out_seconds)
{
    if (out_seconds == NULL) return SCR_ERR_ARG;
    return get_number(halt, KEY_EXIT_BEFORE, INT64_MAX, out_seconds);
}

int scr_halt_file_unset_exit_before(scr_kvtree *halt)
{
    return unset_key(halt, KEY_EXIT_BEFORE);
}

int scr_halt_file_set_halt_seconds(scr_kvtree *halt, int64_t seconds)
{
    return set_number(halt, KEY_HALT_SECONDS, INT64_MAX, seconds);
}

int scr_halt_file_get_halt_seconds(const scr_kvtree *halt, int64_t *out_seconds)
{
    if (out_seconds == NULL) return SCR_ERR_ARG;
    return get_number(halt, KEY_HALT_SECONDS, INT64_MAX, out_seconds);
}

int scr_halt_file_unset_halt_seconds(scr_kvtree *halt)
{
    return unset_key(halt, KEY_HALT_SECONDS);
}

int scr_halt_file_set_exit_reason(scr_kvtree *halt, const char *reason)
{
    if (halt == NULL || reason == NULL || reason[0] == '\0') {
        scr_err("halt file: an exit reason must be a non-empty text");
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(halt, KEY_EXIT_REASON, reason);
}

int scr_halt_file_get_exit_reason(const scr_kvtree *halt, const char **out_reason)
{
    if (out_reason == NULL) return SCR_ERR_ARG;
    return get_reason(halt, out_reason);
}

int scr_halt_file_unset_exit_reason(scr_kvtree *halt)
{
    return unset_key(halt, KEY_EXIT_REASON);
}

/* --- checks shared by reading and writing ---------------------------------- */

/* Every key we know holds a value of its type; origin names the file. */
static int validate(const char *origin, const scr_kvtree *halt, int code)
{
    for (size_t i = 0; i < NNUMBER_KEYS; i++) {
        int64_t v;
        if (get_number(halt, number_keys[i].key, number_keys[i].max, &v) == SCR_ERR_TYPE) {
            scr_record_bad_value(origin, number_keys[i].key,
                                 scr_kvtree_get(halt, number_keys[i].key), number_keys[i].expected);
            return code;
        }
    }
    const char *reason;
    if (get_reason(halt, &reason) == SCR_ERR_TYPE) {
        scr_record_bad_value(origin, KEY_EXIT_REASON, scr_kvtree_get(halt, KEY_EXIT_REASON),
                             "a single non-empty reason");
        return code;
    }
    return SCR_SUCCESS;
}

/* Reading refuses what validate flags as damaged input. */
static int validate_read(const char *file, const scr_kvtree *halt)
{
    return validate(file, halt, SCR_ERR_FORMAT);
}

static const struct scr_record_kind halt_kind = {
    .name = "halt file",
    .version = SCR_HALT_FILE_VERSION,
    .validate = validate_read,
    .lock_creates_dir = 1,
};

/* --- the file ----------------------------------------------------------------- */

int scr_halt_file_read(const char *path, scr_kvtree *halt)
{
    if (path == NULL || halt == NULL) {
        scr_err("halt file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_read_locked(&halt_kind, path, halt);
}

int scr_halt_file_lock_read(const char *path, int *out_fd, scr_kvtree *halt)
{
    if (path == NULL || out_fd == NULL || halt == NULL) {
        scr_err("halt file: lock called without a path, a descriptor or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_lock_read(&halt_kind, path, out_fd, halt);
}

int scr_halt_file_write_unlock(const char *path, int *fd, const scr_kvtree *halt)
{
    if (path == NULL || fd == NULL) {
        scr_err("halt file: write called without a path or a descriptor");
        scr_kvtree_close_unlock(fd);
        return SCR_ERR_ARG;
    }
    return scr_record_write_unlock(&halt_kind, path, fd, halt);
}

void scr_halt_file_unlock(int *fd)
{
    scr_kvtree_close_unlock(fd);
}

int scr_halt_file_decrement_checkpoints_left(const char *path, int *out_left)
{
    if (path == NULL || out_left == NULL) {
        scr_err("halt file: decrement called without a path or a result");
        return SCR_ERR_ARG;
    }
    /* no file, no count: do not create one just to find that out */
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) {
            *out_left = -1;
            return SCR_SUCCESS;
        }
        scr_err("stat of %s failed: %s", path, strerror(errno));
        return SCR_ERR_IO;
    }
    scr_kvtree *halt = scr_kvtree_new();
    if (halt == NULL) return SCR_ERR_NOMEM;
    int fd = -1;
    int rc = scr_halt_file_lock_read(path, &fd, halt);
    if (rc != SCR_SUCCESS) {
        scr_kvtree_delete(halt);
        return rc;
    }
    int left;
    if (scr_halt_file_get_checkpoints_left(halt, &left) != SCR_SUCCESS) {
        /* validated on reading, so the count is simply absent */
        scr_halt_file_unlock(&fd);
        scr_kvtree_delete(halt);
        *out_left = -1;
        return SCR_SUCCESS;
    }
    if (left > 0) left--;
    rc = scr_halt_file_set_checkpoints_left(halt, left);
    if (rc == SCR_SUCCESS) {
        rc = scr_halt_file_write_unlock(path, &fd, halt);
    } else {
        scr_halt_file_unlock(&fd);
    }
    scr_kvtree_delete(halt);
    if (rc == SCR_SUCCESS) *out_left = left;
    return rc;
}

/* --- decisions ------------------------------------------------------------- */

const char *scr_halt_file_cause_text(enum scr_halt_file_cause cause)
{
    switch (cause) {
    case SCR_HALT_NONE: return "no halt condition holds";
    case SCR_HALT_EXIT_REASON: return "an exit reason is set";
    case SCR_HALT_CHECKPOINTS: return "no checkpoints left";
    case SCR_HALT_EXIT_AFTER: return "ExitAfter time reached";
    case SCR_HALT_EXIT_BEFORE: return "within HaltSeconds of the ExitBefore time";
    case SCR_HALT_ALLOCATION_END: return "within SCR_HALT_SECONDS of the allocation's end";
    }
    return "unknown halt cause";
}

/* The first condition that holds at now (the order of enum scr_halt_file_cause);
 * the margin before ExitBefore and the allocation's end is the file's
 * HaltSeconds, else default_margin (*out_margin_name says which). */
static int find_cause(const scr_kvtree *halt, int64_t now, int64_t default_margin, int64_t end_time,
                      enum scr_halt_file_cause *out_cause, int64_t *out_margin,
                      const char **out_margin_name, const char **out_reason)
{
    int rc = validate("halt conditions", halt, SCR_ERR_TYPE);
    if (rc != SCR_SUCCESS) return rc;
    int64_t margin = default_margin, t = 0;
    int left = 0;
    *out_margin_name = "SCR_HALT_SECONDS";
    if (scr_halt_file_get_halt_seconds(halt, &margin) == SCR_SUCCESS)
        *out_margin_name = "HaltSeconds";
    *out_margin = margin;
    *out_cause = SCR_HALT_NONE;
    if (get_reason(halt, out_reason) == SCR_SUCCESS &&
        strcmp(*out_reason, SCR_HALT_REASON_FINALIZE) != 0)
        *out_cause = SCR_HALT_EXIT_REASON;
    else if (scr_halt_file_get_checkpoints_left(halt, &left) == SCR_SUCCESS && left <= 0)
        *out_cause = SCR_HALT_CHECKPOINTS;
    else if (scr_halt_file_get_exit_after(halt, &t) == SCR_SUCCESS && now >= t)
        *out_cause = SCR_HALT_EXIT_AFTER;
    else if (scr_halt_file_get_exit_before(halt, &t) == SCR_SUCCESS && now >= t - margin)
        *out_cause = SCR_HALT_EXIT_BEFORE;
    else if (margin > 0 && end_time > 0 && now >= end_time - margin)
        *out_cause = SCR_HALT_ALLOCATION_END;
    return SCR_SUCCESS;
}

int scr_halt_file_should_halt(const scr_kvtree *halt, int64_t now,
                              enum scr_halt_file_cause *out_cause)
{
    if (out_cause == NULL) return SCR_ERR_ARG;
    int64_t margin;
    const char *margin_name, *reason;
    return find_cause(halt, now, 0, 0, out_cause, &margin, &margin_name, &reason);
}

int scr_halt_file_explain(const scr_kvtree *halt, int64_t now, int64_t default_margin,
                          int64_t end_time, int *out_halt, char *why, size_t why_len)
{
    if (out_halt == NULL || why == NULL) return SCR_ERR_ARG;
    enum scr_halt_file_cause cause;
    int64_t margin;
    const char *margin_name, *reason = NULL;
    int rc =
        find_cause(halt, now, default_margin, end_time, &cause, &margin, &margin_name, &reason);
    if (rc != SCR_SUCCESS) return rc;
    *out_halt = cause != SCR_HALT_NONE;
    switch (cause) {
    case SCR_HALT_NONE:
        if (why_len > 0) why[0] = '\0';
        break;
    case SCR_HALT_EXIT_REASON: snprintf(why, why_len, "halt file reason: %s", reason); break;
    case SCR_HALT_CHECKPOINTS:
        snprintf(why, why_len, "no checkpoints left (CheckpointsLeft 0)");
        break;
    case SCR_HALT_EXIT_AFTER:
        snprintf(why, why_len, "the time to exit after (ExitAfter) has passed");
        break;
    case SCR_HALT_EXIT_BEFORE:
        snprintf(why, why_len, "the time to exit before (ExitBefore) is within %s (%lld s)",
                 margin_name, (long long)margin);
        break;
    case SCR_HALT_ALLOCATION_END:
        snprintf(why, why_len, "the allocation ends within %s (%lld s)", margin_name,
                 (long long)margin);
        break;
    }
    return SCR_SUCCESS;
}

int scr_halt_file_finalize_called(const scr_kvtree *halt, int *out_flag)
{
    if (out_flag == NULL) return SCR_ERR_ARG;
    const char *reason;
    int rc = get_reason(halt, &reason);
    if (rc == SCR_ERR_TYPE) {
        scr_record_bad_value("halt conditions", KEY_EXIT_REASON,
                             scr_kvtree_get(halt, KEY_EXIT_REASON), "a single non-empty reason");
        return rc;
    }
    *out_flag = rc == SCR_SUCCESS && strcmp(reason, SCR_HALT_REASON_FINALIZE) == 0;
    return SCR_SUCCESS;
}
