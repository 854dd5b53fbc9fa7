/* mpi_split.c — MPI_Comm_dup and MPI_Comm_split, scalable under SMPI too. */
#include "mpi_split.h"
#include "mpi_comm.h"
#include "mpi_host.h"
#include "mpi_ibarrier.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each split uses one of two sets of tags, in turn: a rank that has left
 * one split may send for the next before a slower rank has seen the end of
 * this one, and must not be taken for part of it. No rank can leave the
 * next split before every rank has entered it, so two suffice. Every rank
 * makes the same sequence of (collective) calls, so all agree. */
#define TAG_SPLIT_BASE 4820
enum { TAG_ENTRY, TAG_BARRIER, TAG_MEMBERS, TAG_CREATE, TAGS_PER_SPLIT };

static int next_tags(void)
{
    static int parity;
    parity ^= 1;
    return TAG_SPLIT_BASE + parity * TAGS_PER_SPLIT;
}

/* What a rank tells its colour's owner. */
struct entry {
    int color, key, rank;
};

static int entry_order(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->color != y->color) return x->color < y->color ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The rank that owns colour among size ranks: a hash, so that colours
 * numbered alike (set 0, 1, 2...) spread over the ranks. */
static int owner_of(int color, int size)
{
    uint64_t h = (uint64_t)(uint32_t)color * 0x9e3779b97f4a7c15ull;
    return (int)((h >> 32) % (uint64_t)size);
}

int scr_comm_dup(MPI_Comm comm, MPI_Comm *out, const char *what)
{
    if (!scr_mpi_is_simulated()) return scr_mpi_check(MPI_Comm_dup(comm, out), what);
    MPI_Group group = MPI_GROUP_NULL;
    int rc = scr_mpi_check(MPI_Comm_group(comm, &group), what);
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_create_group(comm, group, next_tags() + TAG_CREATE, out), what);
    if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    return rc;
}

/* Keep the entry that arrived in *incoming (all grows; a rank out of
 * memory drops it and says so once in *status) and receive the next. */
static int keep_entry(struct entry *incoming, struct entry **all, int *n, int *cap, int *status)
{
    if (*n == *cap && *status == SCR_SUCCESS) {
        int grown = *cap ? 2 * *cap : 16;
        struct entry *more = realloc(*all, (size_t)grown * sizeof(**all));
        if (more == NULL) {
            scr_err("out of memory for %d colours", grown);
            *status = SCR_ERR_NOMEM; /* go on receiving, so that no sender waits for ever */
        } else {
            *all = more, *cap = grown;
        }
    }
    if (*n < *cap) (*all)[(*n)++] = *incoming;
    return SCR_SUCCESS;
}

/* Receive every entry sent to this rank until all ranks have sent theirs:
 * the NBX pattern (Hoefler et al.), with the entry sent synchronously so
 * that its completion says the owner has it. Nothing polls: each step
 * blocks until a message arrives, the entry is taken, or the barrier
 * moves on (SMPI charges each poll simulated time). *out_entries grows;
 * a rank that runs out of memory still receives what is sent to it. */
static int gather_entries(MPI_Comm comm, int tags, const struct entry *mine, int owner, struct entry **out_entries,
                          int *out_n)
{
    MPI_Request sent = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
    struct scr_ibarrier barrier;
    struct entry incoming, *all = NULL;
    int n = 0, cap = 0, in_barrier = 0, done = 0, status = SCR_SUCCESS;
    int rc = scr_mpi_check(MPI_Irecv(&incoming, 3, MPI_INT, MPI_ANY_SOURCE, tags + TAG_ENTRY, comm, &recv),
                           "waiting for colours");
    if (rc == SCR_SUCCESS && mine != NULL)
        rc = scr_mpi_check(MPI_Issend(mine, 3, MPI_INT, owner, tags + TAG_ENTRY, comm, &sent), "sending a colour");
    while (rc == SCR_SUCCESS && !done) {
        int arrived = 0;
        if (!in_barrier && sent == MPI_REQUEST_NULL) {
            /* a rank without a colour has nothing to send */
            rc = scr_ibarrier_start(&barrier, comm, tags + TAG_BARRIER);
            in_barrier = rc == SCR_SUCCESS;
        } else if (!in_barrier) {
            MPI_Request both[2] = {recv, sent};
            int which = MPI_UNDEFINED;
            rc = scr_mpi_check(MPI_Waitany(2, both, &which, MPI_STATUS_IGNORE), "waiting for colours");
            recv = both[0], sent = both[1];
            arrived = rc == SCR_SUCCESS && which == 0;
            if (rc == SCR_SUCCESS && sent == MPI_REQUEST_NULL) {
                rc = scr_ibarrier_start(&barrier, comm, tags + TAG_BARRIER);
                in_barrier = rc == SCR_SUCCESS;
            }
        } else {
            rc = scr_ibarrier_wait_or(&barrier, &recv, &arrived, &done);
        }
        if (rc == SCR_SUCCESS && arrived) {
            keep_entry(&incoming, &all, &n, &cap, &status);
            rc = scr_mpi_check(MPI_Irecv(&incoming, 3, MPI_INT, MPI_ANY_SOURCE, tags + TAG_ENTRY, comm, &recv),
                               "waiting for colours");
        }
    }
    /* every entry has arrived, so the last receive can only match the
     * end this rank sends itself (cheaper and surer than MPI_Cancel) */
    if (rc == SCR_SUCCESS && recv != MPI_REQUEST_NULL) {
        int me = 0;
        struct entry end = {0, 0, -1};
        rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
        if (rc == SCR_SUCCESS)
            rc = scr_mpi_check(MPI_Send(&end, 3, MPI_INT, me, tags + TAG_ENTRY, comm), "ending the wait for colours");
        if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Wait(&recv, MPI_STATUS_IGNORE), "ending the wait for colours");
    }
    *out_entries = all;
    *out_n = n;
    return rc != SCR_SUCCESS ? rc : status;
}

