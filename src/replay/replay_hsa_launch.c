/*
 * A replay launch on HSA (replay_hsa_int.h): the code object loaded the
 * way the runtime loads any (reader, executable, freeze, symbol by its
 * ".kd" name), the captured kernarg segment in kernarg memory, and the
 * AQL packet written by hand into a queue of our own (replay.md 2.6):
 * body first, header last with a release store, then the doorbell.
 * Restores and comparisons go through one pinned host buffer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay_hsa_int.h"
#include "rpl/clock.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/sha256.h"

/* The pinned buffer every host<->device copy goes through. */
#define BOUNCE_BYTES ((size_t)64 << 20)

static int reject(rh_session *s, hsa_status_t st, const char *path, const char *what)
{
    rh_failed(&s->api, st, what);
    return rpl_error_set(RPL_EINPUT, "the runtime rejects '%s': %s", path,
                         rpl_error_last()->message);
}

static int symbol_u32(rh_session *s, hsa_executable_symbol_t sym, hsa_executable_symbol_info_t what,
                      uint32_t *v)
{
    hsa_status_t st = s->api.symbol_get_info(sym, what, v);

    return st == HSA_STATUS_SUCCESS ? 0 : rh_failed(&s->api, st, "hsa_executable_symbol_get_info");
}

/* Where the new executable put each module variable of the snapshot. */
static int find_globals(rh_session *s, const rpl_snapshot *snap, const char *path)
{
    size_t i;

    s->global_addr = calloc(snap->nglobals ? snap->nglobals : 1, sizeof(*s->global_addr));
    if (!s->global_addr)
        return rpl_error_oom();
    for (i = 0; i < snap->nglobals; i++) {
        const rpl_snap_global *g = &snap->globals[i];
        hsa_executable_symbol_t sym;
        uint32_t size = 0;

        if (s->api.get_symbol(s->exe, g->name, &s->gpu, &sym) != HSA_STATUS_SUCCESS)
            return rpl_error_set(RPL_EINPUT, "'%s' has no module variable '%s' of the snapshot",
                                 path, g->name);
        if (s->api.symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS,
                                   &s->global_addr[i]) != HSA_STATUS_SUCCESS ||
            symbol_u32(s, sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, &size))
            return rpl_error_set(RPL_EINPUT, "'%s': module variable '%s' has no address", path,
                                 g->name);
        if (size != g->size)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': module variable '%s' has %u bytes, the snapshot %" PRIu64,
                                 path, g->name, size, g->size);
    }
    return 0;
}

int rh_load_code(rh_session *s, const rpl_snapshot *snap, const char *path)
{
    hsa_executable_symbol_t sym;
    hsa_status_t st;
    int rc;

    rc = rpl_file_read_all(path, RPL_CODEOBJ_MAX_FILE, &s->code, &s->code_len);
    if (rc)
        return rc;
    if (s->code_len < 4 || memcmp(s->code, "\177ELF", 4) != 0)
        return rpl_error_set(RPL_EINPUT,
                             "'%s' is no ELF code object; the HSA loader takes one code object "
                             "(unbundle an offload bundle with clang-offload-bundler first)",
                             path);
    st = s->api.reader_create(s->code, s->code_len, &s->reader);
    if (st != HSA_STATUS_SUCCESS)
        return reject(s, st, path, "hsa_code_object_reader_create_from_memory");
    s->have_reader = true;
    st = s->api.executable_create(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
                                  &s->exe);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, "hsa_executable_create_alt");
    s->have_exe = true;
    st = s->api.executable_load(s->exe, s->gpu, s->reader, "", NULL);
    if (st != HSA_STATUS_SUCCESS)
        return reject(s, st, path, "hsa_executable_load_agent_code_object");
    st = s->api.executable_freeze(s->exe, "");
    if (st != HSA_STATUS_SUCCESS)
        return reject(s, st, path, "hsa_executable_freeze");
    if (s->api.get_symbol(s->exe, snap->code_object_symbol, &s->gpu, &sym) != HSA_STATUS_SUCCESS)
        return rpl_error_set(RPL_EINPUT, "'%s' has no kernel symbol '%s' for this GPU", path,
                             snap->code_object_symbol);
    st = s->api.symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                &s->kernel.kernel_object);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, "the kernel object");
    rc = symbol_u32(s, sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                    &s->kernel.group_static);
    if (rc == 0)
        rc = symbol_u32(s, sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                        &s->kernel.private_fixed);
    return rc ? rc : find_globals(s, snap, path);
}

