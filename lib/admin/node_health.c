/* node_health.c — the checks a node must pass before a job may use it. */
#include "node_health.h"
#include "scr_err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int unhealthy(struct scr_health *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int unhealthy(struct scr_health *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
    va_end(ap);
    out->healthy = 0;
    return SCR_SUCCESS;
}

/* Create, write, sync and remove a small file in dir; 0 or an errno. */
static int probe_write(const char *dir)
{
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/.scr-health-probe.%ld", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof(path)) return ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return errno;
    int err = 0;
    if (write(fd, "ok\n", 3) != 3) err = errno ? errno : EIO;
    if (err == 0 && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && err == 0) err = errno;
    if (unlink(path) != 0 && err == 0) err = errno;
    return err;
}

int scr_node_health_check(const char *node, const char *const *dirs, int ndirs, uint64_t min_free,
                          struct scr_health *out)
{
    if (node == NULL || out == NULL || ndirs < 0 || (ndirs > 0 && dirs == NULL) ||
        strlen(node) >= sizeof(out->node) || node[0] == '\0')
        return SCR_ERR_ARG;
    memset(out, 0, sizeof(*out));
    snprintf(out->node, sizeof(out->node), "%s", node);
    out->healthy = 1;
    out->checked = time(NULL);
    for (int i = 0; i < ndirs; i++) {
        const char *dir = dirs[i];
        struct stat st;
        if (lstat(dir, &st) != 0) return unhealthy(out, "%s: %s", dir, strerror(errno));
        if (!S_ISDIR(st.st_mode)) return unhealthy(out, "%s is not a directory", dir);
        int err = probe_write(dir);
        if (err != 0) return unhealthy(out, "%s is not writable: %s", dir, strerror(err));
        struct statvfs vfs;
        if (min_free > 0 && statvfs(dir, &vfs) != 0)
            return unhealthy(out, "%s: cannot tell the free space: %s", dir, strerror(errno));
        if (min_free > 0) {
            uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
            if (avail < min_free)
                return unhealthy(out, "%s has %llu bytes free, the job needs %llu", dir,
                                 (unsigned long long)avail, (unsigned long long)min_free);
        }
    }
    return SCR_SUCCESS;
}
