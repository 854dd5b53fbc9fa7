/* crc_note.c — CRCs noted by a library thread until a rank records them (crc_note.h). */
#include "crc_note.h"

#include "kvtree_file.h"
#include "kvtree_util.h"
#include "meta.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTE_PREFIX "crc_"
#define NOTE_SUFFIX ".scrinfo"

int scr_crc_note_path(const char *cntl_dir, int node_rank, char **out_path)
{
    char name[64];
    snprintf(name, sizeof(name), NOTE_PREFIX "%d" NOTE_SUFFIX, node_rank);
    return scr_path_join(cntl_dir, name, out_path);
}

int scr_crc_note_add(scr_kvtree *note, int id, int rank, const char *file, uint32_t crc)
{
    scr_kvtree *t = scr_kvtree_set_kv_int(note, "DSET", id);
    t = t ? scr_kvtree_set_kv_int(t, "RANK", rank) : NULL;
    t = t ? scr_kvtree_set_kv(t, "FILE", file) : NULL;
    return t != NULL ? scr_kvtree_util_set_crc32(t, "CRC", crc) : SCR_ERR_NOMEM;
}

static int is_note_name(const char *name)
{
    size_t n = strlen(name), p = strlen(NOTE_PREFIX), s = strlen(NOTE_SUFFIX);
    return n > p + s && strncmp(name, NOTE_PREFIX, p) == 0 &&
           strcmp(name + n - s, NOTE_SUFFIX) == 0;
}

/* The CRC noted for file (held for rank in dataset id) into map, where a
 * complete file has none; 1 when taken. */
static int take_one(scr_filemap *map, int id, int rank, const char *file, const scr_kvtree *noted)
{
    const scr_meta *meta = NULL;
    uint32_t crc = 0, had = 0;
    if (scr_kvtree_util_get_crc32(noted, "CRC", &crc) != SCR_SUCCESS ||
        scr_filemap_get_meta(map, id, rank, file, &meta) != SCR_SUCCESS ||
        !scr_meta_is_complete(meta) || scr_meta_get_crc32(meta, &had) == SCR_SUCCESS)
        return 0;
    scr_meta *copy = scr_meta_new();
    int taken = copy != NULL && scr_meta_copy(copy, meta) == SCR_SUCCESS &&
                scr_meta_set_crc32(copy, crc) == SCR_SUCCESS &&
                scr_filemap_set_meta(map, id, rank, file, copy) == SCR_SUCCESS;
    scr_meta_delete(copy);
    return taken;
}

static int take_note(scr_filemap *map, const scr_kvtree *note)
{
    int taken = 0;
    for (scr_kvtree_elem *d = scr_kvtree_elem_first(scr_kvtree_get(note, "DSET")); d;
         d = scr_kvtree_elem_next(d))
        for (scr_kvtree_elem *r =
                 scr_kvtree_elem_first(scr_kvtree_get(scr_kvtree_elem_hash(d), "RANK"));
             r; r = scr_kvtree_elem_next(r))
            for (scr_kvtree_elem *f =
                     scr_kvtree_elem_first(scr_kvtree_get(scr_kvtree_elem_hash(r), "FILE"));
                 f; f = scr_kvtree_elem_next(f))
                taken += take_one(map, atoi(scr_kvtree_elem_key(d)), atoi(scr_kvtree_elem_key(r)),
                                  scr_kvtree_elem_key(f), scr_kvtree_elem_hash(f));
    return taken;
}

int scr_crc_note_take(const char *cntl_dir, scr_filemap *map, int remove)
{
    DIR *dir = opendir(cntl_dir);
    if (dir == NULL) return 0;
    int taken = 0;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        char *path = NULL;
        if (!is_note_name(ent->d_name) ||
            scr_path_join(cntl_dir, ent->d_name, &path) != SCR_SUCCESS)
            continue;
        scr_kvtree *note = scr_kvtree_new();
        int rc = note != NULL ? scr_kvtree_read_file(path, note) : SCR_ERR_NOMEM;
        if (rc == SCR_SUCCESS)
            taken += take_note(map, note);
        else if (rc != SCR_ERR_NOTFOUND)
            scr_warn("ignoring the CRCs noted in %s (%s)", path, scr_strstatus(rc));
        scr_kvtree_delete(note);
        if (remove && unlink(path) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", path, strerror(errno));
        free(path);
    }
    closedir(dir);
    return taken;
}
