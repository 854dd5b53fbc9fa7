/* transfer_file.h — the work list and controls of the background flush.
 *
 * The library names the files to copy from cache to the prefix, the limits
 * of the copier and a command; the copier reports its state, how much of
 * each file it has written (and synced), and finally the DONE flag:
 *
 *   VERSION 1
 *   FILES
 *     /cache/.../rank_0.ckpt  DESTINATION /prefix/.../rank_0.ckpt  SIZE 524294  WRITTEN 524294
 *   PERCENT 0.000000          CPU share the copier may use (0: no limit)
 *   BW 52428800.000000        bytes per second it may write (0: no limit)
 *   COMMAND RUN | STOP | EXIT
 *   STATE RUNNING | STOPPED
 *   FLAG DONE
 *
 * Both sides change the file while the other may, so changes are made under
 * an exclusive fcntl lock (scr_transfer_file_lock_read ...
 * scr_transfer_file_write_unlock) and plain reads take a shared lock. The
 * file lives in the control directory, which exists before any flush; a
 * missing file holds nothing (an empty, 0-byte one is damaged).
 *
 * The record is a scr_kvtree the caller owns. Setters check their arguments
 * (absolute paths, values of the enumerations, finite non-negative limits;
 * SCR_ERR_ARG, logged). Getters do not log: SCR_ERR_NOTFOUND for an absent
 * file entry or key, SCR_ERR_TYPE for a value that does not parse or is not
 * in its enumeration. Reading checks VERSION (absent means version 1, the
 * format before VERSION existed; a newer one is refused) and every value; a
 * bad value is logged as "<file>: key <KEY> holds '<text>', expected <what>"
 * and returned as SCR_ERR_FORMAT, leaving the caller's tree as it was.
 * VERSION is not kept in the tree; writing puts the current one first. */
#ifndef SCR_TRANSFER_FILE_H
#define SCR_TRANSFER_FILE_H

#include "kvtree.h"

#include <stdint.h>

/* Format version this build writes, and the newest it reads. */
#define SCR_TRANSFER_FILE_VERSION 1

/* Name of the file in the control directory. */
#define SCR_TRANSFER_FILE_NAME "transfer.scr"

enum scr_transfer_command {
    SCR_TRANSFER_COMMAND_RUN = 0,  /* "RUN": copy the listed files */
    SCR_TRANSFER_COMMAND_STOP = 1, /* "STOP": pause */
    SCR_TRANSFER_COMMAND_EXIT = 2, /* "EXIT": the copier ends */
};

enum scr_transfer_state {
    SCR_TRANSFER_STATE_RUNNING = 0, /* "RUNNING": copying */
    SCR_TRANSFER_STATE_STOPPED = 1, /* "STOPPED": waiting */
};

/* Keys of the enumerations ("RUN", "STOPPED", ...), NULL outside them. */
const char *scr_transfer_command_name(enum scr_transfer_command command);
const char *scr_transfer_state_name(enum scr_transfer_state state);

/* --- the file ------------------------------------------------------------- */

/* Read path under a shared lock and merge it into transfer; a missing file
 * adds nothing and succeeds, an empty (0-byte) one is damaged
 * (SCR_ERR_FORMAT, logged). */
int scr_transfer_file_read(const char *path, scr_kvtree *transfer);

/* Lock path exclusively (creating it with no keys when missing) and merge its
 * contents into transfer; *out_fd holds the lock until
 * scr_transfer_file_write_unlock or scr_transfer_file_unlock. */
int scr_transfer_file_lock_read(const char *path, int *out_fd, scr_kvtree *transfer);

/* Replace path with transfer and the current VERSION, then release the lock
 * and close *fd (set to -1); the lock is released even when the write fails. */
int scr_transfer_file_write_unlock(const char *path, int *fd, const scr_kvtree *transfer);

/* Release the lock without writing. */
void scr_transfer_file_unlock(int *fd);

/* --- files to copy ------------------------------------------------------- */

/* List source (absolute path) to be copied to destination (absolute path),
 * size bytes long. Replaces an entry of the same source, WRITTEN included. */
int scr_transfer_file_add_file(scr_kvtree *transfer, const char *source, const char *destination,
                               uint64_t size);

/* Drop source from the list (no-op when absent). */
int scr_transfer_file_remove_file(scr_kvtree *transfer, const char *source);

/* Bytes of source copied and synced so far (at most its SIZE); the entry
 * must exist (SCR_ERR_NOTFOUND, logged). */
int scr_transfer_file_set_written(scr_kvtree *transfer, const char *source, uint64_t written);

/* *out_destination points into transfer. */
int scr_transfer_file_get_destination(const scr_kvtree *transfer, const char *source,
                                      const char **out_destination);
int scr_transfer_file_get_size(const scr_kvtree *transfer, const char *source, uint64_t *out_size);
int scr_transfer_file_get_written(const scr_kvtree *transfer, const char *source,
                                  uint64_t *out_written);

/* The listed sources in list order, in a new array of pointers into
 * transfer (free the array, not the strings; valid until transfer changes).
 * NULL and 0 when the list is empty. */
int scr_transfer_file_list_sources(const scr_kvtree *transfer, const char ***out_sources,
                                   int *out_count);

/* --- limits, command, state, flag ------------------------------------------- */

int scr_transfer_file_set_percent(scr_kvtree *transfer, double percent); /* 0..100 */
int scr_transfer_file_get_percent(const scr_kvtree *transfer, double *out_percent);
int scr_transfer_file_set_bw(scr_kvtree *transfer, double bytes_per_second); /* >= 0 */
int scr_transfer_file_get_bw(const scr_kvtree *transfer, double *out_bytes_per_second);

int scr_transfer_file_set_command(scr_kvtree *transfer, enum scr_transfer_command command);
int scr_transfer_file_get_command(const scr_kvtree *transfer,
                                  enum scr_transfer_command *out_command);

int scr_transfer_file_set_state(scr_kvtree *transfer, enum scr_transfer_state state);
int scr_transfer_file_get_state(const scr_kvtree *transfer, enum scr_transfer_state *out_state);

/* FLAG DONE: every listed file has been copied. *out_flag is 0 when FLAG is
 * absent; a FLAG holding anything but DONE is SCR_ERR_TYPE. */
int scr_transfer_file_set_done(scr_kvtree *transfer);
int scr_transfer_file_unset_done(scr_kvtree *transfer);
int scr_transfer_file_is_done(const scr_kvtree *transfer, int *out_flag);

#endif
