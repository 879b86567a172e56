/*
 * The HSA replay backend (replay_backend.h, replay_hsa_int.h): the session
 * and the two entry points.  Order matters (reference: replay.md 2.3/2.4):
 * placeholders over the captured spans before hsa_init, so that the
 * runtime's start-up reservations go elsewhere; the spans reserved right
 * after hsa_init, before any queue or code object; every returned address
 * compared with the captured one (the runtime silently relocates a
 * reservation it cannot place).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay_hsa_int.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/stats.h"

typedef struct agent_list {
    rh_agent *v;
    size_t n;
    const rh_api *api;
} agent_list;

static hsa_status_t first_isa(hsa_isa_t isa, void *data)
{
    *(hsa_isa_t *)data = isa;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t add_agent(hsa_agent_t agent, void *data)
{
    agent_list *l = data;
    hsa_device_type_t type;
    hsa_isa_t isa = {0};
    uint32_t len = 0;
    rh_agent *grown, *a;

    if (l->api->agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_SUCCESS;
    grown = realloc(l->v, (l->n + 1) * sizeof(*grown));
    if (!grown)
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    l->v = grown;
    a = &l->v[l->n++];
    memset(a, 0, sizeof(*a));
    a->handle = agent.handle;
    a->gpu = type == HSA_DEVICE_TYPE_GPU;
    l->api->agent_iterate_isas(agent, first_isa, &isa);
    if (isa.handle &&
        l->api->isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len) == HSA_STATUS_SUCCESS &&
        len < sizeof(a->isa))
        l->api->isa_get_info_alt(isa, HSA_ISA_INFO_NAME, a->isa);
    return HSA_STATUS_SUCCESS;
}

typedef struct pool_scan {
    rh_session *s;
    bool cpu;
    bool have_device;
} pool_scan;

static hsa_status_t add_pool(hsa_amd_memory_pool_t pool, void *data)
{
    pool_scan *ps = data;
    rh_session *s = ps->s;
    hsa_amd_segment_t segment;
    uint32_t flags = 0;
    bool allowed = false;
    size_t granule = 0;

    if (s->api.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) !=
            HSA_STATUS_SUCCESS ||
        segment != HSA_AMD_SEGMENT_GLOBAL ||
        s->api.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) !=
            HSA_STATUS_SUCCESS ||
        !allowed)
        return HSA_STATUS_SUCCESS;
    s->api.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (!ps->cpu) {
        /* The backing of every span: the GPU's coarse-grained memory (VRAM). */
        if (!ps->have_device && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)) {
            s->device_pool = pool;
            ps->have_device = true;
            if (s->api.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE,
                                     &granule) == HSA_STATUS_SUCCESS)
                s->granule = granule;
        }
    } else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) {
        if (!s->have_kernarg_pool)
            s->kernarg_pool = pool;
        s->have_kernarg_pool = true;
    } else if (!s->have_host_pool || (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)) {
        s->host_pool = pool;
        s->have_host_pool = true;
    }
    return HSA_STATUS_SUCCESS;
}

static int find_agent_and_pools(rh_session *s, const rpl_snapshot *snap)
{
    agent_list l = {NULL, 0, &s->api};
    pool_scan ps = {s, false, false};
    hsa_status_t st;
    size_t i, pick = 0;
    int rc;

    st = s->api.iterate_agents(add_agent, &l);
    rc = st == HSA_STATUS_SUCCESS ? rh_pick_agent(&pick, l.v, l.n, snap->target)
                                  : rh_failed(&s->api, st, "listing agents");
    if (rc) {
        free(l.v);
        return rc;
    }
    s->gpu.handle = l.v[pick].handle;
    if (s->api.agent_get_info(s->gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME,
                              s->device) != HSA_STATUS_SUCCESS ||
        !s->device[0])
        s->api.agent_get_info(s->gpu, HSA_AGENT_INFO_NAME, s->device);
    s->device[sizeof(s->device) - 1] = '\0';
    s->granule = 4096;
    st = s->api.iterate_pools(s->gpu, add_pool, &ps);
    for (i = 0; st == HSA_STATUS_SUCCESS && i < l.n; i++) {
        hsa_agent_t a = {l.v[i].handle};

        if (l.v[i].gpu)
            continue;
        ps.cpu = true;
        st = s->api.iterate_pools(a, add_pool, &ps);
    }
    free(l.v);
    if (st != HSA_STATUS_SUCCESS)
        return rh_failed(&s->api, st, "listing memory pools");
    if (!ps.have_device)
        return rpl_error_set(RPL_ENODEV, "the GPU has no coarse-grained memory pool to map");
    if (!s->have_host_pool)
        return rpl_error_set(RPL_ENODEV, "no system memory pool for copies");
    if (s->granule < 4096 || (s->granule & (s->granule - 1)))
        s->granule = 4096;
    return 0;
}

