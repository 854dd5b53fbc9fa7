/* test_config.c — parameters resolved from environment, files, SCR_Config and defaults. */
#include "tap.h"

#include "config.h"
#include "config_refused.h"
#include "kvtree_file.h"
#include "kvtree_util.h"
#include "scr_err.h"
#include "util_log.h"
#include "util_parse.h"

#include <fcntl.h>
#include <sys/stat.h>

/* --- helpers ----------------------------------------------------------------- */

/* stderr of the code between capture_begin and capture_end (static buffer). */
static int saved_stderr = -1;

static void capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    int fd = open(tap_path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDERR_FILENO);
    close(fd);
}

static const char *capture_end(void)
{
    static char text[8192];
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    FILE *f = fopen(tap_path("stderr.txt"), "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(99);
    }
    fputs(text, f);
    fclose(f);
}

/* Start every test from a clean environment: no SCR_* parameter set, the
 * prefix (and so the default .scrconf) in a directory of the test's own. */
static const char *fresh_prefix(const char *name)
{
    for (const struct scr_config_param *p = scr_config_params(); p->name != NULL; p++)
        unsetenv(p->name);
    const char *dir = tap_path(name);
    mkdir(dir, 0700);
    setenv("SCR_PREFIX", dir, 1);
    return dir;
}

static const char *in_dir(const char *dir, const char *name)
{
    static char bufs[4][4200];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, 4200, "%s/%s", dir, name);
    return b;
}

/* Load with a system file of the given text (NULL: none). */
static int load(scr_config *cfg, const char *dir, const char *system_text)
{
    struct scr_config_sources src = {0};
    src.system_file = in_dir(dir, "system.conf");
    if (system_text) write_text(src.system_file, system_text);
    return scr_config_load(cfg, &src);
}

static const char *value_of(const scr_config *cfg, const char *name)
{
    const char *v = NULL;
    return scr_config_get(cfg, name, &v) == SCR_SUCCESS ? v : "(unset)";
}

/* --- defaults and precedence -------------------------------------------------- */

static void test_defaults_come_from_the_catalogue(void)
{
    const char *dir = fresh_prefix("defaults");
    scr_config *cfg = scr_config_new();
    REQUIRE(cfg != NULL, "new");
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    long long flush = 0;
    CHECK(scr_config_get_int(cfg, "SCR_FLUSH", &flush) == SCR_SUCCESS && flush == 10, "flush %lld",
          flush);
    CHECK(strcmp(value_of(cfg, "SCR_COPY_TYPE"), "XOR") == 0, "copy type %s",
          value_of(cfg, "SCR_COPY_TYPE"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_FLUSH"), "built-in default") == 0, "origin %s",
          scr_config_origin(cfg, "SCR_FLUSH"));
    uint64_t buf = 0;
    CHECK(scr_config_get_bytes(cfg, "SCR_MPI_BUF_SIZE", &buf) == SCR_SUCCESS && buf == 262144,
          "mpi buf %llu", (unsigned long long)buf);
    const char *v;
    CHECK(scr_config_get(cfg, "SCR_CURRENT", &v) == SCR_ERR_NOTFOUND, "SCR_CURRENT has a value");
    CHECK(scr_config_origin(cfg, "SCR_CURRENT") == NULL, "unset has an origin");
    scr_config_delete(cfg);
}

static void test_environment_beats_user_file_beats_scr_config_beats_system_file(void)
{
    const char *dir = fresh_prefix("precedence");
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=3\nSCR_CACHE_SIZE=5\n");
    scr_config *cfg = scr_config_new();
    REQUIRE(cfg != NULL, "new");
    REQUIRE(scr_config_apply(cfg, "SCR_FLUSH=7", NULL) == SCR_SUCCESS, "apply");
    REQUIRE(scr_config_apply(cfg, "SCR_SET_SIZE=6", NULL) == SCR_SUCCESS, "apply");
    REQUIRE(scr_config_apply(cfg, "SCR_HALT_SECONDS=30", NULL) == SCR_SUCCESS, "apply");
    setenv("SCR_FLUSH", "2", 1);
    REQUIRE(load(cfg, dir,
                 "SCR_FLUSH=9\nSCR_CACHE_SIZE=8\nSCR_SET_SIZE=9\nSCR_HALT_SECONDS=60\n"
                 "SCR_FETCH=0\n") == SCR_SUCCESS,
            "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "2") == 0, "env lost: %s", value_of(cfg, "SCR_FLUSH"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_FLUSH"), "environment") == 0, "origin %s",
          scr_config_origin(cfg, "SCR_FLUSH"));
    CHECK(strcmp(value_of(cfg, "SCR_CACHE_SIZE"), "5") == 0, "user file lost: %s",
          value_of(cfg, "SCR_CACHE_SIZE"));
    char want[4200];
    snprintf(want, sizeof(want), "%s:2", in_dir(dir, ".scrconf"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_CACHE_SIZE"), want) == 0, "origin %s, want %s",
          scr_config_origin(cfg, "SCR_CACHE_SIZE"), want);
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "6") == 0, "SCR_Config lost: %s",
          value_of(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_SET_SIZE"), "SCR_Config") == 0, "origin %s",
          scr_config_origin(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(value_of(cfg, "SCR_FETCH"), "0") == 0, "system file lost: %s",
          value_of(cfg, "SCR_FETCH"));
    enum scr_config_layer layer;
    CHECK(scr_config_layer_of(cfg, "SCR_FETCH", &layer) == SCR_SUCCESS &&
              layer == SCR_CONFIG_LAYER_SYSTEM,
          "layer %d", (int)layer);
    CHECK(scr_config_layer_of(cfg, "SCR_DEBUG", &layer) == SCR_SUCCESS &&
              layer == SCR_CONFIG_LAYER_DEFAULT,
          "layer %d", (int)layer);
    unsetenv("SCR_FLUSH");
    scr_config_delete(cfg);
}

static void test_scr_conf_file_names_the_user_file_instead_of_the_prefix_one(void)
{
    const char *dir = fresh_prefix("conffile");
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=3\n");
    write_text(in_dir(dir, "mine.conf"), "SCR_FLUSH=4\n");
    setenv("SCR_CONF_FILE", in_dir(dir, "mine.conf"), 1);
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "4") == 0, "got %s", value_of(cfg, "SCR_FLUSH"));
    unsetenv("SCR_CONF_FILE");
    scr_config_delete(cfg);
}

static void test_a_missing_scr_conf_file_is_a_user_file_not_written_yet(void)
{
    const char *dir = fresh_prefix("conffile-missing");
    setenv("SCR_CONF_FILE", in_dir(dir, "gone.conf"), 1);
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "rc %d: %s", rc, scr_last_error());
    CHECK(err[0] == '\0', "said '%s'", err);
    unsetenv("SCR_CONF_FILE");
    scr_config_delete(cfg);
}

static void test_a_scr_conf_file_that_is_not_a_regular_file_is_an_error_naming_it(void)
{
    const char *dir = fresh_prefix("conffile-dir");
    setenv("SCR_CONF_FILE", dir, 1);
    scr_config *cfg = scr_config_new();
    scr_log_set_quiet(1);
    int rc = load(cfg, dir, NULL);
    scr_log_set_quiet(0);
    CHECK(rc != SCR_SUCCESS, "a directory was read as a configuration file");
    CHECK(strstr(scr_last_error(), dir) != NULL, "message '%s'", scr_last_error());
    unsetenv("SCR_CONF_FILE");
    scr_config_delete(cfg);
}

/* --- who may set what ----------------------------------------------------------- */

static void test_system_only_parameter_is_ignored_from_user_levels_with_a_warning(void)
{
    const char *dir = fresh_prefix("systemonly");
    write_text(in_dir(dir, ".scrconf"), "SCR_CNTL_BASE=/user/file\n");
    setenv("SCR_CNTL_BASE", "/user/env", 1);
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc_apply = scr_config_apply(cfg, "SCR_CNTL_BASE=/user/app", NULL);
    int rc = load(cfg, dir, "SCR_CNTL_BASE=/site/shm\n");
    const char *err = capture_end();
    CHECK(rc_apply == SCR_ERR_ARG, "SCR_Config accepted SCR_CNTL_BASE (rc %d)", rc_apply);
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_CNTL_BASE"), "/site/shm") == 0, "got %s",
          value_of(cfg, "SCR_CNTL_BASE"));
    CHECK(strstr(err,
                 "environment: SCR_CNTL_BASE may only be set by the system configuration; ignored"),
          "no warning for the environment in '%s'", err);
    CHECK(strstr(err, ".scrconf:1: SCR_CNTL_BASE may only be set by the system configuration"),
          "no warning for the user file in '%s'", err);
    CHECK(strstr(err, "SCR_Config: SCR_CNTL_BASE may only be set by the system configuration"),
          "no warning for SCR_Config in '%s'", err);
    unsetenv("SCR_CNTL_BASE");
    scr_config_delete(cfg);
}

