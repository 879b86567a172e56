/*
 * Reading what a profiler run left in its output directory, and the small
 * file-system helpers of the backends.
 *
 * Layout (rocprofv3 of ROCm/rocm-systems@1b1610f, projects/rocprofiler-sdk):
 * <dir>/<host>/<pid>_results.db, one per process; with counter passes
 * <dir>/pass_<N>/<host>/<pid>_results.db
 * ("pmc_<N>" for rocprofv3's text input).  ROCm 6.x writes
 * <pid>_kernel_trace.csv and siblings in the same places.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"

#define DB_SUFFIX  "_results.db"
#define CSV_SUFFIX ".csv" /* kernel traces among them are told by their header row */

/* Processes of one run whose dispatches lie further apart are different runs. */
#define RUN_GAP_NS (300LL * 1000000000LL)

typedef struct path_list {
    char **items;
    uint32_t count, cap;
} path_list;

static void list_release(path_list *l)
{
    rpl_free_strings(l->items, l->count);
    l->items = NULL;
    l->count = l->cap = 0;
}

/* Takes ownership of `path`. */
static int list_push(path_list *l, char *path)
{
    if (l->count == l->cap) {
        uint32_t ncap = l->cap ? l->cap * 2 : 8;
        char **p = realloc(l->items, ncap * sizeof(*p));
        if (!p) {
            free(path);
            return rpl_error_oom();
        }
        l->items = p;
        l->cap = ncap;
    }
    l->items[l->count++] = path;
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Regular files in `dir` and in its subdirectories (one level) whose names end in `suffix`. */
static int collect(path_list *out, const char *dir, const char *suffix, int depth)
{
    struct dirent *e;
    DIR *d = opendir(dir);
    int rc = 0;

    if (!d)
        return 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        struct stat st;
        char *path;
        if (e->d_name[0] == '.')
            continue;
        if ((rc = rpl_path_join(&path, dir, e->d_name)) != 0)
            break;
        if (stat(path, &st) != 0) {
            free(path);
            continue;
        }
        if (S_ISREG(st.st_mode) && ends_with(e->d_name, suffix)) {
            rc = list_push(out, path);
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth > 0)
            rc = collect(out, path, suffix, depth - 1);
        free(path);
    }
    closedir(d);
    return rc;
}

/* Keep only the CSV files whose header row is a rocprofv3 kernel trace's. */
static void keep_kernel_traces(path_list *l)
{
    uint32_t kept = 0;

    for (uint32_t i = 0; i < l->count; i++) {
        if (rpl_rocprofv3_csv_kind_of(l->items[i]) == RPL_CSV_KERNEL_TRACE)
            l->items[kept++] = l->items[i];
        else
            free(l->items[i]);
    }
    l->count = kept;
}

/* The outputs of one run directory: databases, else CSV kernel traces; sorted. */
static int outputs_of(path_list *out, const char *dir)
{
    int rc = collect(out, dir, DB_SUFFIX, 1);

    if (rc == 0 && out->count == 0 && (rc = collect(out, dir, CSV_SUFFIX, 1)) == 0)
        keep_kernel_traces(out);
    if (rc == 0 && out->count > 1)
        qsort(out->items, out->count, sizeof(*out->items), cmp_str);
    return rc;
}

/* N of "pass_N" or "pmc_N", else 0. */
static long pass_number(const char *name)
{
    const char *digits = NULL;
    char *end;
    long n;

    if (strncmp(name, "pass_", 5) == 0)
        digits = name + 5;
    else if (strncmp(name, "pmc_", 4) == 0)
        digits = name + 4;
    if (!digits || *digits < '1' || *digits > '9')
        return 0;
    n = strtol(digits, &end, 10);
    return *end || n > 100000 ? 0 : n;
}

typedef struct pass_dir {
    long n;
    char *path;
} pass_dir;

static int cmp_pass(const void *a, const void *b)
{
    const pass_dir *x = a, *y = b;

    return (x->n > y->n) - (x->n < y->n);
}

static int pass_dirs(pass_dir **out, size_t *count, const char *dir)
{
    pass_dir *p = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    DIR *d = opendir(dir);
    int rc = 0;

    *out = NULL;
    *count = 0;
    if (!d)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot read '%s': %s", dir,
                             strerror(errno));
    while (rc == 0 && (e = readdir(d)) != NULL) {
        long num = pass_number(e->d_name);
        char *path;
        if (num == 0)
            continue;
        if ((rc = rpl_path_join(&path, dir, e->d_name)) != 0)
            break;
        if (!is_dir(path)) {
            free(path);
            continue;
        }
        if (n == cap) {
            pass_dir *q = realloc(p, (cap = cap ? cap * 2 : 8) * sizeof(*p));
            if (!q) {
                free(path);
                rc = rpl_error_oom();
                break;
            }
            p = q;
        }
        p[n].n = num;
        p[n++].path = path;
    }
    closedir(d);
    if (rc) {
        while (n)
            free(p[--n].path);
        free(p);
        return rc;
    }
    if (n > 1)
        qsort(p, n, sizeof(*p), cmp_pass);
    *out = p;
    *count = n;
    return 0;
}

