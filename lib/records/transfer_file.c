/* transfer_file.c — files, limits, command and state of the background flush. */
#include "transfer_file.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_FILES "FILES"
#define KEY_DESTINATION "DESTINATION"
#define KEY_SIZE "SIZE"
#define KEY_WRITTEN "WRITTEN"
#define KEY_PERCENT "PERCENT"
#define KEY_BW "BW"
#define KEY_COMMAND "COMMAND"
#define KEY_STATE "STATE"
#define KEY_FLAG "FLAG"
#define FLAG_DONE "DONE"

static const char *const command_names[] = {"RUN", "STOP", "EXIT"};
static const char *const state_names[] = {"RUNNING", "STOPPED"};
#define NCOMMANDS ((int)(sizeof(command_names) / sizeof(command_names[0])))
#define NSTATES ((int)(sizeof(state_names) / sizeof(state_names[0])))

const char *scr_transfer_command_name(enum scr_transfer_command command)
{
    if ((int)command < 0 || (int)command >= NCOMMANDS) return NULL;
    return command_names[command];
}

const char *scr_transfer_state_name(enum scr_transfer_state state)
{
    if ((int)state < 0 || (int)state >= NSTATES) return NULL;
    return state_names[state];
}

/* Index of text in names, -1 when absent. */
static int lookup(const char *const *names, int count, const char *text)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], text) == 0) return i;
    return -1;
}

/* --- files to copy ----------------------------------------------------------- */

static int check_path(const char *what, const char *path)
{
    if (path == NULL || path[0] != '/') {
        scr_err("transfer file: %s must be an absolute path, not '%s'", what,
                path ? path : "(null)");
        return SCR_ERR_ARG;
    }
    return SCR_SUCCESS;
}

int scr_transfer_file_add_file(scr_kvtree *transfer, const char *source, const char *destination,
                               uint64_t size)
{
    if (transfer == NULL) {
        scr_err("transfer file: adding a file without a tree");
        return SCR_ERR_ARG;
    }
    int rc = check_path("a source", source);
    if (rc == SCR_SUCCESS) rc = check_path("a destination", destination);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *files = scr_kvtree_get(transfer, KEY_FILES);
    if (files == NULL) files = scr_kvtree_set(transfer, KEY_FILES, NULL);
    scr_kvtree *entry = files ? scr_kvtree_set(files, source, NULL) : NULL; /* a fresh entry */
    if (entry == NULL) return SCR_ERR_NOMEM;
    rc = scr_kvtree_util_set_str(entry, KEY_DESTINATION, destination);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_util_set_uint64(entry, KEY_SIZE, size);
    return rc;
}

int scr_transfer_file_remove_file(scr_kvtree *transfer, const char *source)
{
    if (transfer == NULL || source == NULL) {
        scr_err("transfer file: removing a file without a tree or a source");
        return SCR_ERR_ARG;
    }
    scr_kvtree_unset_kv(transfer, KEY_FILES, source);
    return SCR_SUCCESS;
}

static const scr_kvtree *file_entry(const scr_kvtree *transfer, const char *source)
{
    return source ? scr_kvtree_get_kv(transfer, KEY_FILES, source) : NULL;
}

