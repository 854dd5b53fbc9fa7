/* dataset_claim.c — a dataset directory on the prefix belongs to one dataset. */
#include "dataset_claim.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "record.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int scr_dataset_claim_same(const scr_dataset *a, const scr_dataset *b)
{
    const char *ja = NULL, *jb = NULL, *na = NULL, *nb = NULL;
    int64_t ca = -1, cb = -2;
    int ia = -1, ib = -2;
    scr_dataset_get_jobid(a, &ja);
    scr_dataset_get_jobid(b, &jb);
    scr_dataset_get_name(a, &na);
    scr_dataset_get_name(b, &nb);
    scr_dataset_get_created(a, &ca);
    scr_dataset_get_created(b, &cb);
    scr_dataset_get_id(a, &ia);
    scr_dataset_get_id(b, &ib);
    return ia == ib && ca == cb && ja != NULL && jb != NULL && strcmp(ja, jb) == 0 && na != NULL &&
           nb != NULL && strcmp(na, nb) == 0;
}

/* The claim that is there already: ours, or someone else's (logged). */
static int check_existing(const char *path, const scr_dataset *desc)
{
    scr_kvtree *there = scr_kvtree_new();
    if (there == NULL) return SCR_ERR_NOMEM;
    int rc = scr_kvtree_read_file(path, there);
    if (rc == SCR_SUCCESS && !scr_dataset_claim_same(there, desc)) {
        const char *name = "?", *jobid = "?", *our_name = "?", *our_job = "?";
        scr_dataset_get_name(there, &name);
        scr_dataset_get_jobid(there, &jobid);
        scr_dataset_get_name(desc, &our_name);
        scr_dataset_get_jobid(desc, &our_job);
        scr_err("%s: this dataset directory belongs to %s of job %s, so %s of job %s is not "
                "flushed there: two "
                "jobs write to one prefix",
                path, name, jobid, our_name, our_job);
        rc = SCR_ERR_STATE;
    }
    scr_kvtree_delete(there);
    return rc;
}

int scr_dataset_claim(const char *dir, const scr_dataset *desc, int *out_created)
{
    *out_created = 0;
    char *path = NULL, tmp_name[64], *tmp = NULL;
    snprintf(tmp_name, sizeof(tmp_name), "%s.%ld.tmp", SCR_DATASET_CLAIM_NAME, (long)getpid());
    int rc = scr_path_join(dir, SCR_DATASET_CLAIM_NAME, &path);
    if (rc == SCR_SUCCESS) rc = scr_path_join(dir, tmp_name, &tmp);
    if (rc == SCR_SUCCESS) rc = scr_kvtree_write_file(tmp, desc);
    if (rc == SCR_SUCCESS) {
        /* link() puts the complete file in place, or fails when a claim is there */
        if (link(tmp, path) == 0) {
            *out_created = 1;
        } else {
            if (errno == EEXIST) {
                rc = check_existing(path, desc);
            } else {
                scr_err("cannot claim %s: link %s: %s", dir, path, strerror(errno));
                rc = SCR_ERR_IO;
            }
        }
        if (unlink(tmp) != 0 && errno != ENOENT)
            scr_warn("cannot remove %s: %s", tmp, strerror(errno));
    }
    free(tmp);
    free(path);
    return rc;
}

#define DIR_PREFIX "scr.dataset."

int scr_dataset_dir_name_id(const char *name, int *out_id)
{
    size_t n = strlen(DIR_PREFIX);
    if (strncmp(name, DIR_PREFIX, n) != 0 || scr_record_key_int(name + n, 1, out_id) != SCR_SUCCESS)
        return SCR_ERR_NOTFOUND;
    return SCR_SUCCESS;
}

/* The name a deletion gives a dataset directory (prefix_trim.h, a layer
 * above): "scr.deleting.<id>" or "scr.deleting.<id>.<n>". */
#define TRASH_PREFIX "scr.deleting."

static int trash_name_id(const char *name, int *out_id)
{
    size_t n = strlen(TRASH_PREFIX);
    char digits[16];
    if (strncmp(name, TRASH_PREFIX, n) != 0) return SCR_ERR_NOTFOUND;
    size_t len = strcspn(name + n, ".");
    if (len == 0 || len >= sizeof(digits)) return SCR_ERR_NOTFOUND;
    memcpy(digits, name + n, len);
    digits[len] = '\0';
    return scr_record_key_int(digits, 1, out_id) == SCR_SUCCESS ? SCR_SUCCESS : SCR_ERR_NOTFOUND;
}

int scr_dataset_claim_highest_id(const char *prefix, int *out_id)
{
    char *dir = NULL;
    *out_id = 0;
    int rc = scr_path_join(prefix, ".scr", &dir);
    if (rc != SCR_SUCCESS) return rc;
    DIR *d = opendir(dir);
    if (d == NULL) {
        rc = errno == ENOENT ? SCR_SUCCESS : SCR_ERR_IO;
        if (rc != SCR_SUCCESS) scr_err("cannot read %s: %s", dir, strerror(errno));
        free(dir);
        return rc;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int id = 0;
        if ((scr_dataset_dir_name_id(e->d_name, &id) == SCR_SUCCESS ||
             trash_name_id(e->d_name, &id) == SCR_SUCCESS) &&
            id > *out_id)
            *out_id = id;
    }
    closedir(d);
    free(dir);
    return SCR_SUCCESS;
}
