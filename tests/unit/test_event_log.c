/* test_event_log.c — the event log: its JSON and text lines (pinned by
 * tests/data/events/), the times scr-log accepts, the syslog words, the lock
 * that keeps writers from interleaving, a log that cannot be written, and
 * syslog delivery to a socket standing in for /dev/log. */
#include "tap.h"

#include "config.h"
#include "event_format.h"
#include "event_log.h"
#include "scr_err.h"
#include "util_log.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>

/* --- helpers ------------------------------------------------------------------------- */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (len + 1 == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* A configuration from the environment alone: settings are "NAME=VALUE". */
static scr_config *config_of(const char *const *settings)
{
    for (const struct scr_config_param *p = scr_config_params(); p->name != NULL; p++)
        unsetenv(p->name);
    setenv("SCR_PREFIX", tap_tmpdir(), 1);
    for (int i = 0; settings && settings[i]; i++) putenv((char *)settings[i]);
    scr_config *cfg = scr_config_new();
    struct scr_config_sources src = {0};
    src.system_file = tap_path("no-system.conf");
    if (cfg == NULL || scr_config_load(cfg, &src) != SCR_SUCCESS) {
        scr_config_delete(cfg);
        return NULL;
    }
    return cfg;
}

/* The events the golden files hold, at fixed times. */
static void sample_events(void (*each)(const struct scr_event *, void *), void *ctx)
{
    struct scr_event_field init_fields[] = {SCR_EVENT_STR("restart_source", "prefix"),
                                            SCR_EVENT_INT("ranks", 4), SCR_EVENT_INT("nodes", 2)};
    struct scr_event init = SCR_EVENT_INITIALIZER(SCR_EVENT_INIT);
    init.epoch = 1795600000;
    init.status = SCR_EVENT_OK;
    init.dataset_id = 12;
    init.dataset_name = "ckpt.12";
    init.seconds = 0.25;
    init.fields = init_fields;
    init.nfields = 3;
    struct scr_event flush = SCR_EVENT_INITIALIZER(SCR_EVENT_FLUSH);
    flush.epoch = 1795600061;
    flush.status = SCR_EVENT_OK;
    flush.dataset_id = 13;
    flush.dataset_name = "ckpt.13";
    flush.bytes = 1073741824;
    flush.seconds = 2.5;
    struct scr_event_field fetch_fields[] = {SCR_EVENT_INT("attempt", 1),
                                             SCR_EVENT_STR("marked", "FAILED")};
    struct scr_event fetch = SCR_EVENT_INITIALIZER(SCR_EVENT_FETCH);
    fetch.epoch = 1795600122;
    fetch.status = SCR_EVENT_FAILED;
    fetch.dataset_id = 13;
    fetch.dataset_name = "ckpt.13";
    fetch.seconds = 0.000125;
    fetch.reason = "could not be read back from the prefix; an older dataset is tried";
    fetch.fields = fetch_fields;
    fetch.nfields = 2;
    struct scr_event halt = SCR_EVENT_INITIALIZER(SCR_EVENT_HALT);
    halt.epoch = 1795600183;
    halt.reason = "the halt file says \"EXIT_REASON=maintenance\"\ttab\\";
    struct scr_event_field down_fields[] = {SCR_EVENT_STR("node", "n7")};
    struct scr_event down = SCR_EVENT_INITIALIZER(SCR_EVENT_NODE_DOWN);
    down.epoch = 1795600244;
    down.reason = "slurmctld says DOWN";
    down.fields = down_fields;
    down.nfields = 1;
    const struct scr_event *all[] = {&init, &flush, &fetch, &halt, &down};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        struct scr_event e = *all[i];
        e.job = "4242";
        e.user = "alice";
        e.host = "n0";
        each(&e, ctx);
    }
}

struct lines {
    char text[8192];
    int json, with_time;
};

static void format_into(const struct scr_event *ev, void *ctx)
{
    struct lines *l = ctx;
    char *line = NULL;
    int rc =
        l->json ? scr_event_format_json(ev, &line) : scr_event_format_text(ev, l->with_time, &line);
    if (rc == SCR_SUCCESS) strncat(l->text, line, sizeof(l->text) - strlen(l->text) - 1);
    free(line);
}

