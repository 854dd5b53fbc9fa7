/* util_undo.c — the files and directories an attempt created, taken back. */
#include "util_undo.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Append a copy of path to *list (n entries, room for *cap). */
static int push(char ***list, int *n, int *cap, const char *path)
{
    if (*n == *cap) {
        int want = *cap ? 2 * *cap : 16;
        char **grown = realloc(*list, sizeof(char *) * (size_t)want);
        if (grown == NULL) {
            scr_err("out of memory noting %s", path);
            return SCR_ERR_NOMEM;
        }
        *list = grown;
        *cap = want;
    }
    char *copy = strdup(path);
    if (copy == NULL) {
        scr_err("out of memory noting %s", path);
        return SCR_ERR_NOMEM;
    }
    (*list)[(*n)++] = copy;
    return SCR_SUCCESS;
}

int scr_undo_note_file(struct scr_undo *u, const char *path)
{
    return push(&u->files, &u->nfiles, &u->files_cap, path);
}

int scr_undo_note_missing_dirs(struct scr_undo *u, const char *dir)
{
    char *d = NULL;
    int rc = scr_path_normalize(dir, &d);
    struct stat st;
    while (rc == SCR_SUCCESS && strcmp(d, "/") != 0 && strcmp(d, ".") != 0 && lstat(d, &st) != 0 &&
           errno == ENOENT) {
        char *up = NULL;
        rc = push(&u->dirs, &u->ndirs, &u->dirs_cap, d);
        if (rc == SCR_SUCCESS) rc = scr_path_dirname(d, &up);
        free(d);
        d = up;
    }
    free(d);
    return rc;
}

void scr_undo_files(struct scr_undo *u, int *out_removed)
{
    *out_removed = 0;
    for (int i = u->nfiles - 1; i >= 0; i--) {
        if (unlink(u->files[i]) == 0)
            (*out_removed)++;
        else if (errno != ENOENT)
            scr_err("cannot remove %s: %s", u->files[i], strerror(errno));
    }
}

/* Longer paths first: a directory comes before its ancestors. */
static int deeper_first(const void *a, const void *b)
{
    size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
    return la < lb ? 1 : la > lb ? -1 : 0;
}

void scr_undo_dirs(struct scr_undo *u)
{
    if (u->ndirs > 1) qsort(u->dirs, (size_t)u->ndirs, sizeof(char *), deeper_first);
    for (int i = 0; i < u->ndirs; i++) rmdir(u->dirs[i]); /* fails when not empty: left alone */
}

void scr_undo_clear(struct scr_undo *u)
{
    for (int i = 0; i < u->nfiles; i++) free(u->files[i]);
    for (int i = 0; i < u->ndirs; i++) free(u->dirs[i]);
    free(u->files);
    free(u->dirs);
    *u = (struct scr_undo)SCR_UNDO_INIT;
}
