/* reddesc.c — redundancy descriptors and sets across failure groups. */
#include "reddesc.h"
#include "kvtree_util.h"
#include "mpi_comm.h"
#include "mpi_split.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const type_names[] = {"SINGLE", "PARTNER", "XOR", "RS"};

const char *scr_copy_type_name(enum scr_copy_type type)
{
    return (type >= SCR_COPY_SINGLE && type <= SCR_COPY_RS) ? type_names[type] : NULL;
}

static int parse_type(const char *text, enum scr_copy_type *out)
{
    for (int i = 0; i <= SCR_COPY_RS; i++) {
        if (text != NULL && strcasecmp(text, type_names[i]) == 0) {
            *out = (enum scr_copy_type)i;
            return SCR_SUCCESS;
        }
    }
    return SCR_ERR_FORMAT;
}

/* The name of this rank's failure group for group. */
static int group_value(const scr_config *cfg, const char *group, const char *node, char *buf,
                       size_t len)
{
    if (strcmp(group, "NODE") == 0) {
        snprintf(buf, len, "%s", node);
    } else if (strcmp(group, "WORLD") == 0) {
        snprintf(buf, len, "WORLD");
    } else {
        const char *v = NULL;
        const scr_kvtree *hosts = scr_config_table(cfg, "GROUPS");
        if (scr_kvtree_util_get_str(scr_kvtree_get(hosts, node), group, &v) == SCR_SUCCESS) {
            snprintf(buf, len, "%s=%s", group, v);
        } else {
            /* an unlisted host shares its failure group with no one */
            snprintf(buf, len, "%s:host=%s", group, node);
            if (hosts == NULL) return SCR_ERR_NOTFOUND;
        }
    }
    return SCR_SUCCESS;
}