static void test_scr_config_sets_cache_base_and_size_as_scr_3_1_does(void)
{
    const char *dir = fresh_prefix("byapp");
    scr_config *cfg = scr_config_new();
    CHECK(scr_config_apply(cfg, "SCR_CACHE_SIZE=4", NULL) == SCR_SUCCESS, "cache size refused");
    CHECK(scr_config_apply(cfg, "SCR_CACHE_BASE=/ssd", NULL) == SCR_SUCCESS, "cache base refused");
    REQUIRE(load(cfg, dir, "SCR_CACHE_BASE=/site\n") == SCR_SUCCESS, "load");
    CHECK(strcmp(value_of(cfg, "SCR_CACHE_SIZE"), "4") == 0, "got %s",
          value_of(cfg, "SCR_CACHE_SIZE"));
    CHECK(strcmp(value_of(cfg, "SCR_CACHE_BASE"), "/ssd") == 0, "got %s",
          value_of(cfg, "SCR_CACHE_BASE"));
    scr_config_delete(cfg);
}

static void test_scr_conf_file_and_prefix_set_by_scr_config_find_the_user_file(void)
{
    const char *dir = fresh_prefix("byapp-conffile");
    write_text(in_dir(dir, "mine.conf"), "SCR_FLUSH=4\n");
    scr_config *cfg = scr_config_new();
    char line[4300];
    snprintf(line, sizeof(line), "SCR_CONF_FILE=%s", in_dir(dir, "mine.conf"));
    REQUIRE(scr_config_apply(cfg, line, NULL) == SCR_SUCCESS, "set: %s", scr_last_error());
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "4") == 0, "user file not read: %s",
          value_of(cfg, "SCR_FLUSH"));
    scr_config_delete(cfg);

    /* SCR_PREFIX set by SCR_Config names where .scrconf is */
    const char *other = tap_path("byapp-prefix");
    mkdir(other, 0700);
    write_text(in_dir(other, ".scrconf"), "SCR_FLUSH=5\n");
    unsetenv("SCR_PREFIX");
    cfg = scr_config_new();
    snprintf(line, sizeof(line), "SCR_PREFIX=%s", other);
    REQUIRE(scr_config_apply(cfg, line, NULL) == SCR_SUCCESS, "set");
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "5") == 0, "prefix's .scrconf not read: %s",
          value_of(cfg, "SCR_FLUSH"));
    scr_config_delete(cfg);
}

static void test_unknown_key_is_a_warning_naming_file_and_line_and_is_kept(void)
{
    const char *dir = fresh_prefix("unknown");
    write_text(in_dir(dir, ".scrconf"), "# new\nSCR_FLUSH=2\nSCR_SHINY_NEW=yes\n");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strstr(err,
                 ".scrconf:3: unknown parameter SCR_SHINY_NEW (kept; a newer version may use it)"),
          "warning '%s'", err);
    CHECK(strcmp(value_of(cfg, "SCR_SHINY_NEW"), "yes") == 0, "not kept");
    scr_config_delete(cfg);
}

/* Every SCR parameter this version does not implement is refused, with its
 * reason, from a file, the environment and SCR_Config, and is never kept. */
static void test_scr_parameters_not_implemented_are_refused_everywhere_and_never_kept(void)
{
    for (const struct scr_config_refused *r = scr_config_refused_list(); r->name != NULL; r++) {
        const char *dir = fresh_prefix("refused");
        char line[256], want[512];
        snprintf(line, sizeof(line), "SCR_FLUSH=2\n%s=1\n", r->name);
        write_text(in_dir(dir, ".scrconf"), line);
        setenv(r->name, "1", 1);
        scr_config *cfg = scr_config_new();
        capture_begin();
        char set[128];
        snprintf(set, sizeof(set), "%s=1", r->name);
        int arc = scr_config_apply(cfg, set, NULL);
        int rc = load(cfg, dir, NULL);
        const char *err = capture_end();
        CHECK(rc == SCR_SUCCESS, "%s: load failed: %s", r->name, scr_last_error());
        CHECK(arc == SCR_ERR_ARG, "%s: SCR_Config accepted it (rc %d)", r->name, arc);
        snprintf(want, sizeof(want), ".scrconf:2: %s is refused: %s", r->name, r->why);
        CHECK(strstr(err, want) != NULL, "%s: no refusal from the file in '%s'", r->name, err);
        snprintf(want, sizeof(want), "environment: %s is refused: %s", r->name, r->why);
        CHECK(strstr(err, want) != NULL, "%s: no refusal from the environment in '%s'", r->name,
              err);
        snprintf(want, sizeof(want), "SCR_Config: %s is refused: %s", r->name, r->why);
        CHECK(strstr(err, want) != NULL, "%s: no refusal from SCR_Config in '%s'", r->name, err);
        const char *v = NULL;
        CHECK(scr_config_get(cfg, r->name, &v) == SCR_ERR_NOTFOUND, "%s: kept as '%s'", r->name,
              v ? v : "");
        CHECK(scr_config_param_find(r->name) == NULL, "%s is in the catalogue too", r->name);
        unsetenv(r->name);
        scr_config_delete(cfg);
    }
    const struct scr_config_refused *db = scr_config_refused_find("SCR_LOG_DB_ENABLE");
    CHECK(db != NULL && strstr(db->why, "SCR_LOG_TXT_ENABLE") &&
              strstr(db->why, ".scr/events.jsonl") && strstr(db->why, "scr-log"),
          "the MySQL log's refusal does not point to the text and JSON logs");
}

/* --- bad values --------------------------------------------------------------------- */

static void expect_load_error(const char *user_text, const char *env_name, const char *env_value,
                              const char *want_suffix)
{
    const char *dir = fresh_prefix("badvalue");
    write_text(in_dir(dir, ".scrconf"), user_text ? user_text : "");
    if (env_name) setenv(env_name, env_value, 1);
    scr_config *cfg = scr_config_new();
    REQUIRE(scr_config_apply(cfg, "SCR_FLUSH=5", NULL) == SCR_SUCCESS, "apply");
    scr_log_set_quiet(1);
    int rc = load(cfg, dir, NULL);
    scr_log_set_quiet(0);
    const char *msg = scr_last_error();
    size_t ml = strlen(msg), wl = strlen(want_suffix);
    CHECK(rc == SCR_ERR_FORMAT, "'%s' accepted (rc %d)", user_text ? user_text : env_value, rc);
    CHECK(ml >= wl && strcmp(msg + ml - wl, want_suffix) == 0, "message '%s', want '...%s'", msg,
          want_suffix);
    /* a failed load leaves the configuration as it was */
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "5") == 0, "changed by a failed load: %s",
          value_of(cfg, "SCR_FLUSH"));
    if (env_name) unsetenv(env_name);
    scr_config_delete(cfg);
}

static void test_a_bad_value_is_an_error_naming_parameter_value_expectation_and_place(void)
{
    expect_load_error("SCR_FLUSH=often\n", NULL, NULL,
                      ".scrconf:1: SCR_FLUSH=often: expected a whole number of at least 0");
    expect_load_error("\nSCR_SET_FAILURES=300\n", NULL, NULL,
                      ".scrconf:2: SCR_SET_FAILURES=300: expected a whole number from 1 to 255");
    expect_load_error("SCR_CRC_ON_COPY=yes\n", NULL, NULL,
                      ".scrconf:1: SCR_CRC_ON_COPY=yes: expected 0 or 1");
    expect_load_error(
        "SCR_COPY_TYPE=RAID5\n", NULL, NULL,
        ".scrconf:1: SCR_COPY_TYPE=RAID5: expected one of SINGLE, PARTNER, XOR, RS, FILE");
    expect_load_error("SCR_FILE_BUF_SIZE=12 MB\n", NULL, NULL,
                      ".scrconf:1: key 'MB' has no '=VALUE'");
    expect_load_error(
        NULL, "SCR_MPI_BUF_SIZE", "1QB",
        "environment: SCR_MPI_BUF_SIZE=1QB: expected a size such as 4096, 64KB or 1.5GB");
    expect_load_error("SCR_CHECKPOINT_OVERHEAD=-3\n", NULL, NULL,
                      ".scrconf:1: SCR_CHECKPOINT_OVERHEAD=-3: expected a number of at least 0");
    expect_load_error("SCR_PREFIX=/p/${WHERE\n", NULL, NULL,
                      ".scrconf:1: unterminated '${' in value '/p/${WHERE'");
}