/* Reserve every span at its address; the report says what failed or moved. */
static int reserve_spans(rh_session *s, rpl_reserve_report *rep)
{
    size_t i;

    rep->nspans = s->nspans;
    for (i = 0; i < s->nspans; i++) {
        rh_span *sp = &s->spans[i];
        void *va = NULL;
        hsa_status_t st = s->api.vmem_reserve(&va, sp->size, sp->base, 0);

        if (st != HSA_STATUS_SUCCESS) {
            rh_failed(&s->api, st, "reserve");
            rep->failure = true;
            rep->first_bad = sp->base;
            snprintf(rep->detail, sizeof(rep->detail),
                     "hsa_amd_vmem_address_reserve(0x%" PRIx64 ", %" PRIu64 " bytes) failed: %s",
                     sp->base, sp->size, rpl_error_last()->message);
            return rpl_error_set(RPL_EFAIL, "%s", rep->detail);
        }
        if ((uint64_t)(uintptr_t)va != sp->base) {
            s->api.vmem_free(va, sp->size);
            rep->relocation = true;
            rep->first_bad = sp->base;
            rep->got = (uint64_t)(uintptr_t)va;
            snprintf(rep->detail, sizeof(rep->detail),
                     "the span at 0x%" PRIx64 " (%" PRIu64 " bytes) came back at 0x%" PRIx64,
                     sp->base, sp->size, rep->got);
            return rpl_error_set(RPL_EFAIL, "%s", rep->detail);
        }
        sp->reserved = true;
        rep->reserved++;
    }
    snprintf(rep->detail, sizeof(rep->detail), "%zu of %zu spans reserved at their addresses",
             rep->reserved, rep->nspans);
    return 0;
}

/* Back every reserved span with device memory the GPU may read and write. */
static int map_spans(rh_session *s)
{
    rpl_hsa_access_desc rw;
    size_t i;

    rw.permissions = HSA_ACCESS_PERMISSION_RW;
    rw.agent_handle = s->gpu;
    for (i = 0; i < s->nspans; i++) {
        rh_span *sp = &s->spans[i];
        hsa_status_t st;

        st = s->api.vmem_handle_create(s->device_pool, sp->size, RPL_HSA_MEMORY_TYPE_NONE, 0,
                                       &sp->handle);
        if (st != HSA_STATUS_SUCCESS)
            return rh_failed(&s->api, st, "hsa_amd_vmem_handle_create");
        sp->have_handle = true;
        st = s->api.vmem_map((void *)(uintptr_t)sp->base, sp->size, 0, sp->handle, 0);
        if (st != HSA_STATUS_SUCCESS)
            return rh_failed(&s->api, st, "hsa_amd_vmem_map");
        sp->mapped = true;
        st = s->api.vmem_set_access((void *)(uintptr_t)sp->base, sp->size, &rw, 1);
        if (st != HSA_STATUS_SUCCESS)
            return rh_failed(&s->api, st, "hsa_amd_vmem_set_access");
    }
    return 0;
}

static int make_spans(rh_session *s, const rpl_snapshot *snap, uint64_t granule)
{
    rpl_range *r = NULL;
    size_t n = 0, i;
    int rc = rh_spans(&r, &n, snap, granule);

    if (rc)
        return rc;
    free(s->spans);
    s->spans = calloc(n ? n : 1, sizeof(*s->spans));
    if (!s->spans) {
        free(r);
        return rpl_error_oom();
    }
    for (i = 0; i < n; i++) {
        s->spans[i].base = r[i].base;
        s->spans[i].size = r[i].size;
    }
    s->nspans = n;
    free(r);
    return 0;
}

