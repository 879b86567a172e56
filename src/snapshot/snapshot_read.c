/* Opening, verifying and reading a snapshot (see rpl/snapshot.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/sha256.h"
#include "snapshot_int.h"

#define HASH_CHUNK (4u << 20)

int rpl_snapshot_open(rpl_snapshot **out, const char *dir)
{
    rpl_snapshot *s;
    struct stat st;
    int rc;

    *out = NULL;
    if (stat(dir, &st) != 0)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO,
                             "cannot open snapshot '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "'%s' is not a snapshot: not a directory", dir);
    s = calloc(1, sizeof(*s));
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        return rpl_error_oom();
    }
    if ((rc = snap_read(s)) != 0) {
        rpl_snapshot_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void rpl_snapshot_free(rpl_snapshot *s)
{
    if (!s)
        return;
    RPL_FREE_EACH(s->dir, s->arch, s->target, s->device_name, s->driver_version, s->runtime_version,
                  s->tool_version, s->mangled_name, s->demangled_name, s->code_object_file,
                  s->code_object_symbol, s->kernarg_file, s->captured_at);
    for (size_t i = 0; s->params && i < s->nparams; i++)
        free(s->params[i].type);
    free(s->params);
    for (size_t i = 0; s->regions && i < s->nregions; i++) {
        free(s->regions[i].kind);
        free(s->regions[i].file);
        free(s->regions[i].post_file);
    }
    free(s->regions);
    for (size_t i = 0; s->globals && i < s->nglobals; i++) {
        free(s->globals[i].name);
        free(s->globals[i].file);
        free(s->globals[i].post_file);
    }
    free(s->globals);
    snap_files_free(s->files, s->nfiles);
    free(s);
}

static int hash_file(const rpl_snapshot *s, const rpl_snap_file *f, unsigned char *buf)
{
    rpl_sha256 *h = NULL;
    char *path = NULL, hex[65];
    uint64_t total = 0;
    FILE *fp;
    size_t n;
    int rc;

    if ((rc = rpl_path_join(&path, s->dir, f->path)) != 0)
        return rc;
    fp = fopen(path, "rb");
    if (!fp) {
        rc = rpl_error_set(errno == ENOENT ? RPL_EINPUT : RPL_EIO, "cannot read '%s': %s", path,
                           strerror(errno));
        free(path);
        return rc;
    }
    if ((rc = rpl_sha256_new(&h)) == 0) {
        while ((n = fread(buf, 1, HASH_CHUNK, fp)) > 0) {
            total += n;
            if ((rc = rpl_sha256_update(h, buf, n)) != 0)
                break;
        }
        if (rc == 0 && ferror(fp))
            rc = rpl_error_set(RPL_EIO, "cannot read '%s': %s", path, strerror(errno));
        if (rc == 0) {
            rc = rpl_sha256_final(h, hex);
            h = NULL;
        }
    }
    rpl_sha256_free(h);
    fclose(fp);
    if (rc == 0 && total != f->size)
        rc = rpl_error_set(RPL_EINPUT, "'%s' is %llu bytes, dispatch.json records %llu", path,
                           (unsigned long long)total, (unsigned long long)f->size);
    else if (rc == 0 && strcmp(hex, f->sha256) != 0)
        rc = rpl_error_set(RPL_EINPUT,
                           "'%s' does not match its SHA-256 in dispatch.json (corrupt or "
                           "modified)",
                           path);
    free(path);
    return rc;
}

int rpl_snapshot_verify(const rpl_snapshot *s)
{
    unsigned char *buf = malloc(HASH_CHUNK);
    int rc = 0;

    if (!buf)
        return rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < s->nfiles; i++)
        rc = hash_file(s, &s->files[i], buf);
    free(buf);
    return rc;
}

static int open_file(FILE **out, const rpl_snapshot *s, const char *rel)
{
    char *path = NULL;
    int rc;

    *out = NULL;
    if ((rc = rpl_path_join(&path, s->dir, rel)) != 0)
        return rc;
    *out = fopen(path, "rb");
    if (!*out)
        rc = rpl_error_set(errno == ENOENT ? RPL_EINPUT : RPL_EIO, "cannot read '%s': %s", path,
                           strerror(errno));
    free(path);
    return rc;
}

int rpl_snapshot_region_open(FILE **out, const rpl_snapshot *s, size_t region, bool post)
{
    const char *rel;

    *out = NULL;
    if (region >= s->nregions)
        return rpl_error_set(RPL_EUSAGE, "snapshot '%s' has no region %zu", s->dir, region);
    rel = post ? s->regions[region].post_file : s->regions[region].file;
    if (!rel)
        return rpl_error_set(RPL_ENOTFOUND,
                             "snapshot '%s': region 0x%llx has no post-dispatch image", s->dir,
                             (unsigned long long)s->regions[region].base);
    return open_file(out, s, rel);
}

int rpl_snapshot_global_open(FILE **out, const rpl_snapshot *s, size_t global, bool post)
{
    const char *rel;

    *out = NULL;
    if (global >= s->nglobals)
        return rpl_error_set(RPL_EUSAGE, "snapshot '%s' has no global %zu", s->dir, global);
    rel = post ? s->globals[global].post_file : s->globals[global].file;
    if (!rel)
        return rpl_error_set(RPL_ENOTFOUND, "snapshot '%s': global '%s' has no post-dispatch image",
                             s->dir, s->globals[global].name);
    return open_file(out, s, rel);
}

long rpl_snapshot_find_region(const rpl_snapshot *s, uint64_t addr, uint64_t len)
{
    size_t lo = 0, hi = s->nregions;

    /* The last region whose base is <= addr (regions are sorted and disjoint). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->regions[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const rpl_snap_region *r = &s->regions[lo - 1];
    uint64_t off = addr - r->base;
    if (off >= r->size || len > r->size - off)
        return -1;
    return (long)(lo - 1);
}
