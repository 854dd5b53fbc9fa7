/* halt_edit.c — locked changes to the halt conditions, times as people write them. */
#include "halt_edit.h"
#include "halt_file.h"
#include "kvtree_file.h"
#include "scr_err.h"
#include "util_log.h"

#include <ctype.h>
#include <string.h>
#include <time.h>

/* --- the change ---------------------------------------------------------------- */

static int remove_keys(scr_kvtree *halt, int keys)
{
    int rc = SCR_SUCCESS;
    if (keys & SCR_HALT_EDIT_CHECKPOINTS) rc = scr_halt_file_unset_checkpoints_left(halt);
    if (rc == SCR_SUCCESS && (keys & SCR_HALT_EDIT_EXIT_BEFORE))
        rc = scr_halt_file_unset_exit_before(halt);
    if (rc == SCR_SUCCESS && (keys & SCR_HALT_EDIT_EXIT_AFTER))
        rc = scr_halt_file_unset_exit_after(halt);
    if (rc == SCR_SUCCESS && (keys & SCR_HALT_EDIT_HALT_SECONDS))
        rc = scr_halt_file_unset_halt_seconds(halt);
    if (rc == SCR_SUCCESS && (keys & SCR_HALT_EDIT_EXIT_REASON))
        rc = scr_halt_file_unset_exit_reason(halt);
    return rc;
}

static int store_values(scr_kvtree *halt, const struct scr_halt_edit *e)
{
    int rc = SCR_SUCCESS;
    if (e->set & SCR_HALT_EDIT_CHECKPOINTS)
        rc = scr_halt_file_set_checkpoints_left(halt, e->checkpoints);
    if (rc == SCR_SUCCESS && (e->set & SCR_HALT_EDIT_EXIT_BEFORE))
        rc = scr_halt_file_set_exit_before(halt, e->exit_before);
    if (rc == SCR_SUCCESS && (e->set & SCR_HALT_EDIT_EXIT_AFTER))
        rc = scr_halt_file_set_exit_after(halt, e->exit_after);
    if (rc == SCR_SUCCESS && (e->set & SCR_HALT_EDIT_HALT_SECONDS))
        rc = scr_halt_file_set_halt_seconds(halt, e->halt_seconds);
    if (rc == SCR_SUCCESS && (e->set & SCR_HALT_EDIT_EXIT_REASON))
        rc = scr_halt_file_set_exit_reason(halt, e->reason);
    return rc;
}

int scr_halt_edit_apply(const char *path, const struct scr_halt_edit *edit, scr_kvtree *out_halt)
{
    if (path == NULL || edit == NULL) {
        scr_err("halt file: edit called without a path or a change");
        return SCR_ERR_ARG;
    }
    if (edit->set & edit->unset) {
        scr_err("halt file: a change may not both set and remove a key");
        return SCR_ERR_ARG;
    }
    scr_kvtree *halt = scr_kvtree_new();
    if (halt == NULL) return SCR_ERR_NOMEM;
    int fd = -1;
    int rc = scr_halt_file_lock_read(path, &fd, halt);
    if (rc != SCR_SUCCESS) goto out;
    rc = remove_keys(halt, edit->unset);
    if (rc != SCR_SUCCESS) goto out;
    rc = store_values(halt, edit);
    if (rc != SCR_SUCCESS) goto out;
    rc = scr_halt_file_write_unlock(path, &fd, halt); /* unlocks even when the write fails */
    if (rc != SCR_SUCCESS) goto out;
    if (out_halt != NULL && scr_kvtree_merge(out_halt, halt) != SCR_SUCCESS) rc = SCR_ERR_NOMEM;
out:
    if (fd >= 0) scr_halt_file_unlock(&fd);
    scr_kvtree_delete(halt);
    return rc;
}

int scr_halt_edit_remove(const char *path, int *out_removed)
{
    if (path == NULL || out_removed == NULL) {
        scr_err("halt file: remove called without a path or a result");
        return SCR_ERR_ARG;
    }
    return scr_kvtree_lock_unlink(path, out_removed);
}

/* --- times ---------------------------------------------------------------------- */

/* Between min and max digits at *s into *out, moving *s past them. */
static int digits(const char **s, int min, int max, int *out)
{
    int n = 0, v = 0;
    while (n < max && isdigit((unsigned char)(*s)[n])) v = v * 10 + ((*s)[n++] - '0');
    if (n < min) return 0;
    *s += n;
    *out = v;
    return 1;
}

static int expect(const char **s, char c)
{
    if (**s != c) return 0;
    (*s)++;
    return 1;
}

/* "HH:MM[:SS]" at *s, the whole rest of the text. */
static int clock_time(const char *s, struct tm *tm)
{
    int h, m, sec = 0;
    if (!digits(&s, 1, 2, &h) || !expect(&s, ':') || !digits(&s, 2, 2, &m)) return 0;
    if (*s == ':' && !(s++, digits(&s, 2, 2, &sec))) return 0;
    if (*s != '\0' || h > 23 || m > 59 || sec > 59) return 0;
    tm->tm_hour = h;
    tm->tm_min = m;
    tm->tm_sec = sec;
    return 1;
}