/* --- descriptor tables ------------------------------------------------------------- */

/* SCR's burst-buffer flush types are refused by name, with the accepted ones;
 * SYNC and PTHREAD (in any case) are accepted */
static void test_a_burst_buffer_flush_type_is_refused_by_name(void)
{
    expect_load_error("SCR_FLUSH_TYPE=BBAPI\n", NULL, NULL,
                      ".scrconf:1: SCR_FLUSH_TYPE=BBAPI: expected one of SYNC, PTHREAD (BBAPI, the "
                      "IBM burst buffer "
                      "transfer, is not available in this version)");
    expect_load_error(
        NULL, "SCR_FLUSH_TYPE", "DataWarp",
        "environment: SCR_FLUSH_TYPE=DataWarp: expected one of SYNC, PTHREAD (DATAWARP, the Cray "
        "DataWarp transfer, is not available in this version)");
    expect_load_error(
        NULL, "SCR_FLUSH_TYPE", "CPPR",
        "environment: SCR_FLUSH_TYPE=CPPR: expected one of SYNC, PTHREAD (CPPR, the Intel CPPR "
        "transfer, is not available in this version)");
    expect_load_error(NULL, "SCR_FLUSH_TYPE", "FAST",
                      "environment: SCR_FLUSH_TYPE=FAST: expected one of SYNC, PTHREAD");
    const char *ok[] = {"SYNC", "pthread"};
    for (int i = 0; i < 2; i++) {
        const char *dir = fresh_prefix("flushtype");
        setenv("SCR_FLUSH_TYPE", ok[i], 1);
        scr_config *cfg = scr_config_new();
        CHECK(load(cfg, dir, NULL) == SCR_SUCCESS, "SCR_FLUSH_TYPE=%s refused", ok[i]);
        unsetenv("SCR_FLUSH_TYPE");
        scr_config_delete(cfg);
    }
}

static void test_descriptor_lines_become_tables_and_the_first_layer_defining_one_wins(void)
{
    const char *dir = fresh_prefix("tables");
    write_text(in_dir(dir, ".scrconf"),
               "CKPT=0 INTERVAL=1 GROUP=NODE STORE=/dev/shm TYPE=xor SET_SIZE=4\n"
               "CKPT=1 INTERVAL=4 TYPE=RS SET_SIZE=8 SET_FAILURES=3 OUTPUT=1\n");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir,
                 "GROUPS=host1 POWER=psu1 SWITCH=0\nGROUPS=host2 POWER=psu1 SWITCH=1\n"
                 "STORE=/dev/shm GROUP=NODE COUNT=1\nSTORE=/ssd GROUP=NODE COUNT=3 ENABLED=1\n"
                 "CKPT=0 TYPE=SINGLE\n") == SCR_SUCCESS,
            "load: %s", scr_last_error());
    const scr_kvtree *ckpt = scr_config_table(cfg, "CKPT");
    CHECK(scr_kvtree_size(ckpt) == 2, "%d CKPT entries", scr_kvtree_size(ckpt));
    const char *v = NULL;
    scr_kvtree_util_get_str(scr_kvtree_get(ckpt, "0"), "TYPE", &v);
    CHECK(v && strcmp(v, "XOR") == 0, "CKPT 0 TYPE %s (user file should win, in upper case)", v);
    scr_kvtree_util_get_str(scr_kvtree_get(ckpt, "1"), "SET_FAILURES", &v);
    CHECK(v && strcmp(v, "3") == 0, "CKPT 1 SET_FAILURES %s", v);
    const scr_kvtree *groups = scr_config_table(cfg, "GROUPS");
    scr_kvtree_util_get_str(scr_kvtree_get(groups, "host2"), "SWITCH", &v);
    CHECK(v && strcmp(v, "1") == 0, "host2 SWITCH %s", v);
    const scr_kvtree *stores = scr_config_table(cfg, "STORE");
    scr_kvtree_util_get_str(scr_kvtree_get(stores, "/ssd"), "COUNT", &v);
    CHECK(v && strcmp(v, "3") == 0, "/ssd COUNT %s", v);
    char want[4200];
    snprintf(want, sizeof(want), "%s:1", in_dir(dir, ".scrconf"));
    CHECK(strcmp(scr_config_table_origin(cfg, "CKPT"), want) == 0, "origin %s",
          scr_config_table_origin(cfg, "CKPT"));
    CHECK(scr_config_table(cfg, "NOPE") == NULL, "undefined table found");
    scr_config_delete(cfg);
}

static void test_bad_descriptor_entries_and_attributes_are_errors_or_warnings(void)
{
    expect_load_error("CKPT=first TYPE=XOR\n", NULL, NULL,
                      ".scrconf:1: CKPT=first: expected a whole number of at least 0");
    expect_load_error("CKPT=0 SET_SIZE=0\n", NULL, NULL,
                      ".scrconf:1: SET_SIZE=0: expected a whole number of at least 1");
    expect_load_error("STORE=/ssd COUNT=many\n", NULL, NULL,
                      ".scrconf:1: COUNT=many: expected a whole number of at least 0");

    const char *dir = fresh_prefix("table-warn");
    write_text(in_dir(dir, ".scrconf"), "STORE=/ssd GROUP=NODE SPEED=fast\n");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strstr(err, ".scrconf:1: STORE descriptors have no attribute SPEED"), "warning '%s'",
          err);
    scr_config_delete(cfg);
}

/* --- typed values ----------------------------------------------------------------- */

static void test_sizes_accept_units_as_powers_of_1024(void)
{
    struct {
        const char *text;
        uint64_t bytes;
    } ok[] = {
        {"0", 0},
        {"4096", 4096},
        {"64KB", 65536},
        {"64k", 65536},
        {"2MiB", 2097152},
        {"1.5GB", 1610612736ull},
        {"1T", 1099511627776ull},
        {"3b", 3},
        {"18446744073709551615", 18446744073709551615ull},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint64_t v = 1;
        CHECK(scr_parse_bytes(ok[i].text, &v) == 0 && v == ok[i].bytes, "%s gave %llu", ok[i].text,
              (unsigned long long)v);
    }
    const char *bad[] = {"",          "MB",  "-1",   "1.",   ".5",
                         "1 MB",      "1XB", "1KBB", "16EB", "18446744073709551616",
                         "20000000P", "1e3"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t v;
        CHECK(scr_parse_bytes(bad[i], &v) != 0, "'%s' accepted as %llu", bad[i],
              (unsigned long long)v);
    }
}

static void test_typed_getters_read_what_the_layers_hold(void)
{
    const char *dir = fresh_prefix("typed");
    write_text(in_dir(dir, ".scrconf"),
               "SCR_FLUSH_ASYNC_BW=1.5MB\nSCR_CRC_ON_COPY=1\nSCR_CHECKPOINT_OVERHEAD=2.5\n"
               "SCR_RUNS=-1\nSCR_COPY_TYPE=partner\n");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    uint64_t bw = 0;
    int crc = 0;
    double ovh = 0;
    long long runs = 0;
    CHECK(scr_config_get_bytes(cfg, "SCR_FLUSH_ASYNC_BW", &bw) == SCR_SUCCESS && bw == 1572864,
          "bw %llu", (unsigned long long)bw);
    CHECK(scr_config_get_bool(cfg, "SCR_CRC_ON_COPY", &crc) == SCR_SUCCESS && crc == 1, "crc");
    CHECK(scr_config_get_double(cfg, "SCR_CHECKPOINT_OVERHEAD", &ovh) == SCR_SUCCESS && ovh == 2.5,
          "overhead %f", ovh);
    CHECK(scr_config_get_int(cfg, "SCR_RUNS", &runs) == SCR_SUCCESS && runs == -1, "runs %lld",
          runs);
    CHECK(strcmp(value_of(cfg, "SCR_COPY_TYPE"), "PARTNER") == 0, "copy type %s",
          value_of(cfg, "SCR_COPY_TYPE"));
    scr_log_set_quiet(1);
    CHECK(scr_config_get_int(cfg, "SCR_CRC_ON_COPY", &runs) == SCR_ERR_ARG,
          "a bool read as an int");
    scr_log_set_quiet(0);
    scr_config_delete(cfg);
}