/* Fill the set fields from an existing set communicator. */
static int describe_set(struct scr_reddesc *d, MPI_Comm world)
{
    int me;
    int rc = scr_mpi_check(MPI_Comm_rank(world, &me), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_rank(d->set, &d->set_rank), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_mpi_check(MPI_Comm_size(d->set, &d->set_size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    d->members = malloc((size_t)d->set_size * sizeof(int));
    if (d->members == NULL) {
        scr_err("out of memory describing a redundancy set");
        return SCR_ERR_NOMEM;
    }
    rc = scr_mpi_check(MPI_Allgather(&me, 1, MPI_INT, d->members, 1, MPI_INT, d->set),
                       "listing the members of a redundancy set");
    d->set_id = INT_MAX;
    for (int i = 0; rc == SCR_SUCCESS && i < d->set_size; i++)
        if (d->members[i] < d->set_id) d->set_id = d->members[i];
    return rc;
}

/* The rank of world rank me among the ranks at the same position grank of
 * their failure groups (in world order), how many there are, and the
 * largest group's size. With few ranks to a group, a scan over world
 * counts them (mpi_split.h); with many, a communicator of the position
 * does (*out_level, freed by the caller), which costs a split of world but
 * no vector as long as the largest group. Collective. */
#define COUNT_BY_SCAN_MOST 256
static int level_position(MPI_Comm world, int me, int grank, int gsize, int *out_lrank,
                          int *out_lsize, int *out_most, MPI_Comm *out_level)
{
    int rc = scr_mpi_check(MPI_Allreduce(&gsize, out_most, 1, MPI_INT, MPI_MAX, world),
                           "sizing failure groups");
    if (rc != SCR_SUCCESS) return rc;
    if (*out_most <= COUNT_BY_SCAN_MOST)
        return scr_comm_rank_in_class(world, grank, *out_most, out_lrank, out_lsize);
    rc = scr_comm_split(world, grank, me, out_level, "grouping ranks across failure groups");
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Comm_rank(*out_level, out_lrank), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Comm_size(*out_level, out_lsize), "MPI_Comm_size");
    return rc;
}

/* d->set from the failure group gname of world rank me: same position in
 * their failure group, split into consecutive blocks of at least set_size
 * members; with a hop above 1 (XOR, RS) the blocks are drawn from every
 * hop-th group. The communicators on the way are freed. Collective over world. */
static int split_set(struct scr_reddesc *d, MPI_Comm world, int me, const char *gname,
                     const struct scr_node_place *node, int set_size, int hop)
{
    MPI_Comm group = MPI_COMM_NULL, level = MPI_COMM_NULL;
    int grank = node->rank, gsize = node->ranks, lrank = 0, lsize = 0, most = 0;
    int rc = SCR_SUCCESS;
    /* the same on every rank: the group comes from the table rank 0 read */
    if (strcmp(d->group, "NODE") != 0) {
        rc = scr_comm_split_by_name(world, gname, &group, NULL);
        if (rc != SCR_SUCCESS) goto out;
        rc = scr_mpi_check(MPI_Comm_rank(group, &grank), "MPI_Comm_rank");
        if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(group, &gsize), "MPI_Comm_size");
    }
    if (rc == SCR_SUCCESS)
        rc = level_position(world, me, grank, gsize, &lrank, &lsize, &most, &level);
    if (rc != SCR_SUCCESS) goto out;
    /* with a hop, the groups lrank, lrank + hop, ... form a class of their own */
    if (hop > 1 && lsize / hop < 2) {
        if (me == 0)
            scr_dbg(
                1,
                "descriptor CKPT=%d: HOP_DISTANCE %d leaves sets of one member among %d %s groups; "
                "using 1",
                d->index, hop, lsize, d->group);
        hop = 1;
    }
    if (hop < 1) hop = 1;
    int cls = lrank % hop, pos = lrank / hop, csize = (lsize - cls + hop - 1) / hop;
    int nsets = csize / (set_size > 0 ? set_size : 1);
    if (nsets < 1) nsets = 1;
    /* Reed-Solomon codes have at most 255 blocks */
    if (d->type == SCR_COPY_RS && nsets < (csize + 254) / 255) nsets = (csize + 254) / 255;
    int which = (int)((long long)pos * nsets / csize);
    if (level != MPI_COMM_NULL)
        rc = scr_comm_split(level, which * hop + cls, lrank, &d->set, "forming redundancy sets");
    else /* one colour per set and position: under 2^31 while most <= 256 */
        rc = scr_comm_split(world, (which * hop + cls) * most + grank, lrank, &d->set,
                            "forming redundancy sets");
out:
    if (group != MPI_COMM_NULL) MPI_Comm_free(&group);
    if (level != MPI_COMM_NULL) MPI_Comm_free(&level);
    return rc;
}

/* This rank's set for one descriptor (split_set) and its members. */
static int form_set(struct scr_reddesc *d, const scr_config *cfg, MPI_Comm world,
                    const struct scr_node_place *node, int set_size, int hop)
{
    char gname[512];
    int grc = group_value(cfg, d->group, node->name, gname, sizeof(gname));
    int me;
    int rc = scr_mpi_check(MPI_Comm_rank(world, &me), "MPI_Comm_rank");
    if (rc != SCR_SUCCESS) return rc;
    if (grc == SCR_ERR_NOTFOUND && me == 0)
        scr_warn("redundancy group %s is not NODE or WORLD and no GROUPS lines define it; "
                 "every node is a group of its own",
                 d->group);
    rc = split_set(d, world, me, gname, node, set_size, hop);
    if (rc != SCR_SUCCESS) return rc;
    return describe_set(d, world);
}

/* The set of this rank for one descriptor (form_set). Collective; all
 * ranks agree on the outcome. */
static int build_set(struct scr_reddesc *d, const scr_config *cfg, MPI_Comm world,
                     const struct scr_node_place *node, int set_size, int hop)
{
    int rc = form_set(d, cfg, world, node, set_size, hop);
    /* all ranks agree: */
    return scr_comm_agree(world, rc, SCR_FAILURE);
}

/* Lower the scheme to what the set can hold, and say so once per set. */
static void fit_to_set(struct scr_reddesc *d, int requested_size)
{
    /* a PARTNER hop goes around the set's ring; one that comes back to the
     * rank itself would leave it without a copy elsewhere */
    if (d->type == SCR_COPY_PARTNER && d->set_size > 1) {
        int asked_hop = d->hop;
        d->hop %= d->set_size;
        if (d->hop == 0) d->hop = 1;
        if (d->hop != asked_hop && d->set_rank == 0)
            scr_dbg(
                1,
                "descriptor CKPT=%d: set %d of %d members cannot have partners %d apart; using %d",
                d->index, d->set_id, d->set_size, asked_hop, d->hop);
    }
    enum scr_copy_type asked = d->type;
    int asked_failures = d->failures;
    if (d->set_size == 1) d->type = SCR_COPY_SINGLE;
    if (d->type == SCR_COPY_RS && d->failures >= d->set_size) d->failures = d->set_size - 1;
    if (d->type == SCR_COPY_RS && d->failures < 1) d->failures = 1;
    if (d->set_rank == 0 && d->failures != asked_failures && d->type == SCR_COPY_RS)
        scr_dbg(1, "descriptor CKPT=%d: set %d of %d members survives %d failures, not %d",
                d->index, d->set_id, d->set_size, d->failures, asked_failures);
    if (d->set_rank != 0) return;
    if (d->set_size < requested_size && asked != SCR_COPY_SINGLE && asked != SCR_COPY_PARTNER)
        scr_dbg(1, "descriptor CKPT=%d: set %d has %d members (SET_SIZE %d; fewer %s groups)",
                d->index, d->set_id, d->set_size, requested_size, d->group);
    if (d->type != asked)
        scr_dbg(1, "descriptor CKPT=%d: set %d has one member, so %s is SINGLE in effect", d->index,
                d->set_id, type_names[asked]);
}

/* Equal paths but for trailing slashes ("/ssd/" names the store "/ssd"). */
static int same_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/') la--;
    while (lb > 1 && b[lb - 1] == '/') lb--;
    return la == lb && strncmp(a, b, la) == 0;
}