/* Pool memory the GPU may reach. */
static int allocate(rh_session *s, hsa_amd_memory_pool_t pool, size_t size, void **out,
                    const char *what)
{
    hsa_status_t st = s->api.pool_allocate(pool, size, 0, out);

    if (st != HSA_STATUS_SUCCESS) {
        *out = NULL;
        return rh_failed(&s->api, st, what);
    }
    st = s->api.allow_access(1, &s->gpu, NULL, *out);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, what);
    return 0;
}

static int copy(rh_session *s, uint64_t dst, const void *src, size_t n)
{
    hsa_status_t st = s->api.memory_copy((void *)(uintptr_t)dst, src, n);

    return st == HSA_STATUS_SUCCESS ? 0 : rh_failed(&s->api, st, "hsa_memory_copy");
}

/* Stream a snapshot image (region, or global when `global`) to device address dst. */
static int upload(rh_session *s, const rpl_snapshot *snap, size_t index, bool global, uint64_t dst,
                  uint64_t size)
{
    FILE *f = NULL;
    uint64_t off;
    int rc = global ? rpl_snapshot_global_open(&f, snap, index, false)
                    : rpl_snapshot_region_open(&f, snap, index, false);

    for (off = 0; rc == 0 && off < size;) {
        size_t n = size - off < s->bounce_size ? (size_t)(size - off) : s->bounce_size;

        if (fread(s->bounce, 1, n, f) != n)
            rc = rpl_error_set(RPL_EINPUT, "snapshot '%s': an image ends early", snap->dir);
        else
            rc = copy(s, dst + off, s->bounce, n);
        off += n;
    }
    if (f)
        fclose(f);
    return rc;
}

static int fill_pristine(rh_session *s, const rpl_snapshot *snap)
{
    uint64_t total = 0, off = 0;
    size_t i;
    int rc = 0;

    for (i = 0; i < snap->nregions; i++)
        total += snap->regions[i].size;
    /* No room on the device is no error: restores then come from the host. */
    if (total == 0 ||
        s->api.pool_allocate(s->device_pool, total, 0, &s->pristine) != HSA_STATUS_SUCCESS) {
        s->pristine = NULL;
        return 0;
    }
    for (i = 0; rc == 0 && i < snap->nregions; i++) {
        rc = upload(s, snap, i, false, (uint64_t)(uintptr_t)s->pristine + off,
                    snap->regions[i].size);
        off += snap->regions[i].size;
    }
    return rc;
}

