/* RFC 4180 CSV record reader (see csv.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "rpl/error.h"
#include "rpl/free.h"

struct rpl_csv_reader {
    FILE *f;
    char *label;
    char *buf;
    size_t len, cap;
    size_t starts[RPL_CSV_MAX_FIELDS];
    char *fields[RPL_CSV_MAX_FIELDS];
    size_t nfields;
    size_t line;     /* newlines consumed so far */
    size_t rec_line; /* line where the current record began */
};

enum state { FIELD_START, UNQUOTED, QUOTED, AFTER_QUOTE };

int rpl_csv_open(rpl_csv_reader **out, FILE *f, const char *label)
{
    rpl_csv_reader *r = calloc(1, sizeof(*r));

    *out = NULL;
    if (!r)
        return rpl_error_oom();
    r->label = strdup(label ? label : "csv");
    r->cap = 4096;
    r->buf = malloc(r->cap);
    if (!r->label || !r->buf) {
        rpl_csv_close(r);
        return rpl_error_oom();
    }
    r->f = f;
    *out = r;
    return 0;
}

void rpl_csv_close(rpl_csv_reader *r)
{
    if (!r)
        return;
    RPL_FREE_EACH(r->label, r->buf, r);
}

size_t rpl_csv_line(const rpl_csv_reader *r)
{
    return r->rec_line;
}

static int fail(rpl_csv_reader *r, const char *what)
{
    return rpl_error_set(RPL_EINPUT, "%s:%zu: %s", r->label, r->line + 1, what);
}

static int put(rpl_csv_reader *r, char c)
{
    if (r->len + 1 >= RPL_CSV_MAX_RECORD)
        return rpl_error_set(RPL_EINPUT, "%s:%zu: record longer than %u bytes", r->label,
                             r->rec_line, RPL_CSV_MAX_RECORD);
    if (r->len + 1 >= r->cap) {
        size_t ncap = r->cap * 2;
        char *p = realloc(r->buf, ncap);
        if (!p)
            return rpl_error_oom();
        r->buf = p;
        r->cap = ncap;
    }
    r->buf[r->len++] = c;
    return 0;
}

static int end_field(rpl_csv_reader *r, size_t *field_start)
{
    int rc;

    if (r->nfields == RPL_CSV_MAX_FIELDS)
        return rpl_error_set(RPL_EINPUT, "%s:%zu: more than %d fields", r->label, r->rec_line,
                             RPL_CSV_MAX_FIELDS);
    rc = put(r, '\0');
    if (rc)
        return rc;
    r->starts[r->nfields++] = *field_start;
    *field_start = r->len;
    return 0;
}

/* After '\r': only "\r\n" is a line end. */
static int crlf(rpl_csv_reader *r)
{
    int c = getc(r->f);

    if (c == '\n')
        return 0;
    if (c != EOF)
        ungetc(c, r->f);
    return fail(r, "carriage return not followed by a line feed");
}

/* One character of a record, outside a line end, through the quoting state machine. */
static int step(rpl_csv_reader *r, enum state *st, size_t *field_start, int c)
{
    int rc = 0;

    switch (*st) {
    case FIELD_START:
        if (c == '"')
            *st = QUOTED;
        else if (c == ',')
            rc = end_field(r, field_start);
        else {
            rc = put(r, (char)c);
            *st = UNQUOTED;
        }
        break;
    case UNQUOTED:
        if (c == ',') {
            rc = end_field(r, field_start);
            *st = FIELD_START;
        } else if (c == '"')
            rc = fail(r, "quote inside an unquoted field");
        else
            rc = put(r, (char)c);
        break;
    case QUOTED:
        if (c == '"')
            *st = AFTER_QUOTE;
        else {
            if (c == '\n')
                r->line++;
            rc = put(r, (char)c);
        }
        break;
    case AFTER_QUOTE:
        if (c == '"') {
            rc = put(r, '"');
            *st = QUOTED;
        } else if (c == ',') {
            rc = end_field(r, field_start);
            *st = FIELD_START;
        } else
            rc = fail(r, "text after the closing quote of a field");
        break;
    }
    return rc;
}

int rpl_csv_next(rpl_csv_reader *r, char ***fields, size_t *nfields)
{
    enum state st;
    size_t field_start;
    bool any;
    int c, rc;

    for (;;) {
        r->len = 0;
        r->nfields = 0;
        r->rec_line = r->line + 1;
        field_start = 0;
        st = FIELD_START;
        any = false;
        for (;;) {
            c = getc(r->f);
            if (c == EOF) {
                if (ferror(r->f))
                    return rpl_error_set(RPL_EIO, "%s: read error", r->label);
                if (st == QUOTED)
                    return rpl_error_set(RPL_EINPUT, "%s:%zu: quoted field not closed", r->label,
                                         r->rec_line);
                if (!any)
                    return 0;
                break;
            }
            if (c == '\0')
                return fail(r, "NUL byte in text");
            if (c == '\n' && st != QUOTED) {
                r->line++;
                break;
            }
            if (c == '\r' && st != QUOTED) {
                if ((rc = crlf(r)) != 0)
                    return rc;
                r->line++;
                break;
            }
            any = true;
            if ((rc = step(r, &st, &field_start, c)) != 0)
                return rc;
        }
        if (!any)
            continue; /* empty line */
        if ((rc = end_field(r, &field_start)) != 0)
            return rc;
        for (size_t i = 0; i < r->nfields; i++)
            r->fields[i] = r->buf + r->starts[i];
        *fields = r->fields;
        *nfields = r->nfields;
        return 1;
    }
}