/* --- SCR_Config ------------------------------------------------------------------- */

static void test_scr_config_sets_gets_and_unsets_parameters(void)
{
    const char *dir = fresh_prefix("apply");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, "SCR_FLUSH=9\n") == SCR_SUCCESS, "load");
    char *out = NULL;
    CHECK(scr_config_apply(cfg, "SCR_FLUSH", &out) == SCR_SUCCESS && out && strcmp(out, "9") == 0,
          "get before set: %s", out ? out : "NULL");
    free(out);
    CHECK(scr_config_apply(cfg, "scr_flush=3", NULL) == SCR_SUCCESS, "set");
    CHECK(scr_config_apply(cfg, "SCR_FLUSH", &out) == SCR_SUCCESS && out && strcmp(out, "3") == 0,
          "get after set: %s", out ? out : "NULL");
    free(out);
    CHECK(scr_config_apply(cfg, "SCR_FLUSH=", NULL) == SCR_SUCCESS, "unset");
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "9") == 0, "after unset %s",
          value_of(cfg, "SCR_FLUSH"));
    CHECK(scr_config_apply(cfg, "SCR_CURRENT", &out) == SCR_SUCCESS && out == NULL,
          "unset parameter gave %s", out ? out : "NULL");
    scr_log_set_quiet(1);
    CHECK(scr_config_apply(cfg, "SCR_FLUSH=sometimes", NULL) == SCR_ERR_ARG, "bad value taken");
    CHECK(strcmp(scr_last_error(),
                 "SCR_Config: SCR_FLUSH=sometimes: expected a whole number of at least 0") == 0,
          "message '%s'", scr_last_error());
    CHECK(scr_config_apply(cfg, "", NULL) == SCR_ERR_ARG, "empty string taken");
    CHECK(scr_config_apply(cfg, "=3", NULL) == SCR_ERR_ARG, "no key taken");
    scr_log_set_quiet(0);
    scr_config_delete(cfg);
}

static void test_scr_config_descriptor_form_sets_gets_and_unsets_attributes(void)
{
    const char *dir = fresh_prefix("apply-desc");
    scr_config *cfg = scr_config_new();
    REQUIRE(scr_config_apply(cfg, "CKPT=0 TYPE=XOR SET_SIZE=4", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "CKPT=0 SET_SIZE=", NULL) == SCR_SUCCESS, "unset attr");
    REQUIRE(scr_config_apply(cfg, "CKPT=1 INTERVAL=2 TYPE=rs", NULL) == SCR_SUCCESS, "set 1");
    REQUIRE(load(cfg, dir, "CKPT=0 TYPE=SINGLE\n") == SCR_SUCCESS, "load: %s", scr_last_error());
    char *out = NULL;
    CHECK(scr_config_apply(cfg, "CKPT=1 TYPE", &out) == SCR_SUCCESS && out &&
              strcmp(out, "RS") == 0,
          "CKPT 1 TYPE %s", out ? out : "NULL");
    free(out);
    out = (char *)"x";
    CHECK(scr_config_apply(cfg, "CKPT=0 SET_SIZE", &out) == SCR_SUCCESS && out == NULL,
          "unset attribute gave %s", out ? out : "NULL");
    CHECK(strcmp(scr_config_table_origin(cfg, "CKPT"), "SCR_Config") == 0, "origin %s",
          scr_config_table_origin(cfg, "CKPT"));
    scr_log_set_quiet(1);
    CHECK(scr_config_apply(cfg, "CKPT=0 TYPE=MIRROR", NULL) == SCR_ERR_ARG, "bad TYPE taken");
    CHECK(scr_config_apply(cfg, "CKPT= TYPE=XOR", NULL) == SCR_ERR_ARG, "no entry name taken");
    CHECK(scr_config_apply(cfg, "CKPT=0 TYPE SET_SIZE=2", NULL) == SCR_ERR_ARG, "mixed get/set");
    scr_log_set_quiet(0);
    scr_config_delete(cfg);
}

static void test_an_empty_app_conf_as_scr_3_1_leaves_is_no_error(void)
{
    const char *dir = fresh_prefix("appconf-empty");
    char scrdir[4300];
    snprintf(scrdir, sizeof(scrdir), "%s/.scr", dir);
    mkdir(scrdir, 0700);
    write_text(in_dir(scrdir, "app.conf"), "");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(err[0] == '\0', "said '%s'", err);
    /* and nothing set writes an empty one */
    REQUIRE(scr_config_save_app(cfg, in_dir(scrdir, "app.conf")) == SCR_SUCCESS, "save");
    struct stat st;
    CHECK(stat(in_dir(scrdir, "app.conf"), &st) == 0 && st.st_size == 0, "size %lld",
          (long long)st.st_size);
    scr_config_delete(cfg);
}

/* SCR 3.1's own test of SCR_Config (examples/test_config.c), step by step */
static char *ask(scr_config *cfg, const char *text)
{
    static char answer[256];
    char *out = NULL;
    if (scr_config_apply(cfg, text, &out) != SCR_SUCCESS) return (char *)"(error)";
    if (out == NULL) return NULL;
    snprintf(answer, sizeof(answer), "%s", out);
    free(out);
    return answer;
}

static int same_answer(const char *got, const char *want)
{
    return (got == NULL && want == NULL) || (got != NULL && want != NULL && strcmp(got, want) == 0);
}

#define CHECK_ASK(cfg, text, want)                                                               \
    do {                                                                                         \
        const char *got_ = ask(cfg, text), *want_ = (want);                                      \
        CHECK(same_answer(got_, want_), "'%s' gave %s, expected %s", text, got_ ? got_ : "NULL", \
              want_ ? want_ : "NULL");                                                           \
    } while (0)

static void test_scr_config_answers_as_scr_3_1_test_config_expects(void)
{
    const char *dir = fresh_prefix("scr31");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load");
    scr_log_set_quiet(1); /* DEBUG and FOOBAR are unknown to the catalogue: warnings */
    CHECK_ASK(cfg, "DEBUG", NULL);
    CHECK_ASK(cfg, "SCR_DEBUG", NULL); /* a default is no answer */
    const char *sets[] = {"DEBUG=1", "DEBUG =1", "DEBUG= 1", "DEBUG  = 1"};
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        CHECK(scr_config_apply(cfg, "DEBUG=", NULL) == SCR_SUCCESS, "unset");
        CHECK(scr_config_apply(cfg, sets[i], NULL) == SCR_SUCCESS, "'%s': %s", sets[i],
              scr_last_error());
        CHECK_ASK(cfg, "DEBUG", "1");
    }
    CHECK(scr_config_apply(cfg, "STORE=", NULL) == SCR_SUCCESS, "unset STORE");
    CHECK_ASK(cfg, "STORE", NULL);
    CHECK(scr_config_apply(cfg, "SCR_COPY_TYPE =SINGLE", NULL) == SCR_SUCCESS, "copy type");
    CHECK_ASK(cfg, "SCR_COPY_TYPE", "SINGLE");
    CHECK(scr_config_apply(cfg, "STORE= /dev/shm/foo GROUP = NODE COUNT  =1", NULL) == SCR_SUCCESS,
          "store with blanks: %s", scr_last_error());
    CHECK_ASK(cfg, "STORE= /dev/shm/foo COUNT", "1");
    CHECK(scr_config_apply(cfg, "CKPT=0 INTERVAL=1 GROUP=NODE STORE=/dev/shm TYPE=XOR SET_SIZE=16",
                           NULL) == SCR_SUCCESS,
          "ckpt: %s", scr_last_error());
    CHECK_ASK(cfg, "CKPT=0 SET_SIZE", "16");
    CHECK_ASK(cfg, "STORE", "/dev/shm/foo");
    CHECK_ASK(cfg, "STORE=/dev/shm/foo GROUP", "NODE");
    CHECK_ASK(cfg, "FOOBAR", NULL);
    CHECK_ASK(cfg, "CKPT=1 FOOBAR", NULL);
    CHECK(scr_config_apply(cfg, "STORE=/dev/shm GROUP=NODE COUNT=1", NULL) == SCR_SUCCESS,
          "second store");
    CHECK_ASK(cfg, "STORE=/dev/shm COUNT", "1");
    /* two STORE entries: no single answer (SCR 3.1 says so and returns NULL) */
    CHECK_ASK(cfg, "STORE", "(error)");
    CHECK(strstr(scr_last_error(), "STORE has 2 values") != NULL, "message '%s'", scr_last_error());
    CHECK(scr_config_apply(cfg, "STORE=", NULL) == SCR_SUCCESS, "unset STORE");
    CHECK_ASK(cfg, "STORE", NULL);
    /* the environment first, also for a key the catalogue does not know */
    CHECK(scr_config_apply(cfg, "MYAPP_DB_NAME=dbname1", NULL) == SCR_SUCCESS, "unknown key kept");
    setenv("MYAPP_DB_NAME", "dbname2", 1);
    CHECK_ASK(cfg, "MYAPP_DB_NAME", "dbname2");
    unsetenv("MYAPP_DB_NAME");
    CHECK_ASK(cfg, "MYAPP_DB_NAME", "dbname1");
    /* only the first '=' separates the key */
    CHECK(scr_config_apply(cfg, "KEY==v=x", NULL) == SCR_SUCCESS, "KEY==v=x: %s", scr_last_error());
    CHECK_ASK(cfg, "KEY", "=v=x");
    CHECK(scr_config_apply(cfg, "KEY= =/dev/shm/==a_=_b", NULL) == SCR_SUCCESS, "blank after '='");
    CHECK_ASK(cfg, "KEY", "=/dev/shm/==a_=_b");
    /* a malformed string is refused */
    CHECK(scr_config_apply(cfg, "KEY VALUE", NULL) == SCR_ERR_ARG, "KEY VALUE taken");
    scr_log_set_quiet(0);
    scr_config_delete(cfg);
}

