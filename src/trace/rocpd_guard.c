/*
 * rocpd reader: the guards of a connection.  They protect real inputs too:
 * a truncated or damaged profile must not hang or exhaust the reader.
 * - SQLite limits: no value longer than 16 MiB, shallow expressions, short
 *   statement programs, no ATTACH; defensive mode, untrusted schema (views
 *   in the file cannot call functions with side effects), no triggers.
 * - A step budget through the progress handler: a query may run at most
 *   RD_STEPS_BASE + RD_STEPS_PER_BYTE * (file size) virtual-machine steps.
 *   An honest read takes under one step per byte; a view that loops (a
 *   recursive CTE, a cross join) is stopped with a clear error.
 * - A busy timeout (rocpd_reader.c), so a database locked by a live writer
 *   fails in seconds.
 * A caller's connection gets its previous limits and settings back.
 */
#include "rocpd_reader_int.h"

#define RD_STEPS_BASE     10000000ULL
#define RD_STEPS_PER_BYTE 20ULL
#define RD_STEP_INTERVAL  1000

static const struct {
    int id, value;
} limits[] = {
    {SQLITE_LIMIT_LENGTH, (int)RD_EXTDATA_MAX},
    {SQLITE_LIMIT_EXPR_DEPTH, 200},
    {SQLITE_LIMIT_COMPOUND_SELECT, 64},
    {SQLITE_LIMIT_VDBE_OP, 100000},
    {SQLITE_LIMIT_FUNCTION_ARG, 32},
    {SQLITE_LIMIT_ATTACHED, 0},
    {SQLITE_LIMIT_TRIGGER_DEPTH, 1},
};
_Static_assert(sizeof(limits) / sizeof(limits[0]) == RD_GUARD_LIMITS, "one saved slot per limit");

static const int configs[][2] = {
    {SQLITE_DBCONFIG_DEFENSIVE, 1},
    {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
    {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
};
_Static_assert(sizeof(configs) / sizeof(configs[0]) == RD_GUARD_CONFIGS,
               "one saved slot per setting");

static int step_budget(void *arg)
{
    rd_reader *r = arg;

    r->steps += RD_STEP_INTERVAL;
    return r->steps > r->max_steps;
}

/* Size of the main database in bytes (file or deserialized memory). */
static uint64_t database_bytes(sqlite3 *db)
{
    sqlite3_file *file = NULL;
    sqlite3_int64 size = 0;

    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file ||
        !file->pMethods || file->pMethods->xFileSize(file, &size) != SQLITE_OK || size < 0)
        return 0;
    return (uint64_t)size;
}

void rd_guard(rd_reader *r, rd_saved_settings *saved)
{
    for (size_t i = 0; i < RD_GUARD_LIMITS; i++) {
        int old = sqlite3_limit(r->db, limits[i].id, limits[i].value);
        if (saved)
            saved->limit[i] = old;
    }
    for (size_t i = 0; i < RD_GUARD_CONFIGS; i++) {
        if (saved)
            sqlite3_db_config(r->db, configs[i][0], -1, &saved->config[i]);
        sqlite3_db_config(r->db, configs[i][0], configs[i][1], (int *)NULL);
    }
    r->steps = 0;
    r->file_bytes = database_bytes(r->db);
    r->max_steps = RD_STEPS_BASE + RD_STEPS_PER_BYTE * r->file_bytes;
    sqlite3_progress_handler(r->db, RD_STEP_INTERVAL, step_budget, r);
}

void rd_unguard(rd_reader *r, const rd_saved_settings *saved)
{
    sqlite3_progress_handler(r->db, 0, NULL, NULL);
    for (size_t i = 0; i < RD_GUARD_LIMITS; i++)
        sqlite3_limit(r->db, limits[i].id, saved->limit[i]);
    for (size_t i = 0; i < RD_GUARD_CONFIGS; i++)
        sqlite3_db_config(r->db, configs[i][0], saved->config[i], (int *)NULL);
}
