/* util_path.h — path strings handled lexically: normalise, join, relative,
 * directory and last component, "is inside".
 *
 * Nothing here looks at the file system: symbolic links are not followed and
 * ".." simply removes the component before it. Normalising collapses repeated
 * slashes, drops "." components and a trailing slash, and resolves "..":
 *   "/a//b/./c/"   -> "/a/b/c"       "a/../.."  -> ".."
 *   "/../x"        -> "/x"           "a/.."     -> "."
 * An absolute path stays absolute (".." above "/" stays at "/"); a relative
 * one stays relative and keeps the ".." it cannot resolve. The empty string is
 * not a path and is refused.
 *
 * Every function returns SCR_SUCCESS or an error code (SCR_ERR_ARG for a bad
 * argument, SCR_ERR_NOMEM) and logs the failure once. Results are new strings
 * in out_... parameters that the caller frees with free(). Thread-safe. */
#ifndef SCR_UTIL_PATH_H
#define SCR_UTIL_PATH_H

/* The normalised form of path. */
int scr_path_normalize(const char *path, char **out_path);

/* dir and name joined with one slash, normalised. name is always taken as
 * relative to dir, even when it begins with '/', so the result never escapes
 * dir by an absolute name (it may by ".."; check with scr_path_is_inside).
 * Either part may be empty (then the other is used alone), not both. */
int scr_path_join(const char *dir, const char *name, char **out_path);

/* The path that leads from directory base to path, e.g. base "/p/a/b" and
 * path "/p/x/y" give "../../x/y"; the same directory gives ".". Both must be
 * absolute; both are normalised first. */
int scr_path_relative(const char *base, const char *path, char **out_rel);

/* The directory part of the normalised path: "/a/b" -> "/a", "/a" -> "/",
 * "/" -> "/", "a" -> ".", ".." -> ".". */
int scr_path_dirname(const char *path, char **out_dir);

/* The last component of the normalised path: "/a/b/" -> "b", "/" -> "/",
 * "a/.." -> ".". */
int scr_path_basename(const char *path, char **out_name);

/* *out_inside is 1 when the normalised path equals the normalised prefix or
 * lies below it, 0 otherwise. The test is by whole components, so "/pfoo" is
 * not inside "/p", and it is made after resolving "..", so "/p/a/../../etc"
 * is not inside "/p". Both paths must be absolute or both relative (a
 * relative path has no meaning against an absolute one without the current
 * directory): mixing them is SCR_ERR_ARG. */
int scr_path_is_inside(const char *prefix, const char *path, int *out_inside);

#endif
