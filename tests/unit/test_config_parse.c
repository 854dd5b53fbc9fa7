/* test_config_parse.c — the configuration syntax: pairs, comments, variables, errors. */
#include "tap.h"

#include "config_parse.h"
#include "scr_err.h"
#include "util_log.h"

/* Every line the parser reports, as "<line>|K=V|K=V" joined by newlines. */
static char seen[4096];

static int record_line(void *ctx, const char *source, int line, const struct scr_config_pair *pairs,
                       int npairs)
{
    (void)ctx;
    (void)source;
    size_t used = strlen(seen);
    used += (size_t)snprintf(seen + used, sizeof(seen) - used, "%d", line);
    for (int i = 0; i < npairs; i++)
        used += (size_t)snprintf(seen + used, sizeof(seen) - used, "|%s=%s", pairs[i].key,
                                 pairs[i].value);
    snprintf(seen + used, sizeof(seen) - used, "\n");
    return SCR_SUCCESS;
}

static int parse(const char *text)
{
    seen[0] = '\0';
    scr_clear_last_error();
    scr_log_set_quiet(1);
    int rc = scr_config_parse_text(text, strlen(text), "test.conf", record_line, NULL);
    scr_log_set_quiet(0);
    return rc;
}

static void expect_lines(const char *text, const char *want)
{
    int rc = parse(text);
    CHECK(rc == SCR_SUCCESS, "parse of '%s' failed: %s", text, scr_last_error());
    CHECK(strcmp(seen, want) == 0, "parse of '%s' gave\n%s\nwanted\n%s", text, seen, want);
}

static void expect_error(const char *text, const char *message)
{
    int rc = parse(text);
    CHECK(rc == SCR_ERR_FORMAT, "'%s' was accepted (rc %d)", text, rc);
    CHECK(strcmp(scr_last_error(), message) == 0, "'%s' gave message '%s', wanted '%s'", text,
          scr_last_error(), message);
}

static void test_parameter_and_descriptor_lines_reach_the_callback_in_order(void)
{
    expect_lines("SCR_FLUSH=4\nSTORE=/ssd GROUP=NODE COUNT=2\n",
                 "1|SCR_FLUSH=4\n2|STORE=/ssd|GROUP=NODE|COUNT=2\n");
}

static void test_comments_and_blank_lines_are_skipped_but_hash_inside_a_value_is_kept(void)
{
    expect_lines("# site settings\n\n   \nSCR_PREFIX=/p/run#2   # where\nSCR_FLUSH=4#x\n",
                 "4|SCR_PREFIX=/p/run#2\n5|SCR_FLUSH=4#x\n");
}

static void test_blanks_around_equals_are_allowed_and_keys_fold_to_upper_case(void)
{
    expect_lines("scr_flush = 4\r\n\tckpt=1   type =XOR\n", "1|SCR_FLUSH=4\n2|CKPT=1|TYPE=XOR\n");
}

static void test_last_line_without_newline_is_read(void)
{
    expect_lines("SCR_DEBUG=1\nSCR_FLUSH=2", "1|SCR_DEBUG=1\n2|SCR_FLUSH=2\n");
}

static void test_dollar_and_brace_variables_expand_from_the_environment(void)
{
    setenv("SCRTEST_BASE", "/scratch/u1", 1);
    setenv("SCRTEST_JOB", "77", 1);
    expect_lines("SCR_PREFIX=$SCRTEST_BASE/run.${SCRTEST_JOB}x\nA=cost$\nB=$-1\n",
                 "1|SCR_PREFIX=/scratch/u1/run.77x\n2|A=cost$\n3|B=$-1\n");
}

static void test_an_unset_variable_expands_to_nothing(void)
{
    unsetenv("SCRTEST_NOT_SET");
    expect_lines("SCR_PREFIX=/p/${SCRTEST_NOT_SET}/x\n", "1|SCR_PREFIX=/p//x\n");
}

static void test_an_empty_value_expands_to_a_new_empty_string(void)
{
    unsetenv("SCRTEST_NOT_SET");
    const char *values[] = {"", "${SCRTEST_NOT_SET}", "$SCRTEST_NOT_SET"};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        char *got = NULL;
        int rc = scr_config_expand(values[i], "test.conf", 1, &got);
        CHECK(rc == SCR_SUCCESS && got != NULL && got[0] == '\0',
              "expanding '%s' gave rc %d and %s, expected an empty string", values[i], rc,
              got == NULL ? "NULL" : got);
        free(got);
    }
}

static void test_unterminated_brace_is_an_error_naming_file_and_line(void)
{
    expect_error("SCR_FLUSH=4\nSCR_PREFIX=/p/${HOME\n",
                 "test.conf:2: unterminated '${' in value '/p/${HOME'");
}

