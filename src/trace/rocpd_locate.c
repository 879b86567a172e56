/*
 * rocpd reader: find the tables of a database.  rocprofv3 names every table
 * rocpd_X_<uuid> and adds unsuffixed views rocpd_X; rocpd_metadata's 'uuid'
 * row holds the suffix.  Order of preference: the metadata suffix, the
 * unsuffixed names, then the one rocpd_kernel_dispatch* table in
 * sqlite_master.  The suffix is only checked for safe characters, never
 * parsed: rocprof-sys writes an MD5 hex string there, not a UUID.
 */
#include <stdio.h>
#include <string.h>

#include "rocpd_reader_int.h"
#include "rpl/error.h"

static const char *const table_base[RD_NTABLES] = {
    [RD_STRING] = "rocpd_string",        [RD_NODE] = "rocpd_info_node",
    [RD_PROCESS] = "rocpd_info_process", [RD_THREAD] = "rocpd_info_thread",
    [RD_AGENT] = "rocpd_info_agent",     [RD_SYMBOL] = "rocpd_info_kernel_symbol",
    [RD_QUEUE] = "rocpd_info_queue",     [RD_STREAM] = "rocpd_info_stream",
    [RD_EVENT] = "rocpd_event",          [RD_DISPATCH] = "rocpd_kernel_dispatch",
    [RD_MEMCPY] = "rocpd_memory_copy",   [RD_ARG] = "rocpd_arg",
    [RD_REGION] = "rocpd_region",        [RD_PMC_INFO] = "rocpd_info_pmc",
    [RD_PMC_EVENT] = "rocpd_pmc_event",
};

/* Without these a database cannot be summarised; every other table is optional. */
static bool is_required(enum rd_table t)
{
    return t == RD_STRING || t == RD_AGENT || t == RD_SYMBOL || t == RD_DISPATCH;
}

