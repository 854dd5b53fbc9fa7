/* test_crc_note.c — CRCs noted by a library thread fill, at the next
 * SCR_Init or scavenge, only the CRCs complete files lack, and the notes go
 * only when asked. */
#include "tap.h"

#include "crc_note.h"
#include "filemap.h"
#include "kvtree.h"
#include "kvtree_file.h"
#include "meta.h"
#include "scr_err.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FILE_A "/dev/shm/u/scr.1/scr.dataset.3/ckpt.3/rank2_f0.dat"
#define FILE_B "/dev/shm/u/scr.1/scr.dataset.3/ckpt.3/rank2_f1.dat"
#define FILE_C "/dev/shm/u/scr.1/scr.dataset.3/ckpt.3/rank2_f2.dat"

/* A meta, complete or not, with a CRC when have_crc. */
static void add_file(scr_filemap *map, const char *file, int complete, int have_crc, uint32_t crc)
{
    scr_meta *m = scr_meta_new();
    scr_meta_set_filename(m, "ckpt.3/rank2.dat");
    scr_meta_set_complete(m, complete);
    if (have_crc) scr_meta_set_crc32(m, crc);
    scr_filemap_add_file(map, 3, 2, file);
    scr_filemap_set_meta(map, 3, 2, file, m);
    scr_meta_delete(m);
}

/* The CRC of file in map, or 0 when it has none. */
static uint32_t crc_of(const scr_filemap *map, const char *file)
{
    const scr_meta *m = NULL;
    uint32_t crc = 0;
    if (scr_filemap_get_meta(map, 3, 2, file, &m) != SCR_SUCCESS ||
        scr_meta_get_crc32(m, &crc) != SCR_SUCCESS)
        return 0;
    return crc;
}

/* A note of node rank 0 in the test's directory, for files A, B and C. */
static char *write_note(void)
{
    char *path = NULL;
    CHECK(scr_crc_note_path(tap_tmpdir(), 0, &path) == SCR_SUCCESS, "a path for the note");
    scr_kvtree *note = scr_kvtree_new();
    CHECK(scr_crc_note_add(note, 3, 2, FILE_A, 0x11111111u) == SCR_SUCCESS, "note A");
    CHECK(scr_crc_note_add(note, 3, 2, FILE_B, 0x22222222u) == SCR_SUCCESS, "note B");
    CHECK(scr_crc_note_add(note, 3, 2, FILE_C, 0x33333333u) == SCR_SUCCESS, "note C");
    CHECK(scr_kvtree_write_file(path, note) == SCR_SUCCESS, "write %s", path);
    scr_kvtree_delete(note);
    return path;
}

static void test_a_note_fills_only_the_crcs_complete_files_lack(void)
{
    char *path = write_note();
    scr_filemap *map = scr_filemap_new();
    add_file(map, FILE_A, 1, 0, 0);           /* complete, no CRC: filled */
    add_file(map, FILE_B, 1, 1, 0xabcdef01u); /* recorded: kept */
    add_file(map, FILE_C, 0, 0, 0);           /* incomplete: left alone */
    int taken = scr_crc_note_take(tap_tmpdir(), map, 0);
    CHECK(taken == 1, "took %d CRCs, want 1", taken);
    CHECK(crc_of(map, FILE_A) == 0x11111111u, "A: 0x%08x", crc_of(map, FILE_A));
    CHECK(crc_of(map, FILE_B) == 0xabcdef01u, "B keeps its recorded CRC: 0x%08x",
          crc_of(map, FILE_B));
    CHECK(crc_of(map, FILE_C) == 0, "C, incomplete, gets none: 0x%08x", crc_of(map, FILE_C));
    CHECK(access(path, F_OK) == 0, "the note stays when not asked to go");
    scr_filemap_delete(map);
    unlink(path);
    free(path);
}

static void test_a_note_of_files_the_map_does_not_list_adds_nothing(void)
{
    char *path = write_note();
    scr_filemap *map = scr_filemap_new();
    int taken = scr_crc_note_take(tap_tmpdir(), map, 1);
    CHECK(taken == 0, "took %d CRCs", taken);
    CHECK(scr_filemap_num_files(map, 3, 2) == 0, "no file was added");
    CHECK(access(path, F_OK) != 0, "the note went when asked to");
    scr_filemap_delete(map);
    free(path);
}

int main(void)
{
    RUN(test_a_note_fills_only_the_crcs_complete_files_lack);
    RUN(test_a_note_of_files_the_map_does_not_list_adds_nothing);
    return tap_done();
}