/* <dir>/.scr, made; its app.conf path (a static buffer, which in_dir's
 * rotating ones do not reuse). */
static const char *app_conf_in(const char *dir)
{
    static char path[4400];
    snprintf(path, sizeof(path), "%s/.scr", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.scr/app.conf", dir);
    return path;
}

static const char *text_of(const char *path)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    return text;
}

static void test_app_conf_of_an_earlier_run_is_read_back_between_user_and_system_file(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s", fresh_prefix("appconf")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    scr_config *cfg = scr_config_new();
    REQUIRE(scr_config_apply(cfg, "SCR_SET_SIZE=2", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "SCR_FLUSH=3", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "SCR_CHECKPOINT_INTERVAL=5", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "CKPT=0 TYPE=PARTNER", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_save_app(cfg, app) == SCR_SUCCESS, "save: %s", scr_last_error());
    scr_config_delete(cfg);
    CHECK(strcmp(text_of(app),
                 "SCR_SET_SIZE=2\nSCR_FLUSH=3\nSCR_CHECKPOINT_INTERVAL=5\nCKPT=0 TYPE=PARTNER\n") ==
              0,
          "app.conf holds '%s'", text_of(app));

    /* the next run: the user file and the environment come first, the system file after */
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=4\n");
    setenv("SCR_CHECKPOINT_INTERVAL", "7", 1);
    cfg = scr_config_new();
    REQUIRE(load(cfg, dir, "SCR_SET_SIZE=6\nSCR_PREFIX_SIZE=2\n") == SCR_SUCCESS, "load: %s",
            scr_last_error());
    char where[4400];
    snprintf(where, sizeof(where), "%s:1", app);
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "2") == 0, "SCR_SET_SIZE %s",
          value_of(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_SET_SIZE"), where) == 0, "origin %s",
          scr_config_origin(cfg, "SCR_SET_SIZE"));
    enum scr_config_layer layer = SCR_CONFIG_LAYER_DEFAULT;
    CHECK(scr_config_layer_of(cfg, "SCR_SET_SIZE", &layer) == SCR_SUCCESS &&
              layer == SCR_CONFIG_LAYER_APP,
          "layer %d", (int)layer);
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "4") == 0, "the user file lost: %s",
          value_of(cfg, "SCR_FLUSH"));
    CHECK(strcmp(value_of(cfg, "SCR_CHECKPOINT_INTERVAL"), "7") == 0, "the environment lost: %s",
          value_of(cfg, "SCR_CHECKPOINT_INTERVAL"));
    CHECK(strcmp(value_of(cfg, "SCR_PREFIX_SIZE"), "2") == 0, "the system file lost: %s",
          value_of(cfg, "SCR_PREFIX_SIZE"));
    const scr_kvtree *ckpt = scr_config_table(cfg, "CKPT");
    const char *type = NULL;
    scr_kvtree_util_get_str(scr_kvtree_get(ckpt, "0"), "TYPE", &type);
    CHECK(type != NULL && strcmp(type, "PARTNER") == 0, "CKPT=0 TYPE %s", type ? type : "NULL");
    char *out = NULL;
    CHECK(scr_config_ask(cfg, "SCR_SET_SIZE", &out) == SCR_SUCCESS && out && strcmp(out, "2") == 0,
          "SCR_Config answered %s", out ? out : "NULL");
    free(out);
    /* a rank that reads only its environment gets app.conf's values from the rank that read it */
    scr_kvtree *files = NULL;
    scr_config *other = scr_config_new();
    REQUIRE(scr_config_export_files(cfg, &files) == SCR_SUCCESS, "export");
    REQUIRE(scr_config_load_with_files(other, files) == SCR_SUCCESS, "import: %s",
            scr_last_error());
    CHECK(strcmp(value_of(other, "SCR_SET_SIZE"), "2") == 0, "imported %s",
          value_of(other, "SCR_SET_SIZE"));
    unsetenv("SCR_CHECKPOINT_INTERVAL");
    scr_kvtree_delete(files);
    scr_config_delete(other);
    scr_config_delete(cfg);
}

static void test_scr_config_of_this_run_stands_over_app_conf_and_the_merge_is_saved(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-merge")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    write_text(app, "SCR_SET_SIZE=2\nSCR_FLUSH=3\nSCR_HALT_SECONDS=60\nCKPT=0 TYPE=PARTNER\n"
                    "CKPT=1 TYPE=XOR SET_SIZE=4\nSTORE=/ssd COUNT=2\n");
    scr_config *cfg = scr_config_new();
    /* before the files are read, as SCR_Config before its first question */
    REQUIRE(scr_config_apply(cfg, "SCR_SET_SIZE=5", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "SCR_FLUSH=", NULL) == SCR_SUCCESS, "unset");
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "5") == 0, "this run's set lost: %s",
          value_of(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_SET_SIZE"), "SCR_Config") == 0, "origin %s",
          scr_config_origin(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(scr_config_origin(cfg, "SCR_FLUSH"), "built-in default") == 0,
          "the unset SCR_FLUSH is %s from %s", value_of(cfg, "SCR_FLUSH"),
          scr_config_origin(cfg, "SCR_FLUSH"));
    CHECK(strcmp(value_of(cfg, "SCR_HALT_SECONDS"), "60") == 0, "app.conf's other value %s",
          value_of(cfg, "SCR_HALT_SECONDS"));
    /* after they are read: a change of one entry keeps app.conf's others */
    REQUIRE(scr_config_apply(cfg, "CKPT=1 SET_SIZE=", NULL) == SCR_SUCCESS, "unset attribute");
    REQUIRE(scr_config_apply(cfg, "STORE=", NULL) == SCR_SUCCESS, "unset table");
    REQUIRE(scr_config_apply(cfg, "SCR_HALT_SECONDS=90", NULL) == SCR_SUCCESS, "set");
    /* SCR_Init reads the files again: every change still stands */
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load again: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "5") == 0, "set lost at the second load: %s",
          value_of(cfg, "SCR_SET_SIZE"));
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "10") == 0, "unset lost at the second load: %s",
          value_of(cfg, "SCR_FLUSH"));
    CHECK(strcmp(value_of(cfg, "SCR_HALT_SECONDS"), "90") == 0, "SCR_HALT_SECONDS %s",
          value_of(cfg, "SCR_HALT_SECONDS"));
    const scr_kvtree *ckpt = scr_config_table(cfg, "CKPT");
    CHECK(scr_kvtree_get(ckpt, "0") != NULL, "app.conf's CKPT=0 lost");
    CHECK(scr_kvtree_get(ckpt, "1") != NULL &&
              scr_kvtree_get(scr_kvtree_get(ckpt, "1"), "SET_SIZE") == NULL,
          "CKPT=1 SET_SIZE not unset");
    CHECK(scr_config_table(cfg, "STORE") == NULL, "the unset STORE table is still there");
    /* what SCR_Init writes holds the merge, and the run after reads it */
    REQUIRE(scr_config_save_app(cfg, app) == SCR_SUCCESS, "save: %s", scr_last_error());
    const char *text = text_of(app);
    CHECK(strstr(text, "SCR_SET_SIZE=5\n") && strstr(text, "SCR_HALT_SECONDS=90\n") &&
              strstr(text, "CKPT=0 TYPE=PARTNER\n") && strstr(text, "CKPT=1 TYPE=XOR\n") &&
              !strstr(text, "SCR_FLUSH") && !strstr(text, "STORE") &&
              !strstr(text, "SCR_SET_SIZE=2"),
          "app.conf holds '%s'", text);
    scr_config_delete(cfg);
    cfg = scr_config_new();
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load of the merge: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "5") == 0, "next run: SCR_SET_SIZE %s",
          value_of(cfg, "SCR_SET_SIZE"));
    /* "TABLE=" takes back app.conf's table too */
    REQUIRE(scr_config_apply(cfg, "CKPT=", NULL) == SCR_SUCCESS, "unset CKPT");
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(scr_config_table(cfg, "CKPT") == NULL, "app.conf's CKPT survived its unset");
    scr_config_delete(cfg);
}

