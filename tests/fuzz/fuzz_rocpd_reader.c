/*
 * libFuzzer target for the rocpd reader: the input bytes are an SQLite
 * database image, loaded with sqlite3_deserialize and read into a fresh
 * trace.  When a read succeeds the same image is read a second time,
 * keeping only the "stream" API arguments, and merged as a counter pass:
 * the second read checks less than the first and the kernel sequences are
 * equal by construction, so anything but success (or running out of
 * memory) is a bug.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"
#include "sqlite_image.h"

#define MAX_INPUT (32u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Warnings about malformed extdata would flood the fuzzer's output. */
    rpl_log_set_level(RPL_LOG_ERROR);
    fuzz_sqlite_limit_heap();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"stream", NULL};
    const rpl_rocpd_read_opts some = {names};
    rpl_trace *first = NULL, *second = NULL;
    sqlite3 *db;
    int rc;

    if (size > MAX_INPUT || !(db = fuzz_sqlite_image_open(data, size)))
        return 0;
    /* The second read keeps only the stream argument: it checks less, so it must succeed
     * too, with the same records and fewer arguments. */
    if (rpl_trace_new(&first) == 0 && rpl_rocpd_read_db(first, db, "fuzz", NULL) == 0 &&
        rpl_trace_new(&second) == 0) {
        rc = rpl_rocpd_read_db(second, db, "fuzz", &some);
        if (rc != 0 && rc != RPL_ENOMEM)
            abort();
        if (rc == RPL_ENOMEM)
            goto done;
        if (second->regions.count != first->regions.count || second->args.count > first->args.count)
            abort();
        rc = rpl_trace_merge_counter_pass(second, first);
        if (rc != 0 && rc != RPL_ENOMEM)
            abort();
        if (second->dispatches.count != first->dispatches.count)
            abort();
    }
done:
    rpl_trace_free(first);
    rpl_trace_free(second);
    sqlite3_close(db);
    return 0;
}
