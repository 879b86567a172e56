/* `rocm-perf profile --no-rocprof --trace ...`: a profiler's output read as if it had just run. */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/error.h"
#include "rpl/profile_backend.h"
#include "rpl/rocpd.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int rpl_profile_import(rpl_profile_result *r, const char *const *paths, size_t n)
{
    int rc = rpl_trace_new(&r->trace);

    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *path = paths[i];
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = rpl_profile_read_dir(r->trace, path, &r->files, &r->nfiles);
            if (rc == RPL_ENOTFOUND)
                rc = rpl_error_set(RPL_EINPUT, "'%s' holds no profiler output", path);
            continue;
        }
        /* A CSV by its name or by its header row (kernel_trace_truncated.txt too). */
        rc = ends_with(path, ".csv") || rpl_rocprofv3_csv_kind_of(path) != RPL_CSV_NOT_ROCPROFV3
                 ? rpl_rocprofv3_csv_import(r->trace, path)
                 : rpl_rocpd_read(r->trace, path);
    }
    return rc;
}
