/*
 * rocpd writer (see rpl/rocpd.h): the whole trace into one schema-3 database.
 *
 * Row ids: agents, symbols, queues, streams, dispatches, copies, regions and
 * counters get index + 1; processes and threads use pid and tid (other
 * tables refer to them by those), code objects their code_object_id, and
 * events are numbered regions, then dispatches, then copies.  A default
 * queue and stream (id 0) are written only when a dispatch has none.
 *
 * Parents are inserted before children and every reference is checked
 * before writing, so PRAGMA foreign_key_check finds nothing and the views'
 * inner joins keep every row.  SQLite's own enforcement is left off while
 * loading: with it, batched inserts into rocpd_event would scan the child
 * tables for every row.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rocpd_writer_int.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"

typedef rpl_rocpd_writer writer;
typedef rpl_tid_pid tid_pid;

/* ---- growable arrays of plain values ---------------------------------- */

typedef struct vec {
    void *items;
    uint32_t count, cap;
} vec;

static int vec_push(vec *v, const void *item, size_t size)
{
    if (v->count == v->cap) {
        uint32_t ncap = v->cap ? v->cap * 2 : 64;
        void *p = realloc(v->items, (size_t)ncap * size);
        if (!p)
            return rpl_error_oom();
        v->items = p;
        v->cap = ncap;
    }
    memcpy((char *)v->items + (size_t)v->count * size, item, size);
    v->count++;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int cmp_tid(const void *a, const void *b)
{
    return cmp_i64(&((const tid_pid *)a)->tid, &((const tid_pid *)b)->tid);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort and drop repeats (by the comparison); returns the new count. */
static uint32_t sort_unique(void *items, uint32_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
    char *p = items;
    uint32_t k = 0;

    if (n == 0)
        return 0;
    qsort(items, n, size, cmp);
    for (uint32_t i = 1; i < n; i++)
        if (cmp(p + (size_t)k * size, p + (size_t)i * size) != 0)
            memmove(p + (size_t)++k * size, p + (size_t)i * size, size);
    return k + 1;
}

/* ---- checks and collection -------------------------------------------- */

static int bad_ref(const char *what, uint32_t index, const char *target)
{
    return rpl_error_set(RPL_EINPUT, "trace %s %u refers to a missing %s", what, index, target);
}

#define IN_RANGE(idx, arr)     ((idx) < (arr).count)
#define OPT_IN_RANGE(idx, arr) ((idx) == RPL_NONE || (idx) < (arr).count)

/* Every index link must resolve before anything is written. */
static int check_links(const rpl_trace *t)
{
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        if (!IN_RANGE(d->kernel, t->symbols))
            return bad_ref("dispatch", i, "kernel symbol");
        if (!IN_RANGE(d->agent, t->agents))
            return bad_ref("dispatch", i, "agent");
        if (!OPT_IN_RANGE(d->queue, t->queues))
            return bad_ref("dispatch", i, "queue");
        if (!OPT_IN_RANGE(d->stream, t->streams))
            return bad_ref("dispatch", i, "stream");
        if (d->counters_count > t->counter_values.count ||
            d->counters_first > t->counter_values.count - d->counters_count)
            return bad_ref("dispatch", i, "counter value");
        for (uint32_t k = 0; k < d->counters_count; k++)
            if (!IN_RANGE(t->counter_values.items[d->counters_first + k].counter, t->counter_names))
                return bad_ref("dispatch", i, "counter name");
    }
    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const rpl_memcpy *m = &t->memcpys.items[i];
        if (!OPT_IN_RANGE(m->src_agent, t->agents) || !OPT_IN_RANGE(m->dst_agent, t->agents))
            return bad_ref("memory copy", i, "agent");
        if (!OPT_IN_RANGE(m->queue, t->queues))
            return bad_ref("memory copy", i, "queue");
        if (!OPT_IN_RANGE(m->stream, t->streams))
            return bad_ref("memory copy", i, "stream");
    }
    for (uint32_t i = 0; i < t->regions.count; i++) {
        const rpl_region *r = &t->regions.items[i];
        if (r->args_count > t->args.count || r->args_first > t->args.count - r->args_count)
            return bad_ref("region", i, "argument");
    }
    return 0;
}

const char *rpl_rocpd_copy_name(const rpl_memcpy *m)
{
    return m->name && m->name[0] ? m->name : rpl_copy_kind_name(m->kind);
}

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

