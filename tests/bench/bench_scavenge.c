/* bench_scavenge.c — scr-scavenge's copy bandwidth against cp of the same bytes.
 *
 * Fakes one node after a job: a cache directory in /dev/shm holding 4
 * ranks' checkpoint files of 64 MiB each (256 MiB; BENCH_MIB changes the
 * total) and a control directory whose filemap lists them complete, with
 * their sizes and CRC-32s, as the library leaves them. Then, in turn:
 *   - scr-scavenge --id 1 of that node to a prefix (the command as a child:
 *     read, CRC-32 on the way, write, fsync per file, a rank filemap per rank);
 *   - cp of the same files into another directory of the same file system,
 *     then sync of the copies (the scavenge fsyncs each file, so the
 *     baseline must too).
 * Both read from tmpfs, so both start with the source "in cache" (warm);
 * the destination's copy is removed and synced away before each run. Best
 * of 3 each, alternating. The prefix goes to $BENCH_DIR (default /tmp: a
 * disk file system) and, as a second case, to /dev/shm (no I/O: the cost
 * of the copy loop and the CRC alone). Prints both bandwidths and the
 * ratio scavenge/cp; no assertions.
 *
 *   tests/bench/bench_scavenge [--scavenge PATH]
 *   (run by `make bench-scavenge`; PATH defaults to cli/scr-scavenge) */
#include "bench_dataset.h"
#include "filemap.h"
#include "util_crc.h"

#define RANKS 4

/* A node's cache and control directory under base, with RANKS files of
 * bytes each whose application paths are under prefix. */
static void fake_node(const char *base, const char *prefix, uint64_t bytes,
                      char files[RANKS][PATH_BUF])
{
    char dir[PATH_BUF], path[PATH_BUF], origpath[PATH_BUF];
    size_t chunk = (size_t)1 << 20;
    uint64_t *buf = malloc(chunk);
    if (buf == NULL) bench_die("malloc");
    bench_path(dir, "%s/cache", base);
    if (mkdir(dir, 0700) != 0) bench_die(dir);
    bench_path(dir, "%s/cache/scr.dataset.1", base);
    if (mkdir(dir, 0700) != 0) bench_die(dir);
    bench_path(path, "%s/cntl", base);
    if (mkdir(path, 0700) != 0) bench_die(path);
    bench_path(origpath, "%s/ckpt.1", prefix);

    scr_filemap *map = scr_filemap_new();
    scr_dataset *desc = scr_dataset_new();
    if (map == NULL || desc == NULL || scr_dataset_set_id(desc, 1) != SCR_SUCCESS ||
        scr_dataset_set_name(desc, "ckpt.1") != SCR_SUCCESS ||
        scr_dataset_set_ckpt(desc, 1) != SCR_SUCCESS ||
        scr_dataset_set_flags(desc, 1) != SCR_SUCCESS)
        bench_die("records");
    uint64_t x = 0x9e3779b97f4a7c15ull; /* xorshift: bytes no file system compresses */
    for (int r = 0; r < RANKS; r++) {
        char name[64];
        snprintf(name, sizeof(name), "rank_%d.ckpt", r);
        bench_path(files[r], "%s/%s", dir, name);
        int fd = open(files[r], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) bench_die(files[r]);
        uint32_t crc = 0;
        for (uint64_t done = 0; done < bytes; done += chunk) {
            for (size_t i = 0; i < chunk / 8; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                buf[i] = x;
            }
            size_t n = bytes - done < chunk ? (size_t)(bytes - done) : chunk;
            crc = scr_crc32(crc, buf, n);
            if (write(fd, buf, n) != (ssize_t)n) bench_die(files[r]);
        }
        if (close(fd) != 0) bench_die(files[r]);
        scr_meta *m = bench_meta(name, SCR_META_TYPE_FULL, r, RANKS, bytes);
        if (scr_meta_set_crc32(m, crc) != SCR_SUCCESS ||
            scr_meta_set_checkpoint(m, 1) != SCR_SUCCESS ||
            scr_meta_set_origname(m, name) != SCR_SUCCESS ||
            scr_meta_set_origpath(m, origpath) != SCR_SUCCESS ||
            scr_filemap_set_dataset(map, 1, r, desc) != SCR_SUCCESS ||
            scr_filemap_set_expected_files(map, 1, r, 1) != SCR_SUCCESS ||
            scr_filemap_set_meta(map, 1, r, files[r], m) != SCR_SUCCESS)
            bench_die("filemap");
        scr_meta_delete(m);
    }
    bench_path(path, "%s/cntl/filemap_0.scrinfo", base);
    if (scr_filemap_write(path, map) != SCR_SUCCESS) bench_die(path);
    scr_filemap_delete(map);
    scr_dataset_delete(desc);
    free(buf);
}

