/* prefix_lock.h — a prefix belongs to one running job at a time.
 *
 * Two jobs flushing to one prefix would number their datasets alike and
 * overwrite each other's index entries, summaries and files. So SCR_Init
 * takes <prefix>/.scr/lock.scr for the run and SCR_Finalize gives it back:
 * rank 0 holds an fcntl() write lock on the file, which the kernel (or the
 * file server, once it has evicted a lost client) drops when the process
 * dies, so a crashed or killed job never keeps the prefix. The file holds
 * who has it, for the message another job gets:
 *
 *   VERSION 1
 *   JOBID 1234        USER alice     HOST n17     PID 4711
 *   SINCE 1795591577  (seconds since the epoch)
 *   RELEASED 1        (only once the holder finished, or its job's epilog ran)
 *
 * Taking the prefix when the lock is held by someone else:
 *   - a record that names the caller's own job (a relaunched run, whose
 *     predecessor may still be dying): wait up to same_job_wait seconds for
 *     the lock, then take the prefix anyway, saying so; a same_job_wait
 *     below 0 turns this off, for a job id that is only a default shared
 *     by every job of the user;
 *   - a record marked RELEASED (the holder's job ended: Slurm ran its
 *     epilog, which releases the prefix of its job): take it, saying so;
 *   - otherwise refuse (SCR_ERR_STATE), logging the holder's job, user,
 *     host, process and since when.
 * A lock free but a record naming another holder that never released it
 * means that holder died: the prefix is taken over, and the note says so.
 * The record is written in place under the lock, never replaced, because
 * the lock belongs to the file's inode; nor is the file ever removed. A
 * record that cannot be read names no holder. Not thread-safe; and since
 * closing any descriptor of a file drops the process's fcntl() locks on
 * it, the holding process must not open lock.scr otherwise (so not call
 * scr_prefix_lock_read). */
#ifndef SCR_PREFIX_LOCK_H
#define SCR_PREFIX_LOCK_H

#include <stddef.h>
#include <stdint.h>

#define SCR_PREFIX_LOCK_VERSION 1
#define SCR_PREFIX_LOCK_NAME "lock.scr"

struct scr_prefix_holder {
    char jobid[256];
    char user[256];
    char host[256];
    long pid;
    int64_t since;
    int released;
};

struct scr_prefix_lock {
    int fd;          /* the open lock file; -1 when not held */
    int kernel_lock; /* 1 when fd holds the fcntl() lock, 0 when the prefix was taken without it */
};

/* Take <prefix>/.scr/lock.scr for me (its .scr directory must exist). On
 * SCR_SUCCESS *out holds it and note says anything worth a line ("" when
 * nothing is); SCR_ERR_STATE (logged, naming the holder) when another job
 * has it; SCR_ERR_IO (logged) when the file cannot be used. */
int scr_prefix_lock_take(const char *prefix, const struct scr_prefix_holder *me, int same_job_wait,
                         struct scr_prefix_lock *out, char *note, size_t note_len);

/* Give the prefix back: mark the record RELEASED and close the file (which
 * drops the lock). Failing to write the mark is logged; the lock goes anyway. */
void scr_prefix_lock_drop(struct scr_prefix_lock *lock, const struct scr_prefix_holder *me);

/* The job jobid has ended (its epilog): mark the record RELEASED when it
 * names that job and is not yet. *out_released is 1 when this call marked
 * it. A prefix without a lock file is not an error. */
int scr_prefix_lock_release_job(const char *prefix, const char *jobid, int *out_released);

/* The record of <prefix>/.scr/lock.scr in *out. SCR_ERR_NOTFOUND (not
 * logged) when there is none or it names no holder; SCR_ERR_FORMAT
 * (logged) when it is damaged. */
int scr_prefix_lock_read(const char *prefix, struct scr_prefix_holder *out);

/* "job 1234 of alice on n17 (process 4711) since 2026-11-25T07:23:17" into buf. */
void scr_prefix_lock_describe(const struct scr_prefix_holder *h, char *buf, size_t len);

#endif
