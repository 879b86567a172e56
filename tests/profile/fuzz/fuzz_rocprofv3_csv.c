/*
 * libFuzzer target: rocprofv3 CSV import.  The input holds up to four files
 * separated by lines "%%": kernel_trace, agent_info, memory_copy_trace,
 * counter_collection.  Any input must import or fail cleanly, never crash or
 * leak, and a failed import must leave the trace as it was.
 */
#define _GNU_SOURCE /* memmem */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/profile_backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEP "\n%%\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char empty[] = "\n";
    const char *p = (const char *)data, *end = p + size;
    FILE *files[4] = {NULL};
    rpl_rocprofv3_csv_files in = {0};
    rpl_trace *t;
    int n = 0;

    while (n < 4) {
        const char *sep = memmem(p, (size_t)(end - p), SEP, sizeof(SEP) - 1);
        const char *stop = sep && n < 3 ? sep : end;
        size_t len = (size_t)(stop - p);
        /* fmemopen needs a non-empty buffer; an empty file is one blank line. */
        files[n++] = len ? fmemopen((void *)p, len, "r") : fmemopen((void *)empty, 1, "r");
        if (stop == end)
            break;
        p = stop + sizeof(SEP) - 1;
    }
    in.kernel_trace = files[0];
    in.agent_info = files[1];
    in.memory_copy = files[2];
    in.counters = files[3];
    in.label = "fuzz";
    in.pid = 1;
    if (in.kernel_trace && rpl_trace_new(&t) == 0) {
        if (rpl_rocprofv3_csv_import_files(t, &in) != 0 &&
            (t->dispatches.count || t->sources.count || t->agents.count))
            abort(); /* a failed import changed the trace */
        rpl_trace_free(t);
    }
    for (int i = 0; i < n; i++)
        if (files[i])
            fclose(files[i]);
    return 0;
}