static void shell(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_scavenge: '%s' failed\n", cmd);
        exit(1);
    }
}

/* Best-of-3 seconds of the scavenge into prefix and of cp + sync into cpdir. */
static void measure(const char *scavenge, const char *base, const char *prefix, const char *cpdir,
                    char files[RANKS][PATH_BUF], double *out_scavenge, double *out_cp)
{
    char cntl[PATH_BUF], cmd[8 * PATH_BUF];
    bench_path(cntl, "%s/cntl", base);
    char *argv[] = {(char *)scavenge, "--cntl-dir", cntl,      "--prefix", (char *)prefix,
                    "--id",           "1",          "--force", NULL};
    *out_scavenge = *out_cp = 1e30;
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s/ckpt.1' '%s/.scr' && sync", prefix, prefix);
        shell(cmd);
        struct bench_child c = bench_run_child(argv);
        if (c.seconds < *out_scavenge) *out_scavenge = c.seconds;

        snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s' && sync", cpdir, cpdir);
        shell(cmd);
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s' '%s' '%s' '%s/' && sync '%s'/*", files[0],
                 files[1], files[2], files[3], cpdir, cpdir);
        double t0 = bench_now();
        shell(cmd);
        double t = bench_now() - t0;
        if (t < *out_cp) *out_cp = t;
    }
}

static void report(const char *where, uint64_t total, double t_scavenge, double t_cp)
{
    double mib = (double)total / (1 << 20);
    printf("  prefix in %-10s scr-scavenge %7.1f MiB/s (%.3f s)   cp+sync %7.1f MiB/s (%.3f s)   "
           "scavenge/cp %.2f\n",
           where, mib / t_scavenge, t_scavenge, mib / t_cp, t_cp, t_cp / t_scavenge);
}

int main(int argc, char **argv)
{
    char program[PATH_BUF];
    const char *scavenge = bench_program(
        argc > 2 && strcmp(argv[1], "--scavenge") == 0 ? argv[2] : "cli/scr-scavenge", program);
    const char *env = getenv("BENCH_MIB");
    uint64_t total_mib = env && atoi(env) >= RANKS ? (uint64_t)atoi(env) : 256;
    uint64_t bytes = total_mib / RANKS << 20;
    const char *disk = getenv("BENCH_DIR") && getenv("BENCH_DIR")[0] ? getenv("BENCH_DIR") : "/tmp";
    char node[PATH_BUF], prefix[PATH_BUF], cpdir[PATH_BUF], files[RANKS][PATH_BUF],
        cmd[8 * PATH_BUF];
    char shm_prefix[PATH_BUF], shm_cpdir[PATH_BUF];

    bench_path(node, "/dev/shm/bench-scavenge.XXXXXX");
    if (mkdtemp(node) == NULL) bench_die("mkdtemp");
    bench_path(prefix, "%s/bench-scavenge-prefix.XXXXXX", disk);
    if (mkdtemp(prefix) == NULL) bench_die("mkdtemp");
    bench_path(cpdir, "%s/cp", prefix);
    bench_path(shm_prefix, "%s/prefix", node);
    bench_path(shm_cpdir, "%s/cp", node);
    if (mkdir(shm_prefix, 0700) != 0) bench_die(shm_prefix);
    fake_node(node, prefix, bytes, files);

    double ts, tc, ts_shm, tc_shm;
    measure(scavenge, node, prefix, cpdir, files, &ts, &tc);
    /* the same node, its files now going back to ckpt.1 under the tmpfs prefix */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s/cache' '%s/cntl'", node, node);
    shell(cmd);
    fake_node(node, shm_prefix, bytes, files);
    measure(scavenge, node, shm_prefix, shm_cpdir, files, &ts_shm, &tc_shm);

    printf("scr-scavenge of %d files x %llu MiB from a tmpfs cache (source warm, copies synced; "
           "best of 3)\n",
           RANKS, (unsigned long long)(bytes >> 20));
    report(disk, bytes * RANKS, ts, tc);
    report("/dev/shm", bytes * RANKS, ts_shm, tc_shm);
    printf("  (CRC-32 on %s)\n", scr_crc32_uses_isal() ? "ISA-L" : "zlib");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", node, prefix);
    shell(cmd);
    return 0;
}
