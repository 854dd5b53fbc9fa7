/* scan_read.h — the reading half of the scan (scan.h): every rank filemap
 * of a dataset directory read, and each rank's files checked, at once.
 *
 * Each rank filemap is reduced to a struct scr_scan_rank as soon as it is
 * read (and its files are looked up while their names are at hand), so
 * memory holds a few bytes per file. A dataset of many ranks is read by a
 * few threads, each a contiguous share of the directory's rank filemaps:
 * on a parallel file system every read and stat waits for a server, and a
 * node has cores to spare. A damaged rank filemap is logged with its name
 * and its rank reported as unreadable; nothing else is decided here. */
#ifndef SCR_SCAN_READ_H
#define SCR_SCAN_READ_H

#include "dataset.h"
#include "filemap.h"
#include "scan.h"

/* One rank filemap as read. */
struct scr_scan_found {
    int rank;
    int id; /* the one dataset it lists */
    int ok; /* internal: it could be read */
    struct scr_scan_rank rec;
};

/* Read every <rank>.scrfilemap of dir. *out (n of them, directory order)
 * are the readable ones, *out_damaged the ranks of the others;
 * *out_desc is a copy of the first descriptor found in directory order
 * (NULL when none). With check_crc every file with a recorded CRC is read
 * and checked. SCR_ERR_NOTFOUND when dir is not a directory, logged. */
int scr_scan_read_dir(const char *dir, int check_crc, struct scr_scan_found **out, int *out_n,
                      int **out_damaged, int *out_ndamaged, scr_dataset **out_desc);

/* A function called after each rank filemap scr_scan_read_dir has read and
 * checked, with the ranks done and the ranks in the directory, from one
 * thread at a time; fn NULL (the default) for none. Process-wide, for a
 * command that shows progress (util_progress.h). */
void scr_scan_set_progress(void (*fn)(void *ctx, int done, int total), void *ctx);

/* Read <dir>/<rank>.scrfilemap into a new *out, and the one dataset id it
 * lists; *out NULL (with SCR_SUCCESS) when it is absent, damaged (logged)
 * or does not hold the files of rank in one dataset. */
int scr_scan_read_one(const char *dir, int rank, scr_filemap **out, int *out_id);

#endif
