/* cached_ranks.c — a node's cached ranks and the survival of their sets. */
#include "cached_ranks.h"
#include "dataset.h"
#include "kvtree_util.h"
#include "meta.h"
#include "scr_err.h"
#include "util_log.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int scr_cached_read_filemaps(const char *dir, scr_filemap *map)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (errno == ENOENT) return SCR_SUCCESS; /* the node never reached SCR_Init */
        scr_err("cannot read directory %s: %s", dir, strerror(errno));
        return SCR_ERR_IO;
    }
    int rc = SCR_SUCCESS;
    for (struct dirent *e; rc == SCR_SUCCESS && (e = readdir(d)) != NULL;) {
        int n = 0, used = 0;
        if (sscanf(e->d_name, "filemap_%d.scrinfo%n", &n, &used) != 1 || e->d_name[used] != '\0')
            continue;
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path)) {
            scr_err("path too long: %s/%s", dir, e->d_name);
            rc = SCR_ERR_ARG;
            break;
        }
        rc = scr_filemap_read(path, map);
    }
    closedir(d);
    return rc;
}

int scr_cached_rank_is_intact(const scr_filemap *map, int id, int rank)
{
    const scr_dataset *desc = NULL;
    int complete = 0, expected = -1, nfiles = 0, ok = 1;
    if (scr_filemap_get_dataset(map, id, rank, &desc) != SCR_SUCCESS ||
        scr_dataset_get_complete(desc, &complete) != SCR_SUCCESS || !complete ||
        scr_filemap_get_expected_files(map, id, rank, &expected) != SCR_SUCCESS ||
        expected != scr_filemap_num_files(map, id, rank))
        return 0;
    const char **files = NULL;
    if (scr_filemap_list_files(map, id, rank, &files, &nfiles) != SCR_SUCCESS) return 0;
    for (int f = 0; ok && f < nfiles; f++) {
        const scr_meta *meta = NULL;
        uint64_t size = 0;
        struct stat st;
        /* a run killed in the middle of an encode leaves the redundancy file short or unlisted */
        ok = scr_filemap_get_meta(map, id, rank, files[f], &meta) == SCR_SUCCESS &&
             scr_meta_is_complete(meta) && scr_meta_get_filesize(meta, &size) == SCR_SUCCESS &&
             stat(files[f], &st) == 0 && (uint64_t)st.st_size == size;
    }
    free(files);
    return ok;
}

int scr_cached_set_survives(const scr_kvtree *red, const char *gone, int ranks, char *scheme,
                            size_t len)
{
    const char *type = "SINGLE";
    int failures = 0, hop = 1, size = 0;
    scr_kvtree_util_get_str(red, "TYPE", &type);
    scr_kvtree_util_get_int(red, "FAILURES", &failures);
    scr_kvtree_util_get_int(red, "HOP", &hop);
    scr_kvtree_util_get_int(red, "SET_SIZE", &size);
    if (scheme != NULL) snprintf(scheme, len, "%s", type);
    const scr_kvtree *members = scr_kvtree_get(red, "MEMBERS");
    if (size < 1 || members == NULL || hop < 1)
        return 0; /* a record we cannot judge: not counted on */
    int nlost = 0, partner_lost_too = 0;
    for (int i = 0; i < size; i++) {
        char key[16];
        int rank = -1, partner = -1;
        snprintf(key, sizeof(key), "%d", i);
        if (scr_kvtree_util_get_int(members, key, &rank) != SCR_SUCCESS || rank < 0 ||
            rank >= ranks)
            return 0;
        if (!gone[rank]) continue;
        nlost++;
        snprintf(key, sizeof(key), "%d", (i + hop) % size);
        if (scr_kvtree_util_get_int(members, key, &partner) == SCR_SUCCESS && partner >= 0 &&
            partner < ranks && gone[partner])
            partner_lost_too = 1;
    }
    if (nlost == 0) return 1;
    if (strcmp(type, "XOR") == 0) return nlost <= 1;
    if (strcmp(type, "RS") == 0) return nlost <= failures;
    if (strcmp(type, "PARTNER") == 0) return !partner_lost_too;
    return 0; /* SINGLE keeps no copy */
}