/* --- formats ------------------------------------------------------------------------- */

static void test_json_lines_match_the_golden_file(void)
{
    struct lines l = {"", 1, 1};
    sample_events(format_into, &l);
    char *want = read_all(tap_data("events/events.jsonl"));
    REQUIRE(want != NULL, "cannot read %s", tap_data("events/events.jsonl"));
    CHECK(strcmp(l.text, want) == 0, "got:\n%s\nwant:\n%s", l.text, want);
    free(want);
}

static void test_text_lines_match_the_golden_file(void)
{
    struct lines l = {"", 0, 1};
    sample_events(format_into, &l);
    char *want = read_all(tap_data("events/log.txt"));
    REQUIRE(want != NULL, "cannot read %s", tap_data("events/log.txt"));
    CHECK(strcmp(l.text, want) == 0, "got:\n%s\nwant:\n%s", l.text, want);
    free(want);
}

static void test_a_syslog_line_is_the_text_line_without_its_time(void)
{
    struct lines with = {"", 0, 1}, without = {"", 0, 0};
    sample_events(format_into, &with);
    sample_events(format_into, &without);
    const char *first_with = strchr(with.text, ' ');
    REQUIRE(first_with != NULL, "no space in %s", with.text);
    CHECK(strncmp(first_with + 1, without.text, strcspn(without.text, "\n")) == 0, "'%s' vs '%s'",
          with.text, without.text);
    CHECK(strncmp(without.text, "job=4242 ", 9) == 0, "starts '%.20s'", without.text);
}

static void test_every_golden_line_parses_with_typed_members(void)
{
    char *text = read_all(tap_data("events/events.jsonl"));
    REQUIRE(text != NULL, "no golden file");
    int n = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), n++) {
        struct json_object *o = json_tokener_parse(line);
        CHECK(o != NULL && json_object_is_type(o, json_type_object), "line %d does not parse: %s",
              n + 1, line);
        struct json_object *v = NULL;
        CHECK(json_object_object_get_ex(o, "epoch", &v) && json_object_is_type(v, json_type_int),
              "epoch of %d", n + 1);
        CHECK(json_object_object_get_ex(o, "event", &v) && json_object_is_type(v, json_type_string),
              "event of %d", n + 1);
        CHECK(json_object_object_get_ex(o, "bandwidth", &v), "bandwidth of %d missing", n + 1);
        json_object_put(o);
    }
    CHECK(n == 5, "%d lines", n);
    free(text);
}

static void test_bandwidth_is_bytes_over_seconds_when_both_are_known(void)
{
    struct scr_event e = SCR_EVENT_INITIALIZER(SCR_EVENT_FLUSH);
    e.epoch = 1;
    e.bytes = 1000;
    e.seconds = 0.5;
    char *line = NULL;
    REQUIRE(scr_event_format_json(&e, &line) == SCR_SUCCESS, "format");
    CHECK(strstr(line, "\"bandwidth\":2000,") != NULL, "%s", line);
    free(line);
    e.seconds = 0;
    REQUIRE(scr_event_format_json(&e, &line) == SCR_SUCCESS, "format");
    CHECK(strstr(line, "\"bandwidth\":null,") != NULL, "%s", line);
    free(line);
}

static void test_times_are_epoch_seconds_or_iso_8601(void)
{
    struct {
        const char *text;
        int64_t want;
    } good[] = {
        {"1795600000", 1795600000},
        {"2026-11-25T08:26:40Z", 1795595200},
        {"2026-11-25 08:26:40", 1795595200},
        {"2026-11-25T08:26", 1795595160},
        {"2026-11-25", 1795564800},
        {"2026-11-25T10:26:40+02:00", 1795595200},
        {"2026-11-25T03:26:40-0500", 1795595200},
        {"1970-01-01T00:00:00Z", 0},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        int64_t got = -1;
        CHECK(scr_event_parse_time(good[i].text, &got) == SCR_SUCCESS && got == good[i].want,
              "%s -> %lld, want %lld", good[i].text, (long long)got, (long long)good[i].want);
    }
    const char *bad[] = {"",     "yesterday", "2026-13-01", "2026-11-25T25:00", "2026-11-25X",
                         "12ab", "2026/11/25"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int64_t got = 0;
        CHECK(scr_event_parse_time(bad[i], &got) == SCR_ERR_FORMAT, "'%s' accepted", bad[i]);
    }
}

