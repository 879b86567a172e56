/*
 * Advisory locks on a directory, for read-modify-write of the files in it
 * (see rpl/fsutil.h).  flock() on the directory itself leaves no lock file
 * behind in the user's tree, and the kernel drops the lock when the process
 * dies, so a killed run never blocks the next one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"

#define POLL_NS 20000000L /* 20 ms between tries */

double rpl_lock_timeout_s(void)
{
    const char *v = getenv("ROCM_PERF_LOCK_TIMEOUT");
    char *end;
    double t;

    if (!v || !v[0])
        return RPL_LOCK_TIMEOUT_DEFAULT_S;
    t = strtod(v, &end);
    if (*end || !(t >= 0 && t <= 86400)) {
        rpl_log_warn("ROCM_PERF_LOCK_TIMEOUT is '%s', not seconds from 0 to 86400; using %g", v,
                     RPL_LOCK_TIMEOUT_DEFAULT_S);
        return RPL_LOCK_TIMEOUT_DEFAULT_S;
    }
    return t;
}

int rpl_dir_lock(int *lock, const char *dir, double timeout_s, const char *what)
{
    double start = rpl_clock_mono_s();
    bool said = false;
    int fd;

    *lock = -1;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rpl_error_set(RPL_EIO, "cannot open '%s' to lock it: %s", dir, strerror(errno));
    for (;;) {
        struct timespec pause = {0, POLL_NS};

        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            /* A file system without flock: go on unlocked rather than refuse to work. */
            rpl_log_warn("cannot lock '%s' (%s); %s without a lock", dir, strerror(errno), what);
            close(fd);
            return 0;
        }
        if (rpl_clock_mono_s() - start >= timeout_s) {
            close(fd);
            return rpl_error_set(RPL_ETIMEOUT,
                                 "'%s' is locked by another rocm-perf process; gave up waiting "
                                 "after %g s (ROCM_PERF_LOCK_TIMEOUT) to %s",
                                 dir, timeout_s, what);
        }
        if (!said) {
            rpl_log_info("waiting for another rocm-perf process to release '%s'", dir);
            said = true;
        }
        nanosleep(&pause, NULL);
    }
    *lock = fd;
    return 0;
}

void rpl_dir_unlock(int lock)
{
    if (lock >= 0)
        close(lock); /* closing the only descriptor releases the flock */
}
