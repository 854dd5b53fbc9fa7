/* scr.h — the Scalable Checkpoint/Restart API for MPI applications.
 *
 * The same functions, constants and meaning as SCR's API, so an application
 * written for SCR builds against this header and runs unchanged. Every
 * function returns SCR_SUCCESS on success. All calls are collective over
 * MPI_COMM_WORLD except SCR_Route_file and SCR_Get_version.
 *
 * Order of calls: SCR_Init after MPI_Init; then any number of checkpoint
 * (Start/Complete_checkpoint), output (Start/Complete_output) and, before the
 * first of those, restart (Have/Start/Complete_restart) phases, until one
 * succeeds or SCR_Have_restart offers none; files are
 * routed with SCR_Route_file inside a phase; SCR_Finalize before
 * MPI_Finalize. A call made in the wrong state returns an error and prints
 * one line naming the call that was expected; it never aborts the job. */
#ifndef SCR_H
#define SCR_H

#ifdef __cplusplus
extern "C" {
#endif

/* The SCR API this library implements, in SCR 3.1's own form (strings),
 * so that an application that prints or compares them builds and reads as
 * it did with SCR 3.1: it is that API (these functions, constants and
 * meanings) the application depends on, not this implementation's release.
 * SCR_Get_version returns SCR_VERSION. The implementation's own version is
 * the one pkg-config's scr.pc reports; SCR_Init's line and the commands'
 * --version name both (configure reads SCR_VERSION from here). */
#define SCR_MAJOR_VERSION "3"
#define SCR_MINOR_VERSION "1"
#define SCR_PATCH_VERSION "0"
#define SCR_VERSION "v3.1.0"

#define SCR_SUCCESS (0)

/* Size of the buffers Route_file, Have_restart and Start_restart fill. */
#define SCR_MAX_FILENAME 1024

/* Kinds of dataset for SCR_Start_output; they may be or-ed together. */
#define SCR_FLAG_NONE (0)
#define SCR_FLAG_CHECKPOINT (1 << 0)
#define SCR_FLAG_OUTPUT (1 << 1)

/* --- general ---------------------------------------------------------------- */

int SCR_Init(void);
int SCR_Finalize(void);

/* SCR_VERSION, the version of the SCR API implemented (a static string). */
char *SCR_Get_version(void);

/* *flag = 1 on every rank when the job should stop (a halt condition holds). */
int SCR_Should_exit(int *flag);

/* Set, get or unset a parameter before SCR_Init: "KEY=VALUE" sets, "KEY="
 * unsets, "KEY" returns the value (a new string the caller frees, NULL when
 * unset or, for a key with several values such as two STORE entries,
 * ambiguous); "CKPT=0 TYPE=XOR" sets attributes of a descriptor; $VAR and
 * ${VAR} in values expand from the environment. A setting lasts for later
 * runs too, until changed or unset: SCR_Init keeps it in
 * <prefix>/.scr/app.conf, read back below the environment and the user
 * configuration file, as in SCR 3.1. Collective over
 * MPI_COMM_WORLD once MPI is up: every rank passes the same string. After
 * SCR_Init a question is answered with the value the run uses (by the
 * calling rank alone) and a set is refused. Returns NULL for sets and on
 * errors. */
const char *SCR_Config(const char *config);
const char *SCR_Configf(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* --- files ---------------------------------------------------------------- */

/* The path at which to write (inside an output or checkpoint phase) or read
 * (inside a restart phase) file name, into file (SCR_MAX_FILENAME bytes).
 * Outside any phase, name comes back unchanged. Local, not collective. */
int SCR_Route_file(const char *name, char *file);

/* --- checkpoints -------------------------------------------------------------- */

/* *flag = 1 on every rank when the configured policy says to checkpoint now. */
int SCR_Need_checkpoint(int *flag);
int SCR_Start_checkpoint(void);
/* valid: 1 if this rank wrote all its files (or none), else 0. */
int SCR_Complete_checkpoint(int valid);

/* --- restart ------------------------------------------------------------------ */

/* *flag = 1 when a checkpoint can be loaded; name (may be NULL) gets its name. */
int SCR_Have_restart(int *flag, char *name);
int SCR_Start_restart(char *name);
/* valid: 1 if this rank read its files (or had none); 0 on any rank marks
 * the checkpoint failed (it fails on every rank), and SCR_Have_restart then
 * offers the next older checkpoint, if any, in this run as in later ones.
 * Files read in place on the prefix (SCR_FETCH_BYPASS) are checked here
 * against the CRC32 recorded when they were flushed; a file that differs
 * fails the checkpoint in the same way. */
int SCR_Complete_restart(int valid);

/* --- output ------------------------------------------------------------------- */

/* Start a dataset called name (NULL: a name from its id) of the given flags. */
int SCR_Start_output(const char *name, int flags);
int SCR_Complete_output(int valid);

/* --- managing datasets ----------------------------------------------------------- */

/* Restart from the checkpoint called name (after SCR_Init, before SCR_Have_restart). */
int SCR_Current(const char *name);
/* Remove the dataset called name from the index (its files stay). A name
 * the index does not hold is no error, as in SCR 3.1 (said at SCR_DEBUG>=1). */
int SCR_Drop(const char *name);
/* Remove the dataset called name from cache, prefix and index. */
int SCR_Delete(const char *name);

#ifdef __cplusplus
}
#endif

#endif
