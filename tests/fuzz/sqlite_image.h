/*
 * The fuzzer's input as a read-only in-memory SQLite database, for the
 * targets that read rocpd images (fuzz_rocpd_reader, fuzz_dag).
 */
#ifndef RPL_FUZZ_SQLITE_IMAGE_H
#define RPL_FUZZ_SQLITE_IMAGE_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

/* A hostile image must not make SQLite itself use unbounded memory. */
static inline void fuzz_sqlite_limit_heap(void)
{
    sqlite3_hard_heap_limit64(512LL << 20);
}

/* The bytes as a database (close with sqlite3_close), or NULL. */
static inline sqlite3 *fuzz_sqlite_image_open(const uint8_t *data, size_t size)
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

#endif
