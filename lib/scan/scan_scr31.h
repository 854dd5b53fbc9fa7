/* scan_scr31.h — a dataset SCR 3.1 flushed, seen as this build's summary.
 *
 * SCR 3.1's summary.scr holds the dataset descriptor and COMPLETE but no
 * list of files: that is in its rank2file (rank2file.h), and no size or CRC
 * is recorded per file. To restart from such a dataset, its summary is
 * completed here with RANK2FILE: every rank's files as rank2file lists them,
 * each with the size it has on the prefix now. What SCR 3.1 did record is
 * checked: every listed file exists and is a regular file, the number of
 * files equals the descriptor's FILES and their bytes add up to its SIZE, so
 * a lost or truncated file makes the dataset fail to load (and the restart
 * fall back to an older one). Where the descriptor records neither, the
 * files are accepted unverified, and a warning says so. Rank 0 calls it, on
 * the prefix, without MPI. */
#ifndef SCR_SCAN_SCR31_H
#define SCR_SCAN_SCR31_H

#include "kvtree.h"

/* 1 when summary (as scr_summary_read gives it) lists no files: SCR 3.1's. */
int scr_scan_scr31_is_bare_summary(const scr_kvtree *summary);

/* Complete the bare summary of the dataset directory dsdir
 * (<prefix>/.scr/scr.dataset.<id>) from its rank2file, checked as above;
 * file names in it are relative to dsdir as in this build's summaries. A
 * summary that lists files already is left alone. Every failure is logged
 * naming the dataset directory and the file or count that was wrong
 * (SCR_ERR_FORMAT for damage, SCR_ERR_NOTFOUND without a rank2file), and
 * summary is then left as it was. */
int scr_scan_scr31_complete_summary(const char *dsdir, scr_kvtree *summary);

#endif
