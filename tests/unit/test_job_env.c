/* test_job_env.c — the node name, job id, user name and simulated node
 * (SCR_SIM_NODE) a process takes from its environment stay one directory
 * level each: a value that would lead
 * out of a base (a '/', dots alone), an empty one or one with a control
 * character is refused with a message naming the variable and the value,
 * and never replaced by the next source. SCR_DRILL_STOP_AFTER is a count of
 * checkpoints or refused. */
#include "tap.h"

#include "job_env.h"
#include "scr_err.h"
#include "util_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const unusable[] = {"../../escape", "a/b", "/abs",    "",     ".",
                                       "..",           "...", "node\n0", "x\x7f"};
#define NUNUSABLE (sizeof(unusable) / sizeof(unusable[0]))

static void clear_env(void)
{
    unsetenv("SCR_NODE_NAME");
    unsetenv("SLURMD_NODENAME");
    unsetenv("SLURM_JOB_ID");
    unsetenv("SCR_JOB_ID");
    unsetenv("SCR_USER_NAME");
}

/* Reading var=value must fail with SCR_ERR_ARG and a message naming both
 * (text: how the message shows the value). */
static void expect_refused(const char *var, const char *value, const char *text,
                           int (*read)(char *, size_t))
{
    char buf[256], want[300];
    clear_env();
    setenv(var, value, 1);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    int rc = read(buf, sizeof(buf));
    scr_log_set_quiet(0);
    snprintf(want, sizeof(want), "%s='%s' cannot name a directory", var, text);
    CHECK(rc == SCR_ERR_ARG, "%s='%s' accepted as '%s'", var, text, rc == SCR_SUCCESS ? buf : "?");
    CHECK(strstr(scr_last_error(), want) != NULL, "%s: message '%s'", var, scr_last_error());
}

static int node(char *buf, size_t len)
{
    return scr_job_env_node_name(buf, len);
}
static int user(char *buf, size_t len)
{
    return scr_job_env_user_name(buf, len);
}
static int job(char *buf, size_t len)
{
    int defaulted = 0;
    return scr_job_env_job_id(buf, len, &defaulted);
}

/* How the message shows value: control characters escaped. */
static const char *shown(const char *value)
{
    if (strcmp(value, "node\n0") == 0) return "node\\n0";
    if (strcmp(value, "x\x7f") == 0) return "x\\x7f";
    return value;
}

static void test_each_variable_refuses_every_value_that_is_not_one_level(void)
{
    static const struct {
        const char *var;
        int (*read)(char *, size_t);
    } vars[] = {{"SCR_NODE_NAME", node},
                {"SLURMD_NODENAME", node},
                {"SCR_USER_NAME", user},
                {"SCR_JOB_ID", job},
                {"SLURM_JOB_ID", job}};
    for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]); v++)
        for (size_t i = 0; i < NUNUSABLE; i++)
            expect_refused(vars[v].var, unusable[i], shown(unusable[i]), vars[v].read);
    clear_env();
}

static void test_the_message_says_why(void)
{
    clear_env();
    setenv("SCR_NODE_NAME", "../x", 1);
    char buf[64];
    scr_log_set_quiet(1);
    CHECK(node(buf, sizeof(buf)) == SCR_ERR_ARG, "accepted");
    CHECK(strstr(scr_last_error(),
                 "SCR_NODE_NAME='../x' cannot name a directory: it contains '/'") != NULL,
          "'%s'", scr_last_error());
    setenv("SCR_NODE_NAME", "..", 1);
    CHECK(node(buf, sizeof(buf)) == SCR_ERR_ARG && strstr(scr_last_error(), "dots alone") != NULL,
          "'%s'", scr_last_error());
    setenv("SCR_NODE_NAME", "", 1);
    CHECK(node(buf, sizeof(buf)) == SCR_ERR_ARG && strstr(scr_last_error(), "it is empty") != NULL,
          "'%s'", scr_last_error());
    scr_log_set_quiet(0);
    clear_env();
}

