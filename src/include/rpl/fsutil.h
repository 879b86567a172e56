/* Paths and files: safe joins, directory creation, whole-file and atomic writes. */
#ifndef RPL_FSUTIL_H
#define RPL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Join `base` and the relative path `rel` into a new string (*out, free()).
 * Fails with RPL_EINPUT when `rel` is absolute or any of its components is
 * "..", so the result never escapes `base`.
 */
int rpl_path_join(char **out, const char *base, const char *rel);

/* Create a directory and its parents (mode 0777 & ~umask); existing is fine. */
int rpl_mkdir_p(const char *path);

/*
 * Read a whole file into *out (NUL-terminated, free()), its size in *len.
 * Files larger than `max` bytes fail with RPL_EINPUT.
 */
int rpl_file_read_all(const char *path, size_t max, char **out, size_t *len);

/*
 * Write `len` bytes to `path` atomically: a temporary file in the same
 * directory, fsync, then rename.  On failure `path` is untouched.
 */
int rpl_file_write_atomic(const char *path, const void *data, size_t len);

/*
 * Temporary sibling name for `path` ("<path>.tmp.<host>.<pid>.<n>"), free().
 * Before naming it, removes the temporaries of `path` that a process of this
 * host left behind when it died mid-write (its pid no longer exists), so a
 * run killed while writing (kill -9, a file-size limit) leaves nothing for
 * long.
 */
int rpl_path_temp_sibling(char **out, const char *path);

/*
 * Advisory lock for read-modify-write of files in `dir` (flock on the
 * directory: no lock file, released when the process ends).  Waits up to
 * `timeout_s`, then fails with RPL_ETIMEOUT (exit 3) saying that another
 * process holds it and what could not be done (`what`, e.g. "update
 * baseline 'x'").  *lock is -1 when the file system cannot lock (a warning
 * is logged and the caller goes on).  Release with rpl_dir_unlock().
 */
int rpl_dir_lock(int *lock, const char *dir, double timeout_s, const char *what);
void rpl_dir_unlock(int lock);

/* ROCM_PERF_LOCK_TIMEOUT (seconds), else RPL_LOCK_TIMEOUT_DEFAULT_S. */
#define RPL_LOCK_TIMEOUT_DEFAULT_S 60.0
double rpl_lock_timeout_s(void);

/*
 * A library that ships with rocm-perf (librpl_cupti.so, librpl_hsa.so):
 * the file $<env_var> names when that is set, else the first readable
 * <directory of /proc/self/exe>/<dirs[i]>/<name>.  RPL_EENV when none is,
 * naming where it looked and ending with `hint` ("build ... or set
 * <env_var>").
 */
int rpl_find_own_lib(char **out, const char *name, const char *env_var, const char *const *dirs,
                     size_t ndirs, const char *hint);

/*
 * Remove a file, or a directory and everything under it, without following
 * symbolic links (a link is removed, not its target).  A missing path is
 * fine.  Removes all it can; the first failure is returned (RPL_EIO).
 */
int rpl_remove_tree(const char *path);

#endif
