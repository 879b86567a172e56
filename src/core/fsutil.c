/* Paths and files (see rpl/fsutil.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

int rpl_path_join(char **out, const char *base, const char *rel)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const char *p = rel;
    int rc;

    *out = NULL;
    if (!rel[0])
        return rpl_error_set(RPL_EINPUT, "empty relative path");
    if (rel[0] == '/')
        return rpl_error_set(RPL_EINPUT, "path '%s' must be relative", rel);
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return rpl_error_set(RPL_EINPUT, "path '%s' leaves its directory", rel);
        p += n;
        p += strspn(p, "/");
    }
    rc = rpl_strbuf_puts(&sb, base);
    if (!rc && sb.len && sb.ptr[sb.len - 1] != '/')
        rc = rpl_strbuf_putc(&sb, '/');
    if (!rc)
        rc = rpl_strbuf_puts(&sb, rel);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

int rpl_mkdir_p(const char *path)
{
    char *copy, *p;
    struct stat st;

    if (!path[0])
        return rpl_error_set(RPL_EINPUT, "empty directory path");
    copy = strdup(path);
    if (!copy)
        return rpl_error_oom();
    for (p = copy + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        /* An existing directory may also answer EACCES or EROFS. */
        int err = mkdir(copy, 0777) == 0 ? 0 : errno;
        if (err && err != EEXIST && !(stat(copy, &st) == 0 && S_ISDIR(st.st_mode))) {
            rpl_error_set(RPL_EIO, "cannot create directory '%s': %s", copy, strerror(err));
            free(copy);
            return RPL_EIO;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    free(copy);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return rpl_error_set(RPL_EIO, "'%s' is not a directory", path);
    return 0;
}

int rpl_file_read_all(const char *path, size_t max, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char chunk[65536];
    struct stat st;
    size_t n;
    int rc = 0;

    *out = NULL;
    if (len)
        *len = 0;
    if (!f)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot open '%s': %s",
                             path, strerror(errno));
    /* fopen() opens a directory; reading it fails as if the disk did (EISDIR). */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return rpl_error_set(RPL_EINPUT, "'%s' is a directory, not a file", path);
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (sb.len + n > max) {
            if (max >= (1u << 20) && max % (1u << 20) == 0)
                rc = rpl_error_set(RPL_EINPUT, "'%s' is larger than %zu MiB", path, max >> 20);
            else
                rc = rpl_error_set(RPL_EINPUT, "'%s' is larger than %zu bytes", path, max);
            break;
        }
        if ((rc = rpl_strbuf_put(&sb, chunk, n)) != 0)
            break;
    }
    if (!rc && ferror(f))
        rc = rpl_error_set(RPL_EIO, "cannot read '%s': %s", path, strerror(errno));
    fclose(f);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    if (len)
        *len = sb.len;
    *out = rpl_strbuf_detach(&sb);
    return *out ? 0 : rpl_error_oom();
}

/* This host's name as part of a file name ("host" when it has none). */
static void host_word(char *buf, size_t size)
{
    if (gethostname(buf, size) != 0 || !buf[0])
        snprintf(buf, size, "host");
    buf[size - 1] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '/')
            *p = '_';
}