static int read_file(rpl_trace *t, const char *path)
{
    rpl_log_info("reading '%s'", path);
    if (ends_with(path, ".db"))
        return rpl_rocpd_read(t, path);
    return rpl_rocprofv3_csv_import(t, path);
}

/* The time one file's dispatches cover (start > end when it has none). */
typedef struct file_span {
    const char *path;
    int64_t start, end;
} file_span;

static int cmp_span(const void *a, const void *b)
{
    const file_span *x = a, *y = b;

    return (x->start > y->start) - (x->start < y->start);
}

/* "<prefix>kernel_trace...": the prefix of a CSV's file name, "" when it is a process id. */
static void name_prefix(char *buf, size_t cap, const char *path)
{
    const char *base = strrchr(path, '/'), *word;
    size_t n;

    base = base ? base + 1 : path;
    word = strstr(base, "kernel_trace");
    n = word ? (size_t)(word - base) : strlen(base);
    if (strspn(base, "0123456789") + 1 == n && base[n - 1] == '_')
        n = 0; /* "<pid>_": every process of one run has its own */
    snprintf(buf, cap, "%.*s", (int)n, base);
}

/*
 * CSV files of one folder must come from one run: processes of a run share a
 * file name prefix (rocprofv3's default is the process id, "<pid>_") and lie
 * close in time; files with other prefixes or hours apart are other runs, which
 * are never mixed.  `spans` is in file order.
 */
static int check_one_run(const char *dir, file_span *spans, uint32_t n)
{
    char p0[256], p[256], msg[1024];
    int64_t end;
    bool split = false;
    size_t len = 0;

    if (n < 2)
        return 0;
    name_prefix(p0, sizeof(p0), spans[0].path);
    for (uint32_t i = 1; i < n && !split; i++) {
        name_prefix(p, sizeof(p), spans[i].path);
        split = strcmp(p, p0) != 0;
    }
    /* Files without dispatches (start > end) sort last and are not looked at. */
    qsort(spans, n, sizeof(*spans), cmp_span);
    end = spans[0].end;
    for (uint32_t i = 1; i < n && !split && spans[i].start <= spans[i].end; i++) {
        split = spans[i].start > end && spans[i].start - end > RUN_GAP_NS;
        if (spans[i].end > end)
            end = spans[i].end;
    }
    if (!split)
        return 0;
    for (uint32_t i = 0; i < n && len < sizeof(msg) - 1; i++) {
        int w = spans[i].start > spans[i].end
                    ? snprintf(msg + len, sizeof(msg) - len, "%s%s (no dispatches)", i ? ", " : "",
                               spans[i].path)
                    : snprintf(msg + len, sizeof(msg) - len, "%s%s (from %.3f s)", i ? ", " : "",
                               spans[i].path, (double)(spans[i].start - spans[0].start) / 1e9);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return rpl_error_set(RPL_EINPUT,
                         "'%s' holds rocprofv3 CSVs of different runs (other file name prefixes "
                         "or more than %lld s apart), which are never merged: %s; give one run's "
                         "kernel trace with --trace FILE",
                         dir, RUN_GAP_NS / 1000000000LL, msg);
}

/* Read every output of one run directory into `t`, noting the paths in `seen`. */
static int read_run(rpl_trace *t, const char *dir, path_list *seen)
{
    path_list files = {0};
    file_span *spans = NULL;
    int rc = outputs_of(&files, dir);

    if (rc == 0 && files.count == 0)
        rc = rpl_error_set(RPL_ENOTFOUND, "no '*%s' or rocprofv3 kernel trace CSV below '%s'",
                           DB_SUFFIX, dir);
    if (rc == 0 && files.count && !(spans = calloc(files.count, sizeof(*spans))))
        rc = rpl_error_oom();
    for (uint32_t i = 0; rc == 0 && i < files.count; i++) {
        uint32_t first = t->dispatches.count;
        rc = read_file(t, files.items[i]);
        spans[i].path = files.items[i];
        spans[i].start = INT64_MAX;
        spans[i].end = INT64_MIN;
        for (uint32_t d = first; rc == 0 && d < t->dispatches.count; d++) {
            const rpl_dispatch *x = &t->dispatches.items[d];
            if (x->start < spans[i].start)
                spans[i].start = x->start;
            if (x->end > spans[i].end)
                spans[i].end = x->end;
        }
    }
    if (rc == 0 && files.count && !ends_with(files.items[0], DB_SUFFIX))
        rc = check_one_run(dir, spans, files.count);
    free(spans);
    for (uint32_t i = 0; rc == 0 && i < files.count; i++) {
        rc = list_push(seen, files.items[i]);
        files.items[i] = NULL;
    }
    list_release(&files);
    return rc;
}

/* Append the paths of `seen` to *files (taking them over). */
static int hand_over(path_list *seen, char ***files, uint32_t *nfiles)
{
    char **grown = realloc(*files, (*nfiles + seen->count + 1) * sizeof(*grown));

    if (!grown) {
        list_release(seen);
        return rpl_error_oom();
    }
    if (seen->count)
        memcpy(grown + *nfiles, seen->items, seen->count * sizeof(*grown));
    *files = grown;
    *nfiles += seen->count;
    free(seen->items);
    return 0;
}

/*
 * The passes of `dir` (the folder itself when it has no pass_N/): the first
 * into `trace` unless `merge_all`, every other one's counters merged.
 */
static int read_passes(rpl_trace *trace, const char *dir, bool merge_all, bool prefix,
                       path_list *seen)
{
    pass_dir *passes = NULL, whole = {0, (char *)dir};
    size_t npasses = 0;
    int rc = pass_dirs(&passes, &npasses, dir);

    for (size_t i = 0; rc == 0 && i < (npasses ? npasses : 1); i++) {
        const pass_dir *p = npasses ? &passes[i] : &whole;
        rpl_trace *pass = NULL;
        if (i == 0 && !merge_all) {
            rc = read_run(trace, p->path, seen);
            continue;
        }
        /* Every process of a pass together: the merge matches dispatches in run order. */
        if ((rc = rpl_trace_new(&pass)) == 0 && (rc = read_run(pass, p->path, seen)) == 0)
            rc = prefix ? rpl_trace_merge_counter_prefix(trace, pass)
                        : rpl_trace_merge_counter_pass(trace, pass);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EINPUT, "counter pass '%s' holds no output", p->path);
        rpl_trace_free(pass);
    }
    for (size_t i = 0; i < npasses; i++)
        free(passes[i].path);
    free(passes);
    return rc;
}

