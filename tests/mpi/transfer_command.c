/* transfer_command.c — set the COMMAND of a node's transfer file, for the MPI tests.
 *
 *   transfer_command FILE RUN|STOP|EXIT
 *   transfer_command FILE --state
 *
 * The first form is one locked read-modify-write of FILE through
 * lib/records/transfer_file.h, as an operator's tool would pause, resume or
 * stop a background flush. The second prints the file's STATE (RUNNING,
 * STOPPED) and, when it is there, DONE on the next line. Exit status 0 on
 * success, 1 on an error (said on stderr), 2 for usage. */
#include "scr_err.h"
#include "transfer_file.h"

#include <stdio.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr,
            "usage: transfer_command FILE RUN|STOP|EXIT\n       transfer_command FILE --state\n");
    return 2;
}

static int print_state(const char *path)
{
    scr_kvtree *t = scr_kvtree_new();
    enum scr_transfer_state state = SCR_TRANSFER_STATE_RUNNING;
    int done = 0;
    int rc = t != NULL ? scr_transfer_file_read(path, t) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_get_state(t, &state);
    if (rc == SCR_SUCCESS) rc = scr_transfer_file_is_done(t, &done);
    if (rc == SCR_SUCCESS) printf("%s\n%s", scr_transfer_state_name(state), done ? "DONE\n" : "");
    scr_kvtree_delete(t);
    return rc == SCR_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) return usage();
    if (strcmp(argv[2], "--state") == 0) return print_state(argv[1]);
    enum scr_transfer_command command;
    if (strcmp(argv[2], "RUN") == 0)
        command = SCR_TRANSFER_COMMAND_RUN;
    else if (strcmp(argv[2], "STOP") == 0)
        command = SCR_TRANSFER_COMMAND_STOP;
    else if (strcmp(argv[2], "EXIT") == 0)
        command = SCR_TRANSFER_COMMAND_EXIT;
    else
        return usage();
    scr_kvtree *t = scr_kvtree_new();
    int fd = -1;
    int rc = t != NULL ? scr_transfer_file_lock_read(argv[1], &fd, t) : SCR_ERR_NOMEM;
    if (rc == SCR_SUCCESS) {
        rc = scr_transfer_file_set_command(t, command);
        if (rc == SCR_SUCCESS)
            rc = scr_transfer_file_write_unlock(argv[1], &fd, t);
        else
            scr_transfer_file_unlock(&fd);
    }
    scr_kvtree_delete(t);
    if (rc != SCR_SUCCESS)
        fprintf(stderr, "transfer_command: %s: %s\n", argv[1], scr_strstatus(rc));
    return rc == SCR_SUCCESS ? 0 : 1;
}
