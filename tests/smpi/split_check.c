/* split_check.c — libscr's communicator split (mpi_split.h) against MPI's
 * own, under SMPI where libscr builds its own: for several patterns of
 * colour and key, including MPI_UNDEFINED, every rank's new communicator
 * must hold the same ranks in the same order as MPI_Comm_split's. Then
 * its count of ranks by class (scr_comm_rank_in_class) against one made
 * from every rank's class. Prints "split_check: N patterns agree" and
 * "split_check: N class patterns agree" at rank 0, or names the first
 * pattern and rank that differ and exits 1. */
#include "mpi_split.h"
#include "scr_err.h"

#include <mpi.h>
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
    MPI_Finalize();
    return 0;
}