int rh_prepare_launch(rh_session *s, const rpl_snapshot *snap, bool device_pristine)
{
    uint32_t min_size = 0;
    char *path = NULL, *kernarg = NULL;
    size_t len = 0;
    hsa_status_t st;
    int rc;

    rc = allocate(s, s->host_pool, BOUNCE_BYTES, &s->bounce, "the copy buffer");
    if (rc)
        return rc;
    s->bounce_size = BOUNCE_BYTES;
    rc = rpl_path_join(&path, snap->dir, snap->kernarg_file);
    if (rc == 0)
        rc = rpl_file_read_all(path, snap->kernarg_size + 1, &kernarg, &len);
    free(path);
    if (rc == 0 && len != snap->kernarg_size)
        rc = rpl_error_set(RPL_EINPUT, "snapshot '%s': kernarg.bin has %zu bytes, not %" PRIu64,
                           snap->dir, len, snap->kernarg_size);
    if (rc == 0)
        rc = allocate(s, s->have_kernarg_pool ? s->kernarg_pool : s->host_pool, len > 64 ? len : 64,
                      &s->kernarg, "kernarg memory");
    if (rc == 0)
        memcpy(s->kernarg, kernarg, len); /* kernarg pools are system memory the CPU writes */
    free(kernarg);
    if (rc)
        return rc;
    s->api.agent_get_info(s->gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &min_size);
    st = s->api.queue_create(s->gpu, min_size > 64 ? min_size : 64, HSA_QUEUE_TYPE_SINGLE, NULL,
                             NULL, UINT32_MAX, UINT32_MAX, &s->queue);
    if (st != HSA_STATUS_SUCCESS) {
        s->queue = NULL;
        return rh_failed(&s->api, st, "hsa_queue_create");
    }
    st = s->api.profiling_enable(s->queue, 1);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, "hsa_amd_profiling_set_profiler_enabled");
    st = s->api.signal_create(1, 0, NULL, &s->signal);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, "hsa_signal_create");
    s->have_signal = true;
    return device_pristine ? fill_pristine(s, snap) : 0;
}

int rh_restore(rh_session *s, const rpl_snapshot *snap, double *seconds)
{
    double t0;
    uint64_t off = 0;
    size_t i;
    int rc = 0;

    t0 = rpl_clock_mono_s();
    for (i = 0; rc == 0 && i < snap->nregions; i++) {
        const rpl_snap_region *r = &snap->regions[i];

        if (s->pristine)
            rc = copy(s, r->base, (const unsigned char *)s->pristine + off, r->size);
        else
            rc = upload(s, snap, i, false, r->base, r->size);
        off += r->size;
    }
    for (i = 0; rc == 0 && i < snap->nglobals; i++)
        rc = upload(s, snap, i, true, s->global_addr[i], snap->globals[i].size);
    *seconds = rpl_clock_mono_s() - t0;
    return rc;
}

int rh_poison(rh_session *s, const rpl_snapshot *snap)
{
    size_t i;
    int rc = 0;

    memset(s->bounce, 0xff, s->bounce_size);
    for (i = 0; rc == 0 && i < snap->nregions; i++) {
        const rpl_snap_region *r = &snap->regions[i];
        uint64_t off;

        for (off = 0; r->written && rc == 0 && off < r->size;) {
            size_t n = r->size - off < s->bounce_size ? (size_t)(r->size - off) : s->bounce_size;

            rc = copy(s, r->base + off, s->bounce, n);
            off += n;
        }
    }
    return rc;
}

int rh_launch(rh_session *s, const rpl_snapshot *snap, double *ns)
{
    unsigned char pkt[RPL_AQL_PACKET_BYTES];
    hsa_amd_profiling_dispatch_time_t t;
    rpl_aql_dispatch d;
    uint64_t index;
    hsa_status_t st;
    int rc;

    rc = rh_dispatch(&d, snap, &s->kernel, (uint64_t)(uintptr_t)s->kernarg, s->signal.handle);
    if (rc == 0)
        rc = rpl_aql_dispatch_encode(pkt, &d);
    if (rc)
        return rc;
    index = s->api.queue_add_write_index(s->queue, 1);
    while (index - s->api.queue_load_read_index(s->queue) >= s->queue->size)
        ; /* the ring is full: the packet processor frees a slot soon */
    rpl_aql_publish((unsigned char *)s->queue->base_address +
                        (index & (s->queue->size - 1)) * RPL_AQL_PACKET_BYTES,
                    pkt);
    s->api.signal_store(s->queue->doorbell_signal, (hsa_signal_value_t)index);
    while (s->api.signal_wait(s->signal, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                              HSA_WAIT_STATE_BLOCKED) >= 1)
        ;
    if (ns) {
        st = s->api.dispatch_time(s->gpu, s->signal, &t);
        if (st != HSA_STATUS_SUCCESS)
            return rh_failed(&s->api, st, "hsa_amd_profiling_get_dispatch_time");
        *ns = rh_ticks_ns(t.start, t.end, s->timestamp_hz);
        if (*ns < 0)
            return rpl_error_set(RPL_ERROR, "the dispatch's timestamps run backwards");
    }
    s->api.signal_store(s->signal, 1);
    return 0;
}