/* Local broken-down time tm (date and clock set) as seconds since the epoch,
 * refusing dates that do not exist (February 30). */
static int local_seconds(struct tm tm, int64_t *out)
{
    int year = tm.tm_year, mon = tm.tm_mon, mday = tm.tm_mday;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    if (t == (time_t)-1 || tm.tm_year != year || tm.tm_mon != mon || tm.tm_mday != mday) return 0;
    *out = (int64_t)t;
    return 1;
}

/* A whole number of at most 12 digits, then the rest at *end. */
static int number(const char *s, int64_t *out, const char **end)
{
    int64_t v = 0;
    int n = 0;
    for (; isdigit((unsigned char)s[n]) && n < 13; n++) v = v * 10 + (s[n] - '0');
    if (n == 0 || n > 12) return 0;
    *out = v;
    *end = s + n;
    return 1;
}

int scr_halt_edit_parse_time(const char *text, int64_t now, int64_t *out)
{
    if (text == NULL || out == NULL) return SCR_ERR_ARG;
    const char *rest;
    int64_t v;
    if (text[0] == '@') {
        if (!number(text + 1, &v, &rest) || *rest != '\0') return SCR_ERR_ARG;
        *out = v;
        return SCR_SUCCESS;
    }
    if (text[0] == '+') {
        if (!number(text + 1, &v, &rest) || rest[0] == '\0' || rest[1] != '\0') return SCR_ERR_ARG;
        const char *units = "smhd";
        static const int64_t seconds[] = {1, 60, 3600, 86400};
        const char *u = strchr(units, rest[0]);
        if (u == NULL) return SCR_ERR_ARG;
        *out = now + v * seconds[u - units];
        return SCR_SUCCESS;
    }
    struct tm tm;
    time_t t = (time_t)now;
    if (localtime_r(&t, &tm) == NULL) return SCR_ERR_ARG;
    const char *s = text;
    int year, mon, mday;
    if (digits(&s, 4, 4, &year) && expect(&s, '-')) {
        /* a date, then a space or T, then the clock */
        if (!digits(&s, 1, 2, &mon) || !expect(&s, '-') || !digits(&s, 1, 2, &mday) ||
            (*s != ' ' && *s != 'T') || mon < 1 || mon > 12 || mday < 1 || mday > 31)
            return SCR_ERR_ARG;
        tm.tm_year = year - 1900;
        tm.tm_mon = mon - 1;
        tm.tm_mday = mday;
        s++;
    } else {
        s = text; /* the clock alone: today */
    }
    if (!clock_time(s, &tm) || !local_seconds(tm, out)) return SCR_ERR_ARG;
    return SCR_SUCCESS;
}

/* --- listing ---------------------------------------------------------------------- */

/* seconds as local "YYYY-MM-DD HH:MM:SS" into buf (size >= 20). */
static const char *local_text(int64_t seconds, char *buf, size_t len)
{
    struct tm tm;
    time_t t = (time_t)seconds;
    if (localtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, len, "(not a date)");
    return buf;
}

int scr_halt_edit_fprint(FILE *out, const scr_kvtree *halt, int64_t now)
{
    char when[64];
    int left, printed = 0, err = 0;
    int64_t t;
    const char *reason;
    if (out == NULL || halt == NULL) return SCR_ERR_ARG;
    if (scr_halt_file_get_checkpoints_left(halt, &left) == SCR_SUCCESS)
        err |= fprintf(out, "CheckpointsLeft  %d\n", left) < 0, printed = 1;
    if (scr_halt_file_get_exit_before(halt, &t) == SCR_SUCCESS)
        err |= fprintf(out, "ExitBefore       %s (@%lld)\n", local_text(t, when, sizeof(when)),
                       (long long)t) < 0,
            printed = 1;
    if (scr_halt_file_get_exit_after(halt, &t) == SCR_SUCCESS)
        err |= fprintf(out, "ExitAfter        %s (@%lld)\n", local_text(t, when, sizeof(when)),
                       (long long)t) < 0,
            printed = 1;
    if (scr_halt_file_get_halt_seconds(halt, &t) == SCR_SUCCESS)
        err |= fprintf(out, "HaltSeconds      %lld\n", (long long)t) < 0, printed = 1;
    if (scr_halt_file_get_exit_reason(halt, &reason) == SCR_SUCCESS)
        err |= fprintf(out, "ExitReason       %s\n", reason) < 0, printed = 1;
    if (!printed) err |= fprintf(out, "no halt conditions\n") < 0;

    enum scr_halt_file_cause cause = SCR_HALT_NONE;
    int rc = scr_halt_file_should_halt(halt, now, &cause);
    if (rc != SCR_SUCCESS) return rc;
    if (cause != SCR_HALT_NONE)
        err |= fprintf(out, "A running job halts at its next check: %s.\n",
                       scr_halt_file_cause_text(cause)) < 0;
    if (err) {
        scr_err("writing the halt conditions failed");
        return SCR_ERR_IO;
    }
    return SCR_SUCCESS;
}
