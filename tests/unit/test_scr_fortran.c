/* test_scr_fortran.c — the string and error handling of the Fortran bindings
 * (lib/api/scr_fortran.c), called as gfortran calls them, over a stand-in for
 * the C API defined here: no MPI and no libscr needed. */
#include "tap.h"

#include "scr.h"
#include "scr_err.h"
#include "util_log.h"

/* The bindings, as gfortran sees them (hidden lengths are size_t). */
void scr_get_version_(char *version, int *ierror, size_t version_len);
void scr_config_(const char *config, char *value, int *ierror, size_t config_len, size_t value_len);
void scr_route_file_(const char *name, char *file, int *ierror, size_t name_len, size_t file_len);
void scr_have_restart_(int *flag, char *name, int *ierror, size_t name_len);
void scr_start_restart_(char *name, int *ierror, size_t name_len);
void scr_start_output_(const char *name, const int *flags, int *ierror, size_t name_len);
void scr_complete_checkpoint_(const int *valid, int *ierror);
void scr_drop_(const char *name, int *ierror, size_t name_len);

/* --- the stand-in C API: records what it was given, returns what it is told */
static char got_name[SCR_MAX_FILENAME + 1];
static int got_null, got_int, calls;
static const char *give_text = "";
static int give_rc, give_flag;

static void record(const char *name)
{
    calls++;
    got_null = name == NULL;
    snprintf(got_name, sizeof(got_name), "%s", name ? name : "");
}
int SCR_Init(void)
{
    return give_rc;
}
int SCR_Finalize(void)
{
    return give_rc;
}
char *SCR_Get_version(void)
{
    return (char *)give_text;
}
int SCR_Should_exit(int *flag)
{
    *flag = give_flag;
    return give_rc;
}
const char *SCR_Config(const char *config)
{
    record(config);
    return strchr(config, '=') ? NULL : strdup(give_text);
}
const char *SCR_Configf(const char *format, ...)
{
    return SCR_Config(format);
}
int SCR_Route_file(const char *name, char *file)
{
    record(name);
    snprintf(file, SCR_MAX_FILENAME, "%s", give_text);
    return give_rc;
}
int SCR_Need_checkpoint(int *flag)
{
    *flag = give_flag;
    return give_rc;
}
int SCR_Start_checkpoint(void)
{
    return give_rc;
}
int SCR_Complete_checkpoint(int valid)
{
    got_int = valid;
    return give_rc;
}
int SCR_Have_restart(int *flag, char *name)
{
    *flag = give_flag;
    strcpy(name, give_text);
    return give_rc;
}
int SCR_Start_restart(char *name)
{
    strcpy(name, give_text);
    return give_rc;
}
int SCR_Complete_restart(int valid)
{
    got_int = valid;
    return give_rc;
}
int SCR_Start_output(const char *name, int flags)
{
    record(name);
    got_int = flags;
    return give_rc;
}
int SCR_Complete_output(int valid)
{
    got_int = valid;
    return give_rc;
}
int SCR_Current(const char *name)
{
    record(name);
    return give_rc;
}
int SCR_Drop(const char *name)
{
    record(name);
    return give_rc;
}
int SCR_Delete(const char *name)
{
    record(name);
    return give_rc;
}

static void reset(const char *text, int rc)
{
    got_name[0] = '\0';
    got_null = got_int = calls = 0;
    give_text = text;
    give_rc = rc;
    give_flag = 0;
    scr_log_set_quiet(1);
}

/* A Fortran variable of len characters holding text, blank-padded. */
static char *fvar(const char *text, size_t len)
{
    char *f = malloc(len + 1);
    if (f == NULL) exit(99);
    memset(f, ' ', len);
    memcpy(f, text, strlen(text));
    f[len] = '#'; /* a byte the bindings must not touch */
    return f;
}

/* --- tests --------------------------------------------------------------- */

static void test_name_loses_trailing_blanks_and_stops_at_nul(void)
{
    int ierr = -1;
    char out[20];
    reset("", 0);
    scr_drop_("ckpt.1     ", &ierr, 11);
    CHECK(ierr == SCR_SUCCESS && strcmp(got_name, "ckpt.1") == 0, "got '%s'", got_name);
    scr_drop_("a b  ", &ierr, 5);
    CHECK(strcmp(got_name, "a b") == 0, "inner blanks kept: '%s'", got_name);
    scr_drop_("dir/x\0garbage", &ierr, 13);
    CHECK(strcmp(got_name, "dir/x") == 0, "got '%s'", got_name);
    scr_route_file_("abcdef", out, &ierr, 3, sizeof(out)); /* reads 3 bytes, no more */
    CHECK(strcmp(got_name, "abc") == 0, "got '%s'", got_name);
}

static void test_name_of_scr_max_filename_characters_is_refused_not_cut(void)
{
    int ierr = 0;
    char *file = fvar("old", 16);
    char *name = fvar("", SCR_MAX_FILENAME);
    memset(name, 'x', SCR_MAX_FILENAME);
    reset("routed", 0);
    scr_route_file_(name, file, &ierr, SCR_MAX_FILENAME, 16);
    CHECK(ierr == SCR_ERR_ARG, "ierror %d", ierr);
    CHECK(calls == 0, "the C API was called");
    CHECK(memcmp(file, "                ", 16) == 0, "FILE is not blank");
    CHECK(strstr(scr_last_error(), "SCR_ROUTE_FILE: NAME has 1024") != NULL, "message '%s'",
          scr_last_error());

    name[SCR_MAX_FILENAME - 1] = ' '; /* 1023 characters fit */
    scr_route_file_(name, file, &ierr, SCR_MAX_FILENAME, 16);
    CHECK(ierr == SCR_SUCCESS && strlen(got_name) == SCR_MAX_FILENAME - 1, "ierror %d", ierr);
    free(file);
    free(name);
}

