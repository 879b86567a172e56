/* rocpd reader: the one-line messages of the checked row getters. */
#include <stdarg.h>
#include <stdio.h>

#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/names.h"

static const char *type_name(int type)
{
    static const char *const names[] = {[SQLITE_INTEGER] = "an integer",
                                        [SQLITE_FLOAT] = "a real",
                                        [SQLITE_TEXT] = "text",
                                        [SQLITE_BLOB] = "a blob"};

    return RPL_NAME_OF(names, type, "NULL");
}

int rd_row_begin(rd_row *row)
{
    sqlite3_value *v = sqlite3_column_value(row->st, 0);
    int type = sqlite3_value_type(v);

    if (type != SQLITE_INTEGER)
        return rpl_error_set(RPL_EINPUT, "'%s': %s has a row whose id is %s, expected an integer",
                             row->r->label, row->r->table[row->table], type_name(type));
    row->id = sqlite3_value_int64(v);
    return 0;
}

int rd_row_error(const rd_row *row, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return rpl_error_set(RPL_EINPUT, "'%s': %s row %lld: %s", row->r->label,
                         row->r->table[row->table], (long long)row->id, text);
}

int rd_bad_type(const rd_row *row, int col, const char *expected)
{
    return rd_row_error(row, "%s is %s, expected %s", rd_col_name(row, col),
                        type_name(sqlite3_value_type(sqlite3_column_value(row->st, col))),
                        expected);
}

int rd_bad_range(const rd_row *row, int col, int64_t value, const char *range)
{
    return rd_row_error(row, "%s %lld is out of range (%s)", rd_col_name(row, col),
                        (long long)value, range);
}

int rd_too_long(const rd_row *row, int col, size_t len, size_t max)
{
    return rd_row_error(row, "%s is %zu bytes long, more than the limit of %zu",
                        rd_col_name(row, col), len, max);
}

int rd_dangling(const rd_row *row, int col, int64_t value, enum rd_table target)
{
    return rd_row_error(row, "%s %lld does not exist in %s", rd_col_name(row, col),
                        (long long)value, row->r->table[target]);
}
