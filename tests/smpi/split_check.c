/* split_check.c — libscr's communicator split (mpi_split.h) against MPI's
 * own, under SMPI where libscr builds its own: for several patterns of
 * colour and key, including MPI_UNDEFINED, every rank's new communicator
 * must hold the same ranks in the same order as MPI_Comm_split's. Then
 * its count of ranks by class (scr_comm_rank_in_class) against one made
 * from every rank's class, and its split by node name, with names that
 * share a hash too. Prints "split_check: N patterns agree", "split_check:
 * N class patterns agree" and "split_check: N name patterns agree" at
 * rank 0, or names the first pattern and rank that differ and exits 1. */
#include "mpi_split.h"
#include "scr_err.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, ranks;

static void fail(const char *what, int pattern)
{
    fprintf(stderr, "split_check: rank %d, pattern %d: %s\n", rank, pattern, what);
    exit(1);
}

/* The ranks of comm, as MPI_COMM_WORLD ranks, in comm's order. */
static int *members_of(MPI_Comm comm, int *out_n)
{
    MPI_Group world_group, group;
    int n = 0;
    MPI_Comm_size(comm, &n);
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    if (in == NULL || out == NULL) return NULL;
    for (int i = 0; i < n; i++) in[i] = i;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(comm, &group);
    MPI_Group_translate_ranks(group, n, in, world_group, out);
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    free(in);
    *out_n = n;
    return out;
}

static void pattern(int p, int *color, int *key)
{
    switch (p) {
    case 0: *color = 0, *key = rank; break;                /* one group: a duplicate */
    case 1: *color = rank / 4, *key = rank; break;         /* nodes of 4 */
    case 2: *color = rank % 4, *key = rank; break;         /* across nodes */
    case 3: *color = rank % 3, *key = ranks - rank; break; /* reversed by key */
    case 4: *color = rank % 5 == 0 ? MPI_UNDEFINED : rank % 2, *key = 7; break; /* ties by rank */
    default: *color = rank, *key = 0; break; /* every rank alone */
    }
}

/* Class patterns: class_pattern(p, &nclasses) is this rank's class. */
static int class_pattern(int p, int *nclasses)
{
    switch (p) {
    case 0: *nclasses = 1; return 0;                         /* one class */
    case 1: *nclasses = 4; return rank % 4;                  /* position on a node of 4 */
    case 2: *nclasses = 3; return rank < ranks / 2 ? 0 : 2;  /* a class no rank chose */
    case 3: *nclasses = 7; return (rank * 5 + rank / 3) % 7; /* scattered */
    default: *nclasses = 256; return (rank * 37) % 256;      /* many classes, few ranks */
    }
}

/* scr_comm_rank_in_class against the counts from every rank's class. */
static int check_classes(void)
{
    const int patterns = 5;
    int *all = malloc((size_t)ranks * sizeof(int));
    if (all == NULL) fail("out of memory", -1);
    for (int p = 0; p < patterns; p++) {
        int nclasses = 0, cls = class_pattern(p, &nclasses), before = -1, size = -1;
        if (scr_comm_rank_in_class(MPI_COMM_WORLD, cls, nclasses, &before, &size) != SCR_SUCCESS)
            fail("scr_comm_rank_in_class failed", p);
        MPI_Allgather(&cls, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        int want_before = 0, want_size = 0;
        for (int r = 0; r < ranks; r++) {
            if (all[r] != cls) continue;
            want_size++;
            if (r < rank) want_before++;
        }
        if (before != want_before) fail("the count of lower ranks of the class differs", p);
        if (size != want_size) fail("the count of the class differs", p);
    }
    free(all);
    return patterns;
}

/* The hash libscr splits names by first (FNV-1a, 31 bits). */
static int name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return (int)(h & 0x7fffffff);
}

/* Name patterns: this rank's node name, and the rank that comes first
 * among the ranks that share it. Pattern 1's two names share a hash. */
static void name_pattern(int p, char *buf, size_t len, int *out_first)
{
    if (p == 0) {
        snprintf(buf, len, "host%d", rank / 4);
        *out_first = rank / 4 * 4;
    } else if (p == 1) {
        snprintf(buf, len, "%s", rank % 2 ? "node678140" : "node288824");
        *out_first = rank % 2;
    } else {
        snprintf(buf, len, "%s", "one-node");
        *out_first = 0;
    }
}