/* --- syslog words -------------------------------------------------------------------- */

static void test_syslog_words_map_to_their_codes(void)
{
    int v = -1;
    CHECK(scr_event_log_facility("LOG_LOCAL7", &v) == SCR_SUCCESS && v == LOG_LOCAL7,
          "LOG_LOCAL7 -> %d", v);
    CHECK(scr_event_log_facility("log_user", &v) == SCR_SUCCESS && v == LOG_USER, "log_user -> %d",
          v);
    CHECK(scr_event_log_facility("LOG_LOCAL9", &v) == SCR_ERR_ARG, "LOG_LOCAL9 accepted");
    CHECK(scr_event_log_level("LOG_INFO", &v) == SCR_SUCCESS && v == LOG_INFO, "LOG_INFO -> %d", v);
    CHECK(scr_event_log_level("LOG_WARNING", &v) == SCR_SUCCESS && v == LOG_WARNING,
          "LOG_WARNING -> %d", v);
    CHECK(scr_event_log_level("INFO", &v) == SCR_ERR_ARG, "INFO accepted");
}

static void expect_refused(const char *setting, const char *name, const char *word)
{
    const char *settings[] = {setting, NULL};
    scr_log_set_quiet(1);
    scr_config *cfg = config_of(settings);
    scr_log_set_quiet(0);
    const char *msg = scr_last_error();
    CHECK(cfg == NULL, "%s accepted", setting);
    CHECK(strstr(msg, name) != NULL && strstr(msg, word) != NULL, "message '%s' lacks %s or %s",
          msg, name, word);
    scr_config_delete(cfg);
}

static void test_a_bad_syslog_facility_or_level_is_refused_naming_the_accepted_words(void)
{
    expect_refused("SCR_LOG_SYSLOG_FACILITY=LOCAL7", "SCR_LOG_SYSLOG_FACILITY", "LOG_LOCAL7");
    expect_refused("SCR_LOG_SYSLOG_LEVEL=LOUD", "SCR_LOG_SYSLOG_LEVEL", "LOG_WARNING");
}

static void test_setup_reads_facility_level_and_prefix(void)
{
    const char *settings[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_FACILITY=LOG_LOCAL3",
                              "SCR_LOG_SYSLOG_LEVEL=log_notice", "SCR_LOG_SYSLOG_PREFIX=MYSCR",
                              NULL};
    scr_config *cfg = config_of(settings);
    REQUIRE(cfg != NULL, "config: %s", scr_last_error());
    struct scr_event_log log;
    REQUIRE(scr_event_log_setup(&log, cfg, tap_tmpdir(), "1", "u", "h") == SCR_SUCCESS, "setup");
    CHECK(log.syslog && log.facility == LOG_LOCAL3 && log.level == LOG_NOTICE,
          "syslog %d facility %d level %d", log.syslog, log.facility, log.level);
    CHECK(strcmp(log.ident, "MYSCR") == 0, "ident %s", log.ident);
    CHECK(log.text && log.json, "text %d json %d", log.text, log.json);
    scr_event_log_close(&log);
    scr_config_delete(cfg);

    const char *defaults[] = {"SCR_LOG_ENABLE=1", NULL};
    cfg = config_of(defaults);
    REQUIRE(cfg != NULL, "config");
    REQUIRE(scr_event_log_setup(&log, cfg, tap_tmpdir(), "1", "u", "h") == SCR_SUCCESS, "setup");
    CHECK(log.facility == LOG_LOCAL7 && log.level == LOG_INFO && strcmp(log.ident, "SCR") == 0,
          "defaults: facility %d level %d ident %s", log.facility, log.level, log.ident);
    scr_event_log_close(&log);
    scr_config_delete(cfg);
}