const scr_kvtree *scr_store_entry(const scr_config *cfg, const char *path)
{
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_config_table(cfg, "STORE")); e;
         e = scr_kvtree_elem_next(e))
        if (same_path(scr_kvtree_elem_key(e), path)) return scr_kvtree_elem_hash(e);
    return NULL;
}

int scr_store_is_cache_base(const char *cache_base, const char *path)
{
    return cache_base != NULL && same_path(cache_base, path);
}

/* The store a CKPT entry caches its datasets in: STORE=, else the cache base. */
static const char *store_of(const struct scr_params *params, const scr_kvtree *attrs)
{
    const char *v = NULL;
    if (scr_kvtree_util_get_str(attrs, "STORE", &v) == SCR_SUCCESS) return v;
    return params->cache_base;
}

/* 0 when the CKPT entry or the store it names says ENABLED=0. */
static int desc_enabled(const scr_config *cfg, const struct scr_params *params,
                        const scr_kvtree *attrs)
{
    int enabled = 1, store_enabled = 1;
    scr_kvtree_util_get_int(attrs, "ENABLED", &enabled);
    const char *store = store_of(params, attrs);
    if (store != NULL)
        scr_kvtree_util_get_int(scr_store_entry(cfg, store), "ENABLED", &store_enabled);
    return enabled != 0 && store_enabled != 0;
}