int rpl_profile_read_dir(rpl_trace *trace, const char *dir, char ***files, uint32_t *nfiles)
{
    path_list seen = {0};
    int rc = read_passes(trace, dir, false, false, &seen);

    if (rc) {
        list_release(&seen);
        return rc;
    }
    return hand_over(&seen, files, nfiles);
}

int rpl_profile_read_timed(rpl_trace *trace, const char *timing_dir, const char *counter_dir,
                           bool stopped_early, char ***files, uint32_t *nfiles)
{
    path_list seen = {0};
    int rc = read_run(trace, timing_dir, &seen);

    if (rc == 0)
        rc = read_passes(trace, counter_dir, true, stopped_early, &seen);
    if (rc) {
        list_release(&seen);
        return rc;
    }
    return hand_over(&seen, files, nfiles);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int rpl_profile_reset_dir(const char *dir)
{
    struct stat st;

    if (lstat(dir, &st) == 0 && nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return rpl_error_set(RPL_EIO, "cannot remove the previous run's '%s': %s", dir,
                             strerror(errno));
    return rpl_mkdir_p(dir);
}

void rpl_profile_echo_stderr(const rpl_spawn_result *res)
{
    if (res->err_len && rpl_log_get_level() >= RPL_LOG_WARN) {
        fwrite(res->err, 1, res->err_len, stderr);
        fflush(stderr);
    }
}

static bool has_output_below(const char *dir, int depth)
{
    path_list l = {0};
    bool found;

    if (collect(&l, dir, DB_SUFFIX, depth) != 0 ||
        (l.count == 0 && collect(&l, dir, CSV_SUFFIX, depth) != 0)) {
        list_release(&l);
        return false;
    }
    if (l.count && !ends_with(l.items[0], DB_SUFFIX))
        keep_kernel_traces(&l);
    found = l.count > 0;
    list_release(&l);
    return found;
}

bool rpl_profile_dir_has_output(const char *dir)
{
    return has_output_below(dir, 2);
}

bool rpl_probe_has_kfd(const rpl_profile_ctx *ctx)
{
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/dev/kfd",
                     ctx->opts->probe_root ? ctx->opts->probe_root : "");

    return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}
