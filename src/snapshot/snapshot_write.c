/*
 * Writing a snapshot (see rpl/snapshot.h): every file goes into a
 * temporary sibling directory, streamed through SHA-256 as it is written;
 * commit writes the two JSON files, reads the result back with the same
 * checks rpl_snapshot_open makes, and renames the directory into place
 * (never over an existing one).  Abort removes exactly what was created.
 */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/sha256.h"
#include "snapshot_int.h"

struct rpl_snapshot_writer {
    char *dir; /* final name */
    char *tmp; /* where the files go until commit */
    rpl_snap_file *files;
    size_t nfiles, cap;
    char **dirs; /* subdirectories created, relative, in creation order */
    size_t ndirs, cap_dirs;
    bool wrote_dispatch;
    bool failed; /* a write failed: the snapshot cannot be committed */
    /* The file being streamed (fd < 0 when none). */
    int fd;
    rpl_sha256 *hash;
    rpl_snap_file *cur;
};

static int tmp_path(char **out, const rpl_snapshot_writer *w, const char *rel)
{
    return rpl_path_join(out, w->tmp, rel);
}

int rpl_snapshot_writer_begin(rpl_snapshot_writer **out, const char *dir)
{
    rpl_snapshot_writer *w;
    struct stat st;
    char *copy;
    int rc;

    *out = NULL;
    if (!dir[0])
        return rpl_error_set(RPL_EUSAGE, "empty snapshot directory name");
    if (lstat(dir, &st) == 0)
        return rpl_error_set(RPL_EINPUT, "'%s' already exists; a snapshot is never written over",
                             dir);
    /* The parent may be missing: create it, as `--out a/b/snap` asks. */
    if (!(copy = strdup(dir)))
        return rpl_error_oom();
    rc = rpl_mkdir_p(dirname(copy));
    free(copy);
    if (rc)
        return rc;
    w = calloc(1, sizeof(*w));
    if (!w)
        return rpl_error_oom();
    w->fd = -1;
    if (!(w->dir = strdup(dir))) {
        free(w);
        return rpl_error_oom();
    }
    if ((rc = rpl_path_temp_sibling(&w->tmp, dir)) != 0) {
        free(w->dir);
        free(w);
        return rc;
    }
    if (mkdir(w->tmp, 0777) != 0) {
        rc = rpl_error_set(RPL_EIO, "cannot create '%s': %s", w->tmp, strerror(errno));
        free(w->tmp);
        free(w->dir);
        free(w);
        return rc;
    }
    *out = w;
    return 0;
}

/* Create the directories on the way to `rel` inside the temporary directory. */
static int make_parents(rpl_snapshot_writer *w, const char *rel)
{
    for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
        size_t n = (size_t)(slash - rel);
        char *sub, *path = NULL;
        bool known = false;
        int rc;

        for (size_t i = 0; i < w->ndirs && !known; i++)
            known = strlen(w->dirs[i]) == n && strncmp(w->dirs[i], rel, n) == 0;
        if (known)
            continue;
        if (!(sub = strndup(rel, n)))
            return rpl_error_oom();
        if ((rc = tmp_path(&path, w, sub)) != 0) {
            free(sub);
            return rc;
        }
        if (mkdir(path, 0777) != 0) {
            rc = rpl_error_set(RPL_EIO, "cannot create '%s': %s", path, strerror(errno));
            free(path);
            free(sub);
            return rc;
        }
        free(path);
        if ((rc = RPL_ARRAY_GROW(w->dirs, w->cap_dirs, w->ndirs + 1)) != 0) {
            free(sub);
            return rc;
        }
        w->dirs[w->ndirs++] = sub;
    }
    return 0;
}

static int start_file(rpl_snapshot_writer *w, const char *rel, bool internal)
{
    const char *problem = snap_path_problem(rel);
    char *path = NULL;
    int rc;

    if (w->fd >= 0)
        return rpl_error_set(RPL_EUSAGE, "snapshot writer: '%s' is still open", w->cur->path);
    if (problem)
        return rpl_error_set(RPL_EUSAGE, "snapshot file name '%s' %s", rel, problem);
    if (!internal && (strcmp(rel, SNAP_DISPATCH) == 0 || strcmp(rel, SNAP_REGIONS) == 0))
        return rpl_error_set(RPL_EUSAGE, "snapshot writer: '%s' is written by commit", rel);
    for (size_t i = 0; i < w->nfiles; i++)
        if (strcmp(w->files[i].path, rel) == 0)
            return rpl_error_set(RPL_EUSAGE, "snapshot writer: '%s' was already written", rel);
    if ((rc = RPL_ARRAY_GROW(w->files, w->cap, w->nfiles + 1)) != 0)
        return rc;
    if ((rc = make_parents(w, rel)) != 0 || (rc = tmp_path(&path, w, rel)) != 0)
        return rc;
    w->cur = &w->files[w->nfiles];
    memset(w->cur, 0, sizeof(*w->cur));
    if (!(w->cur->path = strdup(rel))) {
        free(path);
        return rpl_error_oom();
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        rc = rpl_error_set(RPL_EIO, "cannot create '%s': %s", path, strerror(errno));
        free(w->cur->path);
        free(path);
        return rc;
    }
    free(path);
    w->nfiles++; /* from here on abort removes it */
    if ((rc = rpl_sha256_new(&w->hash)) != 0)
        w->failed = true;
    return rc;
}

