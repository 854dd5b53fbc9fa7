/* test_util_log.c — error, warning and debug lines and the last-error record. */
#include "tap.h"

#include "scr_err.h"
#include "util_log.h"

#include <fcntl.h>

/* Run fn with stderr sent to a file; return what it wrote (static buffer). */
static const char *capture_stderr(void (*fn)(void))
{
    static char text[4096];
    const char *path = tap_path("stderr.txt");
    int saved = dup(STDERR_FILENO);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDERR_FILENO);
    close(fd);
    fn();
    dup2(saved, STDERR_FILENO);
    close(saved);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    return text;
}

static void emit_error(void)
{
    scr_err("open of %s failed: %s", "/x/y", "No such file");
}
static void emit_warning(void)
{
    scr_warn("key %s unknown", "FOO");
}
static void emit_debug(void)
{
    scr_dbg(1, "level one");
    scr_dbg(2, "level two");
}

static void test_error_is_one_prefixed_line_and_is_remembered(void)
{
    scr_log_set_prefix("tool");
    scr_clear_last_error();
    const char *out = capture_stderr(emit_error);
    CHECK(strcmp(out, "tool: error: open of /x/y failed: No such file\n") == 0, "got '%s'", out);
    CHECK(strcmp(scr_last_error(), "open of /x/y failed: No such file") == 0, "last '%s'",
          scr_last_error());
    out = capture_stderr(emit_warning);
    CHECK(strcmp(out, "tool: warning: key FOO unknown\n") == 0, "got '%s'", out);
}

static void test_quiet_prints_nothing_but_still_records(void)
{
    scr_log_set_quiet(1);
    scr_clear_last_error();
    const char *out = capture_stderr(emit_error);
    scr_log_set_quiet(0);
    CHECK(out[0] == '\0', "printed '%s'", out);
    CHECK(strstr(scr_last_error(), "/x/y") != NULL, "not recorded");
}

static void test_debug_lines_follow_the_level(void)
{
    scr_log_set_prefix("SCR");
    scr_log_set_level(0);
    CHECK(capture_stderr(emit_debug)[0] == '\0', "level 0 prints no debug lines");
    scr_log_set_level(1);
    const char *out = capture_stderr(emit_debug);
    CHECK(strcmp(out, "SCR: level one\n") == 0, "level 1 got '%s'", out);
    scr_log_set_level(2);
    out = capture_stderr(emit_debug);
    CHECK(strcmp(out, "SCR: level one\nSCR: level two\n") == 0, "level 2 got '%s'", out);
}

static void test_status_codes_have_descriptions(void)
{
    CHECK(strcmp(scr_strstatus(SCR_SUCCESS), "success") == 0, "success");
    CHECK(strcmp(scr_strstatus(SCR_ERR_FORMAT), "damaged or unrecognised data") == 0, "format");
    CHECK(strcmp(scr_strstatus(12345), "unknown status") == 0, "unknown");
}

/* Must run first: the level comes from SCR_DEBUG only until it is set. */
static void test_level_starts_from_scr_debug(void)
{
    setenv("SCR_DEBUG", "2", 1);
    CHECK(scr_log_level() == 2, "SCR_DEBUG=2 gives level %d", scr_log_level());
}

int main(void)
{
    RUN(test_level_starts_from_scr_debug);
    RUN(test_error_is_one_prefixed_line_and_is_remembered);
    RUN(test_quiet_prints_nothing_but_still_records);
    RUN(test_debug_lines_follow_the_level);
    RUN(test_status_codes_have_descriptions);
    return tap_done();
}