static void test_result_is_blank_padded_and_may_fill_the_variable(void)
{
    int ierr = -1;
    char *file = fvar("previous content", 16);
    reset("/cache/x", 0);
    scr_route_file_("x", file, &ierr, 1, 16);
    CHECK(ierr == SCR_SUCCESS && memcmp(file, "/cache/x        #", 17) == 0, "got '%.17s'", file);
    reset("0123456789abcdef", 0);
    scr_route_file_("x", file, &ierr, 1, 16);
    CHECK(ierr == SCR_SUCCESS && memcmp(file, "0123456789abcdef#", 17) == 0, "got '%.17s'", file);
    free(file);
}

static void test_result_too_long_is_an_error_and_leaves_blanks(void)
{
    int ierr = 0;
    char *version = fvar("x", 4);
    reset("0.1.0", 0);
    scr_get_version_(version, &ierr, 4);
    CHECK(ierr == SCR_ERR_ARG, "ierror %d", ierr);
    CHECK(memcmp(version, "    #", 5) == 0, "got '%.5s'", version);
    scr_get_version_(version, &ierr, 0);
    CHECK(ierr == SCR_ERR_ARG && version[0] == ' ', "zero length: ierror %d", ierr);
    free(version);
}

static void test_name_and_file_may_be_one_variable(void)
{
    int ierr = -1;
    char *v = fvar("ckpt/rank_0.dat", 40);
    reset("/dev/shm/u/scr.1/rank_0.dat", 0);
    scr_route_file_(v, v, &ierr, 40, 40);
    CHECK(strcmp(got_name, "ckpt/rank_0.dat") == 0, "NAME read as '%s'", got_name);
    CHECK(ierr == SCR_SUCCESS && memcmp(v, "/dev/shm/u/scr.1/rank_0.dat ", 28) == 0, "got '%.40s'",
          v);
    free(v);
}

static void test_c_error_is_passed_up_and_outputs_are_blank(void)
{
    int ierr = 0, flag = 0;
    char *name = fvar("stale", 8);
    reset("", SCR_ERR_STATE);
    scr_route_file_("x", name, &ierr, 1, 8);
    CHECK(ierr == SCR_ERR_STATE && memcmp(name, "        #", 9) == 0, "ierror %d", ierr);
    memcpy(name, "stale", 5);
    scr_start_restart_(name, &ierr, 8);
    CHECK(ierr == SCR_ERR_STATE && memcmp(name, "        #", 9) == 0, "ierror %d", ierr);
    memcpy(name, "stale", 5);
    scr_have_restart_(&flag, name, &ierr, 8);
    CHECK(ierr == SCR_ERR_STATE && memcmp(name, "        #", 9) == 0, "ierror %d", ierr);
    int valid = 1;
    scr_complete_checkpoint_(&valid, &ierr);
    CHECK(ierr == SCR_ERR_STATE && got_int == 1, "ierror %d valid %d", ierr, got_int);
    free(name);
}

static void test_have_restart_gives_the_name_only_with_a_checkpoint(void)
{
    int ierr = -1, flag = -1;
    char *name = fvar("stale", 8);
    reset("ckpt.7", 0);
    scr_have_restart_(&flag, name, &ierr, 8);
    CHECK(ierr == SCR_SUCCESS && flag == 0 && memcmp(name, "        #", 9) == 0,
          "flag %d got '%.9s'", flag, name);
    give_flag = 1;
    scr_have_restart_(&flag, name, &ierr, 8);
    CHECK(ierr == SCR_SUCCESS && flag == 1 && memcmp(name, "ckpt.7  #", 9) == 0,
          "flag %d got '%.9s'", flag, name);
    free(name);
}

static void test_blank_output_name_means_a_name_from_the_id(void)
{
    int ierr = -1, flags = SCR_FLAG_OUTPUT | SCR_FLAG_CHECKPOINT;
    reset("", 0);
    scr_start_output_("    ", &flags, &ierr, 4);
    CHECK(ierr == SCR_SUCCESS && got_null && got_int == 3, "null %d flags %d", got_null, got_int);
    scr_start_output_("out.1 ", &flags, &ierr, 6);
    CHECK(!got_null && strcmp(got_name, "out.1") == 0, "got '%s'", got_name);
}

static void test_config_returns_queried_value_and_blanks_after_a_set(void)
{
    int ierr = -1;
    char *value = fvar("stale", 8);
    reset("4", 0);
    scr_config_("SCR_FLUSH   ", value, &ierr, 12, 8);
    CHECK(strcmp(got_name, "SCR_FLUSH") == 0, "CONFIG read as '%s'", got_name);
    CHECK(ierr == SCR_SUCCESS && memcmp(value, "4       #", 9) == 0, "got '%.9s'", value);
    scr_config_("SCR_FLUSH=2", value, &ierr, 11, 8);
    CHECK(ierr == SCR_SUCCESS && memcmp(value, "        #", 9) == 0, "got '%.9s'", value);
    free(value);
}

int main(void)
{
    RUN(test_name_loses_trailing_blanks_and_stops_at_nul);
    RUN(test_name_of_scr_max_filename_characters_is_refused_not_cut);
    RUN(test_result_is_blank_padded_and_may_fill_the_variable);
    RUN(test_result_too_long_is_an_error_and_leaves_blanks);
    RUN(test_name_and_file_may_be_one_variable);
    RUN(test_c_error_is_passed_up_and_outputs_are_blank);
    RUN(test_have_restart_gives_the_name_only_with_a_checkpoint);
    RUN(test_blank_output_name_means_a_name_from_the_id);
    RUN(test_config_returns_queried_value_and_blanks_after_a_set);
    return tap_done();
}