/* One descriptor from a CKPT entry (attrs may be NULL: the SCR_* defaults). */
static int make_desc(const scr_config *cfg, const struct scr_params *params, const char *index,
                     const scr_kvtree *attrs, MPI_Comm world, const struct scr_node_place *node,
                     struct scr_reddesc *d)
{
    memset(d, 0, sizeof(*d));
    d->set = MPI_COMM_NULL;
    const char *dflt_type = params->copy_type, *dflt_group = params->group, *v = NULL;
    /* FILE: the CKPT lines decide; without any, the default descriptor */
    if (strcasecmp(dflt_type, "FILE") == 0) dflt_type = "XOR";
    int set_size = params->set_size, iv = 0;
    d->failures = params->set_failures;
    d->interval = 1;
    d->index = atoi(index);
    if (scr_kvtree_util_get_int(attrs, "INTERVAL", &iv) == SCR_SUCCESS) d->interval = iv;
    if (scr_kvtree_util_get_int(attrs, "SET_SIZE", &iv) == SCR_SUCCESS) set_size = iv;
    if (scr_kvtree_util_get_int(attrs, "SET_FAILURES", &iv) == SCR_SUCCESS) d->failures = iv;
    d->hop = params->hop_distance;
    if (scr_kvtree_util_get_int(attrs, "HOP_DISTANCE", &iv) == SCR_SUCCESS) d->hop = iv;
    if (scr_kvtree_util_get_int(attrs, "OUTPUT", &iv) == SCR_SUCCESS) d->output = iv;
    if (scr_kvtree_util_get_str(attrs, "TYPE", &v) != SCR_SUCCESS) v = dflt_type;
    if (parse_type(v, &d->type) != SCR_SUCCESS) {
        scr_err("CKPT=%s: unknown TYPE %s", index, v);
        return SCR_ERR_FORMAT;
    }
    if (scr_kvtree_util_get_str(attrs, "GROUP", &v) != SCR_SUCCESS) v = dflt_group;
    snprintf(d->group, sizeof(d->group), "%s", v);
    const char *store = store_of(params, attrs);
    if (store == NULL || strlen(store) >= sizeof(d->store)) {
        scr_err("CKPT=%s: no usable STORE (a path of 1 to %zu bytes)", index, sizeof(d->store) - 1);
        return SCR_ERR_ARG;
    }
    int me = 0;
    MPI_Comm_rank(world, &me);
    if (scr_store_entry(cfg, store) == NULL &&
        !scr_store_is_cache_base(params->cache_base, store)) {
        if (me == 0)
            scr_err("CKPT=%s: STORE=%s is neither SCR_CACHE_BASE nor declared by a STORE line",
                    index, store);
        return SCR_ERR_ARG;
    }
    snprintf(d->store, sizeof(d->store), "%s", store);
    int set_hop = d->type == SCR_COPY_XOR || d->type == SCR_COPY_RS ? d->hop : 1;
    int rc = build_set(d, cfg, world, node, d->type == SCR_COPY_SINGLE ? 1 : set_size, set_hop);
    if (rc == SCR_SUCCESS) fit_to_set(d, set_size);
    if (d->type != SCR_COPY_PARTNER) d->hop = 1; /* XOR and RS used it to form the sets */
    return rc;
}

/* Every STORE line asks for what this build does: FLUSH=SYNC (a flush in
 * the application's calls) or FLUSH=PTHREAD (in the background). Rank 0
 * says what is wrong; every rank has the same table and the same answer. */
static int check_stores(const scr_config *cfg, int me)
{
    int rc = SCR_SUCCESS;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(scr_config_table(cfg, "STORE")); e;
         e = scr_kvtree_elem_next(e)) {
        const char *flush = NULL;
        if (scr_kvtree_util_get_str(scr_kvtree_elem_hash(e), "FLUSH", &flush) != SCR_SUCCESS ||
            strcasecmp(flush, "SYNC") == 0 || strcasecmp(flush, "PTHREAD") == 0)
            continue;
        if (me == 0)
            scr_err("STORE=%s FLUSH=%s (from %s): this SCR flushes with FLUSH=SYNC, in the "
                    "application's own "
                    "calls, or FLUSH=PTHREAD, in a thread of each node; the other transfers are "
                    "not built",
                    scr_kvtree_elem_key(e), flush, scr_config_table_origin(cfg, "STORE"));
        rc = SCR_ERR_ARG;
    }
    return rc;
}

