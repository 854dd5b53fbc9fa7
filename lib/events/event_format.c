/* event_format.c — the JSON and text lines of an event (see event_format.h). */
#include "event_format.h"
#include "scr_err.h"
#include "util_strbuf.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void scr_event_format_time(int64_t epoch, char *buf, size_t len)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, len, "%lld", (long long)epoch);
}

static long long bandwidth(const struct scr_event *ev)
{
    return ev->bytes >= 0 && ev->seconds > 0 ? (long long)((double)ev->bytes / ev->seconds + 0.5)
                                             : -1;
}

/* json-c prints doubles with 17 digits; microseconds are what a clock gives */
static struct json_object *seconds_json(double s)
{
    char text[64];
    snprintf(text, sizeof(text), "%.6f", s);
    return json_object_new_double_s(s, text);
}

static int add(struct json_object *obj, const char *key, struct json_object *val, int want)
{
    /* want 0: the member is null; a value that could not be made is out of memory */
    if (want && val == NULL) return SCR_ERR_NOMEM;
    return json_object_object_add(obj, key, val) == 0 ? SCR_SUCCESS : SCR_ERR_NOMEM;
}

static struct json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

int scr_event_format_json(const struct scr_event *ev, char **out_line)
{
    *out_line = NULL;
    char when[32];
    scr_event_format_time(ev->epoch, when, sizeof(when));
    long long bw = bandwidth(ev);
    struct json_object *obj = json_object_new_object();
    if (obj == NULL) return SCR_ERR_NOMEM;
    int rc = add(obj, "time", json_object_new_string(when), 1);
    if (rc == SCR_SUCCESS) rc = add(obj, "epoch", json_object_new_int64(ev->epoch), 1);
    if (rc == SCR_SUCCESS) rc = add(obj, "job", json_object_new_string(ev->job ? ev->job : ""), 1);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "user", json_object_new_string(ev->user ? ev->user : ""), 1);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "host", json_object_new_string(ev->host ? ev->host : ""), 1);
    if (rc == SCR_SUCCESS) rc = add(obj, "event", json_object_new_string(ev->event), 1);
    if (rc == SCR_SUCCESS) rc = add(obj, "status", str_or_null(ev->status), ev->status != NULL);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "dataset_id", ev->dataset_id > 0 ? json_object_new_int(ev->dataset_id) : NULL,
                 ev->dataset_id > 0);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "dataset_name", str_or_null(ev->dataset_name), ev->dataset_name != NULL);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "bytes", ev->bytes >= 0 ? json_object_new_int64(ev->bytes) : NULL,
                 ev->bytes >= 0);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "seconds", ev->seconds >= 0 ? seconds_json(ev->seconds) : NULL,
                 ev->seconds >= 0);
    if (rc == SCR_SUCCESS)
        rc = add(obj, "bandwidth", bw >= 0 ? json_object_new_int64(bw) : NULL, bw >= 0);
    if (rc == SCR_SUCCESS) rc = add(obj, "reason", str_or_null(ev->reason), ev->reason != NULL);
    for (int i = 0; rc == SCR_SUCCESS && i < ev->nfields; i++) {
        const struct scr_event_field *f = &ev->fields[i];
        rc = add(obj, f->key,
                 f->str ? json_object_new_string(f->str) : json_object_new_int64(f->num), 1);
    }
    const char *text = rc == SCR_SUCCESS
                           ? json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE)
                           : NULL;
    if (rc == SCR_SUCCESS && text == NULL) rc = SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) {
        size_t n = strlen(text);
        *out_line = malloc(n + 2);
        if (*out_line == NULL)
            rc = SCR_ERR_NOMEM;
        else {
            memcpy(*out_line, text, n);
            memcpy(*out_line + n, "\n", 2);
        }
    }
    json_object_put(obj);
    return rc;
}

/* A failed append sticks in the buffer, which is checked once at the end. */
static void put(scr_strbuf *l, const char *s, size_t n)
{
    (void)scr_strbuf_append(l, s, n);
}

static int needs_quotes(const char *v)
{
    if (*v == '\0') return 1;
    for (const char *p = v; *p; p++)
        if (*p == ' ' || *p == '"' || *p == '\\' || *p == '=' || iscntrl((unsigned char)*p))
            return 1;
    return 0;
}

