/*
 * libFuzzer entry for the snapshot reader: the input bytes become a
 * snapshot directory, which goes through rpl_snapshot_open,
 * rpl_snapshot_verify and a region lookup.
 *
 * Input format (pack_snapshot.py writes real snapshots this way): the
 * bytes up to the first separator are dispatch.json; then each
 * "\n@@@ <path>\n" starts a file named <path> holding the bytes up to the
 * next separator.  Paths are taken as they come within the scratch
 * directory, except that absolute ones and ".." components are dropped
 * here (this harness must not write elsewhere); the reader sees everything
 * else, odd characters, empty names and clashes included.
 */
#define _GNU_SOURCE /* nftw, memmem */

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpl/snapshot.h"

#define SEP      "\n@@@ "
#define MAX_FILE 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0)
        remove(path);
    return 0;
}

static void write_file(const char *rel, size_t rel_len, const uint8_t *data, size_t len)
{
    char path[512];
    int fd;

    if (rel_len == 0 || rel_len > 200 || rel[0] == '/' || memchr(rel, '\0', rel_len))
        return;
    for (size_t i = 0; i + 1 < rel_len; i++)
        if (rel[i] == '.' && rel[i + 1] == '.')
            return;
    snprintf(path, sizeof(path), "%s/%.*s", root, (int)rel_len, rel);
    /* Parent directories as the path names them. */
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return;
    if (len && write(fd, data, len) < 0)
        len = 0;
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size, *p = data, *next;
    const char *name = "dispatch.json";
    size_t name_len = strlen(name);
    rpl_snapshot *snap = NULL;
    int files = 0;

    if (!root[0]) {
        snprintf(root, sizeof(root), "%s/fuzz_snapshot.XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(root))
            abort();
    }
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    while (files++ < MAX_FILE) {
        const uint8_t *nl;

        next = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
        write_file(name, name_len, p, (size_t)((next ? next : end) - p));
        if (!next)
            break;
        p = next + strlen(SEP);
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        name = (const char *)p;
        name_len = (size_t)(nl - p);
        p = nl + 1;
    }
    if (rpl_snapshot_open(&snap, root) == 0) {
        (void)rpl_snapshot_verify(snap);
        for (size_t i = 0; i < snap->nregions; i++)
            if (rpl_snapshot_find_region(snap, snap->regions[i].base, snap->regions[i].size) !=
                (long)i)
                abort(); /* open accepted regions that lookup cannot find */
        rpl_snapshot_free(snap);
    }
    return 0;
}