static void test_brace_without_a_variable_name_is_an_error(void)
{
    expect_error("SCR_PREFIX=/p/${}\n", "test.conf:1: '${}' is not a variable name");
    expect_error("SCR_PREFIX=/p/${1A}\n", "test.conf:1: '${1A}' is not a variable name");
}

static void test_malformed_lines_are_errors_naming_file_and_line(void)
{
    expect_error("\nSCR_FLUSH\n", "test.conf:2: key 'SCR_FLUSH' has no '=VALUE'");
    expect_error("SCR_FLUSH 4\n", "test.conf:1: key 'SCR_FLUSH' has no '=VALUE'");
    expect_error("=4\n", "test.conf:1: '=' without a key before it");
    expect_error("SCR_FLUSH=\n", "test.conf:1: key 'SCR_FLUSH' has an empty value");
    expect_error("SCR_FLUSH= # none\n", "test.conf:1: key 'SCR_FLUSH' has an empty value");
    expect_error("SCR/FLUSH=4\n", "test.conf:1: '/' is not allowed in key 'SCR'");
    expect_error("CKPT=1 \"TYPE\"=XOR\n",
                 "test.conf:1: '\"' cannot start a key (keys are letters, digits, '_', '.', '-')");
}

static void test_a_nul_byte_is_refused(void)
{
    const char text[] = "SCR_FLUSH=4\nSCR_DE\0BUG=1\n";
    seen[0] = '\0';
    scr_log_set_quiet(1);
    int rc = scr_config_parse_text(text, sizeof(text) - 1, "bin.conf", record_line, NULL);
    scr_log_set_quiet(0);
    CHECK(rc == SCR_ERR_FORMAT, "rc %d", rc);
    CHECK(strstr(scr_last_error(), "bin.conf:2: NUL byte") != NULL, "message '%s'",
          scr_last_error());
}

static int stop_at_second(void *ctx, const char *source, int line,
                          const struct scr_config_pair *pairs, int npairs)
{
    (void)ctx;
    (void)source;
    (void)pairs;
    (void)npairs;
    return line == 2 ? SCR_ERR_ARG : SCR_SUCCESS;
}

static void test_a_callback_error_stops_the_parse_and_is_returned(void)
{
    const char *text = "A=1\nB=2\nC=3\n";
    int rc = scr_config_parse_text(text, strlen(text), "t", stop_at_second, NULL);
    CHECK(rc == SCR_ERR_ARG, "rc %d", rc);
}

static void test_a_missing_file_is_notfound_without_a_message(void)
{
    scr_clear_last_error();
    int rc = scr_config_parse_file(tap_path("no-such.conf"), record_line, NULL);
    CHECK(rc == SCR_ERR_NOTFOUND, "rc %d", rc);
    CHECK(scr_last_error()[0] == '\0', "logged '%s'", scr_last_error());
}

static void test_a_file_is_parsed_with_its_path_in_messages(void)
{
    const char *path = tap_path("bad.conf");
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL, "create %s", path);
    fputs("SCR_FLUSH=1\n\n\nX=${Y\n", f);
    fclose(f);
    scr_log_set_quiet(1);
    int rc = scr_config_parse_file(path, record_line, NULL);
    scr_log_set_quiet(0);
    char want[4200];
    snprintf(want, sizeof(want), "%s:4: unterminated '${' in value '${Y'", path);
    CHECK(rc == SCR_ERR_FORMAT, "rc %d", rc);
    CHECK(strcmp(scr_last_error(), want) == 0, "message '%s'", scr_last_error());
}

int main(void)
{
    RUN(test_parameter_and_descriptor_lines_reach_the_callback_in_order);
    RUN(test_comments_and_blank_lines_are_skipped_but_hash_inside_a_value_is_kept);
    RUN(test_blanks_around_equals_are_allowed_and_keys_fold_to_upper_case);
    RUN(test_last_line_without_newline_is_read);
    RUN(test_dollar_and_brace_variables_expand_from_the_environment);
    RUN(test_an_unset_variable_expands_to_nothing);
    RUN(test_an_empty_value_expands_to_a_new_empty_string);
    RUN(test_unterminated_brace_is_an_error_naming_file_and_line);
    RUN(test_brace_without_a_variable_name_is_an_error);
    RUN(test_malformed_lines_are_errors_naming_file_and_line);
    RUN(test_a_nul_byte_is_refused);
    RUN(test_a_callback_error_stops_the_parse_and_is_returned);
    RUN(test_a_missing_file_is_notfound_without_a_message);
    RUN(test_a_file_is_parsed_with_its_path_in_messages);
    return tap_done();
}
