/* test_util_path.c — lexical normalise, join, relative, dirname, basename, inside. */
#include "tap.h"

#include "scr_err.h"
#include "util_log.h"
#include "util_path.h"

struct pair {
    const char *in;
    const char *want;
};

typedef int (*one_arg_fn)(const char *, char **);

/* Run fn over a table; report every row that differs. */
static void check_table(const char *what, one_arg_fn fn, const struct pair *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *out = NULL;
        int rc = fn(rows[i].in, &out);
        CHECK(rc == SCR_SUCCESS, "%s('%s'): rc %d", what, rows[i].in, rc);
        if (rc == SCR_SUCCESS)
            CHECK(strcmp(out, rows[i].want) == 0, "%s('%s') = '%s', want '%s'", what, rows[i].in,
                  out, rows[i].want);
        free(out);
    }
}

static void test_normalize_collapses_slashes_dots_and_dotdots(void)
{
    static const struct pair rows[] = {
        {"/", "/"},
        {"//", "/"},
        {"///a//b///", "/a/b"},
        {"/a/./b/.", "/a/b"},
        {"/a/b/../c", "/a/c"},
        {"/a/b/../../c", "/c"},
        {"/./", "/"},
        {"/a/b/c/../..", "/a"},
        {"a//b/./c/", "a/b/c"},
        {".", "."},
        {"./", "."},
        {"./a", "a"},
        {"a/..", "."},
        {"a/b/..", "a"},
        {"x/.../y", "x/.../y"},
        {"/..a/b..", "/..a/b.."},
    };
    check_table("normalize", scr_path_normalize, rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_normalize_keeps_absolute_dotdot_at_root(void)
{
    static const struct pair rows[] = {
        {"/..", "/"},
        {"/../..", "/"},
        {"/../x", "/x"},
        {"/a/../../../b", "/b"},
    };
    check_table("normalize", scr_path_normalize, rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_normalize_keeps_unresolvable_dotdot_of_relative_path(void)
{
    static const struct pair rows[] = {
        {"..", ".."},           {"../", ".."},     {"a/../..", ".."},
        {"../../a", "../../a"}, {"../a/..", ".."}, {"a/b/../../../c", "../c"},
        {"../a/b/../..", ".."}, {"./../.", ".."},
    };
    check_table("normalize", scr_path_normalize, rows, sizeof(rows) / sizeof(rows[0]));
}

static void test_normalize_refuses_empty_and_null(void)
{
    char *out = (char *)"untouched";
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_path_normalize("", &out) == SCR_ERR_ARG, "empty path accepted");
    CHECK(strstr(scr_last_error(), "empty") != NULL, "message '%s'", scr_last_error());
    CHECK(scr_path_normalize(NULL, &out) == SCR_ERR_ARG, "NULL path accepted");
    CHECK(scr_path_normalize("/a", NULL) == SCR_ERR_ARG, "NULL result accepted");
    scr_log_set_quiet(0);
    CHECK(strcmp(out, "untouched") == 0, "result set on error");
}

static void test_join_puts_one_slash_and_normalises(void)
{
    static const struct {
        const char *dir, *name, *want;
    } rows[] = {
        {"/p", "a/b", "/p/a/b"}, {"/p/", "/a", "/p/a"},  {"/p//", "a/", "/p/a"},
        {"/p", "../x", "/x"},    {"/p", "", "/p"},       {"", "a/b", "a/b"},
        {"", "/a", "/a"},        {"a", "b", "a/b"},      {"/", "x", "/x"},
        {"/p", ".", "/p"},       {"rel", "../..", ".."},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char *out = NULL;
        int rc = scr_path_join(rows[i].dir, rows[i].name, &out);
        CHECK(rc == SCR_SUCCESS && strcmp(out, rows[i].want) == 0,
              "join('%s', '%s') = rc %d '%s', want '%s'", rows[i].dir, rows[i].name, rc,
              out ? out : "(null)", rows[i].want);
        free(out);
    }
}

static void test_join_refuses_two_empty_parts_and_null(void)
{
    char *out = NULL;
    scr_log_set_quiet(1);
    CHECK(scr_path_join("", "", &out) == SCR_ERR_ARG, "two empty parts accepted");
    CHECK(scr_path_join(NULL, "a", &out) == SCR_ERR_ARG, "NULL dir accepted");
    CHECK(scr_path_join("a", NULL, &out) == SCR_ERR_ARG, "NULL name accepted");
    CHECK(scr_path_join("a", "b", NULL) == SCR_ERR_ARG, "NULL result accepted");
    scr_log_set_quiet(0);
    CHECK(out == NULL, "result set on error");
}

static void test_relative_climbs_and_descends_by_components(void)
{
    static const struct {
        const char *base, *path, *want;
    } rows[] = {
        {"/p/a/b", "/p/x/y", "../../x/y"},
        {"/p", "/p/x/y", "x/y"},
        {"/p/x/y", "/p", "../.."},
        {"/p", "/p", "."},
        {"/", "/a/b", "a/b"},
        {"/a/b", "/", "../.."},
        {"/", "/", "."},
        {"/pfoo", "/p/x", "../p/x"},
        {"/p", "/pfoo/x", "../pfoo/x"},
        {"/p//a/./", "/p/b/../a/c", "c"},
        {"/a/b/../c", "/a/d", "../d"},
        {"/a/b", "/a/bc", "../bc"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char *out = NULL;
        int rc = scr_path_relative(rows[i].base, rows[i].path, &out);
        CHECK(rc == SCR_SUCCESS && strcmp(out, rows[i].want) == 0,
              "relative('%s', '%s') = rc %d '%s', want '%s'", rows[i].base, rows[i].path, rc,
              out ? out : "(null)", rows[i].want);
        free(out);
    }
}

static void test_relative_refuses_relative_inputs(void)
{
    char *out = NULL;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_path_relative("p", "/p/x", &out) == SCR_ERR_ARG, "relative base accepted");
    CHECK(strstr(scr_last_error(), "absolute") != NULL, "message '%s'", scr_last_error());
    CHECK(scr_path_relative("/p", "x", &out) == SCR_ERR_ARG, "relative path accepted");
    CHECK(scr_path_relative("", "/x", &out) == SCR_ERR_ARG, "empty base accepted");
    CHECK(scr_path_relative(NULL, "/x", &out) == SCR_ERR_ARG, "NULL base accepted");
    CHECK(scr_path_relative("/p", "/x", NULL) == SCR_ERR_ARG, "NULL result accepted");
    scr_log_set_quiet(0);
    CHECK(out == NULL, "result set on error");
}

static void test_dirname_and_basename_of_normalised_path(void)
{
    static const struct pair dirs[] = {
        {"/a/b", "/a"}, {"/a", "/"},    {"/", "/"},          {"a", "."},     {"a/b/", "a"},
        {"..", "."},    {"../x", ".."}, {"/a/b/../c", "/a"}, {"//a//", "/"},
    };
    static const struct pair names[] = {
        {"/a/b", "b"}, {"/a/b/", "b"}, {"/", "/"},   {"a", "a"},
        {"a/..", "."}, {"../x", "x"},  {"..", ".."}, {"/a/./b/.", "b"},
    };
    check_table("dirname", scr_path_dirname, dirs, sizeof(dirs) / sizeof(dirs[0]));
    check_table("basename", scr_path_basename, names, sizeof(names) / sizeof(names[0]));
}

static void test_dirname_and_basename_refuse_empty_and_null(void)
{
    char *out = NULL;
    scr_log_set_quiet(1);
    CHECK(scr_path_dirname("", &out) == SCR_ERR_ARG, "dirname of empty path");
    CHECK(scr_path_basename("", &out) == SCR_ERR_ARG, "basename of empty path");
    CHECK(scr_path_dirname("/a", NULL) == SCR_ERR_ARG, "dirname NULL result");
    CHECK(scr_path_basename("/a", NULL) == SCR_ERR_ARG, "basename NULL result");
    scr_log_set_quiet(0);
    CHECK(out == NULL, "result set on error");
}

static int inside(const char *prefix, const char *path)
{
    int flag = -1;
    int rc = scr_path_is_inside(prefix, path, &flag);
    return rc == SCR_SUCCESS ? flag : -rc;
}

static void test_is_inside_decides_after_normalising(void)
{
    static const struct {
        const char *prefix, *path;
        int want;
    } rows[] = {
        {"/p", "/p/a", 1},
        {"/p", "/p", 1},
        {"/p/", "/p/a/b/", 1},
        {"/p", "/p/a/../b", 1},
        {"/p", "/p/a/../../etc", 0},
        {"/p", "/pfoo", 0},
        {"/p", "/pfoo/x", 0},
        {"/p/a", "/p", 0},
        {"/p", "/", 0},
        {"/", "/anything/at/all", 1},
        {"/", "/", 1},
        {"/p/../q", "/q/x", 1},
        {"/p", "/p/..", 0},
        {"/p", "//p//x", 1},
        {"/p", "/q/../p/x", 1},
        {"a", "a/b", 1},
        {"a", "a/../b", 0},
        {".", "x/y", 1},
        {".", "x/../..", 0},
        {".", ".", 1},
        {"..", "../x", 1},
        {"..", "../..", 0},
        {"../a", "../a/b", 1},
        {"a", "ab", 0},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int got = inside(rows[i].prefix, rows[i].path);
        CHECK(got == rows[i].want, "is_inside('%s', '%s') = %d, want %d", rows[i].prefix,
              rows[i].path, got, rows[i].want);
    }
}

static void test_is_inside_refuses_mixed_absolute_and_relative(void)
{
    int flag = 7;
    scr_log_set_quiet(1);
    scr_clear_last_error();
    CHECK(scr_path_is_inside("/p", "p/x", &flag) == SCR_ERR_ARG, "mixed accepted");
    CHECK(strstr(scr_last_error(), "p/x") != NULL, "message '%s'", scr_last_error());
    CHECK(scr_path_is_inside("p", "/p/x", &flag) == SCR_ERR_ARG, "mixed accepted");
    CHECK(scr_path_is_inside("", "/p", &flag) == SCR_ERR_ARG, "empty prefix accepted");
    CHECK(scr_path_is_inside("/p", "", &flag) == SCR_ERR_ARG, "empty path accepted");
    CHECK(scr_path_is_inside(NULL, "/p", &flag) == SCR_ERR_ARG, "NULL prefix accepted");
    CHECK(scr_path_is_inside("/p", "/p", NULL) == SCR_ERR_ARG, "NULL result accepted");
    scr_log_set_quiet(0);
    CHECK(flag == 7, "result set on error");
}

int main(void)
{
    RUN(test_normalize_collapses_slashes_dots_and_dotdots);
    RUN(test_normalize_keeps_absolute_dotdot_at_root);
    RUN(test_normalize_keeps_unresolvable_dotdot_of_relative_path);
    RUN(test_normalize_refuses_empty_and_null);
    RUN(test_join_puts_one_slash_and_normalises);
    RUN(test_join_refuses_two_empty_parts_and_null);
    RUN(test_relative_climbs_and_descends_by_components);
    RUN(test_relative_refuses_relative_inputs);
    RUN(test_dirname_and_basename_of_normalised_path);
    RUN(test_dirname_and_basename_refuse_empty_and_null);
    RUN(test_is_inside_decides_after_normalising);
    RUN(test_is_inside_refuses_mixed_absolute_and_relative);
    return tap_done();
}