int scr_store_flushes_in_background(const scr_config *cfg, const char *store, int otherwise)
{
    const char *flush = NULL;
    if (scr_kvtree_util_get_str(scr_store_entry(cfg, store), "FLUSH", &flush) != SCR_SUCCESS)
        return otherwise;
    return strcasecmp(flush, "PTHREAD") == 0;
}

int scr_reddescs_create(const scr_config *cfg, const struct scr_params *params, MPI_Comm world,
                        const struct scr_node_place *node, struct scr_reddesc **out_descs,
                        int *out_count)
{
    const scr_kvtree *table = scr_config_table(cfg, "CKPT");
    int n = 0;
    int me = 0;
    MPI_Comm_rank(world, &me);
    int src = check_stores(cfg, me);
    if (src != SCR_SUCCESS) return src;
    for (scr_kvtree_elem *e = scr_kvtree_elem_first(table); e; e = scr_kvtree_elem_next(e)) {
        int enabled = desc_enabled(cfg, params, scr_kvtree_elem_hash(e));
        if (!enabled && me == 0)
            scr_dbg(1, "descriptor CKPT=%s is disabled (by ENABLED=0 on it or on its store)",
                    scr_kvtree_elem_key(e));
        n += enabled;
    }
    int count = n > 0 ? n : 1;
    struct scr_reddesc *descs = calloc((size_t)count, sizeof(*descs));
    if (descs == NULL) {
        scr_err("out of memory creating redundancy descriptors");
        return SCR_ERR_NOMEM;
    }
    int rc = SCR_SUCCESS, i = 0;
    if (n == 0) {
        rc = make_desc(cfg, params, "0", NULL, world, node, &descs[0]);
    } else {
        /* every rank walks the same table (rank 0 read it for all) in the same order */
        for (scr_kvtree_elem *e = scr_kvtree_elem_first(table); rc == SCR_SUCCESS && e;
             e = scr_kvtree_elem_next(e)) {
            if (!desc_enabled(cfg, params, scr_kvtree_elem_hash(e))) continue;
            rc = make_desc(cfg, params, scr_kvtree_elem_key(e), scr_kvtree_elem_hash(e), world,
                           node, &descs[i++]);
        }
    }
    if (rc != SCR_SUCCESS) {
        scr_reddescs_free(descs, count);
        return rc;
    }
    *out_descs = descs;
    *out_count = count;
    return SCR_SUCCESS;
}

void scr_reddesc_clear(struct scr_reddesc *desc)
{
    if (desc == NULL) return;
    if (desc->set != MPI_COMM_NULL) MPI_Comm_free(&desc->set);
    free(desc->members);
    desc->members = NULL;
}

void scr_reddescs_free(struct scr_reddesc *descs, int count)
{
    if (descs == NULL) return;
    for (int i = 0; i < count; i++) scr_reddesc_clear(&descs[i]);
    free(descs);
}

const struct scr_reddesc *scr_reddesc_for(const struct scr_reddesc *descs, int count, int id,
                                          int is_output)
{
    const struct scr_reddesc *best = NULL;
    for (int pass = is_output ? 0 : 1; pass < 2 && best == NULL; pass++) {
        for (int i = 0; i < count; i++) {
            const struct scr_reddesc *d = &descs[i];
            if (pass == 0 && !d->output) continue;
            if (d->interval > 0 && id % d->interval == 0 &&
                (best == NULL || d->interval > best->interval))
                best = d;
        }
    }
    return best != NULL ? best : &descs[0];
}

/* Set ranks between neighbours: the PARTNER hop, within the set. */
static int step(const struct scr_reddesc *desc)
{
    int h = desc->type == SCR_COPY_PARTNER && desc->hop > 0 ? desc->hop % desc->set_size : 1;
    return h == 0 ? 1 : h;
}

