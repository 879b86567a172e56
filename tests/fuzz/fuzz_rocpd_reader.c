/*
 * libFuzzer target for the rocpd reader: the input bytes are an SQLite
 * database image, loaded with sqlite3_deserialize and read into a fresh
 * trace.  When a read succeeds the same image is read a second time and
 * merged as a counter pass: the kernel sequences are equal by construction,
 * so anything but success (or running out of memory) is a bug.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"

#define MAX_INPUT (32u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Warnings about malformed extdata would flood the fuzzer's output. */
    rpl_log_set_level(RPL_LOG_ERROR);
    /* A hostile image must not make SQLite itself use unbounded memory. */
    sqlite3_hard_heap_limit64(512LL << 20);
    return 0;
}

static sqlite3 *open_image(const uint8_t *data, size_t size)
{
    sqlite3 *db = NULL;
    unsigned char *copy;

    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    copy = sqlite3_malloc64(size ? size : 1);
    if (!copy) {
        sqlite3_close(db);
        return NULL;
    }
    memcpy(copy, data, size);
    /* On failure SQLite frees `copy` itself (FREEONCLOSE). */
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_trace *first = NULL, *second = NULL;
    sqlite3 *db;
    int rc;

    if (size > MAX_INPUT || !(db = open_image(data, size)))
        return 0;
    if (rpl_trace_new(&first) == 0 && rpl_rocpd_read_db(first, db, "fuzz") == 0 &&
        rpl_trace_new(&second) == 0 && rpl_rocpd_read_db(second, db, "fuzz") == 0) {
        rc = rpl_trace_merge_counter_pass(second, first);
        if (rc != 0 && rc != RPL_ENOMEM)
            abort();
        if (second->dispatches.count != first->dispatches.count)
            abort();
    }
    rpl_trace_free(first);
    rpl_trace_free(second);
    sqlite3_close(db);
    return 0;
}
