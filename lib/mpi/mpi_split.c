/* mpi_split.c — MPI_Comm_dup and MPI_Comm_split, scalable under SMPI too. */
#include "mpi_split.h"
#include "mpi_comm.h"
#include "mpi_host.h"
#include "mpi_owners.h"
#include "scr_err.h"
#include "util_log.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Each split uses one of two sets of tags, in turn (scr_comm_alternate_tags). */
#define TAG_SPLIT_BASE 4820
enum { TAG_MEMBERS, TAG_CREATE, TAGS_PER_SPLIT };

static int next_tags(void)
{
    static int turn;
    return scr_comm_alternate_tags(&turn, TAG_SPLIT_BASE, TAGS_PER_SPLIT);
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

int scr_comm_dup(MPI_Comm comm, MPI_Comm *out, const char *what)
{
    if (!scr_mpi_is_simulated()) return scr_mpi_check(MPI_Comm_dup(comm, out), what);
    MPI_Group group = MPI_GROUP_NULL;
    int rc = scr_mpi_check(MPI_Comm_group(comm, &group), what);
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Comm_create_group(comm, group, next_tags() + TAG_CREATE, out), what);
    if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    return rc;
}

/* Owner: send each member of every colour it owns the ranks of that
 * colour in order, one message per member, from lists (n ints); reqs (one
 * per entry) are waited on by the caller. */
