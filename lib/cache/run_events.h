/* run_events.h — the run's events, recorded by rank 0 in the event log.
 *
 * The one way the library's modules record what happened (event_log.h
 * writes it); a log that cannot be written never fails the caller. */
#ifndef SCR_RUN_EVENTS_H
#define SCR_RUN_EVENTS_H

#include "scr_run.h"

/* Rank 0 records event name about dataset id (0: none; its name is looked
 * up in this rank's filemap when dname is NULL) with what is known (status
 * and reason NULL, bytes -1, seconds < 0 when not); other ranks return.
 * Not collective; never fails (event_log.h). */
void scr_run_event(struct scr_run *run, const char *name, const char *status, int id,
                   const char *dname, long long bytes, double seconds, const char *reason,
                   const struct scr_event_field *fields, int nfields);

#endif