static void test_an_app_conf_as_scr_3_1_writes_it_is_read(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-scr31")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    /* SCR 3.1 writes a line per parameter and a descriptor's pairs on one
     * line; its reader also takes keys in lower case, blanks around '=' and
     * comments, which a hand may have added */
    write_text(app, "SCR_COPY_TYPE=SINGLE\n"
                    "STORE=/dev/shm/foo GROUP=NODE COUNT=1\n"
                    "CKPT=0 INTERVAL=1 GROUP=NODE STORE=/dev/shm/foo TYPE=XOR SET_SIZE=16\n"
                    "MYAPP_STEPS=10\n"
                    "# changed by hand\n"
                    "scr_halt_seconds = 30  # half a minute\n");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    REQUIRE(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_COPY_TYPE"), "SINGLE") == 0, "SCR_COPY_TYPE %s",
          value_of(cfg, "SCR_COPY_TYPE"));
    CHECK(strcmp(value_of(cfg, "SCR_HALT_SECONDS"), "30") == 0, "SCR_HALT_SECONDS %s",
          value_of(cfg, "SCR_HALT_SECONDS"));
    CHECK_ASK(cfg, "CKPT=0 SET_SIZE", "16");
    CHECK_ASK(cfg, "STORE=/dev/shm/foo COUNT", "1");
    CHECK_ASK(cfg, "MYAPP_STEPS", "10");
    char want[4400];
    snprintf(want, sizeof(want), "%s:4: unknown parameter MYAPP_STEPS", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    scr_config_delete(cfg);
}

static void test_what_scr_config_may_not_set_is_refused_in_app_conf_too(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-refused")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    write_text(app,
               "SCR_CNTL_BASE=/elsewhere\nSCR_LOG_ENABLE=1\nSCR_LOG_DB_ENABLE=1\nSCR_FLUSH=2\n");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, NULL);
    const char *err = capture_end();
    REQUIRE(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    char want[3][4400];
    snprintf(want[0], sizeof(want[0]),
             "%s:1: SCR_CNTL_BASE may only be set by the system configuration; ignored", app);
    snprintf(want[1], sizeof(want[1]),
             "%s:2: SCR_LOG_ENABLE cannot be set through SCR_Config; ignored", app);
    snprintf(want[2], sizeof(want[2]), "%s:3: SCR_LOG_DB_ENABLE is refused", app);
    for (int i = 0; i < 3; i++)
        CHECK(strstr(err, want[i]) != NULL, "'%s' not in '%s'", want[i], err);
    CHECK(strcmp(value_of(cfg, "SCR_CNTL_BASE"), "/elsewhere") != 0, "SCR_CNTL_BASE taken");
    CHECK(strcmp(value_of(cfg, "SCR_LOG_ENABLE"), "0") == 0, "SCR_LOG_ENABLE %s",
          value_of(cfg, "SCR_LOG_ENABLE"));
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "2") == 0, "SCR_FLUSH %s", value_of(cfg, "SCR_FLUSH"));
    scr_config_delete(cfg);
}

/* Load dir's configuration with app.conf as it is; *out_err: what was said. */
static int load_saying(scr_config *cfg, const char *dir, const char **out_err)
{
    capture_begin();
    int rc = load(cfg, dir, NULL);
    *out_err = capture_end();
    return rc;
}

static void test_a_damaged_app_conf_stops_the_load_naming_it_and_the_fault(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-damaged")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=4\n");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load without app.conf: %s", scr_last_error());
    const char *err;
    char want[4400];

    write_text(app, "SCR_SET_SIZE=4\nSCR_CACHE_BYPASS\n");
    CHECK(load_saying(cfg, dir, &err) == SCR_ERR_FORMAT, "a line without '=' taken");
    snprintf(want, sizeof(want), "%s:2: key 'SCR_CACHE_BYPASS' has no '=VALUE'", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "8") == 0 &&
              strcmp(value_of(cfg, "SCR_FLUSH"), "4") == 0,
          "a failed load changed the configuration");

    write_text(app, "SCR_COPY_TYPE=MIRROR\n");
    CHECK(load_saying(cfg, dir, &err) == SCR_ERR_FORMAT, "a bad value taken");
    snprintf(want, sizeof(want), "%s:1: SCR_COPY_TYPE=MIRROR: expected", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);

    /* no SCR writes a hash file there */
    scr_kvtree *t = scr_kvtree_new();
    scr_kvtree_set_kv(t, "SCR_COPY_TYPE", "SINGLE");
    unlink(app);
    REQUIRE(scr_kvtree_write_file(app, t) == SCR_SUCCESS, "hash file");
    scr_kvtree_delete(t);
    CHECK(load_saying(cfg, dir, &err) == SCR_ERR_FORMAT, "a hash file taken");
    snprintf(want, sizeof(want), "%s is a hash file, not configuration lines", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);

    /* opened as a record is: never through a link, never waiting on a FIFO */
    unlink(app);
    write_text(in_dir(dir, "elsewhere.conf"), "SCR_SET_SIZE=4\n");
    REQUIRE(symlink(in_dir(dir, "elsewhere.conf"), app) == 0, "symlink");
    CHECK(load_saying(cfg, dir, &err) == SCR_ERR_IO, "a link followed");
    snprintf(want, sizeof(want), "refusing %s: it is a symbolic link", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    unlink(app);
    REQUIRE(mkfifo(app, 0600) == 0, "mkfifo");
    CHECK(load_saying(cfg, dir, &err) == SCR_ERR_IO, "a FIFO taken");
    snprintf(want, sizeof(want), "refusing %s: it is a FIFO", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    unlink(app);
    if (geteuid() != 0) {
        write_text(app, "SCR_SET_SIZE=4\n");
        chmod(app, 0);
        CHECK(load_saying(cfg, dir, &err) == SCR_ERR_IO, "an unreadable app.conf passed over");
        CHECK(strstr(err, app) != NULL && strstr(err, "Permission denied") != NULL, "said '%s'",
              err);
        unlink(app);
    }
    CHECK(strcmp(value_of(cfg, "SCR_SET_SIZE"), "8") == 0, "a refused app.conf was used");
    /* the file fixed (or removed), the next load runs */
    write_text(app, "SCR_SET_SIZE=4\n");
    CHECK(load(cfg, dir, NULL) == SCR_SUCCESS && strcmp(value_of(cfg, "SCR_SET_SIZE"), "4") == 0,
          "fixed: %s", value_of(cfg, "SCR_SET_SIZE"));
    scr_config_delete(cfg);
}

static void test_prefix_and_user_file_in_app_conf_never_move_the_files(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-places")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    char text[4400];
    /* what SCR_Config left there when it named this prefix: no word about it */
    snprintf(text, sizeof(text), "SCR_PREFIX=%s\nSCR_FLUSH=2\n", dir);
    write_text(app, text);
    scr_config *cfg = scr_config_new();
    const char *err;
    REQUIRE(load_saying(cfg, dir, &err) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(err[0] == '\0', "said '%s'", err);
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "2") == 0, "SCR_FLUSH %s", value_of(cfg, "SCR_FLUSH"));
    /* other places are said, and not taken */
    char cwd[4096];
    REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL, "getcwd");
    unsetenv("SCR_PREFIX");
    REQUIRE(chdir(dir) == 0, "chdir");
    write_text(app,
               "SCR_PREFIX=/somewhere/else\nSCR_CONF_FILE=/somewhere/else.conf\nSCR_FLUSH=2\n");
    int rc = load_saying(cfg, dir, &err);
    REQUIRE(chdir(cwd) == 0, "chdir back");
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_FLUSH"), "2") == 0,
          "app.conf in the current directory not read: %s", value_of(cfg, "SCR_FLUSH"));
    CHECK(strcmp(value_of(cfg, "SCR_PREFIX"), "(unset)") == 0, "SCR_PREFIX %s",
          value_of(cfg, "SCR_PREFIX"));
    CHECK(strcmp(value_of(cfg, "SCR_CONF_FILE"), "(unset)") == 0, "SCR_CONF_FILE %s",
          value_of(cfg, "SCR_CONF_FILE"));
    snprintf(text, sizeof(text), "%s:1: SCR_PREFIX=/somewhere/else is not taken from app.conf",
             app);
    CHECK(strstr(err, text) != NULL, "said '%s'", err);
    snprintf(text, sizeof(text),
             "%s:2: SCR_CONF_FILE=/somewhere/else.conf is not taken from app.conf", app);
    CHECK(strstr(err, text) != NULL, "said '%s'", err);
    scr_config_delete(cfg);
}

