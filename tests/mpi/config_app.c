/* config_app.c — SCR_Config as an application sees it through scr.h alone,
 * on every rank of a job: what SCR 3.1's own test of SCR_Config checks
 * (blanks around '=', descriptors, a question after two STORE entries,
 * keys SCR_Config may not set, $VAR in values, '=' inside a value, the user
 * file named by SCR_CONF_FILE), and what a job adds: every rank passes the
 * same string and answers from the files rank 0 read, also while rank 0
 * rewrites the user file between calls, and a question after SCR_Init gets
 * the value the run uses.
 *
 * Run in the prefix directory, with SCR_CONF_FILE naming a file that does
 * not exist (tests/mpi/test_config_api.sh): SCR_Config and SCR_Init work
 * without it. The program drops SCR_PREFIX from its environment (the
 * current directory is the prefix), so that a user file can name one.
 * Rank 0 prints TAP; a check that fails on any rank fails the test, with a
 * line naming the rank. */
#include "scr.h"
#include "tap.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, ranks;
static char missing_conf[4096]; /* SCR_CONF_FILE as given: a file not written yet */

/* Run one test on every rank; it fails if it failed on any rank. */
#define MPI_RUN(test)                                                                   \
    do {                                                                                \
        tap_current_failed = 0;                                                         \
        test();                                                                         \
        int any_ = 0;                                                                   \
        MPI_Allreduce(&tap_current_failed, &any_, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); \
        tap_number++;                                                                   \
        if (any_) tap_failures++;                                                       \
        if (rank == 0) {                                                                \
            printf("%s %d - %s\n", any_ ? "not ok" : "ok", tap_number, #test);          \
            fflush(stdout);                                                             \
        }                                                                               \
    } while (0)

/* SCR_Config(question) gives want (NULL: no answer) on this rank. */
#define ANSWER(question, want)                                                        \
    do {                                                                              \
        char *got_ = (char *)SCR_Config(question);                                    \
        const char *want_ = (want);                                                   \
        CHECK((got_ == NULL && want_ == NULL) ||                                      \
                  (got_ != NULL && want_ != NULL && strcmp(got_, want_) == 0),        \
              "rank %d: SCR_Config(\"%s\") gave '%s', expected '%s'", rank, question, \
              got_ ? got_ : "(null)", want_ ? want_ : "(null)");                      \
        free(got_);                                                                   \
    } while (0)

/* A set returns NULL, as in SCR 3.1. */
#define SET(text)                                                                           \
    do {                                                                                    \
        const char *got_ = SCR_Config(text);                                                \
        CHECK(got_ == NULL, "rank %d: SCR_Config(\"%s\") returned '%s'", rank, text, got_); \
    } while (0)

/* Rank 0 writes path holding text; every rank returns once it is there. */
static int rank0_writes(const char *path, const char *text)
{
    int ok = 1;
    if (rank == 0) {
        FILE *fp = fopen(path, "w");
        ok = fp != NULL && fputs(text, fp) >= 0;
        if (fp != NULL && fclose(fp) != 0) ok = 0;
        if (!ok) printf("# rank 0: writing %s: %s\n", path, strerror(errno));
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* --- before SCR_Init, as SCR 3.1's test_config ------------------------------ */

static void test_a_user_file_not_written_yet_is_no_error(void)
{
    CHECK(access(missing_conf, F_OK) != 0, "%s exists", missing_conf);
    ANSWER("DEBUG", NULL);
    SET("SCR_COPY_TYPE =SINGLE");
    ANSWER("SCR_COPY_TYPE", "SINGLE");
}

static void test_blanks_may_stand_around_the_equal_sign(void)
{
    const char *forms[] = {"DEBUG=1", "DEBUG =1", "DEBUG= 1", "DEBUG  = 1"};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        SET("DEBUG=");
        ANSWER("DEBUG", NULL);
        SET(forms[i]);
        ANSWER("DEBUG", "1");
    }
}

static void test_descriptors_are_set_and_answered_attribute_by_attribute(void)
{
    SET("STORE=");
    ANSWER("STORE", NULL);
    SET("STORE= /dev/shm/foo GROUP = NODE COUNT  =1");
    ANSWER("STORE= /dev/shm/foo COUNT", "1");
    SET("CKPT=0 INTERNAL=1 GROUP=NODE STORE=/dev/shm TYPE=XOR SET_SIZE=16");
    ANSWER("CKPT=0 SET_SIZE", "16");
    ANSWER("DEBUG", "1");
    ANSWER("STORE", "/dev/shm/foo");
    ANSWER("STORE=/dev/shm/foo GROUP", "NODE");
    ANSWER("FOOBAR", NULL);
    ANSWER("CKPT=1 FOOBAR", NULL);
    SET("DEBUG=0");
    ANSWER("DEBUG", "0");
}

static void test_two_store_entries_have_no_single_answer(void)
{
    SET("STORE=/dev/shm GROUP=NODE COUNT=1");
    ANSWER("STORE=/dev/shm COUNT", "1");
    ANSWER("STORE=/dev/shm GROUP", "NODE");
    ANSWER("STORE", NULL);
    ANSWER("STORE=/dev/shm/foo COUNT", "1");
    SET("STORE=");
    ANSWER("STORE", NULL);
    ANSWER("STORE=/dev/shm COUNT", NULL);
    SET("CKPT="); /* SCR_Init would look for the store /dev/shm */
    ANSWER("CKPT=0 SET_SIZE", NULL);
}

static void test_no_string_is_no_question(void)
{
    CHECK(SCR_Config(NULL) == NULL, "rank %d: NULL answered", rank);
    CHECK(SCR_Config("") == NULL, "rank %d: an empty string answered", rank);
}

static void test_keys_scr_config_may_not_set_are_read_from_the_environment(void)
{
    CHECK(SCR_Config("SCR_DB_NAME=dbname1") == NULL, "rank %d: a set returned a value", rank);
    setenv("SCR_DB_NAME", "dbname2", 1);
    ANSWER("SCR_DB_NAME", "dbname2");
    unsetenv("SCR_DB_NAME");
    CHECK(SCR_Config("SCR_LOG_ENABLE=1") == NULL, "rank %d: a set returned a value", rank);
    ANSWER("SCR_LOG_ENABLE", NULL);
    setenv("SCR_LOG_ENABLE", "0", 1);
    ANSWER("SCR_LOG_ENABLE", "0");
    unsetenv("SCR_LOG_ENABLE");
}

static const char *const expansions[][2] = {
    {"$VAR_A", "value a"},
    {"${VAR_A}", "value a"},
    {"${VAR_A}>", "value a>"},
    {"$VAR_A>", "value a>"},
    {"$VAR_A ${VAR_B}", "value a value b"},
    {"$VAR_A ${VAR_B}:", "value a value b:"},
    {":$VAR_A ${VAR_B}:", ":value a value b:"},
    {"$VAR_C", ""},
};

static void set_variables(void)
{
    setenv("VAR_A", "value a", 1);
    setenv("VAR_B", "value b", 1);
    unsetenv("VAR_C");
}

static void test_variables_expand_in_values_from_the_environment(void)
{
    set_variables();
    for (size_t i = 0; i < sizeof(expansions) / sizeof(expansions[0]); i++) {
        setenv("SCRTEST_FROM_ENV", expansions[i][0], 1);
        ANSWER("SCRTEST_FROM_ENV", expansions[i][1]);
    }
    /* a parameter SCR knows, too */
    setenv("SCR_JOB_NAME", "${VAR_A}>", 1);
    ANSWER("SCR_JOB_NAME", "value a>");
    unsetenv("SCR_JOB_NAME");
    /* where SCR 3.1 keeps the text as it is, a configuration file refuses it,
     * and so do the environment and SCR_Config (with a message) */
    setenv("SCRTEST_FROM_ENV", "${VAR_A", 1);
    ANSWER("SCRTEST_FROM_ENV", NULL);
    setenv("SCRTEST_FROM_ENV", "$VAR_A ${VAR_B>}", 1);
    ANSWER("SCRTEST_FROM_ENV", NULL);
    unsetenv("SCRTEST_FROM_ENV");
}

static void test_variables_expand_in_values_given_to_scr_config(void)
{
    set_variables();
    for (size_t i = 0; i < sizeof(expansions) / sizeof(expansions[0]); i++) {
        if (strchr(expansions[i][0], ' ') != NULL) continue; /* a blank ends an SCR_Config value */
        char set[128];
        snprintf(set, sizeof(set), "SCRTEST_FROM_APP=%s", expansions[i][0]);
        SET(set);
        ANSWER("SCRTEST_FROM_APP", expansions[i][1]);
    }
    setenv("VAR_D", "/scratch", 1);
    SET("STORE=${VAR_D}/ssd COUNT=2$VAR_C");
    ANSWER("STORE=/scratch/ssd COUNT", "2");
    SET("STORE=");
    /* refused with a message, as a file's: the value before stays */
    SET("SCRTEST_FROM_APP=${VAR_A");
    ANSWER("SCRTEST_FROM_APP", "");
    SET("SCRTEST_FROM_APP=");
}

static void test_only_the_first_equal_sign_separates_the_key(void)
{
    SET("SCRTEST_EQ==v=x");
    ANSWER("SCRTEST_EQ", "=v=x");
    SET("SCRTEST_EQ==/dev/shm/name_contains_preceding_=");
    ANSWER("SCRTEST_EQ", "=/dev/shm/name_contains_preceding_=");
    SET("SCRTEST_EQ= =/dev/shm/==name_contains_=_signs_everywhere");
    ANSWER("SCRTEST_EQ", "=/dev/shm/==name_contains_=_signs_everywhere");
}

static void test_the_user_file_can_name_the_prefix(void)
{
    REQUIRE(rank0_writes("user.conf", "SCR_PREFIX=.scr/test_config.d\n"), "user.conf");
    /* named by the environment */
    setenv("SCR_CONF_FILE", "user.conf", 1);
    ANSWER("SCR_COPY_TYPE", "SINGLE");
    ANSWER("SCR_PREFIX", ".scr/test_config.d");
    unsetenv("SCR_CONF_FILE");
    ANSWER("SCR_PREFIX", NULL);
    /* named by SCR_Config */
    CHECK(SCR_Configf("SCR_CONF_FILE=%s", "user.conf") == NULL, "rank %d: a set returned a value",
          rank);
    ANSWER("SCR_PREFIX", ".scr/test_config.d");
    SET("SCR_CONF_FILE=");
    /* the user file comes before SCR_Config */
    setenv("SCR_CONF_FILE", "user.conf", 1);
    SET("SCR_PREFIX=.");
    ANSWER("SCR_PREFIX", ".scr/test_config.d");
    SET("SCR_PREFIX=");
    setenv("SCR_CONF_FILE", missing_conf, 1);
}

static void test_scr_conf_file_set_by_scr_config_switches_the_user_file(void)
{
    REQUIRE(rank0_writes("user1.conf", "SCR_COPY_TYPE=PARTNER\n"), "user1.conf");
    REQUIRE(rank0_writes("user2.conf", "SCR_COPY_TYPE=XOR\n"), "user2.conf");
    unsetenv("SCR_CONF_FILE");
    SET("SCR_COPY_TYPE=");
    ANSWER("SCR_COPY_TYPE", NULL);
    CHECK(SCR_Configf("SCR_CONF_FILE=%s", "user1.conf") == NULL, "rank %d: a set returned a value",
          rank);
    ANSWER("SCR_COPY_TYPE", "PARTNER");
    CHECK(SCR_Configf("SCR_CONF_FILE=%s", "user2.conf") == NULL, "rank %d: a set returned a value",
          rank);
    ANSWER("SCR_COPY_TYPE", "XOR");
    SET("SCR_CONF_FILE=");
    ANSWER("SCR_COPY_TYPE", NULL);
    setenv("SCR_CONF_FILE", missing_conf, 1);
}

/* --- before SCR_Init, on every rank of a job ---------------------------------- */

static void test_every_rank_answers_from_the_user_file_rank_0_read(void)
{
    REQUIRE(rank0_writes("rank0.conf", "SCRTEST_FROM_FILE=rank0s\n"), "rank0.conf");
    /* the other ranks name a file that is not there: rank 0's is read for all */
    setenv("SCR_CONF_FILE", rank == 0 ? "rank0.conf" : missing_conf, 1);
    ANSWER("SCRTEST_FROM_FILE", "rank0s");
    setenv("SCR_CONF_FILE", missing_conf, 1);
}

static void test_a_value_just_written_is_read_back_on_every_rank(void)
{
    REQUIRE(rank0_writes("rounds.conf", "SCRTEST_ROUND=none\n"), "rounds.conf");
    setenv("SCR_CONF_FILE", "rounds.conf", 1);
    for (int i = 0; i < 20 && !tap_current_failed; i++) {
        char text[64], want[32];
        /* rank 0 rewrites the user file while the other ranks go on */
        if (rank == 0) {
            FILE *fp = fopen("rounds.conf", "w");
            CHECK(fp != NULL && fprintf(fp, "SCRTEST_ROUND=%d\n", i) > 0 && fclose(fp) == 0,
                  "rank 0: rounds.conf: %s", strerror(errno));
        }
        snprintf(text, sizeof(text), "SCRTEST_SET=value%d", i);
        snprintf(want, sizeof(want), "value%d", i);
        SET(text);
        ANSWER("SCRTEST_SET", want);
        snprintf(want, sizeof(want), "%d", i);
        ANSWER("SCRTEST_ROUND", want);
    }
    setenv("SCR_CONF_FILE", missing_conf, 1);
}

static void test_a_string_that_differs_between_ranks_sets_nothing(void)
{
    SET("SCRTEST_SAME=agreed");
    CHECK(SCR_Configf("SCRTEST_SAME=rank%d", rank) == NULL, "rank %d: a set returned a value",
          rank);
    ANSWER("SCRTEST_SAME", ranks > 1 ? "agreed" : "rank0");
}

static void test_a_directory_as_user_file_is_an_error(void)
{
    setenv("SCR_CONF_FILE", ".", 1);
    ANSWER("SCR_COPY_TYPE", NULL);
    setenv("SCR_CONF_FILE", missing_conf, 1);
}

/* --- SCR_Init and after -------------------------------------------------------- */

static void test_init_runs_with_a_user_file_not_written_yet(void)
{
    SET("SCR_COPY_TYPE=SINGLE");
    ANSWER("SCR_COPY_TYPE", "SINGLE");
    REQUIRE(SCR_Init() == SCR_SUCCESS, "rank %d: SCR_Init", rank);
}

static void test_a_question_after_init_gets_the_value_in_force(void)
{
    ANSWER("SCR_COPY_TYPE", "SINGLE");
    ANSWER("SCRTEST_EQ", "=/dev/shm/==name_contains_=_signs_everywhere");
    /* as before SCR_Init and in SCR 3.1: a parameter nobody set has no answer */
    ANSWER("SCR_CURRENT", NULL);
    ANSWER("STORE", NULL);
}

static void test_a_set_after_init_is_refused(void)
{
    SET("SCR_COPY_TYPE=XOR");
    ANSWER("SCR_COPY_TYPE", "SINGLE");
    SET("SCRTEST_LATE=1");
    ANSWER("SCRTEST_LATE", NULL);
}

static void test_app_conf_records_what_scr_config_set(void)
{
    char text[4096] = "";
    FILE *fp = fopen(".scr/app.conf", "r");
    REQUIRE(fp != NULL, "rank %d: .scr/app.conf: %s", rank, strerror(errno));
    size_t n = fread(text, 1, sizeof(text) - 1, fp);
    text[n] = '\0';
    fclose(fp);
    CHECK(strstr(text, "SCR_COPY_TYPE=SINGLE\n") != NULL, "rank %d: app.conf holds '%s'", rank,
          text);
    CHECK(access(missing_conf, F_OK) != 0, "%s was written", missing_conf);
}

static void test_finalize_succeeds(void)
{
    CHECK(SCR_Finalize() == SCR_SUCCESS, "rank %d: SCR_Finalize", rank);
}

/* After SCR_Finalize and MPI_Finalize: no MPI call is made (Open MPI
 * aborts one), a question gets the answer it got before MPI_Finalize
 * (before), and a setting, which no SCR_Init could use, is refused. */
static void test_scr_config_after_mpi_finalize_answers_alone_and_sets_nothing(const char *before)
{
    ANSWER("SCR_COPY_TYPE", before);
    SET("SCR_FLUSH=7");
    ANSWER("SCR_FLUSH", NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const char *conf = getenv("SCR_CONF_FILE");
    if (conf == NULL ||
        snprintf(missing_conf, sizeof(missing_conf), "%s", conf) >= (int)sizeof(missing_conf)) {
        if (rank == 0)
            fprintf(stderr, "usage: SCR_CONF_FILE=<a file not written yet> config_app\n");
        MPI_Finalize();
        return 2;
    }
    unsetenv("SCR_PREFIX"); /* the current directory is the prefix */

    MPI_RUN(test_a_user_file_not_written_yet_is_no_error);
    MPI_RUN(test_blanks_may_stand_around_the_equal_sign);
    MPI_RUN(test_descriptors_are_set_and_answered_attribute_by_attribute);
    MPI_RUN(test_two_store_entries_have_no_single_answer);
    MPI_RUN(test_no_string_is_no_question);
    MPI_RUN(test_keys_scr_config_may_not_set_are_read_from_the_environment);
    MPI_RUN(test_variables_expand_in_values_from_the_environment);
    MPI_RUN(test_variables_expand_in_values_given_to_scr_config);
    MPI_RUN(test_only_the_first_equal_sign_separates_the_key);
    MPI_RUN(test_the_user_file_can_name_the_prefix);
    MPI_RUN(test_scr_conf_file_set_by_scr_config_switches_the_user_file);
    MPI_RUN(test_every_rank_answers_from_the_user_file_rank_0_read);
    MPI_RUN(test_a_value_just_written_is_read_back_on_every_rank);
    MPI_RUN(test_a_string_that_differs_between_ranks_sets_nothing);
    MPI_RUN(test_a_directory_as_user_file_is_an_error);
    MPI_RUN(test_init_runs_with_a_user_file_not_written_yet);
    MPI_RUN(test_a_question_after_init_gets_the_value_in_force);
    MPI_RUN(test_a_set_after_init_is_refused);
    MPI_RUN(test_app_conf_records_what_scr_config_set);
    MPI_RUN(test_finalize_succeeds);

    /* after MPI_Finalize each rank is alone: rank 0 reports its own result,
     * a failure on another rank is its exit status */
    char *before = (char *)SCR_Config("SCR_COPY_TYPE");
    MPI_Finalize();
    tap_current_failed = 0;
    test_scr_config_after_mpi_finalize_answers_alone_and_sets_nothing(before);
    tap_number++;
    if (tap_current_failed) tap_failures++;
    if (rank == 0)
        printf("%s %d - test_scr_config_after_mpi_finalize_answers_alone_and_sets_nothing\n",
               tap_current_failed ? "not ok" : "ok", tap_number);
    free(before);
    return rank == 0 ? tap_done() : (tap_failures ? 1 : 0);
}
