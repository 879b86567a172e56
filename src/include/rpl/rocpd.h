/*
 * rocpd (rocprofv3 SQLite, schema "3") reader and writer.
 * Reference: rocprofiler-sdk's rocpd schema (ROCm/rocm-systems@1b1610f, projects/rocprofiler-sdk).
 */
#ifndef RPL_ROCPD_H
#define RPL_ROCPD_H

#include <stdbool.h>
#include <stdint.h>
#include "rpl/trace.h"

typedef struct sqlite3 sqlite3;

/*
 * Read one rocpd database and append its records to `trace` (several calls
 * merge several databases, one per process).  Tables are found through
 * rocpd_metadata's uuid suffix, through the unsuffixed views, or by name
 * discovery.  Missing optional tables are fine.  Corrupt files, missing
 * required tables, wrong column types, NULL ids, end < start and dangling
 * references fail with RPL_EINPUT and a one-line message naming the file;
 * on failure `trace` is left as it was before the call.
 */
int rpl_rocpd_read(rpl_trace *trace, const char *path);

/*
 * What a read keeps; NULL or all zero keeps everything.  A runtime-API trace
 * has an argument row for every parameter of every call (six for a
 * hipLaunchKernel): a reader that needs a few of them names those here.
 */
typedef struct rpl_rocpd_read_opts {
    /* Keep only the API arguments whose name is listed (NULL-terminated) and
     * those without a name (read by position); NULL: keep every argument. */
    const char *const *arg_names;
} rpl_rocpd_read_opts;

/* rpl_rocpd_read with options (NULL: the defaults). */
int rpl_rocpd_read_with(rpl_trace *trace, const char *path, const rpl_rocpd_read_opts *opts);

/* The same on an open connection; `label` names it in messages (fuzzing, tests). */
int rpl_rocpd_read_db(rpl_trace *trace, sqlite3 *db, const char *label,
                      const rpl_rocpd_read_opts *opts);

/*
 * Merge the counters of a counter-pass trace into `trace`: dispatches are
 * matched by kernel name and their order among dispatches of that kernel
 * (the same program run again).  A pass whose kernel sequence differs fails
 * with RPL_EINPUT.  Counters already present keep their value unless the pass
 * has the same counter, which then wins.
 */
int rpl_trace_merge_counter_pass(rpl_trace *trace, const rpl_trace *pass);

/*
 * The same for a pass that may have ended early (a counter run stopped once
 * its sample was measured): each kernel's dispatches in the pass are the
 * first ones of that kernel in `trace`, so the pass may have fewer.
 */
int rpl_trace_merge_counter_prefix(rpl_trace *trace, const rpl_trace *pass);

typedef struct rpl_rocpd_write_opts {
    const char *guid;     /* UUID string for the guid column; NULL: a new UUIDv7 */
    const char *hostname; /* rocpd_info_node.hostname; NULL: this host */
} rpl_rocpd_write_opts;

/*
 * Write the whole trace as a schema-3 rocpd database at `path`, with the
 * same tables, unsuffixed views, data views and metadata rows as rocprofv3,
 * parent rows first so the views' inner joins keep every row.  The file is
 * written to a temporary sibling and renamed, so `path` never holds a half
 * written database.  Records of every source go into the one file.
 */
int rpl_rocpd_write(const rpl_trace *trace, const char *path, const rpl_rocpd_write_opts *opts);

#endif