/* The bytes at device address `addr` into host memory `dst`, and their SHA-256. */
static int download(rh_session *s, void *dst, uint64_t addr, uint64_t size,
                    unsigned char digest[32])
{
    uint64_t off;
    int rc = 0;

    for (off = 0; rc == 0 && off < size;) {
        size_t n = size - off < s->bounce_size ? (size_t)(size - off) : s->bounce_size;
        hsa_status_t st = s->api.memory_copy(s->bounce, (const void *)(uintptr_t)(addr + off), n);

        if (st != HSA_STATUS_SUCCESS)
            rc = rh_failed(&s->api, st, "hsa_memory_copy");
        else
            memcpy((unsigned char *)dst + off, s->bounce, n);
        off += n;
    }
    if (rc == 0)
        rc = rpl_sha256_buf_raw(digest, dst, size);
    return rc;
}

int rh_compare(rh_session *s, const rpl_snapshot *snap, const rpl_replay_opts *opts, unsigned run,
               rpl_region_check *checks, unsigned char (*digests)[32], size_t *nchecks)
{
    size_t i, k = 0, total = snap->nregions + snap->nglobals;
    int rc = 0;

    for (i = 0; rc == 0 && i < total; i++) {
        bool global = i >= snap->nregions;
        size_t index = global ? i - snap->nregions : i;
        uint64_t addr = global ? s->global_addr[index] : snap->regions[index].base;
        uint64_t size = global ? snap->globals[index].size : snap->regions[index].size;
        const char *post = global ? snap->globals[index].post_file : snap->regions[index].post_file;
        unsigned char digest[32];
        void *got;

        if (!post)
            continue; /* no post-dispatch image: nothing to compare with */
        if (size > SIZE_MAX || !(got = malloc(size ? (size_t)size : 1)))
            return rpl_error_oom();
        rc = download(s, got, addr, size, digest);
        if (rc == 0 && run == 0) {
            rc = rpl_replay_check_region(&checks[k], snap, index, global, got, opts);
            checks[k].poisoned = opts->poison && !global && snap->regions[index].written;
            checks[k].identical_runs = true;
            memcpy(digests[k], digest, sizeof(digest));
        } else if (rc == 0 && memcmp(digests[k], digest, sizeof(digest)) != 0) {
            checks[k].identical_runs = false;
        }
        free(got);
        k++;
    }
    *nchecks = k;
    return rc;
}

double rh_d2d_gbps(rh_session *s, uint64_t bytes)
{
    void *src = s->pristine, *dst = NULL, *own = NULL;
    double best = 0;
    int i;

    if (bytes == 0)
        return 0;
    if (!src && s->api.pool_allocate(s->device_pool, bytes, 0, &own) == HSA_STATUS_SUCCESS)
        src = own;
    if (src && s->api.pool_allocate(s->device_pool, bytes, 0, &dst) == HSA_STATUS_SUCCESS) {
        /* The fastest of three copies, as a bandwidth test reports it. */
        for (i = 0; i < 3; i++) {
            double t0 = rpl_clock_mono_s();
            double sec;

            if (s->api.memory_copy(dst, src, bytes) != HSA_STATUS_SUCCESS)
                break;
            sec = rpl_clock_mono_s() - t0;
            if (sec > 0 && (double)bytes / sec / 1e9 > best)
                best = (double)bytes / sec / 1e9;
        }
        s->api.pool_free(dst);
    }
    if (own)
        s->api.pool_free(own);
    rpl_error_clear();
    return best;
}