/* scr_comm_split_by_name: each rank's communicator holds the ranks that
 * gave its name, in order, and every rank counts the distinct names. */
static int check_names(void)
{
    const int patterns = 3;
    if (name_hash("node678140") != name_hash("node288824"))
        fail("the names meant to share a hash do not: the check needs two that do", 1);
    for (int p = 0; p < patterns; p++) {
        char name[32];
        int first = 0, groups = 0, n = 0;
        name_pattern(p, name, sizeof(name), &first);
        MPI_Comm node = MPI_COMM_NULL;
        if (scr_comm_split_by_name(MPI_COMM_WORLD, name, &node, &groups) != SCR_SUCCESS)
            fail("scr_comm_split_by_name failed", p);
        int want_groups = p == 0 ? (ranks + 3) / 4 : p == 1 ? (ranks > 1) + 1 : 1;
        if (groups != want_groups) fail("the count of distinct names differs", p);
        int *members = members_of(node, &n);
        if (members == NULL) fail("out of memory", p);
        int step = p == 1 ? 2 : 1, expect = first;
        /* the ranks of a name: first, first + step, ... (4 of them in pattern 0) */
        for (int i = 0; i < n; i++, expect += step)
            if (members[i] != expect)
                fail("a member is missing, out of order or not of the name", p);
        if (expect < ranks && (p != 0 || expect < first + 4))
            fail("a rank of the same name is missing", p);
        free(members);
        MPI_Comm_free(&node);
    }
    return patterns;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int patterns = 6;
    for (int p = 0; p < patterns; p++) {
        int color, key;
        pattern(p, &color, &key);
        MPI_Comm ours = MPI_COMM_NULL, theirs = MPI_COMM_NULL;
        if (scr_comm_split(MPI_COMM_WORLD, color, key, &ours, "split_check") != SCR_SUCCESS)
            fail("scr_comm_split failed", p);
        if (MPI_Comm_split(MPI_COMM_WORLD, color, key, &theirs) != MPI_SUCCESS)
            fail("MPI_Comm_split failed", p);
        if ((ours == MPI_COMM_NULL) != (theirs == MPI_COMM_NULL))
            fail("one split gave MPI_COMM_NULL, one did not", p);
        if (ours == MPI_COMM_NULL) continue;
        int n1 = 0, n2 = 0;
        int *a = members_of(ours, &n1), *b = members_of(theirs, &n2);
        if (a == NULL || b == NULL) fail("out of memory", p);
        if (n1 != n2) fail("the sizes differ", p);
        for (int i = 0; i < n1; i++)
            if (a[i] != b[i]) fail("the members differ", p);
        /* the new communicator works */
        int one = 1, sum = 0;
        if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ours) != MPI_SUCCESS || sum != n1)
            fail("an allreduce on the new communicator failed", p);
        free(a);
        free(b);
        MPI_Comm_free(&ours);
        MPI_Comm_free(&theirs);
    }
    MPI_Comm dup = MPI_COMM_NULL;
    if (scr_comm_dup(MPI_COMM_WORLD, &dup, "split_check") != SCR_SUCCESS)
        fail("scr_comm_dup failed", -1);
    int n = 0, *a = members_of(dup, &n);
    for (int i = 0; a != NULL && i < n; i++)
        if (a[i] != i) fail("the duplicate is not in order", -1);
    if (a == NULL || n != ranks) fail("the duplicate lacks ranks", -1);
    free(a);
    MPI_Comm_free(&dup);
    if (rank == 0) printf("split_check: %d patterns agree on %d ranks\n", patterns, ranks);
    int class_patterns = check_classes();
    if (rank == 0)
        printf("split_check: %d class patterns agree on %d ranks\n", class_patterns, ranks);
    int name_patterns = check_names();
    if (rank == 0)
        printf("split_check: %d name patterns agree on %d ranks\n", name_patterns, ranks);
    MPI_Finalize();
    return 0;
}
