/* job_dir.h — a job's private directory on a node: <base>/<user>/scr.<jobid>.
 *
 * The control directory and each cache store of a job are such a directory.
 * libscr and the Slurm plugin's prolog compute the path and create it with
 * the same two functions, so both always agree on where a job's files are.
 *
 * Creation runs as the job's user (the plugin forks a child that dropped its
 * privileges first) and walks the path one level at a time from "/"
 * (mkdirat, then openat of the level just looked at, and fstat), never
 * through a path string that someone could redirect between two calls:
 *   - the base (patterns expanded) is shared: missing levels of it are
 *     created with mode 0755 so that other users' jobs can share it, and
 *     every level must belong to root or to the caller. A directory of
 *     anyone else is refused, and so is a symbolic link of anyone else:
 *     planted in a shared directory (SCR_CACHE_BASE=/shared/%N), it would
 *     put the job's directories where its owner could move or delete them.
 *     A link of root or the caller is followed (a site's /var/run -> /run)
 *     and where it leads is checked as a directory. A level anyone may
 *     write to needs the sticky bit, as /tmp and /dev/shm have;
 *   - <user> and scr.<jobid> are created with mode 0700, or, when they
 *     exist, used only if each is a real directory (never a symbolic link
 *     is followed) owned by the calling user; a group or other permission
 *     bit left on them is then removed.
 * Anything else is refused with an error naming the path and the reason
 * (for a level of someone else, its owner).
 *
 * Removal at the end of the job (the plugin's epilog, also as the user)
 * trusts the same way: the job directory must be a real directory owned by
 * the caller; its contents are removed without following any symbolic link
 * (a link is removed, never what it points to), and nothing outside the job
 * directory is touched. */
#ifndef SCR_JOB_DIR_H
#define SCR_JOB_DIR_H

/* <base>/<user>/scr.<jobid> with base's %N, %u, %j expanded (job_env.h), in
 * a new string the caller frees. what names the setting in messages
 * ("SCR_CACHE_BASE"); base must expand to an absolute path, and node, user
 * and jobid must each be a name job_env.h accepts (SCR_ERR_ARG, logged). */
int scr_job_dir_path(const char *what, const char *base, const char *node, const char *user,
                     const char *jobid, char **out_dir);

/* <job_dir>/sim.<sim_node> in a new string the caller frees; sim_node
 * must be a name job_env.h accepts, at most SCR_SIM_NODE_MAX characters
 * (SCR_ERR_ARG, logged). */
int scr_job_dir_sim_path(const char *job_dir, const char *sim_node, char **out_dir);

/* Create dir, a path made by scr_job_dir_path, as described above. Its last
 * two components are the private ones. SCR_ERR_IO (logged) when refused. */
int scr_job_dir_create(const char *dir);

/* Create sim_dir, a path made by scr_job_dir_sim_path: its job directory
 * as scr_job_dir_create does, then the private sim.<name> level in it.
 * SCR_ERR_ARG (logged) when sim_dir's last level is not sim.<name>. */
int scr_job_dir_create_sim(const char *sim_dir);

/* Whether dir may be used as the caller's job directory: SCR_SUCCESS for a
 * real directory the caller owns, SCR_ERR_NOTFOUND (not logged) when there
 * is nothing at dir, SCR_ERR_IO (logged, naming the reason) otherwise. */
int scr_job_dir_check(const char *dir);

/* Remove dir, a path made by scr_job_dir_path, and all it holds, as
 * described above. *out_removed is 1 when it was removed, 0 when it did not
 * exist (SCR_SUCCESS). SCR_ERR_IO (logged) when refused or when something
 * in it could not be removed. */
int scr_job_dir_remove(const char *dir, int *out_removed);

#endif
