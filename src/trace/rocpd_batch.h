/*
 * Batched row inserts for the rocpd writer: rows are collected and written
 * with one multi-row INSERT per batch, which amortises SQLite's per-statement
 * work (AUTOINCREMENT bookkeeping, cursors) over many rows.
 *
 * Usage: open, then for each row one value call per column and
 * rpl_rocpd_batch_end_row, then close.  Errors are sticky: after the first
 * failure the value calls do nothing and close returns the error.
 */
#ifndef RPL_TRACE_ROCPD_BATCH_H
#define RPL_TRACE_ROCPD_BATCH_H

#include <stdint.h>

typedef struct sqlite3 sqlite3;
typedef struct rpl_rocpd_batch rpl_rocpd_batch;

/*
 * Rows for table `table` + `suffix` with the comma-separated `columns`
 * (e.g. "id, nid, name").  On failure *out is NULL.
 */
int rpl_rocpd_batch_open(rpl_rocpd_batch **out, sqlite3 *db, const char *table, const char *suffix,
                         const char *columns);

void rpl_rocpd_batch_int(rpl_rocpd_batch *b, int64_t v);
void rpl_rocpd_batch_double(rpl_rocpd_batch *b, double v);
void rpl_rocpd_batch_null(rpl_rocpd_batch *b);
/* `s` (NULL is taken as "") must stay valid until the batch is closed. */
void rpl_rocpd_batch_text(rpl_rocpd_batch *b, const char *s);
/* A copy of `s` is kept by the batch. */
void rpl_rocpd_batch_text_copy(rpl_rocpd_batch *b, const char *s);

/* Finish a row (exactly one value per column); full batches are written. */
int rpl_rocpd_batch_end_row(rpl_rocpd_batch *b);

/* Write the remaining rows and free the batch (NULL is fine); returns the first error. */
int rpl_rocpd_batch_close(rpl_rocpd_batch *b);

#endif