/*
 * Push a string unless it is one of the last two pushed (interned strings
 * repeat in runs, e.g. a region's name and category), to keep the sort short.
 */
static int push_string(vec *v, const char *s)
{
    const char **items = v->items;

    s = str_or_empty(s);
    if ((v->count > 0 && items[v->count - 1] == s) || (v->count > 1 && items[v->count - 2] == s))
        return 0;
    return vec_push(v, &s, sizeof(s));
}

static int collect_strings(writer *w)
{
    const rpl_trace *t = w->t;
    vec v = {0};
    const char *fixed[] = {"", RPL_CAT_DISPATCH, RPL_CAT_COPY};
    int rc = 0;

    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && !rc; i++)
        rc = vec_push(&v, &fixed[i], sizeof(char *));
    for (uint32_t i = 0; i < t->memcpys.count && !rc; i++)
        rc = push_string(&v, rpl_rocpd_copy_name(&t->memcpys.items[i]));
    for (uint32_t i = 0; i < t->regions.count && !rc; i++) {
        rc = push_string(&v, t->regions.items[i].name);
        if (!rc)
            rc = push_string(&v, t->regions.items[i].category);
    }
    if (rc) {
        free(v.items);
        return rc;
    }
    w->strs = v.items;
    w->nstrs = sort_unique(v.items, v.count, sizeof(char *), cmp_str);
    return 0;
}

/* The string's row id (it was collected, so it is there). */
int64_t rpl_rocpd_writer_string_id(writer *w, const char *s)
{
    const char *key = s ? s : "";
    const char **hit;

    /* Interned strings repeat: remember the last answer by pointer. */
    if (key == w->last_string)
        return w->last_string_id;
    hit = bsearch(&key, w->strs, w->nstrs, sizeof(char *), cmp_str);
    w->last_string = key;
    w->last_string_id = hit ? (int64_t)(hit - w->strs) + 1 : 0;
    return w->last_string_id;
}

/* Push a (tid, pid) pair unless it repeats the last one (records come in runs). */
static int push_thread(vec *v, int64_t tid, int64_t pid)
{
    const tid_pid *last = v->count ? (const tid_pid *)v->items + v->count - 1 : NULL;
    tid_pid tp = {tid, pid};

    if (last && last->tid == tid)
        return 0;
    return vec_push(v, &tp, sizeof(tp));
}

static int push_pid(vec *v, int64_t pid)
{
    if (v->count && ((const int64_t *)v->items)[v->count - 1] == pid)
        return 0;
    return vec_push(v, &pid, sizeof(pid));
}

/* A record's pid and its (tid, pid). */
static int push_record_thread(vec *pids, vec *threads, const rpl_thread *th)
{
    int rc = push_pid(pids, th->pid);

    return rc ? rc : push_thread(threads, th->tid, th->pid);
}

static int collect_ids(writer *w)
{
    const rpl_trace *t = w->t;
    vec pids = {0}, threads = {0};
    int rc = 0;

    for (uint32_t i = 0; i < t->processes.count && !rc; i++)
        rc = push_pid(&pids, t->processes.items[i].pid);
    for (uint32_t i = 0; i < t->queues.count && !rc; i++)
        rc = push_pid(&pids, t->queues.items[i].pid);
    for (uint32_t i = 0; i < t->streams.count && !rc; i++)
        rc = push_pid(&pids, t->streams.items[i].pid);
    for (uint32_t i = 0; i < t->dispatches.count && !rc; i++)
        rc = push_record_thread(&pids, &threads, &t->threads.items[t->dispatches.items[i].thread]);
    for (uint32_t i = 0; i < t->memcpys.count && !rc; i++)
        rc = push_record_thread(&pids, &threads, &t->threads.items[t->memcpys.items[i].thread]);
    for (uint32_t i = 0; i < t->regions.count && !rc; i++)
        rc = push_record_thread(&pids, &threads, &t->threads.items[t->regions.items[i].thread]);
    if (!rc && pids.count == 0)
        rc = push_pid(&pids, 0);
    if (rc) {
        free(pids.items);
        free(threads.items);
        return rc;
    }
    w->default_pid = t->processes.count ? t->processes.items[0].pid : *(int64_t *)pids.items;
    w->pids = pids.items;
    w->npids = sort_unique(pids.items, pids.count, sizeof(int64_t), cmp_i64);
    w->threads = threads.items;
    w->nthreads = sort_unique(threads.items, threads.count, sizeof(tid_pid), cmp_tid);
    return 0;
}

