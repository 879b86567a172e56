/* Paths and hex addresses shared by the snapshot reader and writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/error.h"
#include "rpl/strbuf.h"
#include "snapshot_int.h"

const char *snap_path_problem(const char *path)
{
    size_t len = strlen(path);
    const char *p = path;

    if (len == 0)
        return "is empty";
    if (len > SNAP_MAX_PATH)
        return "is too long";
    if (path[0] == '/')
        return "is absolute";
    while (*p) {
        size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

        if (n == 0)
            return p[0] == '/' ? "has an empty component"
                               : "has a character outside [A-Za-z0-9._-/]";
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return "leaves or names its directory ('.' or '..')";
        p += n;
        if (*p == '/') {
            p++;
            if (!*p)
                return "ends with '/'";
        } else if (*p) {
            return "has a character outside [A-Za-z0-9._-/]";
        }
    }
    return NULL;
}

int snap_file_stat(const char *dir, const char *rel, uint64_t *size)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    struct stat st;
    const char *p = rel;
    int rc;

    if ((rc = rpl_strbuf_puts(&sb, dir)) != 0)
        return rc;
    /* Each component in turn, so that a symbolic link anywhere on the way is caught. */
    while (*p) {
        size_t n = strcspn(p, "/");

        if ((rc = rpl_strbuf_putc(&sb, '/')) != 0 || (rc = rpl_strbuf_put(&sb, p, n)) != 0)
            break;
        p += n;
        if (lstat(sb.ptr, &st) != 0) {
            rc = rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "'%s/%s' is missing: %s",
                               dir, rel, strerror(errno));
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            rc = rpl_error_set(RPL_EINPUT, "'%s' is a symbolic link; a snapshot holds only files",
                               sb.ptr);
            break;
        }
        if (*p == '/') {
            p++;
            if (!S_ISDIR(st.st_mode)) {
                rc = rpl_error_set(RPL_EINPUT, "'%s' is not a directory", sb.ptr);
                break;
            }
        } else if (!S_ISREG(st.st_mode)) {
            rc = rpl_error_set(RPL_EINPUT, "'%s' is not a regular file", sb.ptr);
            break;
        } else {
            *size = (uint64_t)st.st_size;
        }
    }
    rpl_strbuf_release(&sb);
    return rc;
}

bool snap_parse_hex(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    size_t n = 0;

    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    for (s += 2; *s; s++, n++) {
        unsigned d;

        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return false;
        if (n == 16)
            return false;
        v = v << 4 | d;
    }
    if (n == 0)
        return false;
    *out = v;
    return true;
}

void snap_format_hex(char *buf, uint64_t v)
{
    snprintf(buf, 19, "0x%llx", (unsigned long long)v);
}

void snap_files_free(rpl_snap_file *files, size_t n)
{
    for (size_t i = 0; files && i < n; i++)
        free(files[i].path);
    free(files);
}

int rpl_snapshot_region_path(char **out, uint64_t base, bool post)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    *out = NULL;
    if (rpl_strbuf_printf(&sb, "memory/%sregion_%llx.bin", post ? "post/" : "",
                          (unsigned long long)base) != 0)
        return RPL_ENOMEM;
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

int rpl_snapshot_global_path(char **out, size_t index, bool post)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    *out = NULL;
    if (rpl_strbuf_printf(&sb, "globals/%s%zu.bin", post ? "post/" : "", index) != 0)
        return RPL_ENOMEM;
    *out = rpl_strbuf_detach(&sb);
    return 0;
}
