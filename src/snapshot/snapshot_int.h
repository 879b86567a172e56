/* Internals of the snapshot reader and writer (src/snapshot/snapshot_*.c). */
#ifndef RPL_SNAPSHOT_INT_H
#define RPL_SNAPSHOT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "rpl/snapshot.h"

#define SNAP_DISPATCH "dispatch.json"
#define SNAP_REGIONS  "memory_regions.json"

/* Longest relative path and longest string field (mangled template names run long). */
#define SNAP_MAX_PATH   512
#define SNAP_MAX_STRING 65536

/*
 * A relative path inside a snapshot: components of [A-Za-z0-9._-] joined by
 * single '/', none of them "." or "..", at most SNAP_MAX_PATH bytes.
 * Returns a static description of the problem, or NULL when it is fine.
 */
const char *snap_path_problem(const char *path);

/*
 * `dir`/`rel` must be a regular file reached without symbolic links.
 * Fills *size; RPL_ENOTFOUND when missing, RPL_EINPUT when something else
 * is in the way.  The message names the full path.
 */
int snap_file_stat(const char *dir, const char *rel, uint64_t *size);

/* "0x" and 1-16 hex digits (either case); false for anything else. */
bool snap_parse_hex(const char *s, uint64_t *out);
/* "0x<lowercase hex>" into buf (at least 19 bytes). */
void snap_format_hex(char *buf, uint64_t v);

/* Parse and check both JSON files of the snapshot in snap->dir (everything but digests). */
int snap_read(rpl_snapshot *snap);

/* The two JSON documents of a snapshot, from its metadata. */
int snap_dispatch_json(cJSON **out, const rpl_snapshot *snap);
int snap_regions_json(cJSON **out, const rpl_snapshot *snap);

void snap_files_free(rpl_snap_file *files, size_t n);

#endif