/* True when `s` is "<pid>.<n>" and process <pid> no longer exists. */
static bool dead_writer(const char *s)
{
    char *end;
    long pid;

    errno = 0;
    pid = strtol(s, &end, 10);
    if (errno || end == s || *end != '.' || pid <= 0 || pid == (long)getpid())
        return false;
    for (s = end + 1; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return end[1] && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Remove the temporaries of `path` (this host's naming) whose writer died. */
static void remove_stale_temps(const char *path, const char *host)
{
    const char *slash = strrchr(path, '/');
    rpl_strbuf dir = RPL_STRBUF_INIT, prefix = RPL_STRBUF_INIT, victim = RPL_STRBUF_INIT;
    struct dirent *e;
    DIR *d;

    if (slash)
        rpl_strbuf_put(&dir, path, slash == path ? 1 : (size_t)(slash - path));
    else
        rpl_strbuf_puts(&dir, ".");
    rpl_strbuf_printf(&prefix, "%s.tmp.%s.", slash ? slash + 1 : path, host);
    if (!dir.ptr || !prefix.ptr || !(d = opendir(dir.ptr))) {
        rpl_strbuf_release(&dir);
        rpl_strbuf_release(&prefix);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix.ptr, prefix.len) != 0 || !dead_writer(e->d_name + prefix.len))
            continue;
        rpl_strbuf_reset(&victim);
        if (rpl_strbuf_printf(&victim, "%s/%s", dir.ptr, e->d_name) == 0 &&
            rpl_remove_tree(victim.ptr) == 0)
            rpl_log_info("removed '%s', left behind by a process that died while writing",
                         victim.ptr);
    }
    closedir(d);
    rpl_strbuf_release(&dir);
    rpl_strbuf_release(&prefix);
    rpl_strbuf_release(&victim);
}

int rpl_path_temp_sibling(char **out, const char *path)
{
    static atomic_uint counter;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char host[256];

    host_word(host, sizeof(host));
    remove_stale_temps(path, host);
    if (rpl_strbuf_printf(&sb, "%s.tmp.%s.%ld.%u", path, host, (long)getpid(),
                          atomic_fetch_add(&counter, 1))) {
        rpl_strbuf_release(&sb);
        return RPL_ENOMEM;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

int rpl_file_write_atomic(const char *path, const void *data, size_t len)
{
    const char *p = data;
    char *tmp;
    int fd, rc = 0;

    if ((rc = rpl_path_temp_sibling(&tmp, path)) != 0)
        return rc;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        rc = rpl_error_set(RPL_EIO, "cannot write '%s': cannot create '%s': %s", path, tmp,
                           strerror(errno));
        free(tmp);
        return rc;
    }
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = rpl_error_set(RPL_EIO, "cannot write '%s': %s", path,
                               n < 0 ? strerror(errno) : "no progress");
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    if (!rc && fsync(fd) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot sync '%s': %s", path, strerror(errno));
    if (close(fd) != 0 && !rc)
        rc = rpl_error_set(RPL_EIO, "cannot close '%s': %s", path, strerror(errno));
    if (!rc && rename(tmp, path) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

int rpl_find_own_lib(char **out, const char *name, const char *env_var, const char *const *dirs,
                     size_t ndirs, const char *hint)
{
    const char *env = getenv(env_var);
    char exe[PATH_MAX], *slash;
    rpl_strbuf looked = RPL_STRBUF_INIT;
    ssize_t n;
    int rc = 0;

    *out = NULL;
    if (env && env[0]) {
        if (access(env, R_OK) != 0)
            return rpl_error_set(RPL_EENV, "%s names '%s', which cannot be read", env_var, env);
        *out = strdup(env);
        return *out ? 0 : rpl_error_oom();
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return rpl_error_set(RPL_EENV, "cannot find the rocm-perf binary to locate %s; set %s",
                             name, env_var);
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    *slash = '\0';
    for (size_t i = 0; rc == 0 && i < ndirs; i++) {
        rpl_strbuf sb = RPL_STRBUF_INIT;
        if ((rc = rpl_strbuf_printf(&sb, "%s/%s/%s", exe, dirs[i], name)) == 0 &&
            access(sb.ptr, R_OK) == 0) {
            *out = rpl_strbuf_detach(&sb);
            break;
        }
        rpl_strbuf_release(&sb);
        if (rc == 0)
            rc = rpl_strbuf_printf(&looked, "%s%s", i ? ", " : "", dirs[i]);
    }
    if (rc == 0 && !*out)
        rc = rpl_error_set(RPL_EENV, "%s not found (looked in %s relative to %s); %s or set %s",
                           name, rpl_strbuf_cstr(&looked), exe, hint, env_var);
    rpl_strbuf_release(&looked);
    return rc;
}

/* Empty the directory open as `dirfd` (closed here), recursively; first error in *first. */
static void remove_dir_contents(int dirfd, const char *path, int *first)
{
    DIR *d = fdopendir(dirfd);
    struct dirent *e;

    if (!d) {
        if (!*first)
            *first = rpl_error_set(RPL_EIO, "cannot read '%s': %s", path, strerror(errno));
        close(dirfd);
        return;
    }
    while ((errno = 0, e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        struct stat st;

        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                remove_dir_contents(sub, name, first);
        }
        if (unlinkat(dirfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0 && errno != ENOENT &&
            !*first)
            *first = rpl_error_set(RPL_EIO, "cannot remove '%s' in '%s': %s", name, path,
                                   strerror(errno));
    }
    closedir(d);
}

int rpl_remove_tree(const char *path)
{
    struct stat st;
    int first = 0, fd;

    if (lstat(path, &st) != 0)
        return errno == ENOENT
                   ? 0
                   : rpl_error_set(RPL_EIO, "cannot remove '%s': %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return rpl_error_set(RPL_EIO, "cannot remove '%s': %s", path, strerror(errno));
        return 0;
    }
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rpl_error_set(RPL_EIO, "cannot open '%s': %s", path, strerror(errno));
    remove_dir_contents(fd, path, &first);
    if (rmdir(path) != 0 && errno != ENOENT && !first)
        first = rpl_error_set(RPL_EIO, "cannot remove '%s': %s", path, strerror(errno));
    return first;
}