static void test_a_refused_value_is_not_replaced_by_the_next_source(void)
{
    clear_env();
    setenv("SCR_NODE_NAME", "a/b", 1);
    setenv("SLURMD_NODENAME", "n1", 1);
    char buf[64];
    scr_log_set_quiet(1);
    CHECK(node(buf, sizeof(buf)) == SCR_ERR_ARG,
          "SCR_NODE_NAME='a/b' fell back to SLURMD_NODENAME: %s", buf);
    unsetenv("SCR_NODE_NAME");
    setenv("SCR_JOB_ID", "", 1);
    int defaulted = 0;
    CHECK(scr_job_env_job_id(buf, sizeof(buf), &defaulted) == SCR_ERR_ARG,
          "an empty SCR_JOB_ID fell back to '%s'", buf);
    scr_log_set_quiet(0);
    clear_env();
}

static void test_ordinary_names_are_taken_as_they_are(void)
{
    static const char *const good[] = {"node0",  "n-1.cluster", "a..b", ".hidden",
                                       "user_1", "12345",       "%N"};
    char buf[64];
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        clear_env();
        setenv("SCR_NODE_NAME", good[i], 1);
        setenv("SCR_USER_NAME", good[i], 1);
        setenv("SCR_JOB_ID", good[i], 1);
        CHECK(node(buf, sizeof(buf)) == SCR_SUCCESS && strcmp(buf, good[i]) == 0, "node '%s': %s",
              good[i], scr_last_error());
        CHECK(user(buf, sizeof(buf)) == SCR_SUCCESS && strcmp(buf, good[i]) == 0, "user '%s': %s",
              good[i], scr_last_error());
        CHECK(job(buf, sizeof(buf)) == SCR_SUCCESS && strcmp(buf, good[i]) == 0, "job '%s': %s",
              good[i], scr_last_error());
    }
    clear_env();
    CHECK(node(buf, sizeof(buf)) == SCR_SUCCESS, "the host name: %s", scr_last_error());
    CHECK(user(buf, sizeof(buf)) == SCR_SUCCESS, "the password database: %s", scr_last_error());
    int defaulted = 0;
    CHECK(scr_job_env_job_id(buf, sizeof(buf), &defaulted) == SCR_SUCCESS && defaulted == 1,
          "default job id");
}

static void test_the_check_alone_names_the_source(void)
{
    scr_log_set_quiet(1);
    CHECK(scr_job_env_check_name("--node", "x/y") == SCR_ERR_ARG, "accepted");
    CHECK(strstr(scr_last_error(), "--node='x/y' cannot name a directory: it contains '/'") != NULL,
          "'%s'", scr_last_error());
    CHECK(scr_job_env_check_name("user name", "..") == SCR_ERR_ARG, "accepted");
    CHECK(strstr(scr_last_error(), "user name '..' cannot name a directory") != NULL, "'%s'",
          scr_last_error());
    scr_log_set_quiet(0);
    CHECK(scr_job_env_name_problem("node7") == NULL, "node7 refused");
}

static int sim(char *buf, size_t len)
{
    int set = 0;
    return scr_job_env_sim_node(buf, len, &set);
}

static void test_a_simulated_node_is_a_name_of_one_level_and_64_characters_at_most(void)
{
    char buf[SCR_SIM_NODE_MAX + 1];
    int set = 1;
    unsetenv("SCR_SIM_NODE");
    CHECK(scr_job_env_sim_node(buf, sizeof(buf), &set) == SCR_SUCCESS && set == 0 && buf[0] == '\0',
          "unset: set %d '%s'", set, buf);
    setenv("SCR_SIM_NODE", "node3", 1);
    CHECK(scr_job_env_sim_node(buf, sizeof(buf), &set) == SCR_SUCCESS && set == 1 &&
              strcmp(buf, "node3") == 0,
          "node3: set %d '%s'", set, buf);
    for (size_t i = 0; i < NUNUSABLE; i++)
        expect_refused("SCR_SIM_NODE", unusable[i], shown(unusable[i]), sim);
    char longname[SCR_SIM_NODE_MAX + 2];
    memset(longname, 'n', SCR_SIM_NODE_MAX + 1);
    longname[SCR_SIM_NODE_MAX + 1] = '\0';
    setenv("SCR_SIM_NODE", longname, 1);
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_job_env_sim_node(buf, sizeof(buf), &set) == SCR_ERR_ARG && set == 0 &&
              strstr(scr_last_error(),
                     "is too long for a simulated node's name (at most 64 characters)") != NULL,
          "65 characters: '%s'", scr_last_error());
    scr_log_set_quiet(0);
    longname[SCR_SIM_NODE_MAX] = '\0';
    setenv("SCR_SIM_NODE", longname, 1);
    CHECK(scr_job_env_sim_node(buf, sizeof(buf), &set) == SCR_SUCCESS && set == 1,
          "64 characters refused");
    unsetenv("SCR_SIM_NODE");
}