int scr_transfer_file_get_destination(const scr_kvtree *transfer, const char *source,
                                      const char **out_destination)
{
    const char *dest;
    if (out_destination == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = file_entry(transfer, source);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    int rc = scr_kvtree_util_get_str(entry, KEY_DESTINATION, &dest);
    if (rc != SCR_SUCCESS) return rc;
    if (dest[0] != '/') return SCR_ERR_TYPE;
    *out_destination = dest;
    return SCR_SUCCESS;
}

int scr_transfer_file_get_size(const scr_kvtree *transfer, const char *source, uint64_t *out_size)
{
    if (out_size == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = file_entry(transfer, source);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_uint64(entry, KEY_SIZE, out_size);
}

int scr_transfer_file_get_written(const scr_kvtree *transfer, const char *source,
                                  uint64_t *out_written)
{
    if (out_written == NULL) return SCR_ERR_ARG;
    const scr_kvtree *entry = file_entry(transfer, source);
    if (entry == NULL) return SCR_ERR_NOTFOUND;
    return scr_kvtree_util_get_uint64(entry, KEY_WRITTEN, out_written);
}

int scr_transfer_file_set_written(scr_kvtree *transfer, const char *source, uint64_t written)
{
    uint64_t size;
    scr_kvtree *entry = source ? scr_kvtree_get_kv(transfer, KEY_FILES, source) : NULL;
    if (entry == NULL) {
        scr_err("transfer file: progress for %s, which is not in the list",
                source ? source : "(null)");
        return SCR_ERR_NOTFOUND;
    }
    if (scr_kvtree_util_get_uint64(entry, KEY_SIZE, &size) != SCR_SUCCESS) {
        scr_err("transfer file: %s has no valid SIZE", source);
        return SCR_ERR_TYPE;
    }
    if (written > size) {
        scr_err("transfer file: %llu bytes written of %s, which has only %llu",
                (unsigned long long)written, source, (unsigned long long)size);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_uint64(entry, KEY_WRITTEN, written);
}

int scr_transfer_file_list_sources(const scr_kvtree *transfer, const char ***out_sources,
                                   int *out_count)
{
    if (out_sources == NULL || out_count == NULL) return SCR_ERR_ARG;
    const scr_kvtree *files = scr_kvtree_get(transfer, KEY_FILES);
    int count = scr_kvtree_size(files);
    const char **list = NULL;
    if (count > 0) {
        list = malloc(sizeof(*list) * (size_t)count);
        if (list == NULL) {
            scr_err("transfer file: out of memory listing %d files", count);
            return SCR_ERR_NOMEM;
        }
    }
    int n = 0;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(files); e; e = scr_kvtree_elem_next(e))
        list[n++] = scr_kvtree_elem_key(e);
    *out_sources = list;
    *out_count = n;
    return SCR_SUCCESS;
}

/* --- limits, command, state, flag --------------------------------------------- */

static int get_limit(const scr_kvtree *transfer, const char *key, double max, double *out)
{
    double v;
    int rc = scr_kvtree_util_get_double(transfer, key, &v);
    if (rc != SCR_SUCCESS) return rc;
    if (!(v >= 0.0 && v <= max)) return SCR_ERR_TYPE;
    *out = v;
    return SCR_SUCCESS;
}

static int set_limit(scr_kvtree *transfer, const char *key, double max, double value)
{
    if (transfer == NULL || !isfinite(value) || value < 0.0 || value > max) {
        scr_err("transfer file: %s cannot be %f", key, value);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_double(transfer, key, value);
}

int scr_transfer_file_set_percent(scr_kvtree *transfer, double percent)
{
    return set_limit(transfer, KEY_PERCENT, 100.0, percent);
}

int scr_transfer_file_get_percent(const scr_kvtree *transfer, double *out_percent)
{
    if (out_percent == NULL) return SCR_ERR_ARG;
    return get_limit(transfer, KEY_PERCENT, 100.0, out_percent);
}

int scr_transfer_file_set_bw(scr_kvtree *transfer, double bytes_per_second)
{
    return set_limit(transfer, KEY_BW, HUGE_VAL, bytes_per_second);
}

int scr_transfer_file_get_bw(const scr_kvtree *transfer, double *out_bytes_per_second)
{
    if (out_bytes_per_second == NULL) return SCR_ERR_ARG;
    return get_limit(transfer, KEY_BW, HUGE_VAL, out_bytes_per_second);
}

static int get_enum(const scr_kvtree *transfer, const char *key, const char *const *names,
                    int count, int *out)
{
    const char *text;
    int rc = scr_kvtree_util_get_str(transfer, key, &text);
    if (rc != SCR_SUCCESS) return rc;
    int i = lookup(names, count, text);
    if (i < 0) return SCR_ERR_TYPE;
    *out = i;
    return SCR_SUCCESS;
}

int scr_transfer_file_set_command(scr_kvtree *transfer, enum scr_transfer_command command)
{
    const char *name = scr_transfer_command_name(command);
    if (transfer == NULL || name == NULL) {
        scr_err("transfer file: unknown command %d", (int)command);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(transfer, KEY_COMMAND, name);
}

int scr_transfer_file_get_command(const scr_kvtree *transfer,
                                  enum scr_transfer_command *out_command)
{
    int i;
    if (out_command == NULL) return SCR_ERR_ARG;
    int rc = get_enum(transfer, KEY_COMMAND, command_names, NCOMMANDS, &i);
    if (rc == SCR_SUCCESS) *out_command = (enum scr_transfer_command)i;
    return rc;
}

int scr_transfer_file_set_state(scr_kvtree *transfer, enum scr_transfer_state state)
{
    const char *name = scr_transfer_state_name(state);
    if (transfer == NULL || name == NULL) {
        scr_err("transfer file: unknown state %d", (int)state);
        return SCR_ERR_ARG;
    }
    return scr_kvtree_util_set_str(transfer, KEY_STATE, name);
}

int scr_transfer_file_get_state(const scr_kvtree *transfer, enum scr_transfer_state *out_state)
{
    int i;
    if (out_state == NULL) return SCR_ERR_ARG;
    int rc = get_enum(transfer, KEY_STATE, state_names, NSTATES, &i);
    if (rc == SCR_SUCCESS) *out_state = (enum scr_transfer_state)i;
    return rc;
}

int scr_transfer_file_set_done(scr_kvtree *transfer)
{
    if (transfer == NULL) {
        scr_err("transfer file: setting DONE without a tree");
        return SCR_ERR_ARG;
    }
    return scr_kvtree_set_kv(transfer, KEY_FLAG, FLAG_DONE) ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

int scr_transfer_file_unset_done(scr_kvtree *transfer)
{
    if (transfer == NULL) {
        scr_err("transfer file: clearing DONE without a tree");
        return SCR_ERR_ARG;
    }
    scr_kvtree_unset_kv(transfer, KEY_FLAG, FLAG_DONE);
    return SCR_SUCCESS;
}

int scr_transfer_file_is_done(const scr_kvtree *transfer, int *out_flag)
{
    if (out_flag == NULL) return SCR_ERR_ARG;
    const scr_kvtree *flags = scr_kvtree_get(transfer, KEY_FLAG);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(flags); e; e = scr_kvtree_elem_next(e))
        if (strcmp(scr_kvtree_elem_key(e), FLAG_DONE) != 0) return SCR_ERR_TYPE;
    *out_flag = scr_kvtree_get(flags, FLAG_DONE) != NULL;
    return SCR_SUCCESS;
}

/* --- checks shared by reading and writing ------------------------------------ */

static int validate_entry(const char *origin, const scr_kvtree *transfer, const char *source)
{
    const scr_kvtree *entry = file_entry(transfer, source);
    char key[4096 + 64];
    const char *dest;
    uint64_t size, written;
    if (scr_transfer_file_get_destination(transfer, source, &dest) != SCR_SUCCESS) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_FILES, source, KEY_DESTINATION);
        return scr_record_bad_value(origin, key, scr_kvtree_get(entry, KEY_DESTINATION),
                                    "an absolute path");
    }
    if (scr_transfer_file_get_size(transfer, source, &size) != SCR_SUCCESS) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_FILES, source, KEY_SIZE);
        return scr_record_bad_value(origin, key, scr_kvtree_get(entry, KEY_SIZE),
                                    "a size in bytes");
    }
    int rc = scr_transfer_file_get_written(transfer, source, &written);
    if (rc == SCR_ERR_TYPE || (rc == SCR_SUCCESS && written > size)) {
        snprintf(key, sizeof(key), "%s %s %s", KEY_FILES, source, KEY_WRITTEN);
        return scr_record_bad_value(origin, key, scr_kvtree_get(entry, KEY_WRITTEN),
                                    "a byte count no larger than SIZE");
    }
    return SCR_SUCCESS;
}

