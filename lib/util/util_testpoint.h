/* util_testpoint.h — fault injection and benchmark switches, in one place.
 *
 * NOT A USER INTERFACE. The environment variables below exist so that the
 * tests can stop the library at a chosen step or the benchmarks can turn a
 * cost off; they are no SCR parameters, are never read from a configuration
 * file, and may change or go without notice. Production code names a point
 * with one call (scr_testpoint_crash or scr_testpoint_on) and holds no test
 * logic of its own. A point is on when its variable holds exactly its value;
 * the environment is read at each call, so a test may set it in a child.
 *
 * The table of points: X(point, variable, value, what it does, who uses it) */
#ifndef SCR_UTIL_TESTPOINT_H
#define SCR_UTIL_TESTPOINT_H

#define SCR_TESTPOINTS(X)                                                                         \
    X(SCR_TP_TRIM_AFTER_INDEX, "SCRTEST_PREFIX_TRIM_CRASH", "after-index",                        \
      "SIGKILL once a prefix trim has taken its victims out of the index",                        \
      "tests/mpi/test_prefix_size.sh, tests/unit/test_prefix_trim.c")                             \
    X(SCR_TP_TRIM_AFTER_RENAME, "SCRTEST_PREFIX_TRIM_CRASH", "after-rename",                      \
      "SIGKILL after a victim's records were renamed into the trash",                             \
      "tests/unit/test_prefix_trim.c")                                                            \
    X(SCR_TP_TRIM_AFTER_MARK, "SCRTEST_PREFIX_TRIM_CRASH", "after-mark",                          \
      "SIGKILL once the victims are marked incomplete", "tests/unit/test_prefix_trim.c")          \
    X(SCR_TP_TRIM_MID_DELETE, "SCRTEST_PREFIX_TRIM_CRASH", "mid-delete",                          \
      "SIGKILL between two files of a victim's deletion",                                         \
      "tests/mpi/test_prefix_size.sh, tests/unit/test_prefix_trim.c")                             \
    X(SCR_TP_TRIM_AFTER_FILES, "SCRTEST_PREFIX_TRIM_CRASH", "after-files",                        \
      "SIGKILL once a victim's files are gone, before its records",                               \
      "tests/unit/test_prefix_trim.c")                                                            \
    X(SCR_TP_TRIM_MID_RECORDS, "SCRTEST_PREFIX_TRIM_CRASH", "mid-records",                        \
      "SIGKILL after a victim's summary was deleted, before its other records",                   \
      "tests/unit/test_prefix_trim.c")                                                            \
    X(SCR_TP_SUMMARY_PARTS_OF_3, "SCRTEST_SUMMARY_PART_RANKS", "3",                               \
      "a flush writes its summary in parts of 3 ranks, not SCR_SUMMARY_PART_RANKS",               \
      "tests/mpi/test_flush_fetch_width.sh")                                                      \
    X(SCR_TP_SUMMARY_LAST_PART_FAILS, "SCRTEST_SUMMARY_PART_FAIL", "last",                        \
      "the writer of the last part of a flush's summary (when there are several) fails, as when " \
      "the prefix refuses its file",                                                              \
      "tests/mpi/test_flush_fetch_width.sh")                                                      \
    X(SCR_TP_NO_CACHE_CRC, "SCRBENCH_NO_CACHE_CRC", "1",                                          \
      "files written to cache get no CRC, to measure what the CRCs cost",                         \
      "tests/bench/run-bench-scr.sh")                                                             \
    X(SCR_TP_CRC_LOST, "SCRTEST_CRC_ASYNC", "lost",                                               \
      "the CRCs a thread computed for a SINGLE checkpoint are dropped, as when the process dies " \
      "before they are noted",                                                                    \
      "tests/mpi/test_cache_crc.sh")                                                              \
    X(SCR_TP_CRC_AFTER_NOTE, "SCRTEST_CRC_ASYNC", "crash-after-note",                             \
      "SIGKILL once that thread noted its CRCs, before its rank records them",                    \
      "tests/mpi/test_cache_crc.sh")

enum scr_testpoint {
#define SCR_TESTPOINT_ENUM(point, var, value, does, used_by) point,
    SCR_TESTPOINTS(SCR_TESTPOINT_ENUM)
#undef SCR_TESTPOINT_ENUM
        SCR_TP_COUNT
};

/* Whether point is on (its variable holds its value). */
int scr_testpoint_on(enum scr_testpoint point);

/* Kill this process with SIGKILL, as a crash would, when point is on. */
void scr_testpoint_crash(enum scr_testpoint point);

#endif