static bool suffix_ok(const char *s)
{
    size_t n = strlen(s);

    if (n > RD_SUFFIX_MAX)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* Whether a table or view of that name exists: 1, 0, or < 0 on error. */
static int object_exists(rd_reader *r, const char *name)
{
    sqlite3_stmt *st = NULL;
    int rc;

    rc = sqlite3_prepare_v2(r->db,
                            "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
                            "AND name = ?1 COLLATE NOCASE",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return rd_sqlite_error(r, rc, "sqlite_master");
}

static bool version_ok(const char *v)
{
    if (strcmp(v, "3") == 0)
        return true;
    if (strncmp(v, "3.0.", 4) != 0 || !v[4])
        return false;
    for (v += 4; *v; v++)
        if (*v < '0' || *v > '9')
            return false;
    return true;
}

/* Check one metadata row; remember schema_version, guid and uuid. */
static int metadata_row(rd_reader *r, const char *table, const char *tag, const char *value,
                        char *uuid, size_t uuid_size)
{
    char shown[80];

    if (strcmp(tag, "compression") == 0)
        return rpl_error_set(RPL_EINPUT,
                             "'%s' is a compressed rocpd database (compression '%s'), which this "
                             "reader does not support",
                             r->label, rd_printable(shown, sizeof(shown), value));
    if (strcmp(tag, "schema_version") == 0) {
        if (!version_ok(value))
            return rpl_error_set(RPL_EINPUT,
                                 "'%s' has rocpd schema_version '%s'; this reader supports '3' "
                                 "and '3.0.x'",
                                 r->label, rd_printable(shown, sizeof(shown), value));
        snprintf(r->schema_version, sizeof(r->schema_version), "%s", value);
    } else if (strcmp(tag, "uuid") == 0) {
        if (!suffix_ok(value))
            return rpl_error_set(RPL_EINPUT, "'%s': %s uuid '%s' is not a valid table suffix",
                                 r->label, table, rd_printable(shown, sizeof(shown), value));
        snprintf(uuid, uuid_size, "%s", value);
    } else if (strcmp(tag, "guid") == 0) {
        rd_printable(r->guid, sizeof(r->guid), value);
    }
    return 0;
}

static int read_metadata(rd_reader *r, const char *table, char *uuid, size_t uuid_size)
{
    char sql[RD_TABLE_NAME_MAX + 40];
    sqlite3_stmt *st = NULL;
    int rc;

    snprintf(sql, sizeof(sql), "SELECT tag, value FROM \"%s\"", table);
    rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return rd_sqlite_error(r, rc, table);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int tt = sqlite3_column_type(st, 0), vt = sqlite3_column_type(st, 1);
        const char *tag = (const char *)sqlite3_column_text(st, 0);
        const char *value = (const char *)sqlite3_column_text(st, 1);
        if (tt != SQLITE_TEXT || vt != SQLITE_TEXT) {
            sqlite3_finalize(st);
            return rpl_error_set(RPL_EINPUT, "'%s': %s has a row whose tag or value is not text",
                                 r->label, table);
        }
        if (!tag || !value) {
            sqlite3_finalize(st);
            return rpl_error_oom();
        }
        if ((rc = metadata_row(r, table, tag, value, uuid, uuid_size)) != 0) {
            sqlite3_finalize(st);
            return rc;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : rd_sqlite_error(r, rc, table);
}

/* The suffix of the one rocpd_kernel_dispatch* table, when exactly one exists. */
static int discover_suffix(rd_reader *r)
{
    static const char prefix[] = "rocpd_kernel_dispatch";
    sqlite3_stmt *st = NULL;
    int rc, found = 0;
    char shown[80];

    rc = sqlite3_prepare_v2(r->db,
                            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                            "AND name LIKE 'rocpd\\_kernel\\_dispatch%' ESCAPE '\\'",
                            -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        rc = SQLITE_OK;
        if (!name || strlen(name) < sizeof(prefix) - 1)
            continue;
        if (++found > 1)
            break;
        if (!suffix_ok(name + sizeof(prefix) - 1)) {
            sqlite3_finalize(st);
            return rpl_error_set(RPL_EINPUT, "'%s': table name '%s' has an unusual suffix",
                                 r->label, rd_printable(shown, sizeof(shown), name));
        }
        snprintf(r->suffix, sizeof(r->suffix), "%s", name + sizeof(prefix) - 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK && rc != SQLITE_DONE)
        return rd_sqlite_error(r, rc, "sqlite_master");
    if (found == 0)
        return rpl_error_set(RPL_EINPUT, "'%s' is not a rocpd database: it has no %s table",
                             r->label, prefix);
    if (found > 1)
        return rpl_error_set(RPL_EINPUT,
                             "'%s' holds several %s* tables and no rocpd_metadata uuid to choose "
                             "one",
                             r->label, prefix);
    return 0;
}

static int choose_suffix(rd_reader *r, bool *metadata_read)
{
    char uuid[RD_SUFFIX_MAX + 1] = "", name[RD_TABLE_NAME_MAX];
    int rc;

    *metadata_read = false;
    if ((rc = object_exists(r, "rocpd_metadata")) < 0)
        return rc;
    if (rc == 1) {
        if ((rc = read_metadata(r, "rocpd_metadata", uuid, sizeof(uuid))) != 0)
            return rc;
        *metadata_read = true;
        if (uuid[0]) {
            snprintf(name, sizeof(name), "rocpd_kernel_dispatch%s", uuid);
            if ((rc = object_exists(r, name)) < 0)
                return rc;
            if (rc == 1) {
                snprintf(r->suffix, sizeof(r->suffix), "%s", uuid);
                return 0;
            }
        }
    }
    if ((rc = object_exists(r, "rocpd_kernel_dispatch")) < 0)
        return rc;
    if (rc == 1) {
        r->suffix[0] = '\0';
        return 0;
    }
    return discover_suffix(r);
}

int rd_locate(rd_reader *r)
{
    char name[RD_TABLE_NAME_MAX], unused[RD_SUFFIX_MAX + 1];
    bool metadata_read;
    int rc;

    /* Its first query fails on files that are not SQLite. */
    if ((rc = choose_suffix(r, &metadata_read)) != 0)
        return rc;
    if (!metadata_read && r->suffix[0]) {
        snprintf(name, sizeof(name), "rocpd_metadata%s", r->suffix);
        if ((rc = object_exists(r, name)) < 0)
            return rc;
        if (rc == 1 && (rc = read_metadata(r, name, unused, sizeof(unused))) != 0)
            return rc;
    }
    for (int t = 0; t < RD_NTABLES; t++) {
        snprintf(r->table[t], sizeof(r->table[t]), "%s%s", table_base[t], r->suffix);
        if ((rc = object_exists(r, r->table[t])) < 0)
            return rc;
        r->present[t] = rc == 1;
        if (!r->present[t] && is_required((enum rd_table)t))
            return rpl_error_set(RPL_EINPUT, "'%s' is not a rocpd database: table %s is missing",
                                 r->label, r->table[t]);
    }
    return 0;
}
