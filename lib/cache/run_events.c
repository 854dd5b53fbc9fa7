/* run_events.c — the library's events, recorded by rank 0 (scr_run.h). */
#include "run_events.h"
#include "scr_err.h"
#include "scr_run.h"

void scr_run_event(struct scr_run *run, const char *name, const char *status, int id,
                   const char *dname, long long bytes, double seconds, const char *reason,
                   const struct scr_event_field *fields, int nfields)
{
    if (run->rank != 0 || !scr_event_log_enabled(&run->events)) return;
    struct scr_event ev = SCR_EVENT_INITIALIZER(name);
    const scr_dataset *d = NULL;
    if (id > 0 && dname == NULL &&
        scr_filemap_get_dataset(run->map, id, run->rank, &d) == SCR_SUCCESS)
        scr_dataset_get_name(d, &dname);
    ev.status = status;
    ev.dataset_id = id;
    ev.dataset_name = dname;
    ev.bytes = bytes;
    ev.seconds = seconds;
    ev.reason = reason;
    ev.fields = fields;
    ev.nfields = nfields;
    scr_event_log_write(&run->events, &ev);
}