static int send_members(MPI_Comm comm, int tags, struct entry *all, int n, int *lists,
                        MPI_Request *reqs)
{
    qsort(all, (size_t)n, sizeof(*all), entry_order);
    for (int i = 0; i < n; i++) lists[i] = all[i].rank;
    for (int first = 0; first < n;) {
        int end = first;
        while (end < n && all[end].color == all[first].color) end++;
        for (int i = first; i < end; i++) {
            int rc = scr_mpi_check(MPI_Isend(&lists[first], end - first, MPI_INT, all[i].rank,
                                             tags + TAG_MEMBERS, comm, &reqs[i]),
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
    int rc = scr_mpi_check(MPI_Probe(owner, tags + TAG_MEMBERS, comm, &st),
                           "waiting for the members of a colour");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Get_count(&st, MPI_INT, &n), "MPI_Get_count");
    int *members = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (rc == SCR_SUCCESS && members == NULL) {
        scr_err("out of memory for the %d members of a colour", n);
        rc = SCR_ERR_NOMEM;
    }
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(
            MPI_Recv(members, n, MPI_INT, owner, tags + TAG_MEMBERS, comm, MPI_STATUS_IGNORE),
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
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Group_incl(all, n, members, &sub), "MPI_Group_incl");
    if (rc == SCR_SUCCESS)
        rc = scr_mpi_check(MPI_Comm_create_group(comm, sub, tag, out), "MPI_Comm_create_group");
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
    int owner = color == MPI_UNDEFINED ? -1 : scr_comm_owner_of((uint32_t)color, size);
    uint64_t mine[3] = {(uint64_t)(int64_t)color, (uint64_t)(int64_t)key, (uint64_t)me},
             *got = NULL;
    struct entry *all = NULL;
    int n = 0, nmembers = 0, *lists = NULL, *members = NULL;
    MPI_Request *reqs = NULL;
    /* one vote, below, on the exchange and the memory for what came */
    int status = SCR_SUCCESS;
    rc = scr_comm_send_to_owners_unvoted(comm, mine, &owner, color == MPI_UNDEFINED ? 0 : 1, 3,
                                         &got, &n, &status);
    if (rc != SCR_SUCCESS) return rc;
    if (n > 0) {
        all = malloc((size_t)n * sizeof(*all));
        reqs = malloc((size_t)n * sizeof(*reqs));
        lists = malloc((size_t)n * sizeof(*lists));
        if (all == NULL || reqs == NULL || lists == NULL) {
            scr_err("out of memory for the members of %d ranks", n);
            status = SCR_ERR_NOMEM;
        }
    }
    for (int i = 0; reqs != NULL && i < n; i++) reqs[i] = MPI_REQUEST_NULL;
    for (int i = 0; status == SCR_SUCCESS && i < n; i++)
        all[i] = (struct entry){(int)(int64_t)got[3 * i], (int)(int64_t)got[3 * i + 1],
                                (int)got[3 * i + 2]};
    free(got);
    /* all ranks agree: every colour reached its owner, and no member waits
     * for an owner that cannot send */
    rc = scr_comm_agree(comm, status, SCR_ERR_NOMEM);
    if (rc == SCR_SUCCESS && n > 0) rc = send_members(comm, tags, all, n, lists, reqs);
    if (rc == SCR_SUCCESS && color != MPI_UNDEFINED)
        rc = receive_members(comm, tags, owner, &members, &nmembers);
    if (reqs != NULL) {
        int wrc = scr_mpi_check(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE),
                                "sending the members of a colour");
        if (rc == SCR_SUCCESS) rc = wrc;
    }
    if (rc == SCR_SUCCESS && color != MPI_UNDEFINED)
        rc = create_from(comm, members, nmembers, tags + TAG_CREATE, out);
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

#define TAG_SCAN_UP 4830
#define TAG_SCAN_DOWN 4831

/* The scan runs on the binomial tree of rank 0 (scr_tree_parent):
 * children in rank order head consecutive ranges. Counts go up, then each
 * child gets the count of the ranks before its range, with the totals.
 * 2(P-1) messages in 2 log P rounds, where recursive doubling and an
 * all-reduce would send P log P + 2(P-1). */
struct class_scan {
    int nclasses, nchildren;
    int *mine;     /* this subtree's counts */
    int *children; /* nchildren x 2 nclasses: each child's counts, then what it is sent */
    int *down;     /* 2 x nclasses: the count before this rank, then the totals */
};

static int scan_gather_up(MPI_Comm comm, int me, struct class_scan *s, MPI_Request *reqs)
{
    int rc = SCR_SUCCESS;
    for (int k = 0; k < s->nchildren; k++) reqs[k] = MPI_REQUEST_NULL;
    for (int k = 0; rc == SCR_SUCCESS && k < s->nchildren; k++)
        rc = scr_mpi_check(MPI_Irecv(s->children + (size_t)k * 2 * s->nclasses, s->nclasses,
                                     MPI_INT, me + (1 << k), TAG_SCAN_UP, comm, &reqs[k]),
                           "counting ranks by class");
    int wrc = scr_mpi_waitall(s->nchildren, reqs, "counting ranks by class");
    if (rc == SCR_SUCCESS) rc = wrc;
    for (int k = 0; rc == SCR_SUCCESS && k < s->nchildren; k++)
        for (int i = 0; i < s->nclasses; i++)
            s->mine[i] += s->children[(size_t)k * 2 * s->nclasses + i];
    if (rc == SCR_SUCCESS && me != 0)
        rc = scr_mpi_check(
            MPI_Send(s->mine, s->nclasses, MPI_INT, scr_tree_parent(me), TAG_SCAN_UP, comm),
            "counting ranks by class");
    return rc;
}

/* Down: s->down[0..nclasses) counts the ranks before me; each child's
 * range starts after me and the children before it. The children's
 * counts are rewritten, in place, into what each is sent. */
static int scan_spread_down(MPI_Comm comm, int me, int cls, struct class_scan *s, MPI_Request *reqs)
{
    int n = s->nclasses, rc = SCR_SUCCESS;
    if (me == 0) {
        for (int i = 0; i < n; i++) {
            s->down[i] = 0;
            s->down[n + i] = s->mine[i];
        }
    } else {
        rc = scr_mpi_check(MPI_Recv(s->down, 2 * n, MPI_INT, scr_tree_parent(me), TAG_SCAN_DOWN,
                                    comm, MPI_STATUS_IGNORE),
                           "counting ranks by class");
    }
    for (int k = 0; k < s->nchildren; k++) reqs[k] = MPI_REQUEST_NULL;
    /* mine now runs as the count before the next child's range */
    for (int i = 0; rc == SCR_SUCCESS && i < n; i++) s->mine[i] = s->down[i] + (i == cls);
    for (int k = 0; rc == SCR_SUCCESS && k < s->nchildren; k++) {
        int *msg = s->children + (size_t)k * 2 * n, *counted = s->mine;
        for (int i = 0; i < n; i++) {
            int subtree = msg[i];
            msg[i] = counted[i];
            msg[n + i] = s->down[n + i];
            counted[i] += subtree;
        }
        rc = scr_mpi_check(
            MPI_Isend(msg, 2 * n, MPI_INT, me + (1 << k), TAG_SCAN_DOWN, comm, &reqs[k]),
            "counting ranks by class");
    }
    int wrc = scr_mpi_waitall(s->nchildren, reqs, "counting ranks by class");
    return rc == SCR_SUCCESS ? wrc : rc;
}

int scr_comm_rank_in_class(MPI_Comm comm, int cls, int nclasses, int *out_before, int *out_size)
{
    int me = 0, size = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = scr_mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (rc != SCR_SUCCESS) return rc;
    struct class_scan s = {.nclasses = nclasses, .nchildren = scr_tree_children(me, size)};
    size_t n = (size_t)nclasses;
    s.mine = calloc(n, sizeof(int));
    s.down = calloc(2 * n, sizeof(int));
    s.children = calloc((size_t)(s.nchildren > 0 ? s.nchildren : 1) * 2 * n, sizeof(int));
    MPI_Request *reqs = malloc((size_t)(s.nchildren > 0 ? s.nchildren : 1) * sizeof(*reqs));
    if (s.mine == NULL || s.down == NULL || s.children == NULL || reqs == NULL) {
        scr_err("out of memory counting %d classes of ranks", nclasses);
        rc = SCR_ERR_NOMEM;
    }
    /* all ranks agree: */
    rc = scr_comm_agree(comm, rc, SCR_ERR_NOMEM);
    if (rc == SCR_SUCCESS) {
        s.mine[cls] = 1;
        rc = scan_gather_up(comm, me, &s, reqs);
    }
    if (rc == SCR_SUCCESS) rc = scan_spread_down(comm, me, cls, &s, reqs);
    if (rc == SCR_SUCCESS) {
        *out_before = s.down[cls];
        *out_size = s.down[nclasses + cls];
    }
    free(s.mine);
    free(s.down);
    free(s.children);
    free(reqs);
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

/* Among the ranks of hashed (whose names hash alike), the first that gave
 * name (*out_first, a rank of hashed) and whether all gave it (*out_alike). */
static int first_of_name(MPI_Comm hashed, const char *name, int *out_first, int *out_alike)
{
    int hme = 0, hsize = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(hashed, &hme), "MPI_Comm_rank");
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
        rc = scr_mpi_check(
            MPI_Allgatherv(name, len, MPI_CHAR, names, lens, displs, MPI_CHAR, hashed),
            "exchanging node names");
    *out_first = -1;
    *out_alike = 1;
    for (int i = 0; rc == SCR_SUCCESS && i < hsize; i++) {
        if (strcmp(names + displs[i], name) != 0)
            *out_alike = 0;
        else if (*out_first < 0)
            *out_first = i;
    }
    if (*out_first < 0) *out_first = hme;
    free(lens);
    free(displs);
    free(names);
    return rc;
}

int scr_comm_split_by_name(MPI_Comm comm, const char *name, MPI_Comm *out_comm, int *out_groups)
{
    *out_comm = MPI_COMM_NULL;
    int me, hme = 0;
    int rc = scr_mpi_check(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    MPI_Comm hashed = MPI_COMM_NULL;
    if (rc == SCR_SUCCESS)
        rc = scr_comm_split(comm, name_color(name), me, &hashed, "splitting ranks by node name");
    if (rc != SCR_SUCCESS) return rc;
    /* only ranks whose names hash alike compare the names themselves */
    int first = 0, alike = 1;
    rc = scr_mpi_check(MPI_Comm_rank(hashed, &hme), "MPI_Comm_rank");
    if (rc == SCR_SUCCESS) rc = first_of_name(hashed, name, &first, &alike);
    /* One vote over comm: the nodes (each counted by its first rank),
     * whether two names anywhere share a hash, whether a rank failed. The
     * choice that follows is then the same on every rank, as the turns of
     * tags in consecutive splits need. */
    int mine[3] = {rc == SCR_SUCCESS && first == hme, !alike, rc != SCR_SUCCESS}, sums[3] = {0};
    int vrc = scr_mpi_check(MPI_Allreduce(mine, sums, 3, MPI_INT, MPI_SUM, comm), "counting nodes");
    if (rc == SCR_ERR_NOMEM) scr_err("out of memory grouping ranks by node name");
    if (vrc != SCR_SUCCESS) rc = vrc;
    if (rc == SCR_SUCCESS && sums[2] > 0) rc = SCR_FAILURE;
    if (rc == SCR_SUCCESS && sums[1] > 0) {
        rc = scr_comm_split(hashed, first, me, out_comm, "splitting ranks by node name");
    } else if (rc == SCR_SUCCESS) {
        /* no hash is shared: each hash's ranks are one node's */
        *out_comm = hashed;
        hashed = MPI_COMM_NULL;
    }
    if (rc == SCR_SUCCESS && out_groups != NULL) *out_groups = sums[0];
    if (hashed != MPI_COMM_NULL) MPI_Comm_free(&hashed);
    return rc;
}