/* --- writing ------------------------------------------------------------------------- */

static void write_one(struct scr_event_log *log, int id, const char *reason)
{
    struct scr_event e = SCR_EVENT_INITIALIZER(SCR_EVENT_FLUSH);
    e.status = reason ? SCR_EVENT_FAILED : SCR_EVENT_OK;
    e.dataset_id = id;
    e.reason = reason;
    scr_event_log_write(log, &e);
}

static int setup_in(struct scr_event_log *log, const char *dir, const char *const *settings)
{
    scr_config *cfg = config_of(settings);
    if (cfg == NULL) return SCR_FAILURE;
    int rc = scr_event_log_setup(log, cfg, dir, "77", "bob", "n3");
    scr_config_delete(cfg);
    return rc;
}

static void test_nothing_is_written_without_SCR_LOG_ENABLE(void)
{
    const char *dir = tap_path("off");
    mkdir(dir, 0700);
    struct scr_event_log log;
    REQUIRE(setup_in(&log, dir, NULL) == SCR_SUCCESS, "setup");
    CHECK(!scr_event_log_enabled(&log), "enabled by default");
    write_one(&log, 1, NULL);
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_JSON_NAME);
    CHECK(access(path, F_OK) != 0, "%s exists", path);
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_TEXT_NAME);
    CHECK(access(path, F_OK) != 0, "%s exists", path);
    scr_event_log_close(&log);
}

static void test_each_file_has_its_switch(void)
{
    const char *dir = tap_path("switches");
    mkdir(dir, 0700);
    const char *json_only[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_TXT_ENABLE=0",
                               "SCR_LOG_SYSLOG_ENABLE=0", NULL};
    struct scr_event_log log;
    REQUIRE(setup_in(&log, dir, json_only) == SCR_SUCCESS, "setup");
    CHECK(log.json && !log.text && !log.syslog, "json %d text %d syslog %d", log.json, log.text,
          log.syslog);
    scr_event_log_close(&log);
    const char *text_only[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_JSON_ENABLE=0",
                               "SCR_LOG_SYSLOG_ENABLE=0", NULL};
    REQUIRE(setup_in(&log, dir, text_only) == SCR_SUCCESS, "setup");
    CHECK(!log.json && log.text && !log.syslog, "json %d text %d syslog %d", log.json, log.text,
          log.syslog);
    scr_event_log_close(&log);
}

#define WRITERS 4
#define EVENTS_EACH 300

/* Several processes append long lines at once: every line of the file is
 * one whole JSON object, and none is lost. */
static void test_writers_in_several_processes_never_interleave_a_line(void)
{
    const char *dir = tap_path("hammer");
    mkdir(dir, 0700);
    const char *settings[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_ENABLE=0", NULL};
    static char reason[6000];
    memset(reason, 'x',
           sizeof(reason) - 1); /* lines larger than a page, written in one call each */
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        REQUIRE(pids[w] >= 0, "fork: %s", strerror(errno));
        if (pids[w] == 0) {
            struct scr_event_log log;
            if (setup_in(&log, dir, settings) != SCR_SUCCESS) _exit(1);
            for (int i = 0; i < EVENTS_EACH; i++)
                write_one(&log, w * EVENTS_EACH + i + 1, reason + (i % 4000));
            scr_event_log_close(&log);
            _exit(log.warned ? 1 : 0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int status = 0;
        waitpid(pids[w], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: status %d", w, status);
    }
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_JSON_NAME);
    char *text = read_all(path);
    REQUIRE(text != NULL, "cannot read %s", path);
    static char seen[WRITERS * EVENTS_EACH + 1];
    int lines = 0, bad = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lines++;
        struct json_object *o = json_tokener_parse(line), *id = NULL;
        if (o == NULL || !json_object_object_get_ex(o, "dataset_id", &id))
            bad++;
        else if (json_object_get_int(id) > 0 && json_object_get_int(id) <= WRITERS * EVENTS_EACH)
            seen[json_object_get_int(id)] = 1;
        json_object_put(o);
    }
    int missing = 0;
    for (int i = 1; i <= WRITERS * EVENTS_EACH; i++) missing += !seen[i];
    CHECK(lines == WRITERS * EVENTS_EACH && bad == 0 && missing == 0,
          "%d lines, %d damaged, %d missing", lines, bad, missing);
    free(text);
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_TEXT_NAME);
    text = read_all(path);
    int text_lines = 0;
    for (char *p = text; p && *p; p++) text_lines += *p == '\n';
    CHECK(text_lines == WRITERS * EVENTS_EACH, "%d text lines", text_lines);
    free(text);
}