static void test_a_setting_no_line_can_carry_is_left_out_of_app_conf_and_said(void)
{
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s",
             fresh_prefix("appconf-unwritable")); /* tap_path's buffer is reused */
    const char *app = app_conf_in(dir);
    unsetenv("SCRTEST_NOT_SET");
    setenv("SCRTEST_DOLLAR", "cost$HOME", 1);
    scr_config *cfg = scr_config_new();
    scr_log_set_quiet(1); /* unknown keys, an unset variable */
    REQUIRE(scr_config_apply(cfg, "SCRTEST_EMPTY=$SCRTEST_NOT_SET", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "SCR_JOB_NAME=$SCRTEST_DOLLAR", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "SCR_FLUSH=2", NULL) == SCR_SUCCESS, "set");
    scr_log_set_quiet(0);
    capture_begin();
    int rc = scr_config_save_app(cfg, app);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "save: %s", scr_last_error());
    char want[4400];
    snprintf(want, sizeof(want), "%s: SCRTEST_EMPTY= is not kept for later runs", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    snprintf(want, sizeof(want), "%s: SCR_JOB_NAME=cost$HOME is not kept for later runs", app);
    CHECK(strstr(err, want) != NULL, "said '%s'", err);
    CHECK(strcmp(text_of(app), "SCR_FLUSH=2\n") == 0, "app.conf holds '%s'", text_of(app));
    scr_config_delete(cfg);
    unsetenv("SCRTEST_DOLLAR");
}

/* $VAR and ${VAR} as SCR 3.1's test_config expects them, in SCR_Config
 * values, in the environment's values and in a key only the environment holds */
static void test_variables_expand_in_scr_config_and_environment_values(void)
{
    const char *dir = fresh_prefix("expand");
    setenv("VAR_A", "value a", 1);
    setenv("VAR_B", "value b", 1);
    unsetenv("VAR_C");
    setenv("SCR_JOB_NAME", "${VAR_A}>", 1);
    setenv("SCRTEST_ONLY_ENV", ":$VAR_A-${VAR_B}:", 1);
    scr_config *cfg = scr_config_new();
    scr_log_set_quiet(1); /* unknown keys and the unset VAR_C: warnings */
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_JOB_NAME"), "value a>") == 0, "got %s",
          value_of(cfg, "SCR_JOB_NAME"));
    CHECK_ASK(cfg, "SCRTEST_ONLY_ENV", ":value a-value b:");
    const char *cases[][2] = {
        {"$VAR_A", "value a"},   {"${VAR_A}", "value a"}, {"${VAR_A}>", "value a>"},
        {"$VAR_A>", "value a>"}, {"$VAR_C", ""},          {"x${VAR_B}:", "xvalue b:"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char set[64];
        snprintf(set, sizeof(set), "SCRTEST_APP=%s", cases[i][0]);
        CHECK(scr_config_apply(cfg, set, NULL) == SCR_SUCCESS, "'%s': %s", set, scr_last_error());
        CHECK_ASK(cfg, "SCRTEST_APP", cases[i][1]);
    }
    CHECK(scr_config_apply(cfg, "SCRTEST_APP=${VAR_A", NULL) == SCR_ERR_ARG, "unterminated taken");
    CHECK(strstr(scr_last_error(), "SCR_Config: unterminated '${'") != NULL, "message '%s'",
          scr_last_error());
    scr_log_set_quiet(0);
    /* a question without changing anything; a set is no question */
    char *out = NULL;
    CHECK(scr_config_ask(cfg, "SCR_JOB_NAME", &out) == SCR_SUCCESS && out &&
              strcmp(out, "value a>") == 0,
          "ask gave %s", out ? out : "NULL");
    free(out);
    CHECK(scr_config_ask(cfg, "SCR_FLUSH=3", &out) == SCR_ERR_STATE && out == NULL,
          "a set was asked");
    unsetenv("SCR_JOB_NAME");
    unsetenv("SCRTEST_ONLY_ENV");
    scr_config_delete(cfg);
}

static void test_scr_config_changes_one_entry_and_keeps_the_site_s_others(void)
{
    const char *dir = fresh_prefix("seed");
    scr_config *cfg = scr_config_new();
    REQUIRE(load(cfg, dir, "STORE=/site COUNT=2\nCKPT=0 TYPE=XOR SET_SIZE=4\n") == SCR_SUCCESS,
            "load");
    REQUIRE(scr_config_apply(cfg, "CKPT=1 INTERVAL=2 TYPE=PARTNER", NULL) == SCR_SUCCESS, "set");
    REQUIRE(scr_config_apply(cfg, "STORE=/ssd", NULL) == SCR_SUCCESS, "set");
    /* SCR_Init reads the files again */
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "reload");
    CHECK_ASK(cfg, "CKPT=0 SET_SIZE", "4");
    CHECK_ASK(cfg, "CKPT=1 TYPE", "PARTNER");
    CHECK_ASK(cfg, "STORE=/site COUNT", "2");
    const scr_kvtree *stores = scr_config_table(cfg, "STORE");
    CHECK(scr_kvtree_get(stores, "/ssd") != NULL && scr_kvtree_size(stores) == 2, "%d stores",
          scr_kvtree_size(stores));
    CHECK(strcmp(scr_config_table_origin(cfg, "CKPT"), "SCR_Config") == 0, "origin %s",
          scr_config_table_origin(cfg, "CKPT"));
    scr_config_delete(cfg);
}

static void test_copy_type_file_leaves_the_scheme_to_the_ckpt_lines(void)
{
    const char *dir = fresh_prefix("copytype-file");
    setenv("SCR_COPY_TYPE", "file", 1);
    scr_config *cfg = scr_config_new();
    int rc = load(cfg, dir, NULL);
    CHECK(rc == SCR_SUCCESS, "SCR_COPY_TYPE=FILE refused: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_COPY_TYPE"), "FILE") == 0, "got %s",
          value_of(cfg, "SCR_COPY_TYPE"));
    scr_config_delete(cfg);
    /* a CKPT line's TYPE is still a scheme */
    cfg = scr_config_new();
    scr_log_set_quiet(1);
    CHECK(scr_config_apply(cfg, "CKPT=0 TYPE=FILE", NULL) == SCR_ERR_ARG, "CKPT TYPE=FILE taken");
    scr_log_set_quiet(0);
    unsetenv("SCR_COPY_TYPE");
    scr_config_delete(cfg);
}

static void test_store_lines_take_flush_and_mkdir(void)
{
    const char *dir = fresh_prefix("store-attrs");
    scr_config *cfg = scr_config_new();
    capture_begin();
    int rc = load(cfg, dir, "STORE=/ssd COUNT=1 FLUSH=PTHREAD MKDIR=0\n");
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strstr(err, "no attribute") == NULL, "warned: '%s'", err);
    const char *v = NULL;
    scr_kvtree_util_get_str(scr_kvtree_get(scr_config_table(cfg, "STORE"), "/ssd"), "MKDIR", &v);
    CHECK(v && strcmp(v, "0") == 0, "MKDIR %s", v ? v : "NULL");
    scr_config_delete(cfg);
    cfg = scr_config_new();
    scr_log_set_quiet(1);
    CHECK(load(cfg, dir, "STORE=/ssd MKDIR=maybe\n") == SCR_ERR_FORMAT, "MKDIR=maybe taken");
    scr_log_set_quiet(0);
    scr_config_delete(cfg);
}

