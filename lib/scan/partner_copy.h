/* partner_copy.h — where a scavenge puts PARTNER copies on the prefix.
 *
 * A node that holds PARTNER copies of a failed node's ranks copies them into
 * the dataset directory, apart from the owners' own files so that either
 * may be there without the other:
 *
 *   <dataset dir>/partner.<owner>/<owner>.scrfilemap   the owner's rank
 *       filemap, names relative to the dataset directory as the owner's own
 *       would be
 *   <dataset dir>/partner.<owner>/<stored name>        one file per name
 *
 * The stored name is the relative name with '%' written "%25" and '/' written
 * "%2F", so that every file of the owner lives in one flat directory (a
 * name such as "../../ckpt/a" cannot escape it). The scan of a dataset
 * rebuilds a rank whose files are missing from these copies. */
#ifndef SCR_PARTNER_COPY_H
#define SCR_PARTNER_COPY_H

/* <dsdir>/partner.<owner> in a new string. */
int scr_partner_copy_dir(const char *dsdir, int owner, char **out_dir);

/* Path of the copy of the owner's file name (relative to dsdir) in the
 * partner directory pdir, in a new string. */
int scr_partner_copy_path(const char *pdir, const char *name, char **out_path);

#endif
