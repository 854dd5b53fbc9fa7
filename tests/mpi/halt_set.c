/* halt_set.c — set conditions in a prefix's halt file, for the MPI tests.
 *
 *   halt_set PREFIX KEY=VALUE...
 *
 * KEY is one of CheckpointsLeft, ExitAfter, ExitBefore, HaltSeconds (whole
 * numbers; times in seconds since the epoch) or ExitReason (text); an empty
 * VALUE removes the key. The change is one locked read-modify-write of
 * <PREFIX>/.scr/halt.scr through lib/records/halt_file.h, as a halt command would do
 * it. Exit status 0 on success, 1 on an error (said on stderr), 2 for usage. */
#include "halt_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: halt_set PREFIX KEY=VALUE...\n"
                    "  KEY: CheckpointsLeft ExitAfter ExitBefore HaltSeconds ExitReason\n");
    return 2;
}

/* value as a whole number >= 0; -1 when it is not one. */
static long long whole_number(const char *value)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < 0) return -1;
    return v;
}

/* Apply one KEY=VALUE to halt; SCR_ERR_ARG for an unknown key or bad value. */
static int apply(scr_kvtree *halt, const char *key, const char *value)
{
    if (strcmp(key, "ExitReason") == 0)
        return value[0] ? scr_halt_file_set_exit_reason(halt, value)
                        : scr_halt_file_unset_exit_reason(halt);
    static const struct {
        const char *key;
        int (*set)(scr_kvtree *, int64_t);
        int (*unset)(scr_kvtree *);
    } numbers[] = {
        {"ExitAfter", scr_halt_file_set_exit_after, scr_halt_file_unset_exit_after},
        {"ExitBefore", scr_halt_file_set_exit_before, scr_halt_file_unset_exit_before},
        {"HaltSeconds", scr_halt_file_set_halt_seconds, scr_halt_file_unset_halt_seconds},
    };
    long long v = value[0] ? whole_number(value) : 0;
    if (v < 0) {
        fprintf(stderr, "halt_set: %s=%s: expected a whole number of at least 0\n", key, value);
        return SCR_ERR_ARG;
    }
    if (strcmp(key, "CheckpointsLeft") == 0) {
        if (!value[0]) return scr_halt_file_unset_checkpoints_left(halt);
        if (v > 0x7fffffff) return SCR_ERR_ARG;
        return scr_halt_file_set_checkpoints_left(halt, (int)v);
    }
    for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
        if (strcmp(key, numbers[i].key) == 0)
            return value[0] ? numbers[i].set(halt, (int64_t)v) : numbers[i].unset(halt);
    fprintf(stderr, "halt_set: unknown key %s\n", key);
    return SCR_ERR_ARG;
}

int main(int argc, char **argv)
{
    if (argc < 3) return usage();
    scr_log_set_prefix("halt_set");
    char *path = NULL;
    if (scr_halt_file_path(argv[1], &path) != SCR_SUCCESS) return 1;
    scr_kvtree *halt = scr_kvtree_new();
    int fd = -1;
    int rc = halt ? scr_halt_file_lock_read(path, &fd, halt) : SCR_ERR_NOMEM;
    for (int i = 2; rc == SCR_SUCCESS && i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL || (size_t)(eq - argv[i]) >= sizeof(key)) {
            fprintf(stderr, "halt_set: expected KEY=VALUE, got '%s'\n", argv[i]);
            rc = SCR_ERR_ARG;
            break;
        }
        memcpy(key, argv[i], (size_t)(eq - argv[i]));
        key[eq - argv[i]] = '\0';
        rc = apply(halt, key, eq + 1);
    }
    if (fd >= 0) {
        if (rc == SCR_SUCCESS)
            rc = scr_halt_file_write_unlock(path, &fd, halt);
        else
            scr_halt_file_unlock(&fd);
    }
    scr_kvtree_delete(halt);
    free(path);
    return rc == SCR_SUCCESS ? 0 : 1;
}