/* A writer waits for the lock another process holds: the line appears
 * only once that process lets go. */
static void test_a_writer_waits_for_the_lock_of_another_process(void)
{
    const char *dir = tap_path("locked");
    mkdir(dir, 0700);
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_JSON_NAME);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    REQUIRE(fd >= 0, "open %s", path);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    REQUIRE(fcntl(fd, F_SETLKW, &fl) == 0, "lock");
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        const char *settings[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_ENABLE=0",
                                  "SCR_LOG_TXT_ENABLE=0", NULL};
        struct scr_event_log log;
        if (setup_in(&log, dir, settings) != SCR_SUCCESS) _exit(1);
        write_one(&log, 5, NULL);
        _exit(0);
    }
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 0, "written while locked: %lld bytes",
          (long long)st.st_size);
    fl.l_type = F_UNLCK;
    fcntl(fd, F_SETLK, &fl);
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(stat(path, &st) == 0 && st.st_size > 0, "nothing written after the lock was released");
}

/* A process that keeps the lock (a reader stuck on a full pipe, a hung
 * client) does not stop the writer for long: after about 2 s the line is
 * appended anyway, with one warning. */
static void test_a_writer_does_not_wait_forever_for_a_held_lock(void)
{
    const char *dir = tap_path("held");
    mkdir(dir, 0700);
    char path[4200], err_path[4200];
    snprintf(path, sizeof(path), "%s/%s", dir, SCR_EVENT_LOG_JSON_NAME);
    snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    REQUIRE(fd >= 0, "open %s", path);
    struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
    REQUIRE(fcntl(fd, F_SETLKW, &fl) == 0, "lock");
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (e < 0 || dup2(e, STDERR_FILENO) < 0) _exit(2);
        const char *settings[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_ENABLE=0",
                                  "SCR_LOG_TXT_ENABLE=0", NULL};
        struct scr_event_log log;
        if (setup_in(&log, dir, settings) != SCR_SUCCESS) _exit(1);
        write_one(&log, 5, NULL);
        write_one(&log, 6, NULL);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0); /* while the lock is still held */
    struct stat st;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed: status %d", status);
    CHECK(stat(path, &st) == 0 && st.st_size > 0,
          "nothing appended while another process held the lock");
    FILE *f = fopen(err_path, "r");
    char line[1024];
    int warnings = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        warnings += strstr(line, "appended unlocked") != NULL;
    if (f != NULL) fclose(f);
    CHECK(warnings == 1, "%d warnings about the lock, want 1", warnings);
    fl.l_type = F_UNLCK;
    fcntl(fd, F_SETLK, &fl);
    close(fd);
}

static void test_a_log_that_cannot_be_written_warns_once_and_goes_on(void)
{
    const char *settings[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_ENABLE=0", NULL};
    struct scr_event_log log;
    REQUIRE(setup_in(&log, tap_path("no/such/dir"), settings) == SCR_SUCCESS, "setup");
    const char *err = tap_path("warnings.txt");
    int saved = dup(STDERR_FILENO), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDERR_FILENO);
    close(fd);
    for (int i = 0; i < 5; i++) write_one(&log, i + 1, NULL);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char *text = read_all(err);
    int count = 0;
    for (const char *p = text; p && (p = strstr(p, "could not open the event log")) != NULL; p++)
        count++;
    CHECK(count == 1, "%d warnings:\n%s", count, text ? text : "");
    free(text);
    scr_event_log_close(&log);
}

