/* test_mpi_wait.c — the polite waits of mpi_comm.h, in a thread beside the
 * main thread, as the background encode uses them (MPI_THREAD_MULTIPLE).
 *
 *   test_mpi_wait          on an even number of ranks (4 in the test)
 *
 * Ranks pair up, even with the odd one after it; each rank's helper thread
 * works on a duplicate of the world:
 *   1. late: the helper waits politely (scr_mpi_wait_politely(1)) for a
 *      message its partner sends 200 ms later, past the yielding window, so
 *      that the wait also naps; the message arrives intact;
 *   2. cleared: the helper waits politely while a flag is set
 *      (scr_mpi_wait_politely_while), the main thread clears the flag
 *      100 ms into the wait, and the partner sends at 300 ms; the wait goes
 *      on as MPI's own and completes with the message;
 *   3. mixed: the even ranks' flags are cleared, the odd ranks' are set, and
 *      every helper sums over the world with scr_mpi_allreduce, twenty
 *      times; every sum is right on every rank (a rank whose cleared flag
 *      made it use a blocking collective would never match the others'
 *      nonblocking one, and the run would hang until its timeout).
 * Prints "rank R: polite waits OK" on success; a failure is named by rank
 * and case, and the exit status is non-zero. */
#include "mpi_comm.h"
#include "scr_err.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TAG 7
#define MIXED_ROUNDS 20

static int me, ranks;
static MPI_Comm helper_world;
static atomic_int flag;
static atomic_int waits_started; /* by the even ranks' helpers, in cases 1 and 2 */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int fail(const char *what)
{
    fprintf(stderr, "rank %d: %s\n", me, what);
    return 1;
}

/* The even rank receives value (the same on both) from its odd partner,
 * which sends it after delay_ms. */
static int exchange_late(long delay_ms, int value, const char *name)
{
    int partner = me ^ 1, got = -1;
    if (me % 2 == 1) {
        sleep_ms(delay_ms);
        if (MPI_Send(&value, 1, MPI_INT, partner, TAG, helper_world) != MPI_SUCCESS)
            return fail(name);
        return 0;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Irecv(&got, 1, MPI_INT, partner, TAG, helper_world, &req) != MPI_SUCCESS)
        return fail(name);
    atomic_fetch_add(&waits_started, 1);
    if (scr_mpi_wait(&req, name) != SCR_SUCCESS) return fail(name);
    if (got != value) {
        fprintf(stderr, "rank %d: %s: received %d instead of %d\n", me, name, got, value);
        return 1;
    }
    return 0;
}

static void *helper(void *arg)
{
    int *rc = arg;
    /* 1. late */
    scr_mpi_wait_politely(1);
    *rc |= exchange_late(200, 1000 + (me | 1), "late: the polite wait");
    /* 2. cleared */
    scr_mpi_wait_politely_while(&flag);
    *rc |= exchange_late(300, 2000 + (me | 1), "cleared: the wait whose flag was cleared");
    if (MPI_Barrier(helper_world) != MPI_SUCCESS) *rc |= fail("the barrier after case 2");
    /* 3. mixed (the main thread set the flags before case 2 ended) */
    int expect = ranks * (ranks + 1) / 2;
    for (int i = 0; i < MIXED_ROUNDS; i++) {
        int mine = me + 1, sum = 0;
        if (scr_mpi_allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, helper_world,
                              "mixed: the allreduce") != SCR_SUCCESS)
            *rc |= fail("mixed: the allreduce");
        else if (sum != expect) {
            fprintf(stderr, "rank %d: mixed: round %d summed %d instead of %d\n", me, i, sum,
                    expect);
            *rc |= 1;
        }
    }
    scr_mpi_wait_politely(0);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (provided != MPI_THREAD_MULTIPLE || ranks % 2 != 0) {
        fail(provided != MPI_THREAD_MULTIPLE ? "MPI gives no MPI_THREAD_MULTIPLE"
                                             : "needs an even number of ranks");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &helper_world) != MPI_SUCCESS) return fail("MPI_Comm_dup");
    atomic_init(&flag, 1);
    atomic_init(&waits_started, 0);
    int rc = 0;
    pthread_t thread;
    if (pthread_create(&thread, NULL, helper, &rc) != 0) return fail("pthread_create");
    /* case 2's flag: cleared 100 ms into the even rank's wait; for case 3,
     * the even ranks' flags stay cleared and the odd ranks' set */
    if (me % 2 == 0) {
        while (atomic_load(&waits_started) < 2) sleep_ms(1); /* case 2's wait began */
        sleep_ms(100);
        atomic_store(&flag, 0);
    }
    pthread_join(thread, NULL);
    int all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    if (rc == 0) printf("rank %d: polite waits OK\n", me);
    MPI_Comm_free(&helper_world);
    MPI_Finalize();
    return all != 0;
}
