/* util_testpoint.c — fault injection and benchmark switches (not a user interface). */
#include "util_testpoint.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct testpoint {
    const char *var, *value;
};

static const struct testpoint points[SCR_TP_COUNT] = {
#define SCR_TESTPOINT_ROW(point, var, value, does, used_by) [point] = {var, value},
    SCR_TESTPOINTS(SCR_TESTPOINT_ROW)
#undef SCR_TESTPOINT_ROW
};

int scr_testpoint_on(enum scr_testpoint point)
{
    if ((unsigned)point >= SCR_TP_COUNT) abort(); /* a point outside the table is a broken build */
    const char *v = getenv(points[point].var);
    return v != NULL && strcmp(v, points[point].value) == 0;
}

void scr_testpoint_crash(enum scr_testpoint point)
{
    if (scr_testpoint_on(point)) raise(SIGKILL);
}