/* Owner: send each member of every colour it owns the ranks of that
 * colour in order, one message per member, from lists (n ints); reqs (one
 * per entry) are waited on by the caller. */
static int send_members(MPI_Comm comm, int tags, struct entry *all, int n, int *lists, MPI_Request *reqs)
{
    qsort(all, (size_t)n, sizeof(*all), entry_order);
    for (int i = 0; i < n; i++) lists[i] = all[i].rank;
    for (int first = 0; first < n;) {
        int end = first;
        while (end < n && all[end].color == all[first].color) end++;
        for (int i = first; i < end; i++) {
            int rc = scr_mpi_check(MPI_Isend(&lists[first], end - first, MPI_INT, all[i].rank, tags + TAG_MEMBERS,
                                             comm, &reqs[i]),
                                   "sending the members of a colour");
            if (rc != SCR_SUCCESS) return rc;
        }
        first = end;
    }
    return SCR_SUCCESS;
}

/* Member: the ranks of its colour, from the owner. */
static int receive_members(MPI_Comm comm, int tags, int owner, int **out_members, int *out_n)
{
    MPI_Status st;
    int n = 0;
    int rc = scr_mpi_check(MPI_Probe(owner, tags + TAG_MEMBERS, comm, &st), "waiting for the members of a colour");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Get_count(&st, MPI_INT, &n), "MPI_Get_count");
    int *members = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (rc == SCR_SUCCESS && members == NULL) {
        scr_err("out of memory for the %d members of a colour", n);
        rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Recv(members, n, MPI_INT, owner, tags + TAG_MEMBERS, comm, MPI_STATUS_IGNORE),
                           "receiving the members of a colour");
    *out_members = members;
    *out_n = n;
    return rc;
}

/* The communicator of members (ranks of comm, in order); collective over
 * the members only. */
static int create_from(MPI_Comm comm, const int *members, int n, int tag, MPI_Comm *out)
{
    MPI_Group all = MPI_GROUP_NULL, sub = MPI_GROUP_NULL;
    int rc = scr_mpi_check(MPI_Comm_group(comm, &all), "MPI_Comm_group");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Group_incl(all, n, members, &sub), "MPI_Group_incl");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_create_group(comm, sub, tag, out), "MPI_Comm_create_group");
    if (sub != MPI_GROUP_NULL) MPI_Group_free(&sub);
    if (all != MPI_GROUP_NULL) MPI_Group_free(&all);
    return rc;
}

static int split_scalably(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    int me = 0, size = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    int tags = next_tags();
    struct entry mine = {color, key, me};
    int owner = color == MPI_UNDEFINED ? -1 : owner_of(color, size);
    struct entry *all = NULL;
    int n = 0, nmembers = 0, *lists = NULL, *members = NULL;
    MPI_Request *reqs = NULL;
    rc = gather_entries(comm, tags, color == MPI_UNDEFINED ? NULL : &mine, owner, &all, &n);
    if (rc == SCR_SUCCESS && n > 0) {
        reqs = malloc((size_t)n * sizeof(*reqs));
        lists = malloc((size_t)n * sizeof(*lists));
        if (reqs == NULL || lists == NULL) {
            scr_err("out of memory for the members of %d ranks", n);
            rc = SCR_ERR_NOMEM;
        }
    }
    /* all ranks agree: no member waits for an owner that cannot send */
    rc = scr_comm_agree(comm, rc, SCR_ERR_NOMEM);
    if (rc == SCR_SUCCESS && n > 0) {
        for (int i = 0; i < n; i++) reqs[i] = MPI_REQUEST_NULL;
        rc = send_members(comm, tags, all, n, lists, reqs);
    }
    if (rc == SCR_SUCCESS && color != MPI_UNDEFINED) rc = receive_members(comm, tags, owner, &members, &nmembers);
    if (reqs != NULL) {
        int wrc = scr_mpi_check(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), "sending the members of a colour");
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    if (rc == SCR_SUCCESS && color != MPI_UNDEFINED) rc = create_from(comm, members, nmembers, tags + TAG_CREATE, out);
    free(members);
    free(lists);
    free(reqs);
    free(all);
    return rc;
}

