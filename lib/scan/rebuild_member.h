/* rebuild_member.h — one member of a redundancy set during a rebuild on the
 * prefix: its data files as one padded logical file, its redundancy file,
 * and the metas that describe them. Internal to rebuild_*.c.
 *
 * A survivor's files are opened for reading. A lost member's are created
 * under temporary names ("<name>.rebuild") at their recorded sizes, and
 * scr_rebuild_member_commit checks them against the recorded sizes and CRCs,
 * renames them into place and writes the member's rank filemap. */
#ifndef SCR_REBUILD_MEMBER_H
#define SCR_REBUILD_MEMBER_H

#include "kvtree.h"
#include "scan.h"
#include "util_padfile.h"

#include <stdint.h>

struct rebuild_member {
    int rank;
    int nfiles;
    char **names; /* relative to the dataset directory */
    char **paths; /* where the files are read or written */
    scr_padfile_part *parts;
    scr_kvtree *current; /* RANK, FILES, FILE <i> {meta}: the data files in order */
    scr_kvtree *header;  /* of the redundancy file */
    char *rname;         /* redundancy file name */
    char *rpath;         /* where it is read or written */
    int rfd;
    uint64_t hlen; /* header length: where the redundancy data starts */
    int lost;
};

/* Open member i of set as a survivor: its redundancy file and header, and
 * its data files in the order its header's CURRENT gives. */
int scr_rebuild_member_open(const struct scr_scan *scan, const struct scr_scan_set *set, int i,
                            struct rebuild_member *m);

/* Create lost member i (world rank rank) of set: the data files current
 * describes and a redundancy file starting with header, under temporary
 * names; data_len is the redundancy data's length after the header. */
int scr_rebuild_member_create(const struct scr_scan *scan, const struct scr_scan_set *set, int i,
                              int rank, const scr_kvtree *current, const scr_kvtree *header,
                              uint64_t data_len, struct rebuild_member *m);

/* Check, rename into place and record a rebuilt member (see above). */
int scr_rebuild_member_commit(const struct scr_scan *scan, const struct scr_scan_set *set,
                              struct rebuild_member *m, void *buf, size_t bufsize);

/* Close what is open; remove the temporary files of an uncommitted lost member. */
void scr_rebuild_member_close(struct rebuild_member *m);

/* The metas a survivor's header keeps of member other (CURRENT for itself,
 * PARTNER for its left neighbour under XOR, PARTNERS <other> under RS). */
const scr_kvtree *scr_rebuild_member_metas_of(const struct rebuild_member *m,
                                              const struct scr_scan_set *set, int self, int other);

#endif