static int validate(const char *origin, const scr_kvtree *transfer)
{
    const scr_kvtree *files = scr_kvtree_get(transfer, KEY_FILES);
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(files); e; e = scr_kvtree_elem_next(e)) {
        const char *source = scr_kvtree_elem_key(e);
        if (source[0] != '/')
            return scr_record_bad_key(origin, KEY_FILES, source, "absolute source paths");
        int rc = validate_entry(origin, transfer, source);
        if (rc != SCR_SUCCESS) return rc;
    }
    double limit;
    if (get_limit(transfer, KEY_PERCENT, 100.0, &limit) == SCR_ERR_TYPE)
        return scr_record_bad_value(origin, KEY_PERCENT, scr_kvtree_get(transfer, KEY_PERCENT),
                                    "a percentage from 0 to 100");
    if (get_limit(transfer, KEY_BW, HUGE_VAL, &limit) == SCR_ERR_TYPE)
        return scr_record_bad_value(origin, KEY_BW, scr_kvtree_get(transfer, KEY_BW),
                                    "bytes per second (0 or more)");
    int i;
    if (get_enum(transfer, KEY_COMMAND, command_names, NCOMMANDS, &i) == SCR_ERR_TYPE)
        return scr_record_bad_value(origin, KEY_COMMAND, scr_kvtree_get(transfer, KEY_COMMAND),
                                    "one of RUN, STOP, EXIT");
    if (get_enum(transfer, KEY_STATE, state_names, NSTATES, &i) == SCR_ERR_TYPE)
        return scr_record_bad_value(origin, KEY_STATE, scr_kvtree_get(transfer, KEY_STATE),
                                    "one of RUNNING, STOPPED");
    if (scr_transfer_file_is_done(transfer, &i) == SCR_ERR_TYPE)
        return scr_record_bad_value(origin, KEY_FLAG, scr_kvtree_get(transfer, KEY_FLAG), "DONE");
    return SCR_SUCCESS;
}

static const struct scr_record_kind transfer_kind = {
    .name = "transfer file",
    .version = SCR_TRANSFER_FILE_VERSION,
    .validate = validate,
    .lock_creates_dir = 0, /* the control directory exists before any flush */
};

/* --- the file ------------------------------------------------------------------- */

int scr_transfer_file_read(const char *path, scr_kvtree *transfer)
{
    if (path == NULL || transfer == NULL) {
        scr_err("transfer file: read called without a path or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_read_locked(&transfer_kind, path, transfer);
}

int scr_transfer_file_lock_read(const char *path, int *out_fd, scr_kvtree *transfer)
{
    if (path == NULL || out_fd == NULL || transfer == NULL) {
        scr_err("transfer file: lock called without a path, a descriptor or a tree");
        return SCR_ERR_ARG;
    }
    return scr_record_lock_read(&transfer_kind, path, out_fd, transfer);
}

int scr_transfer_file_write_unlock(const char *path, int *fd, const scr_kvtree *transfer)
{
    if (path == NULL || fd == NULL) {
        scr_err("transfer file: write called without a path or a descriptor");
        scr_kvtree_close_unlock(fd);
        return SCR_ERR_ARG;
    }
    return scr_record_write_unlock(&transfer_kind, path, fd, transfer);
}

void scr_transfer_file_unlock(int *fd)
{
    scr_kvtree_close_unlock(fd);
}