int scr_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out, const char *what)
{
    *out = MPI_COMM_NULL;
    if (!scr_mpi_is_simulated()) return scr_mpi_check(MPI_Comm_split(comm, color, key, out), what);
    int rc = split_scalably(comm, color, key, out);
    if (rc != SCR_SUCCESS) scr_err("%s: the split failed (see above)", what);
    return rc;
}

#define TAG_SCAN 4830

int scr_comm_rank_in_class(MPI_Comm comm, int cls, int nclasses, int *out_before, int *out_size)
{
    int me = 0, size = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    int *upto = calloc((size_t)nclasses, sizeof(int)), *got = calloc((size_t)nclasses, sizeof(int));
    if (rc == SCR_SUCCESS && (upto == NULL || got == NULL)) {
        scr_err("out of memory counting %d classes of ranks", nclasses);
        rc = SCR_ERR_NOMEM;
    }
    /* all ranks agree: */
    rc = scr_comm_agree(comm, rc, SCR_ERR_NOMEM);
    if (rc == SCR_SUCCESS) upto[cls] = 1;
    /* after the round of distance d, upto counts ranks me-2d+1 .. me */
    for (int d = 1; rc == SCR_SUCCESS && d < size; d = d > size / 2 ? size : 2 * d) {
        int to = me + d < size ? me + d : MPI_PROC_NULL, from = me - d >= 0 ? me - d : MPI_PROC_NULL;
        for (int i = 0; i < nclasses; i++) got[i] = 0;
        rc = scr_mpi_check(MPI_Sendrecv(upto, nclasses, MPI_INT, to, TAG_SCAN, got, nclasses, MPI_INT, from, TAG_SCAN,
                                        comm, MPI_STATUS_IGNORE),
                           "counting ranks by class");
        for (int i = 0; rc == SCR_SUCCESS && i < nclasses; i++) upto[i] += got[i];
    }
    if (rc == SCR_SUCCESS) *out_before = upto[cls] - 1;
    for (int i = 0; rc == SCR_SUCCESS && i < nclasses; i++) got[i] = i == cls;
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allreduce(got, upto, nclasses, MPI_INT, MPI_SUM, comm), "counting ranks by class");
    if (rc == SCR_SUCCESS) *out_size = upto[cls];
    free(upto);
    free(got);
    return rc;
}

/* FNV-1a: spreads similar host names ("node1", "node2") across colours. */
static int name_color(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return (int)(h & 0x7fffffff);
}

int scr_comm_split_by_name(MPI_Comm comm, const char *name, MPI_Comm *out_comm, int *out_groups)
{
    int me;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    MPI_Comm hashed = MPI_COMM_NULL;
    if (rc == SCR_SUCCESS)
        rc = scr_comm_split(comm, name_color(name), me, &hashed, "splitting ranks by node name");
    if (rc != SCR_SUCCESS) return rc;

    /* only ranks whose names hash alike compare the names themselves */
    int hme = 0, hsize = 0;
    rc = scr_mpi_check(MPI_Comm_rank(hashed, &hme), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(hashed, &hsize), "MPI_Comm_size");
    int len = (int)strlen(name) + 1;
    int *lens = NULL, *displs = NULL;
    char *names = NULL;
    if (rc == SCR_SUCCESS) {
        lens = malloc((size_t)hsize * sizeof(int));
        displs = malloc((size_t)hsize * sizeof(int));
        if (lens == NULL || displs == NULL) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, hashed),
                           "exchanging node name lengths");
    if (rc == SCR_SUCCESS) {
        long long total = 0;
        for (int i = 0; i < hsize; i++) {
            displs[i] = (int)total;
            total += lens[i];
        }
        names = total <= INT_MAX ? malloc((size_t)total) : NULL;
        if (names == NULL) rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Allgatherv(name, len, MPI_CHAR, names, lens, displs, MPI_CHAR, hashed),
                           "exchanging node names");
    int first = hme;
    for (int i = 0; rc == SCR_SUCCESS && i < hsize; i++) {
        if (strcmp(names + displs[i], name) == 0) {
            first = i;
            break;
        }
    }
    if (rc == SCR_SUCCESS)
        rc = scr_comm_split(hashed, first, me, out_comm, "splitting ranks by node name");
    if (rc == SCR_SUCCESS && out_groups != NULL) {
        int leader = first == hme, groups = 0;
        rc = scr_mpi_check(MPI_Allreduce(&leader, &groups, 1, MPI_INT, MPI_SUM, comm),
                           "counting nodes");
        if (rc == SCR_SUCCESS) *out_groups = groups;
    }
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory grouping ranks by node name");
    free(lens);
    free(displs);
    free(names);
    MPI_Comm_free(&hashed);
    return rc;
}