int rpl_snapshot_writer_open(rpl_snapshot_writer *w, const char *path)
{
    return start_file(w, path, false);
}

int rpl_snapshot_writer_write(rpl_snapshot_writer *w, const void *data, size_t len)
{
    const char *p = data;
    int rc;

    if (w->fd < 0)
        return rpl_error_set(RPL_EUSAGE, "snapshot writer: no file is open");
    if (w->failed)
        return rpl_error_set(RPL_EIO, "snapshot writer: an earlier write to '%s' failed",
                             w->cur->path);
    if ((rc = rpl_sha256_update(w->hash, data, len)) != 0) {
        w->failed = true;
        return rc;
    }
    w->cur->size += len;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            w->failed = true;
            return rpl_error_set(RPL_EIO, "cannot write '%s/%s': %s", w->tmp, w->cur->path,
                                 n < 0 ? strerror(errno) : "no progress");
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int rpl_snapshot_writer_close(rpl_snapshot_writer *w)
{
    int rc = 0;

    if (w->fd < 0)
        return rpl_error_set(RPL_EUSAGE, "snapshot writer: no file is open");
    if (fsync(w->fd) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot sync '%s/%s': %s", w->tmp, w->cur->path,
                           strerror(errno));
    if (close(w->fd) != 0 && rc == 0)
        rc = rpl_error_set(RPL_EIO, "cannot close '%s/%s': %s", w->tmp, w->cur->path,
                           strerror(errno));
    w->fd = -1;
    if (rc == 0 && !w->failed)
        rc = rpl_sha256_final(w->hash, w->cur->sha256);
    else
        rpl_sha256_free(w->hash);
    w->hash = NULL;
    if (rc)
        w->failed = true;
    else if (w->failed)
        rc = rpl_error_set(RPL_EIO, "snapshot writer: '%s' was not written completely",
                           w->cur->path);
    return rc;
}

int rpl_snapshot_writer_add(rpl_snapshot_writer *w, const char *path, const void *data, size_t len)
{
    int rc = rpl_snapshot_writer_open(w, path);

    if (rc == 0 && (rc = rpl_snapshot_writer_write(w, data, len)) != 0)
        (void)rpl_snapshot_writer_close(w);
    else if (rc == 0)
        rc = rpl_snapshot_writer_close(w);
    return rc;
}

static int write_json(rpl_snapshot_writer *w, const char *rel, const cJSON *doc, bool tracked)
{
    char *text = NULL, *path = NULL;
    int rc, fd;

    if ((rc = rpl_json_print(&text, doc)) != 0)
        return rc;
    if (tracked) {
        if ((rc = start_file(w, rel, true)) == 0 &&
            (rc = rpl_snapshot_writer_write(w, text, strlen(text))) == 0)
            rc = rpl_snapshot_writer_close(w);
        else if (w->fd >= 0)
            (void)rpl_snapshot_writer_close(w);
        free(text);
        return rc;
    }
    /* dispatch.json: not in files[] (it holds the list). */
    if ((rc = tmp_path(&path, w, rel)) != 0) {
        free(text);
        return rc;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        rc = rpl_error_set(RPL_EIO, "cannot create '%s': %s", path, strerror(errno));
    } else {
        size_t len = strlen(text), done = 0;

        w->wrote_dispatch = true;
        while (rc == 0 && done < len) {
            ssize_t n = write(fd, text + done, len - done);

            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                rc = rpl_error_set(RPL_EIO, "cannot write '%s': %s", path,
                                   n < 0 ? strerror(errno) : "no progress");
            else
                done += (size_t)n;
        }
        if (rc == 0 && fsync(fd) != 0)
            rc = rpl_error_set(RPL_EIO, "cannot sync '%s': %s", path, strerror(errno));
        if (close(fd) != 0 && rc == 0)
            rc = rpl_error_set(RPL_EIO, "cannot close '%s': %s", path, strerror(errno));
    }
    free(path);
    free(text);
    return rc;
}

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

    if (fd < 0)
        return rpl_error_set(RPL_EIO, "cannot open '%s': %s", dir, strerror(errno));
    if (fsync(fd) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot sync '%s': %s", dir, strerror(errno));
    close(fd);
    return rc;
}

/* Rename the finished directory into place, never over something that appeared meanwhile. */
static int publish(const rpl_snapshot_writer *w)
{
    char *copy;
    int rc;

    if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->dir, RENAME_NOREPLACE) != 0) {
        struct stat st;

        if (errno != EINVAL && errno != ENOSYS)
            return rpl_error_set(errno == EEXIST ? RPL_EINPUT : RPL_EIO,
                                 "cannot rename '%s' to '%s': %s", w->tmp, w->dir, strerror(errno));
        /* A file system without RENAME_NOREPLACE: check, then rename. */
        if (lstat(w->dir, &st) == 0)
            return rpl_error_set(RPL_EINPUT, "'%s' appeared while the snapshot was written",
                                 w->dir);
        if (rename(w->tmp, w->dir) != 0)
            return rpl_error_set(RPL_EIO, "cannot rename '%s' to '%s': %s", w->tmp, w->dir,
                                 strerror(errno));
    }
    if (!(copy = strdup(w->dir)))
        return rpl_error_oom();
    rc = sync_dir(dirname(copy));
    free(copy);
    return rc;
}