int rh_session_open(rh_session *s, const rpl_snapshot *snap, rpl_reserve_report *rep, bool map)
{
    long page = sysconf(_SC_PAGESIZE);
    rpl_range *ranges = NULL;
    size_t n = 0, i;
    hsa_status_t st;
    bool vmem_ok = true;
    int rc;

    memset(s, 0, sizeof(*s));
    rc = rh_api_open(&s->api);
    if (rc)
        return rc;
    /* Placeholders first: hsa_init places its own reservations while they stand. */
    rc = make_spans(s, snap, page > 0 ? (uint64_t)page : 4096);
    if (rc)
        return rc;
    ranges = calloc(s->nspans ? s->nspans : 1, sizeof(*ranges));
    if (!ranges)
        return rpl_error_oom();
    for (i = 0; i < s->nspans; i++) {
        ranges[i].base = s->spans[i].base;
        ranges[i].size = s->spans[i].size;
    }
    n = s->nspans;
    rc = rh_placeholders_map(&s->placeholders, ranges, n);
    free(ranges);
    if (rc)
        return rc;
    st = s->api.init();
    if (st != HSA_STATUS_SUCCESS) {
        rh_failed(&s->api, st, "hsa_init");
        return rpl_error_set(RPL_ENODEV, "no usable AMD GPU (%s)", rpl_error_last()->message);
    }
    s->initialized = true;
    rc = find_agent_and_pools(s, snap);
    if (rc)
        return rc;
    rc = rh_api_need_vmem(&s->api);
    if (rc)
        return rc;
    if (s->api.system_get_info(RPL_HSA_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED, &vmem_ok) ==
            HSA_STATUS_SUCCESS &&
        !vmem_ok)
        return rpl_error_set(RPL_EENV, "the driver does not support the HSA virtual memory API "
                                       "(KFD 1.15 and libdrm's amdgpu_device_get_fd are needed)");
    if (s->api.system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &s->timestamp_hz) !=
            HSA_STATUS_SUCCESS ||
        s->timestamp_hz == 0)
        s->timestamp_hz = 1000000000u;
    /* The spans the device memory is handed out in, then the placeholders go. */
    rc = make_spans(s, snap, s->granule);
    rh_placeholders_unmap(&s->placeholders);
    if (rc == 0)
        rc = reserve_spans(s, rep);
    if (rc == 0 && map)
        rc = map_spans(s);
    return rc;
}

void rh_session_close(rh_session *s)
{
    size_t i;

    if (s->initialized) {
        if (s->have_signal)
            s->api.signal_destroy(s->signal);
        if (s->queue)
            s->api.queue_destroy(s->queue);
        if (s->kernarg)
            s->api.pool_free(s->kernarg);
        if (s->pristine)
            s->api.pool_free(s->pristine);
        if (s->bounce)
            s->api.pool_free(s->bounce);
        if (s->have_exe)
            s->api.executable_destroy(s->exe);
        if (s->have_reader)
            s->api.reader_destroy(s->reader);
        for (i = 0; i < s->nspans; i++) {
            rh_span *sp = &s->spans[i];

            if (sp->mapped)
                s->api.vmem_unmap((void *)(uintptr_t)sp->base, sp->size);
            if (sp->have_handle)
                s->api.vmem_handle_release(sp->handle);
            if (sp->reserved)
                s->api.vmem_free((void *)(uintptr_t)sp->base, sp->size);
        }
        s->api.shut_down();
    }
    rh_placeholders_unmap(&s->placeholders);
    rh_api_close(&s->api);
    RPL_FREE_EACH(s->spans, s->code, s->global_addr);
    memset(s, 0, sizeof(*s));
}

int rpl_replay_hsa_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    rh_session s;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = rh_session_open(&s, snap, out, false);
    rh_session_close(&s);
    return rc;
}

/* The median of the restore speeds measured, in GB/s. */
static double median_gbps(double *seconds, size_t n, uint64_t bytes)
{
    rpl_duration_stats st;
    size_t i;

    for (i = 0; i < n; i++)
        seconds[i] = seconds[i] > 0 ? (double)bytes / seconds[i] / 1e9 : 0;
    return n && rpl_stats_compute(&st, seconds, n) == 0 ? st.median : 0;
}

/* Compared launches: run 0 is the first timed one; runs 1.. come after the timed loop. */
static int compare_run(rh_session *s, const rpl_snapshot *snap, const rpl_replay_opts *opts,
                       rpl_replay_result *res, unsigned run, unsigned char (*digests)[32])
{
    size_t n = 0;
    int rc = rh_compare(s, snap, opts, run, res->checks, digests, &n);

    if (rc == 0 && run == 0)
        res->nchecks = n;
    return rc;
}

/* The restores of one run: their durations, for the restore bandwidth. */
typedef struct restores {
    double *seconds;
    size_t n;
} restores;

/*
 * Warm-up launches, then the timed ones; the first timed launch is the
 * compared one when opts->check (its comparison is no part of the time).
 */
