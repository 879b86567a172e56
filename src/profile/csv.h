/*
 * A small RFC 4180 CSV record reader (library-internal): comma-separated
 * fields, double-quoted fields that may hold commas, newlines and doubled
 * quotes, LF or CRLF line ends, and a bound on the length of one record so
 * that a corrupt file cannot make it allocate without limit.
 */
#ifndef RPL_PROFILE_CSV_H
#define RPL_PROFILE_CSV_H

#include <stddef.h>
#include <stdio.h>

#define RPL_CSV_MAX_RECORD (1u << 20) /* bytes in one record */
#define RPL_CSV_MAX_FIELDS 256

typedef struct rpl_csv_reader rpl_csv_reader;

/* Read records from `f` (not closed by the reader); `label` names it in messages. */
int rpl_csv_open(rpl_csv_reader **out, FILE *f, const char *label);

/*
 * The next record: *fields points at `*nfields` NUL-terminated fields that
 * stay valid until the next call.  Returns 1 for a record, 0 at the end of
 * the input, RPL_EINPUT for malformed input (unterminated quote, a quote
 * inside an unquoted field, a record over the limits, a NUL byte).  Empty
 * lines are skipped.
 */
int rpl_csv_next(rpl_csv_reader *r, char ***fields, size_t *nfields);

/* Line number (1-based) where the last record returned began. */
size_t rpl_csv_line(const rpl_csv_reader *r);

void rpl_csv_close(rpl_csv_reader *r);

#endif
