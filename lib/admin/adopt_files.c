/* adopt_files.c — walk a directory to adopt, refusing what a restart could not read. */
#include "adopt_files.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct walk {
    const char *top; /* the adopted directory */
    const char *prefix_real;
    char *scr_real; /* <prefix>/.scr: never adopted */
    struct scr_adopt_list *list;
    int refused; /* entries refused so far */
};

static int add_file(struct scr_adopt_list *list, const char *rel)
{
    char *copy = strdup(rel);
    if (copy == NULL) {
        scr_err("out of memory listing the files to adopt");
        return SCR_ERR_NOMEM;
    }
    struct scr_adopt_file *f =
        scr_strbuf_append_space(&list->mem, sizeof(*f)); /* says so when it cannot */
    if (f == NULL) {
        free(copy);
        return SCR_ERR_NOMEM;
    }
    list->files =
        (struct scr_adopt_file *)(void *)list->mem.buf; /* malloc'ed: aligned for any type */
    f->rel = copy;
    f->rank = -1;
    f->size = 0;
    f->crc = 0;
    list->n++;
    return SCR_SUCCESS;
}

/* Whether the caller can read path (opening it proves what access() only guesses). */
static int readable(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        scr_err("cannot adopt %s: it cannot be read: %s", path, strerror(errno));
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        scr_err("cannot adopt %s: it is not a regular file", path);
        close(fd);
        return 0;
    }
    close(fd);
    return 1;
}

/* A symbolic link at path: always refused, since the library opens the
 * files of a dataset without following links; says why, and what the link
 * leads to, so that the user knows what to put there instead. */
static void refuse_link(const struct walk *w, const char *path)
{
    struct stat st;
    char real[PATH_MAX];
    int inside = 0, in_scr = 0;
    if (stat(path, &st) != 0) {
        scr_err("cannot adopt %s: a symbolic link to nothing (%s)", path, strerror(errno));
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        scr_err("cannot adopt %s: a symbolic link to a directory (not followed; adopt that "
                "directory, or "
                "copy its files here)",
                path);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        scr_err("cannot adopt %s: a symbolic link to something other than a regular file", path);
        return;
    }
    if (realpath(path, real) == NULL) {
        scr_err("cannot adopt %s: cannot resolve the symbolic link: %s", path, strerror(errno));
        return;
    }
    if (scr_path_is_inside(w->prefix_real, real, &inside) != SCR_SUCCESS ||
        scr_path_is_inside(w->scr_real, real, &in_scr) != SCR_SUCCESS)
        return;
    if (!inside || in_scr) {
        scr_err("cannot adopt %s: a symbolic link to %s, %s", path, real,
                inside ? "which is in the prefix's .scr directory" : "which is outside the prefix");
        return;
    }
    scr_err("cannot adopt %s: a symbolic link to %s; a checkpoint's files are never read through a "
            "link "
            "(put the file itself there)",
            path, real);
}

static int walk_dir(struct walk *w, const char *rel);

/* One entry of a directory: rel is its path below the top directory. */
static int walk_entry(struct walk *w, const char *rel)
{
    char *path = NULL;
    struct stat st;
    int rc = scr_path_join(w->top, rel, &path);
    if (rc != SCR_SUCCESS) return rc;
    if (lstat(path, &st) != 0) {
        scr_err("cannot adopt %s: %s", path, strerror(errno));
        w->refused++;
    } else if (S_ISDIR(st.st_mode)) {
        rc = walk_dir(w, rel);
    } else if (S_ISLNK(st.st_mode)) {
        refuse_link(w, path);
        w->refused++;
    } else if (S_ISREG(st.st_mode)) {
        if (readable(path))
            rc = add_file(w->list, rel);
        else
            w->refused++;
    } else {
        scr_err("cannot adopt %s: not a regular file (a device, socket or FIFO)", path);
        w->refused++;
    }
    free(path);
    return rc;
}

static int walk_dir(struct walk *w, const char *rel)
{
    char *path = NULL;
    int rc = scr_path_join(w->top, rel, &path); /* rel "" is the top itself */
    if (rc != SCR_SUCCESS) return rc;
    DIR *d = opendir(path);
    if (d == NULL) {
        scr_err("cannot read the directory %s: %s", path, strerror(errno));
        free(path);
        return SCR_ERR_IO;
    }
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (e == NULL) {
            if (errno != 0) {
                scr_err("cannot read the directory %s: %s", path, strerror(errno));
                rc = SCR_ERR_IO;
            }
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char *child = NULL;
        rc = scr_path_join(rel, e->d_name, &child);
        if (rc == SCR_SUCCESS) rc = walk_entry(w, child);
        free(child);
        if (rc != SCR_SUCCESS) break;
    }
    closedir(d);
    free(path);
    return rc;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const struct scr_adopt_file *)a)->rel, ((const struct scr_adopt_file *)b)->rel);
}

int scr_adopt_files_list(const char *dir, const char *prefix_real, struct scr_adopt_list *out)
{
    memset(out, 0, sizeof(*out));
    struct walk w = {dir, prefix_real, NULL, out, 0};
    int rc = scr_path_join(prefix_real, ".scr", &w.scr_real);
    if (rc == SCR_SUCCESS) rc = walk_dir(&w, "");
    if (rc == SCR_SUCCESS && w.refused > 0) {
        scr_err("%s: %d entr%s cannot be adopted (named above)", dir, w.refused,
                w.refused == 1 ? "y" : "ies");
        rc = SCR_ERR_ARG;
    }
    free(w.scr_real);
    if (rc != SCR_SUCCESS)
        scr_adopt_list_free(out);
    else if (out->n > 1)
        qsort(out->files, (size_t)out->n, sizeof(*out->files), by_rel);
    return rc;
}

void scr_adopt_list_free(struct scr_adopt_list *list)
{
    for (int i = 0; i < list->n; i++) free(list->files[i].rel);
    scr_strbuf_free(&list->mem);
    memset(list, 0, sizeof(*list));
}