static void test_the_drill_stop_is_a_count_of_checkpoints(void)
{
    int k = -1;
    unsetenv("SCR_DRILL_STOP_AFTER");
    CHECK(scr_job_env_drill_stop_after(&k) == SCR_SUCCESS && k == 0, "unset gave %d", k);
    setenv("SCR_DRILL_STOP_AFTER", "3", 1);
    CHECK(scr_job_env_drill_stop_after(&k) == SCR_SUCCESS && k == 3, "3 gave %d", k);
    static const char *const bad[] = {"0", "-1", "x", "", "2x", "99999999999"};
    scr_log_set_quiet(1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("SCR_DRILL_STOP_AFTER", bad[i], 1);
        scr_clear_last_error();
        CHECK(scr_job_env_drill_stop_after(&k) == SCR_ERR_ARG &&
                  strstr(scr_last_error(), "SCR_DRILL_STOP_AFTER=") != NULL,
              "'%s' accepted as %d: '%s'", bad[i], k, scr_last_error());
    }
    scr_log_set_quiet(0);
    unsetenv("SCR_DRILL_STOP_AFTER");
}

/* The node MPI names (libscr's MPI_Get_processor_name, under SMPI each
 * rank's simulated host) comes after both variables and before the host
 * name, and is checked as they are. */
static void test_the_detected_node_comes_after_the_variables(void)
{
    const char *mpi = "the node MPI_Get_processor_name names";
    char buf[64];
    clear_env();
    CHECK(scr_job_env_node_name_or("host7", mpi, buf, sizeof(buf)) == SCR_SUCCESS &&
              strcmp(buf, "host7") == 0,
          "without variables: '%s'", buf);
    setenv("SLURMD_NODENAME", "slurm3", 1);
    CHECK(scr_job_env_node_name_or("host7", mpi, buf, sizeof(buf)) == SCR_SUCCESS &&
              strcmp(buf, "slurm3") == 0,
          "SLURMD_NODENAME: '%s'", buf);
    setenv("SCR_NODE_NAME", "scr5", 1);
    CHECK(scr_job_env_node_name_or("host7", mpi, buf, sizeof(buf)) == SCR_SUCCESS &&
              strcmp(buf, "scr5") == 0,
          "SCR_NODE_NAME: '%s'", buf);
    clear_env();
    scr_log_set_quiet(1);
    CHECK(scr_job_env_node_name_or("a/b", mpi, buf, sizeof(buf)) == SCR_ERR_ARG,
          "'a/b' accepted as '%s'", buf);
    scr_log_set_quiet(0);
    CHECK(strstr(scr_last_error(),
                 "the node MPI_Get_processor_name names 'a/b' cannot name a directory") != NULL,
          "'%s'", scr_last_error());
    CHECK(scr_job_env_node_name_or(NULL, NULL, buf, sizeof(buf)) == SCR_SUCCESS && buf[0] != '\0',
          "NULL: the host name: %s", scr_last_error());
}

int main(void)
{
    RUN(test_each_variable_refuses_every_value_that_is_not_one_level);
    RUN(test_the_message_says_why);
    RUN(test_a_refused_value_is_not_replaced_by_the_next_source);
    RUN(test_ordinary_names_are_taken_as_they_are);
    RUN(test_the_check_alone_names_the_source);
    RUN(test_the_detected_node_comes_after_the_variables);
    RUN(test_a_simulated_node_is_a_name_of_one_level_and_64_characters_at_most);
    RUN(test_the_drill_stop_is_a_count_of_checkpoints);
    return tap_done();
}