static void test_listing_shows_every_value_with_its_origin(void)
{
    const char *dir = fresh_prefix("listing");
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=2\nCKPT=0 TYPE=XOR SET_SIZE=4\nSCR_X=1\n");
    scr_config *cfg = scr_config_new();
    scr_log_set_quiet(1);
    REQUIRE(load(cfg, dir, NULL) == SCR_SUCCESS, "load");
    scr_log_set_quiet(0);
    const char *path = tap_path("listing.txt");
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL, "open");
    CHECK(scr_config_fprint(cfg, f) == SCR_SUCCESS, "print");
    fclose(f);
    char text[16384];
    f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    char want[4300];
    snprintf(want, sizeof(want), "SCR_FLUSH=2  # %s:1\n", in_dir(dir, ".scrconf"));
    CHECK(strstr(text, want), "no '%s' in\n%s", want, text);
    CHECK(strstr(text, "SCR_COPY_TYPE=XOR  # built-in default\n"), "no default line in\n%s", text);
    snprintf(want, sizeof(want), "CKPT=0 TYPE=XOR SET_SIZE=4  # %s:2\n", in_dir(dir, ".scrconf"));
    CHECK(strstr(text, want), "no '%s' in\n%s", want, text);
    snprintf(want, sizeof(want), "SCR_X=1  # %s:3\n", in_dir(dir, ".scrconf"));
    CHECK(strstr(text, want), "no '%s' in\n%s", want, text);
    scr_config_delete(cfg);
}

static void test_the_example_system_file_loads_without_a_warning(void)
{
    const char *dir = fresh_prefix("example");
    scr_config *cfg = scr_config_new();
    struct scr_config_sources src = {.system_file = tap_data("../../etc/scr.conf")};
    capture_begin();
    int rc = scr_config_load(cfg, &src);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load of %s: %s", src.system_file, scr_last_error());
    CHECK(err[0] == '\0', "messages: %s", err);
    CHECK(scr_kvtree_size(scr_config_table(cfg, "CKPT")) == 2, "CKPT entries");
    CHECK(strcmp(value_of(cfg, "SCR_HALT_SECONDS"), "300") == 0, "halt seconds");
    CHECK(strcmp(value_of(cfg, "SCR_LOG_ENABLE"), "1") == 0, "the example turns the event log on");
    (void)dir;
    scr_config_delete(cfg);
}

static void test_system_file_from_environment_only_when_root_owned_and_private(void)
{
    const char *dir = fresh_prefix("sysenv");
    const char *good = in_dir(dir, "site.conf"), *open_file = in_dir(dir, "open.conf");
    write_text(good, "SCR_CNTL_BASE=/site/cntl\n");
    write_text(open_file, "SCR_CNTL_BASE=/anyone/cntl\n");
    chmod(good, 0644);
    chmod(open_file, 0666);
    scr_config *cfg = scr_config_new();
    struct scr_config_sources src = {0};
    setenv("SCR_SYSTEM_CONF_FILE", good, 1);
    int rc = scr_config_load(cfg, &src);
    if (geteuid() == 0) {
        CHECK(rc == SCR_SUCCESS && strcmp(value_of(cfg, "SCR_CNTL_BASE"), "/site/cntl") == 0,
              "root-owned file not used: %s", value_of(cfg, "SCR_CNTL_BASE"));
    }
    setenv("SCR_SYSTEM_CONF_FILE", open_file, 1);
    capture_begin();
    rc = scr_config_load(cfg, &src);
    const char *err = capture_end();
    CHECK(rc == SCR_SUCCESS, "load: %s", scr_last_error());
    CHECK(strcmp(value_of(cfg, "SCR_CNTL_BASE"), "/anyone/cntl") != 0,
          "a file others may write set SCR_CNTL_BASE");
    CHECK(
        strstr(err, "is ignored: a system file must be owned by root and writable by no one else"),
        "warning '%s'", err);
    unsetenv("SCR_SYSTEM_CONF_FILE");
    scr_config_delete(cfg);
}

static void test_file_layers_travel_to_a_process_that_reads_only_its_environment(void)
{
    const char *dir = fresh_prefix("export");
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=3\nCKPT=0 TYPE=PARTNER\n");
    scr_config *reader = scr_config_new(), *other = scr_config_new();
    REQUIRE(load(reader, dir, "SCR_CACHE_SIZE=4\n") == SCR_SUCCESS, "load: %s", scr_last_error());
    scr_kvtree *files = NULL;
    REQUIRE(scr_config_export_files(reader, &files) == SCR_SUCCESS, "export");
    /* the other process has its own environment, and no access to the files */
    write_text(in_dir(dir, ".scrconf"), "SCR_FLUSH=99\n");
    setenv("SCR_NODE_NAME", "node7", 1);
    REQUIRE(scr_config_load_with_files(other, files) == SCR_SUCCESS, "import: %s",
            scr_last_error());
    CHECK(strcmp(value_of(other, "SCR_FLUSH"), "3") == 0, "user file value %s",
          value_of(other, "SCR_FLUSH"));
    CHECK(strcmp(value_of(other, "SCR_CACHE_SIZE"), "4") == 0, "system value %s",
          value_of(other, "SCR_CACHE_SIZE"));
    CHECK(strcmp(value_of(other, "SCR_NODE_NAME"), "node7") == 0, "own environment lost");
    CHECK(scr_config_table(other, "CKPT") != NULL, "table lost");
    char want[4200];
    snprintf(want, sizeof(want), "%s:1", in_dir(dir, ".scrconf"));
    CHECK(strcmp(scr_config_origin(other, "SCR_FLUSH"), want) == 0, "origin %s",
          scr_config_origin(other, "SCR_FLUSH"));
    unsetenv("SCR_NODE_NAME");
    scr_kvtree_delete(files);
    scr_config_delete(reader);
    scr_config_delete(other);
}

int main(void)
{
    RUN(test_defaults_come_from_the_catalogue);
    RUN(test_environment_beats_user_file_beats_scr_config_beats_system_file);
    RUN(test_scr_conf_file_names_the_user_file_instead_of_the_prefix_one);
    RUN(test_a_missing_scr_conf_file_is_a_user_file_not_written_yet);
    RUN(test_a_scr_conf_file_that_is_not_a_regular_file_is_an_error_naming_it);
    RUN(test_system_only_parameter_is_ignored_from_user_levels_with_a_warning);
    RUN(test_scr_config_sets_cache_base_and_size_as_scr_3_1_does);
    RUN(test_scr_conf_file_and_prefix_set_by_scr_config_find_the_user_file);
    RUN(test_unknown_key_is_a_warning_naming_file_and_line_and_is_kept);
    RUN(test_scr_parameters_not_implemented_are_refused_everywhere_and_never_kept);
    RUN(test_a_bad_value_is_an_error_naming_parameter_value_expectation_and_place);
    RUN(test_a_burst_buffer_flush_type_is_refused_by_name);
    RUN(test_descriptor_lines_become_tables_and_the_first_layer_defining_one_wins);
    RUN(test_bad_descriptor_entries_and_attributes_are_errors_or_warnings);
    RUN(test_sizes_accept_units_as_powers_of_1024);
    RUN(test_typed_getters_read_what_the_layers_hold);
    RUN(test_scr_config_sets_gets_and_unsets_parameters);
    RUN(test_scr_config_descriptor_form_sets_gets_and_unsets_attributes);
    RUN(test_an_empty_app_conf_as_scr_3_1_leaves_is_no_error);
    RUN(test_scr_config_answers_as_scr_3_1_test_config_expects);
    RUN(test_app_conf_of_an_earlier_run_is_read_back_between_user_and_system_file);
    RUN(test_scr_config_of_this_run_stands_over_app_conf_and_the_merge_is_saved);
    RUN(test_an_app_conf_as_scr_3_1_writes_it_is_read);
    RUN(test_what_scr_config_may_not_set_is_refused_in_app_conf_too);
    RUN(test_a_damaged_app_conf_stops_the_load_naming_it_and_the_fault);
    RUN(test_prefix_and_user_file_in_app_conf_never_move_the_files);
    RUN(test_a_setting_no_line_can_carry_is_left_out_of_app_conf_and_said);
    RUN(test_variables_expand_in_scr_config_and_environment_values);
    RUN(test_scr_config_changes_one_entry_and_keeps_the_site_s_others);
    RUN(test_copy_type_file_leaves_the_scheme_to_the_ckpt_lines);
    RUN(test_store_lines_take_flush_and_mkdir);
    RUN(test_listing_shows_every_value_with_its_origin);
    RUN(test_the_example_system_file_loads_without_a_warning);
    RUN(test_system_file_from_environment_only_when_root_owned_and_private);
    RUN(test_file_layers_travel_to_a_process_that_reads_only_its_environment);
    return tap_done();
}