int scr_reddesc_lhs(const struct scr_reddesc *desc)
{
    return desc->members[(desc->set_rank + desc->set_size - step(desc)) % desc->set_size];
}

int scr_reddesc_rhs(const struct scr_reddesc *desc)
{
    return desc->members[(desc->set_rank + step(desc)) % desc->set_size];
}

/* The fields of desc's record, in r. */
static int fill_record(scr_kvtree *r, const struct scr_reddesc *desc)
{
    int rc = scr_kvtree_util_set_str(r, "TYPE", type_names[desc->type]);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(r, "CKPT", desc->index);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(r, "FAILURES", desc->failures);
    if (rc != SCR_SUCCESS) return rc;
    if (desc->hop > 1) {
        rc = scr_kvtree_util_set_int(r, "HOP", desc->hop);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_kvtree_util_set_str(r, "GROUP", desc->group);
    if (rc != SCR_SUCCESS) return rc;
    if (desc->store[0] != '\0') {
        rc = scr_kvtree_util_set_str(r, "STORE", desc->store);
        if (rc != SCR_SUCCESS) return rc;
    }
    rc = scr_kvtree_util_set_int(r, "SET_ID", desc->set_id);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(r, "SET_SIZE", desc->set_size);
    if (rc != SCR_SUCCESS) return rc;
    rc = scr_kvtree_util_set_int(r, "SET_RANK", desc->set_rank);
    if (rc != SCR_SUCCESS) return rc;
    scr_kvtree *members = scr_kvtree_set(r, "MEMBERS", scr_kvtree_new());
    if (members == NULL) return SCR_ERR_NOMEM;
    for (int i = 0; i < desc->set_size; i++) {
        char key[16];
        snprintf(key, sizeof(key), "%d", i);
        rc = scr_kvtree_util_set_int(members, key, desc->members[i]);
        if (rc != SCR_SUCCESS) return rc;
    }
    return SCR_SUCCESS;
}

int scr_reddesc_to_record(const struct scr_reddesc *desc, scr_kvtree **out_record)
{
    scr_kvtree *r = scr_kvtree_new();
    int rc = r != NULL ? fill_record(r, desc) : SCR_ERR_NOMEM;
    if (rc != SCR_SUCCESS) {
        scr_err("out of memory recording a redundancy descriptor");
        scr_kvtree_delete(r);
        return rc;
    }
    *out_record = r;
    return SCR_SUCCESS;
}

/* A set of this run's descriptors (known, n of them) with the members, in
 * order, that record gives this rank's set; NULL if none has. */
static const struct scr_reddesc *same_set(const scr_kvtree *record, int set_id, int set_rank,
                                          int set_size, const struct scr_reddesc *known, int n)
{
    const scr_kvtree *members = scr_kvtree_get(record, "MEMBERS");
    for (int k = 0; k < n; k++) {
        const struct scr_reddesc *d = &known[k];
        int alike = d->set != MPI_COMM_NULL && d->members != NULL && d->set_id == set_id &&
                    d->set_rank == set_rank && d->set_size == set_size;
        for (int i = 0; alike && i < set_size; i++) {
            char key[16];
            int member = -1;
            snprintf(key, sizeof(key), "%d", i);
            alike = scr_kvtree_util_get_int(members, key, &member) == SCR_SUCCESS &&
                    member == d->members[i];
        }
        if (alike) return d;
    }
    return NULL;
}

/* The set a record describes, formed again from world (set_id, set_rank),
 * or duplicated from like (collective over the set alone) when every rank
 * has one, and checked against the size it had (set_size; *why says
 * otherwise). */
static int reform_set(struct scr_reddesc *out, MPI_Comm world, int set_id, int set_rank,
                      int set_size, const struct scr_reddesc *like, char *why, size_t why_len)
{
    int rc = like != NULL ? scr_comm_dup(like->set, &out->set, "re-forming a redundancy set")
                          : scr_comm_split(world, set_id, set_rank, &out->set,
                                           "re-forming a redundancy set");
    if (rc != SCR_SUCCESS) return rc;
    rc = describe_set(out, world);
    if (rc != SCR_SUCCESS) return rc;
    if (out->set_size != set_size || out->set_id != set_id) {
        snprintf(why, why_len, "redundancy set %d has %d members now, %d when it was written",
                 set_id, out->set_size, set_size);
        return SCR_ERR_FORMAT;
    }
    return SCR_SUCCESS;
}

int scr_reddesc_from_record(const scr_kvtree *record, MPI_Comm world,
                            const struct scr_reddesc *known, int nknown, struct scr_reddesc *out,
                            char *why, size_t why_len)
{
    if (why_len > 0) why[0] = '\0';
    memset(out, 0, sizeof(*out));
    out->set = MPI_COMM_NULL;
    const char *type = NULL, *group = NULL;
    int me, set_id = -1, set_rank = -1, set_size = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(world, &me), "MPI_Comm_rank");
    int ok = scr_kvtree_util_get_str(record, "TYPE", &type) == SCR_SUCCESS &&
             parse_type(type, &out->type) == SCR_SUCCESS &&
             scr_kvtree_util_get_int(record, "CKPT", &out->index) == SCR_SUCCESS &&
             scr_kvtree_util_get_int(record, "FAILURES", &out->failures) == SCR_SUCCESS &&
             scr_kvtree_util_get_str(record, "GROUP", &group) == SCR_SUCCESS &&
             scr_kvtree_util_get_int(record, "SET_ID", &set_id) == SCR_SUCCESS &&
             scr_kvtree_util_get_int(record, "SET_RANK", &set_rank) == SCR_SUCCESS &&
             scr_kvtree_util_get_int(record, "SET_SIZE", &set_size) == SCR_SUCCESS && set_id >= 0 &&
             set_rank >= 0 && set_size > set_rank;
    if (ok) {
        /* the record must name this rank at its own place in the set */
        char key[16];
        int member = -1;
        snprintf(key, sizeof(key), "%d", set_rank);
        ok = scr_kvtree_util_get_int(scr_kvtree_get(record, "MEMBERS"), key, &member) ==
                 SCR_SUCCESS &&
             member == me;
    }
    /* records written before HOP existed, or with hop 1, have none */
    out->hop = 1;
    if (scr_kvtree_util_get_int(record, "HOP", &out->hop) == SCR_SUCCESS && out->hop < 1) ok = 0;
    const char *store = NULL;
    if (scr_kvtree_util_get_str(record, "STORE", &store) == SCR_SUCCESS) {
        if (strlen(store) < sizeof(out->store))
            snprintf(out->store, sizeof(out->store), "%s", store);
        else
            ok = 0;
    }
    if (ok)
        snprintf(out->group, sizeof(out->group), "%s", group);
    else
        snprintf(why, why_len, "rank %d has a damaged redundancy record", me);
    if (rc != SCR_SUCCESS) return rc;
    /* all ranks agree, in one vote, that every record is whole and whether
     * every rank's set is one of this run's already */
    const struct scr_reddesc *like =
        ok ? same_set(record, set_id, set_rank, set_size, known, nknown) : NULL;
    int mine[2] = {ok, like != NULL}, all[2] = {0, 0};
    rc = scr_mpi_allreduce(mine, all, 2, MPI_INT, MPI_MIN, world, "agreeing on redundancy records");
    if (rc != SCR_SUCCESS) return rc;
    if (!all[0]) return SCR_ERR_FORMAT;
    rc = reform_set(out, world, set_id, set_rank, set_size, all[1] ? like : NULL, why, why_len);
    /* all ranks agree: */
    rc = scr_comm_agree(world, rc, SCR_ERR_FORMAT);
    if (rc != SCR_SUCCESS) scr_reddesc_clear(out);
    return rc;
}
