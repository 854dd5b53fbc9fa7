/* adopt_files.h — the files of a directory to adopt, checked one by one.
 *
 * scr-adopt leaves an application's files where they are and records them
 * as a dataset of the prefix, so every file must be one a restart can read
 * there for as long as the dataset lives. The walk descends into every
 * subdirectory and takes:
 *   - a regular file the caller may read;
 *   - a symbolic link to such a file inside the prefix (outside its .scr),
 *     recorded under the link's own name.
 * Everything else is refused and named, every offender in one walk: a
 * symbolic link to a directory, one that leads outside the prefix or into
 * its .scr, a dangling link, a file that cannot be opened, a device, socket
 * or FIFO. The walk changes nothing. Not thread-safe (readdir). */
#ifndef SCR_ADOPT_FILES_H
#define SCR_ADOPT_FILES_H

#include "util_strbuf.h"

#include <stdint.h>

struct scr_adopt_file {
    char *rel;     /* path relative to the adopted directory */
    int rank;      /* owner, set by the caller; -1 until then */
    uint64_t size; /* set by the caller when it reads the file */
    uint32_t crc;
};

struct scr_adopt_list {
    struct scr_adopt_file *files; /* sorted by rel; the bytes of mem */
    int n;
    scr_strbuf mem; /* owns files */
};

/* The files below dir (a real path, symbolic links resolved), for the
 * prefix whose real path is prefix_real, into *out (new; free with
 * scr_adopt_list_free). SCR_ERR_ARG (each offender logged) when any entry
 * is refused, SCR_ERR_IO (logged) when a directory cannot be read. An
 * empty directory is an empty list, not an error. */
int scr_adopt_files_list(const char *dir, const char *prefix_real, struct scr_adopt_list *out);

void scr_adopt_list_free(struct scr_adopt_list *list);

#endif