/* --- syslog -------------------------------------------------------------------------- */

/* syslog(3) always sends to /dev/log: a child in a mount namespace of its
 * own puts a link to our socket there and logs one event; we receive the
 * datagram. Needs root (mount); skipped otherwise. */
static int syslog_round_trip(const char *const *settings, char *got, size_t len)
{
    const char *sock_path = tap_path("devlog.sock");
    unlink(sock_path);
    int s = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path);
    if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0 ||
            mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("tmpfs", "/dev", "tmpfs", 0, "size=64k") != 0 ||
            symlink(sock_path, "/dev/log") != 0)
            _exit(2);
        struct scr_event_log log;
        if (setup_in(&log, NULL, settings) != SCR_SUCCESS) _exit(1);
        write_one(&log, 9, "no space");
        scr_event_log_close(&log);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) {
        close(s);
        return 1; /* no mount namespace here */
    }
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ssize_t n = recv(s, got, len - 1, 0);
    close(s);
    got[n > 0 ? n : 0] = '\0';
    return n > 0 ? 0 : -1;
}

static void test_syslog_receives_the_event_with_facility_level_and_prefix(void)
{
    if (geteuid() != 0) {
        printf("# skipped: needs root to stand in for /dev/log\n");
        return;
    }
    char got[2048], want[64];
    const char *defaults[] = {"SCR_LOG_ENABLE=1", NULL};
    int rc = syslog_round_trip(defaults, got, sizeof(got));
    if (rc == 1) {
        printf("# skipped: no mount namespace for a /dev/log of our own\n");
        return;
    }
    REQUIRE(rc == 0, "nothing received");
    snprintf(want, sizeof(want), "<%d>", LOG_LOCAL7 | LOG_INFO);
    CHECK(strncmp(got, want, strlen(want)) == 0, "'%s' does not start with %s", got, want);
    CHECK(strstr(got, " SCR[") != NULL, "no SCR[pid] identity in '%s'", got);
    CHECK(
        strstr(got,
               "job=77 user=bob host=n3 event=flush status=failed dataset=9 reason=\"no space\"") !=
            NULL,
        "'%s'", got);
    const char *other[] = {"SCR_LOG_ENABLE=1", "SCR_LOG_SYSLOG_FACILITY=LOG_USER",
                           "SCR_LOG_SYSLOG_LEVEL=LOG_WARNING", "SCR_LOG_SYSLOG_PREFIX=ckpt", NULL};
    REQUIRE(syslog_round_trip(other, got, sizeof(got)) == 0, "nothing received");
    snprintf(want, sizeof(want), "<%d>", LOG_USER | LOG_WARNING);
    CHECK(strncmp(got, want, strlen(want)) == 0, "'%s' does not start with %s", got, want);
    CHECK(strstr(got, " ckpt[") != NULL, "no ckpt[pid] identity in '%s'", got);
}

int main(void)
{
    RUN(test_json_lines_match_the_golden_file);
    RUN(test_text_lines_match_the_golden_file);
    RUN(test_a_syslog_line_is_the_text_line_without_its_time);
    RUN(test_every_golden_line_parses_with_typed_members);
    RUN(test_bandwidth_is_bytes_over_seconds_when_both_are_known);
    RUN(test_times_are_epoch_seconds_or_iso_8601);
    RUN(test_syslog_words_map_to_their_codes);
    RUN(test_a_bad_syslog_facility_or_level_is_refused_naming_the_accepted_words);
    RUN(test_setup_reads_facility_level_and_prefix);
    RUN(test_nothing_is_written_without_SCR_LOG_ENABLE);
    RUN(test_each_file_has_its_switch);
    RUN(test_writers_in_several_processes_never_interleave_a_line);
    RUN(test_a_writer_waits_for_the_lock_of_another_process);
    RUN(test_a_writer_does_not_wait_forever_for_a_held_lock);
    RUN(test_a_log_that_cannot_be_written_warns_once_and_goes_on);
    RUN(test_syslog_receives_the_event_with_facility_level_and_prefix);
    return tap_done();
}
