/* Paths and files: safe joins, directory creation, whole-file and atomic writes. */
#ifndef RPL_FSUTIL_H
#define RPL_FSUTIL_H

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

/* Temporary sibling name for `path` ("<path>.tmp.<pid>.<n>"), free(). */
int rpl_path_temp_sibling(char **out, const char *path);

/*
 * A library that ships with rocm-perf (librpl_cupti.so, librpl_hsa.so):
 * the file $<env_var> names when that is set, else the first readable
 * <directory of /proc/self/exe>/<dirs[i]>/<name>.  RPL_EENV when none is,
 * naming where it looked and ending with `hint` ("build ... or set
 * <env_var>").
 */
int rpl_find_own_lib(char **out, const char *name, const char *env_var, const char *const *dirs,
                     size_t ndirs, const char *hint);

#endif
