/* test_adopt_rule.c — the ownership rule of scr-adopt: which rank a path gets. */
#include "tap.h"

#include "adopt_rule.h"
#include "scr_err.h"
#include "util_log.h"

/* The rank pattern gives path, or -1 when it matches none. */
static int rank_of(const char *pattern, const char *path)
{
    struct scr_adopt_rule rule;
    int rank = -1;
    if (scr_adopt_rule_parse(pattern, &rule) != SCR_SUCCESS) return -2;
    return scr_adopt_rule_match(&rule, path, &rank) ? rank : -1;
}

static void test_d_takes_the_digits_of_the_rank(void)
{
    CHECK(rank_of("rank_%d.ckpt", "rank_3.ckpt") == 3, "rank_3.ckpt");
    CHECK(rank_of("rank_%d.ckpt", "rank_1234.ckpt") == 1234, "rank_1234.ckpt");
    CHECK(rank_of("rank_%d.ckpt", "rank_007.ckpt") == 7, "leading zeros");
    CHECK(rank_of("%d", "0") == 0, "a bare rank");
}

static void test_the_whole_path_must_match(void)
{
    CHECK(rank_of("rank_%d.ckpt", "rank_3.ckpt.bak") == -1, "a suffix left over");
    CHECK(rank_of("rank_%d.ckpt", "old/rank_3.ckpt") == -1, "a directory before it");
    CHECK(rank_of("rank_%d.ckpt", "rank_.ckpt") == -1, "no digit");
    CHECK(rank_of("rank_%d.ckpt", "rank_-3.ckpt") == -1, "a sign is not a digit");
    CHECK(rank_of("rank_%d.ckpt", "Rank_3.ckpt") == -1, "case counts");
}

static void test_star_stays_within_one_path_component(void)
{
    CHECK(rank_of("r%d/*", "r12/data.0") == 12, "a file in r12/");
    CHECK(rank_of("r%d/*", "r12/sub/data.0") == -1, "not in a subdirectory of r12/");
    CHECK(rank_of("*/rank_%d", "a/rank_2") == 2, "any first directory");
    CHECK(rank_of("ckpt*_%d", "ckpt_5") == 5, "a star may match nothing");
}

static void test_d_takes_the_longest_run_that_lets_the_rest_match(void)
{
    CHECK(rank_of("%d*", "12x") == 12, "12x");
    CHECK(rank_of("%d1", "121") == 12, "the rest needs the last 1");
    CHECK(rank_of("r%d*.x", "r1-extra.x") == 1, "r1-extra.x");
}

static void test_percent_percent_is_a_literal_percent(void)
{
    CHECK(rank_of("100%%_%d", "100%_4") == 4, "100%%_4");
    CHECK(rank_of("100%%_%d", "100_4") == -1, "the percent must be there");
}

static void test_a_rank_beyond_an_int_matches_nothing(void)
{
    CHECK(rank_of("r%d", "r2147483647") == 2147483647, "INT_MAX");
    CHECK(rank_of("r%d", "r2147483648") == -1, "INT_MAX + 1");
    CHECK(rank_of("r%d", "r123456789012") == -1, "more digits than any rank");
}

static void test_a_rule_needs_exactly_one_d_and_no_other_percent(void)
{
    struct scr_adopt_rule rule;
    CHECK(scr_adopt_rule_parse("rank.ckpt", &rule) == SCR_ERR_ARG, "no %%d");
    CHECK(strstr(scr_last_error(), "has 0 %d") != NULL, "%s", scr_last_error());
    CHECK(scr_adopt_rule_parse("r%d_%d", &rule) == SCR_ERR_ARG, "two %%d");
    CHECK(scr_adopt_rule_parse("r%d_%s", &rule) == SCR_ERR_ARG, "%%s");
    CHECK(strstr(scr_last_error(), "'%s' is not understood") != NULL, "%s", scr_last_error());
    CHECK(scr_adopt_rule_parse("r%d%", &rule) == SCR_ERR_ARG, "a trailing %%");
    CHECK(scr_adopt_rule_parse("", &rule) == SCR_ERR_ARG, "empty");
    CHECK(scr_adopt_rule_parse("%%%d", &rule) == SCR_SUCCESS, "%%%% then %%d");
}

int main(void)
{
    scr_log_set_quiet(1);
    RUN(test_d_takes_the_digits_of_the_rank);
    RUN(test_the_whole_path_must_match);
    RUN(test_star_stays_within_one_path_component);
    RUN(test_d_takes_the_longest_run_that_lets_the_rest_match);
    RUN(test_percent_percent_is_a_literal_percent);
    RUN(test_a_rank_beyond_an_int_matches_nothing);
    RUN(test_a_rule_needs_exactly_one_d_and_no_other_percent);
    return tap_done();
}
