/* Batched multi-row inserts (see rocpd_batch.h). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "rocpd_batch.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/strbuf.h"

/* Bound variables per multi-row statement (SQLite allows 32766). */
#define BATCH_VARS 4096

typedef enum cell_type { CELL_NULL, CELL_INT, CELL_DOUBLE, CELL_TEXT } cell_type;

typedef struct cell {
    cell_type type;
    union {
        int64_t i;
        double d;
        const char *s;
    } v;
} cell;

struct rpl_rocpd_batch {
    sqlite3 *db;
    const char *table;
    sqlite3_stmt *full; /* rows_per_stmt rows */
    sqlite3_stmt *one;  /* one row, for the last partial batch */
    int ncols, rows_per_stmt;
    int rows; /* complete rows held */
    int col;  /* values given for the current row */
    cell *cells;
    char **owned; /* copies made by rpl_rocpd_batch_text_copy */
    size_t nowned, capowned;
    int rc;
};

static int sql_fail(rpl_rocpd_batch *b, const char *what)
{
    int code = sqlite3_errcode(b->db);
    int status = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN ||
                         code == SQLITE_READONLY || code == SQLITE_PERM
                     ? RPL_EIO
                     : RPL_ERROR;

    b->rc = rpl_error_set(status, "%s '%s': %s", what, b->table, sqlite3_errmsg(b->db));
    return b->rc;
}

/* "INSERT INTO table+suffix (columns) VALUES (?, ...), ..." for `rows` rows. */
static int prepare_rows(rpl_rocpd_batch *b, sqlite3_stmt **st, const char *suffix,
                        const char *columns, int rows)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_strbuf_printf(&sb, "INSERT INTO %s%s (%s) VALUES ", b->table, suffix, columns);

    for (int r = 0; r < rows && !rc; r++) {
        rc = rpl_strbuf_puts(&sb, r ? ", (" : "(");
        for (int c = 0; c < b->ncols && !rc; c++)
            rc = rpl_strbuf_puts(&sb, c ? ", ?" : "?");
        if (!rc)
            rc = rpl_strbuf_putc(&sb, ')');
    }
    if (rc) {
        rpl_strbuf_release(&sb);
        return b->rc = rc;
    }
    if (sqlite3_prepare_v2(b->db, rpl_strbuf_cstr(&sb), -1, st, NULL) != SQLITE_OK)
        rc = sql_fail(b, "cannot prepare inserts into");
    rpl_strbuf_release(&sb);
    return rc;
}

int rpl_rocpd_batch_open(rpl_rocpd_batch **out, sqlite3 *db, const char *table, const char *suffix,
                         const char *columns)
{
    rpl_rocpd_batch *b = calloc(1, sizeof(*b));
    int rc;

    *out = NULL;
    if (!b)
        return rpl_error_oom();
    b->db = db;
    b->table = table;
    b->ncols = 1;
    for (const char *p = columns; *p; p++)
        b->ncols += *p == ',';
    b->rows_per_stmt = BATCH_VARS / b->ncols;
    b->cells = malloc((size_t)b->rows_per_stmt * (size_t)b->ncols * sizeof(cell));
    if (!b->cells) {
        free(b);
        return rpl_error_oom();
    }
    if ((rc = prepare_rows(b, &b->full, suffix, columns, b->rows_per_stmt)) != 0 ||
        (rc = prepare_rows(b, &b->one, suffix, columns, 1)) != 0) {
        b->rc = 0;
        rpl_rocpd_batch_close(b);
        return rc;
    }
    *out = b;
    return 0;
}

static cell *next_cell(rpl_rocpd_batch *b)
{
    if (b->rc)
        return NULL;
    if (b->col >= b->ncols) {
        b->rc = rpl_error_set(RPL_ERROR, "too many values for a row of '%s'", b->table);
        return NULL;
    }
    return &b->cells[b->rows * b->ncols + b->col++];
}

void rpl_rocpd_batch_int(rpl_rocpd_batch *b, int64_t v)
{
    cell *c = next_cell(b);

    if (c)
        *c = (cell){.type = CELL_INT, .v.i = v};
}

void rpl_rocpd_batch_double(rpl_rocpd_batch *b, double v)
{
    cell *c = next_cell(b);

    if (c)
        *c = (cell){.type = CELL_DOUBLE, .v.d = v};
}

void rpl_rocpd_batch_null(rpl_rocpd_batch *b)
{
    cell *c = next_cell(b);

    if (c)
        c->type = CELL_NULL;
}

void rpl_rocpd_batch_text(rpl_rocpd_batch *b, const char *s)
{
    cell *c = next_cell(b);

    if (c)
        *c = (cell){.type = CELL_TEXT, .v.s = s ? s : ""};
}

void rpl_rocpd_batch_text_copy(rpl_rocpd_batch *b, const char *s)
{
    char *copy;

    if (b->rc)
        return;
    if (b->nowned == b->capowned) {
        size_t cap = b->capowned ? b->capowned * 2 : 16;
        char **p = realloc(b->owned, cap * sizeof(*p));
        if (!p) {
            b->rc = rpl_error_oom();
            return;
        }
        b->owned = p;
        b->capowned = cap;
    }
    if (!(copy = strdup(s ? s : ""))) {
        b->rc = rpl_error_oom();
        return;
    }
    b->owned[b->nowned++] = copy;
    rpl_rocpd_batch_text(b, copy);
}

/* Bind `rows` rows starting at cell `first` to `st` and run it. */
static int write_rows(rpl_rocpd_batch *b, sqlite3_stmt *st, int first, int rows)
{
    int n = rows * b->ncols;

    for (int k = 0; k < n; k++) {
        const cell *c = &b->cells[first + k];
        switch (c->type) {
        case CELL_NULL:
            sqlite3_bind_null(st, k + 1);
            break;
        case CELL_INT:
            sqlite3_bind_int64(st, k + 1, c->v.i);
            break;
        case CELL_DOUBLE:
            sqlite3_bind_double(st, k + 1, c->v.d);
            break;
        case CELL_TEXT:
            sqlite3_bind_text(st, k + 1, c->v.s, -1, SQLITE_STATIC);
            break;
        }
    }
    if (sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_reset(st);
        return sql_fail(b, "cannot insert into");
    }
    sqlite3_reset(st);
    return 0;
}

int rpl_rocpd_batch_end_row(rpl_rocpd_batch *b)
{
    if (b->rc)
        return b->rc;
    if (b->col != b->ncols)
        return b->rc = rpl_error_set(RPL_ERROR, "a row of '%s' has %d values, not %d", b->table,
                                     b->col, b->ncols);
    b->col = 0;
    if (++b->rows == b->rows_per_stmt) {
        b->rows = 0;
        return write_rows(b, b->full, 0, b->rows_per_stmt);
    }
    return 0;
}

int rpl_rocpd_batch_close(rpl_rocpd_batch *b)
{
    int rc;

    if (!b)
        return 0;
    for (int r = 0; r < b->rows && !b->rc; r++)
        write_rows(b, b->one, r * b->ncols, 1);
    rc = b->rc;
    sqlite3_finalize(b->full);
    sqlite3_finalize(b->one);
    rpl_free_strings(b->owned, b->nowned);
    free(b->cells);
    free(b);
    return rc;
}