/* ---- the database file ------------------------------------------------- */

static int fill_random(unsigned char *buf, size_t len)
{
    ssize_t n = getrandom(buf, len, 0);
    FILE *f;

    if (n == (ssize_t)len)
        return 0;
    f = fopen("/dev/urandom", "rb");
    if (f && fread(buf, 1, len, f) == len) {
        fclose(f);
        return 0;
    }
    if (f)
        fclose(f);
    return rpl_error_set(RPL_ERROR, "no random bytes for a rocpd guid: %s", strerror(errno));
}

/* A UUIDv7 string: 48 bits of Unix time in ms, version 7, variant 10, random. */
static int make_guid(char out[37])
{
    unsigned char b[16];
    uint64_t ms;
    int rc;

    if ((rc = fill_random(b + 6, 10)) != 0)
        return rc;
    ms = (uint64_t)rpl_clock_ns(CLOCK_REALTIME) / 1000000u;
    for (int i = 0; i < 6; i++)
        b[i] = (unsigned char)(ms >> (40 - 8 * i));
    b[6] = (unsigned char)(0x70 | (b[6] & 0x0f));
    b[8] = (unsigned char)(0x80 | (b[8] & 0x3f));
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
    return 0;
}

static int exec(writer *w, const char *sql)
{
    if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    return rpl_error_set(RPL_EIO, "'%s': %s", sql, sqlite3_errmsg(w->db));
}

static int write_all(writer *w, const char *guid)
{
    int rc;

    /* Nothing reads the temporary file until it is complete and renamed. */
    if ((rc = exec(w, "PRAGMA journal_mode=OFF")) || (rc = exec(w, "PRAGMA synchronous=OFF")) ||
        (rc = exec(w, "PRAGMA foreign_keys=OFF")) || (rc = exec(w, "PRAGMA cache_size=-65536")) ||
        (rc = exec(w, "BEGIN")) || (rc = rpl_rocpd_schema_create(w->db, guid)) ||
        (rc = rpl_rocpd_write_rows(w)))
        return rc;
    return exec(w, "COMMIT");
}

static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = fd >= 0 && fsync(fd) == 0 ? 0 : -1;

    if (fd >= 0)
        close(fd);
    return rc;
}

/* Write the database at `tmp` and rename it to `path`. */
static int write_file(writer *w, const char *tmp, const char *path, const char *guid)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    int rc;

    unlink(tmp);
    if (sqlite3_open_v2(tmp, &w->db, flags, NULL) != SQLITE_OK) {
        rc = rpl_error_set(RPL_EIO, "cannot create '%s': %s", tmp,
                           w->db ? sqlite3_errmsg(w->db) : "out of memory");
        sqlite3_close(w->db);
        return rc;
    }
    rc = write_all(w, guid);
    if (sqlite3_close(w->db) != SQLITE_OK && !rc)
        rc = rpl_error_set(RPL_EIO, "cannot close '%s'", tmp);
    if (!rc && sync_file(tmp) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot sync '%s': %s", tmp, strerror(errno));
    if (!rc && rename(tmp, path) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (rc)
        unlink(tmp);
    return rc;
}

int rpl_rocpd_write(const rpl_trace *trace, const char *path, const rpl_rocpd_write_opts *opts)
{
    writer w = {.t = trace, .opts = opts};
    char made[37];
    const char *guid = opts && opts->guid ? opts->guid : NULL;
    char *tmp = NULL;
    int rc;

    if (!trace || !path)
        return rpl_error_set(RPL_EUSAGE, "rocpd write needs a trace and a path");
    if (guid && !rpl_rocpd_guid_valid(guid))
        return rpl_error_set(RPL_EUSAGE, "invalid rocpd guid '%.80s'", guid);
    if (!guid) {
        if ((rc = make_guid(made)) != 0)
            return rc;
        guid = made;
    }
    rpl_rocpd_uuid_suffix(w.suffix, guid);
    if (!(rc = check_links(trace)) && !(rc = collect_strings(&w)) && !(rc = collect_ids(&w)) &&
        !(rc = rpl_path_temp_sibling(&tmp, path))) {
        rc = write_file(&w, tmp, path, guid);
        if (rc == RPL_EIO || rc == RPL_ERROR)
            rpl_error_prefix("cannot write rocpd database '%s'", path);
    }
    RPL_FREE_EACH(tmp, w.strs, w.pids, w.threads);
    return rc;
}