static void writer_free(rpl_snapshot_writer *w)
{
    snap_files_free(w->files, w->nfiles);
    for (size_t i = 0; i < w->ndirs; i++)
        free(w->dirs[i]);
    RPL_FREE_EACH(w->dirs, w->tmp, w->dir, w);
}

static void remove_quietly(const rpl_snapshot_writer *w, const char *rel, bool is_dir)
{
    char *path = NULL;

    if (rpl_path_join(&path, w->tmp, rel) != 0)
        return;
    if ((is_dir ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT)
        rpl_log_warn("could not remove '%s': %s", path, strerror(errno));
    free(path);
}

void rpl_snapshot_writer_abort(rpl_snapshot_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    rpl_sha256_free(w->hash);
    for (size_t i = 0; i < w->nfiles; i++)
        remove_quietly(w, w->files[i].path, false);
    if (w->wrote_dispatch)
        remove_quietly(w, SNAP_DISPATCH, false);
    for (size_t i = w->ndirs; i-- > 0;)
        remove_quietly(w, w->dirs[i], true);
    if (rmdir(w->tmp) != 0 && errno != ENOENT)
        rpl_log_warn("could not remove '%s': %s", w->tmp, strerror(errno));
    writer_free(w);
}

static int copy_files(rpl_snapshot *meta, const rpl_snapshot_writer *w)
{
    meta->files = calloc(w->nfiles ? w->nfiles : 1, sizeof(*meta->files));
    if (!meta->files)
        return rpl_error_oom();
    for (size_t i = 0; i < w->nfiles; i++) {
        meta->files[i] = w->files[i];
        if (!(meta->files[i].path = strdup(w->files[i].path)))
            return rpl_error_oom();
        meta->nfiles = i + 1;
    }
    return 0;
}

int rpl_snapshot_writer_commit(rpl_snapshot_writer *w, rpl_snapshot *meta)
{
    rpl_snapshot *check = NULL;
    cJSON *doc = NULL;
    bool filled = false;
    int rc = 0;

    if (w->fd >= 0)
        rc = rpl_error_set(RPL_EUSAGE, "snapshot writer: '%s' is still open", w->cur->path);
    else if (w->failed)
        rc = rpl_error_set(RPL_EIO, "snapshot writer: a file was not written completely");
    else if (meta->files || meta->nfiles)
        rc = rpl_error_set(RPL_EUSAGE, "snapshot writer: meta->files must be empty; commit "
                                       "fills it");
    if (rc == 0 && (rc = snap_regions_json(&doc, meta)) == 0)
        rc = write_json(w, SNAP_REGIONS, doc, true);
    cJSON_Delete(doc);
    doc = NULL;
    if (rc == 0) {
        filled = true;
        rc = copy_files(meta, w);
    }
    if (rc == 0 && (rc = snap_dispatch_json(&doc, meta)) == 0)
        rc = write_json(w, SNAP_DISPATCH, doc, false);
    cJSON_Delete(doc);
    /* Read it back with the reader's checks: a snapshot that would not open is never published. */
    if (rc == 0 && (rc = rpl_snapshot_open(&check, w->tmp)) != 0)
        rpl_error_prefix("snapshot '%s' not written, its metadata is invalid", w->dir);
    rpl_snapshot_free(check);
    if (rc == 0 && (rc = sync_dir(w->tmp)) == 0)
        rc = publish(w);
    if (rc) {
        if (filled) {
            snap_files_free(meta->files, meta->nfiles);
            meta->files = NULL;
            meta->nfiles = 0;
        }
        rpl_snapshot_writer_abort(w);
        return rc;
    }
    writer_free(w);
    return 0;
}