static int timed_launches(rh_session *s, const rpl_snapshot *snap, const rpl_replay_opts *opts,
                          rpl_replay_result *res, restores *rs, unsigned char (*digests)[32])
{
    double excluded = 0, t0;
    bool fresh = true;
    int rc = 0;

    for (unsigned w = 0; rc == 0 && w < opts->warmup; w++) {
        if (!fresh && opts->recopy)
            rc = rh_restore(s, snap, &rs->seconds[rs->n++]);
        if (rc == 0)
            rc = rh_launch(s, snap, NULL);
        fresh = false;
    }
    t0 = rpl_clock_mono_s();
    for (size_t i = 0; rc == 0 && i < opts->iterations; i++) {
        bool compared = opts->check && i == 0;

        /* The compared launch starts from the captured state, recopy or not. */
        if (!fresh && (opts->recopy || compared))
            rc = rh_restore(s, snap, &rs->seconds[rs->n++]);
        if (rc == 0 && compared && opts->poison)
            rc = rh_poison(s, snap);
        if (rc == 0)
            rc = rh_launch(s, snap, &res->times_ns[i]);
        fresh = false;
        if (rc == 0 && compared) {
            double c0 = rpl_clock_mono_s();

            rc = compare_run(s, snap, opts, res, 0, digests);
            excluded = rpl_clock_mono_s() - c0; /* the comparison is no part of the time */
        }
        res->ntimes = i + 1;
    }
    if (rc == 0)
        res->wall_s = rpl_clock_mono_s() - t0 - excluded;
    return rc;
}

/* The compared runs after the timed loop, and the check's verdict over all of them. */
static int check_runs(rh_session *s, const rpl_snapshot *snap, const rpl_replay_opts *opts,
                      rpl_replay_result *res, unsigned char (*digests)[32])
{
    double one;
    int rc = 0;

    for (unsigned run = 1; rc == 0 && run < opts->check_runs; run++) {
        rc = rh_restore(s, snap, &one);
        if (rc == 0 && opts->poison)
            rc = rh_poison(s, snap);
        if (rc == 0)
            rc = rh_launch(s, snap, NULL);
        if (rc == 0)
            rc = compare_run(s, snap, opts, res, run, digests);
    }
    if (rc != 0)
        return rc;
    res->checked = true;
    res->check_passed = true;
    res->deterministic = true;
    for (size_t i = 0; i < res->nchecks; i++) {
        res->check_passed &= res->checks[i].cmp.mismatches == 0;
        res->deterministic &= res->checks[i].identical_runs;
    }
    res->check_passed &= res->deterministic;
    return 0;
}

int rpl_replay_hsa_run(rpl_replay_result *res, const rpl_snapshot *snap,
                       const rpl_replay_opts *opts)
{
    rh_session s;
    unsigned char(*digests)[32] = NULL;
    restores rs = {NULL, 0};
    uint64_t bytes = 0;
    int rc;

    rc = rh_session_open(&s, snap, &res->reserve, true);
    if (rc == 0)
        rc = rh_load_code(&s, snap, res->code_object);
    if (rc == 0)
        rc = rh_prepare_launch(&s, snap, opts->device_pristine);
    res->device = s.device[0] ? strdup(s.device) : NULL;
    res->timer = strdup("hsa-signal");
    res->times_ns = calloc(opts->iterations, sizeof(*res->times_ns));
    rs.seconds = calloc((size_t)opts->iterations + opts->warmup + 1, sizeof(*rs.seconds));
    res->checks = calloc(snap->nregions + snap->nglobals + 1, sizeof(*res->checks));
    digests = calloc(snap->nregions + snap->nglobals + 1, sizeof(*digests));
    if (rc == 0 && (!res->timer || !res->times_ns || !rs.seconds || !res->checks || !digests))
        rc = rpl_error_oom();
    for (size_t i = 0; i < snap->nregions; i++)
        bytes += snap->regions[i].size;
    for (size_t i = 0; i < snap->nglobals; i++)
        bytes += snap->globals[i].size;
    res->restore_bytes = bytes;
    res->restore_from_device = s.pristine != NULL;

    /* The first restore always happens; later ones with recopy. */
    if (rc == 0)
        rc = rh_restore(&s, snap, &rs.seconds[rs.n++]);
    if (rc == 0)
        rc = timed_launches(&s, snap, opts, res, &rs, digests);
    if (rc == 0 && opts->check)
        rc = check_runs(&s, snap, opts, res, digests);
    if (rc == 0) {
        res->restore_gbps = median_gbps(rs.seconds, rs.n, bytes);
        res->d2d_gbps = rh_d2d_gbps(&s, bytes);
    }
    free(rs.seconds);
    free(digests);
    rh_session_close(&s);
    return rc;
}