/* " key=value", quoted and escaped when needed; control characters become '?'
 * so that a value never breaks the line */
static void word(scr_strbuf *l, const char *key, const char *value)
{
    put(l, " ", 1);
    put(l, key, strlen(key));
    put(l, "=", 1);
    if (!needs_quotes(value)) {
        put(l, value, strlen(value));
        return;
    }
    put(l, "\"", 1);
    for (const char *p = value; *p; p++) {
        if (*p == '"' || *p == '\\') put(l, "\\", 1);
        put(l, iscntrl((unsigned char)*p) ? "?" : p, 1);
    }
    put(l, "\"", 1);
}

static void number(scr_strbuf *l, const char *key, long long v)
{
    char text[32];
    snprintf(text, sizeof(text), "%lld", v);
    word(l, key, text);
}

int scr_event_format_text(const struct scr_event *ev, int with_time, char **out_line)
{
    *out_line = NULL;
    scr_strbuf l = SCR_STRBUF_INIT;
    char text[64];
    if (with_time) {
        scr_event_format_time(ev->epoch, text, sizeof(text));
        put(&l, text, strlen(text));
    }
    word(&l, "job", ev->job ? ev->job : "");
    word(&l, "user", ev->user ? ev->user : "");
    word(&l, "host", ev->host ? ev->host : "");
    word(&l, "event", ev->event);
    if (ev->status) word(&l, "status", ev->status);
    if (ev->dataset_id > 0) number(&l, "dataset", ev->dataset_id);
    if (ev->dataset_name) word(&l, "name", ev->dataset_name);
    if (ev->bytes >= 0) number(&l, "bytes", ev->bytes);
    if (ev->seconds >= 0) {
        snprintf(text, sizeof(text), "%.6f", ev->seconds);
        word(&l, "seconds", text);
    }
    if (bandwidth(ev) >= 0) number(&l, "bw", bandwidth(ev));
    if (ev->reason) word(&l, "reason", ev->reason);
    for (int i = 0; i < ev->nfields; i++) {
        if (ev->fields[i].str)
            word(&l, ev->fields[i].key, ev->fields[i].str);
        else
            number(&l, ev->fields[i].key, ev->fields[i].num);
    }
    put(&l, "\n", 1);
    if (scr_strbuf_status(&l) != SCR_SUCCESS) {
        scr_strbuf_free(&l);
        return SCR_ERR_NOMEM;
    }
    /* without the time the line starts with the space before job= */
    if (!with_time) {
        memmove(l.buf, l.buf + 1, l.len);
        l.len--;
    }
    return scr_strbuf_detach(&l, out_line, NULL);
}

/* digits of exactly n characters at *p, advanced past them; SCR_ERR_FORMAT
 * when one is not a digit */
static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i])) return SCR_ERR_FORMAT;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return SCR_SUCCESS;
}

/* days since 1970-01-01 of a proleptic Gregorian date (no time zone involved) */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int scr_event_parse_time(const char *text, int64_t *out_epoch)
{
    if (text == NULL || *text == '\0') return SCR_ERR_FORMAT;
    const char *p = text;
    int all_digits = 1;
    for (const char *q = text; *q; q++)
        if (!isdigit((unsigned char)*q)) all_digits = 0;
    if (all_digits) {
        if (strlen(text) > 15) return SCR_ERR_FORMAT;
        *out_epoch = strtoll(text, NULL, 10);
        return SCR_SUCCESS;
    }
    int y, mo, d, h = 0, mi = 0, s = 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d))
        return SCR_ERR_FORMAT;
    if (*p == 'T' || *p == ' ') {
        p++;
        if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi)) return SCR_ERR_FORMAT;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &s)) return SCR_ERR_FORMAT;
        }
    }
    int offset = 0;
    if (*p == 'Z')
        p++;
    else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (digits(&p, 2, &oh)) return SCR_ERR_FORMAT;
        if (*p == ':') p++;
        if (digits(&p, 2, &om) || oh > 23 || om > 59) return SCR_ERR_FORMAT;
        offset = sign * (oh * 3600 + om * 60);
    }
    if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return SCR_ERR_FORMAT;
    *out_epoch = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
    return SCR_SUCCESS;
}
