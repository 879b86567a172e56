/* Internal to the rocpd writer: what the collection pass hands to the row writers. */
#ifndef RPL_TRACE_ROCPD_WRITER_INT_H
#define RPL_TRACE_ROCPD_WRITER_INT_H

#include <stdint.h>

#include "rocpd_schema.h"
#include "rpl/rocpd.h"

#define RPL_CAT_DISPATCH "KERNEL_DISPATCH"
#define RPL_CAT_COPY     "MEMORY_COPY"

typedef struct rpl_tid_pid {
    int64_t tid, pid;
} rpl_tid_pid;

typedef struct rpl_rocpd_writer {
    const rpl_trace *t;
    const rpl_rocpd_write_opts *opts; /* may be NULL */
    sqlite3 *db;
    char suffix[RPL_ROCPD_GUID_MAX + 2]; /* table name suffix, "_<uuid>" */
    const char **strs;                   /* sorted distinct strings; row id = index + 1 */
    uint32_t nstrs;
    int64_t *pids; /* sorted distinct pids of every record */
    uint32_t npids;
    rpl_tid_pid *threads; /* sorted distinct tids with the pid of a record using them */
    uint32_t nthreads;
    int64_t default_pid;     /* for rows whose source has no process record */
    const char *last_string; /* rpl_rocpd_writer_string_id's last lookup */
    int64_t last_string_id;
} rpl_rocpd_writer;

/* The row id of a collected string. */
int64_t rpl_rocpd_writer_string_id(rpl_rocpd_writer *w, const char *s);

/* The name a memory copy is stored under. */
const char *rpl_rocpd_copy_name(const rpl_memcpy *m);

/* Insert every row (the schema exists and a transaction is open). */
int rpl_rocpd_write_rows(rpl_rocpd_writer *w);

#endif
