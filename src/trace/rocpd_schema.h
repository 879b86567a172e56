/*
 * The rocpd schema "3" (ROCm 7.0) as data: the tables with their columns,
 * types and constraints, and the views rocprofv3 creates over them.  The
 * writer creates databases from it; readers can use it to find tables and to
 * check column types.  Reference: rocprofiler-sdk's rocpd tables and views
 * (ROCm/rocm-systems@1b1610f, projects/rocprofiler-sdk).
 */
#ifndef RPL_TRACE_ROCPD_SCHEMA_H
#define RPL_TRACE_ROCPD_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sqlite3 sqlite3;

#define RPL_ROCPD_SCHEMA_VERSION "3"
/* Longest guid accepted (a UUID has 36 characters, an MD5 hex string 32). */
#define RPL_ROCPD_GUID_MAX 64

typedef struct rpl_rocpd_column {
    const char *name;
    const char *type; /* declared type: INTEGER, BIGINT, INT, TEXT, REAL or JSONB */
    bool not_null;
    const char *extra;      /* rest of the definition (DEFAULT, UNIQUE, CHECK), or NULL */
    const char *references; /* base name of the table whose id this refers to, or NULL */
} rpl_rocpd_column;

typedef struct rpl_rocpd_table {
    const char *name;                /* base name, e.g. "rocpd_kernel_dispatch" */
    bool required;                   /* the trace model cannot be built without it */
    const rpl_rocpd_column *columns; /* every column in order, "id" (and "guid") first */
    size_t ncolumns;
} rpl_rocpd_table;

/* The tables in creation order (parents before children). */
extern const rpl_rocpd_table rpl_rocpd_tables[];
extern const size_t rpl_rocpd_ntables;

/* A table by base name, or NULL. */
const rpl_rocpd_table *rpl_rocpd_table_find(const char *name);
/* A column of a table by name, or NULL. */
const rpl_rocpd_column *rpl_rocpd_column_find(const rpl_rocpd_table *table, const char *name);

typedef struct rpl_rocpd_view {
    const char *name; /* e.g. "kernels" */
    const char *sql;  /* the SELECT it stands for, over the unsuffixed rocpd_X views */
} rpl_rocpd_view;

/* The data and summary views, in creation order (later ones use earlier ones). */
extern const rpl_rocpd_view rpl_rocpd_views[];
extern const size_t rpl_rocpd_nviews;

/*
 * A guid is usable when it has 1..RPL_ROCPD_GUID_MAX characters from
 * [A-Za-z0-9-]: it becomes part of table names and a DEFAULT literal.
 */
bool rpl_rocpd_guid_valid(const char *guid);

/*
 * The table suffix for a guid ("_" + guid with '-' turned into '_'), as in
 * the metadata "uuid" row.  `out` holds at least RPL_ROCPD_GUID_MAX + 2 bytes.
 */
void rpl_rocpd_uuid_suffix(char *out, const char *guid);

/*
 * The whole creation script for one database: every table with the uuid
 * suffix and the guid as the guid column's default, the unsuffixed rocpd_X
 * views, the data and summary views, and the three metadata rows.  *out is
 * free()d by the caller.  Fails with RPL_EUSAGE on an invalid guid.
 */
int rpl_rocpd_schema_sql(char **out, const char *guid);

/* Run rpl_rocpd_schema_sql's script on an open, empty database. */
int rpl_rocpd_schema_create(sqlite3 *db, const char *guid);

#endif
