/*
 * The CUDA replay backend (replay_backend.h).
 *
 * 1. cuInit and the primary context of the first device of the snapshot's
 *    architecture; then, before anything else allocates device memory, the
 *    captured regions merged into spans of the VMM granularity are reserved
 *    in ascending order with cuMemAddressReserve at their captured
 *    addresses.  The driver takes the address as a hint only, so every
 *    returned address is compared: one that moved aborts (relocation).
 * 2. Each span gets physical memory (cuMemCreate, cuMemMap, cuMemSetAccess)
 *    and the pre-images are streamed in from the region files through a
 *    pinned bounce buffer; a pristine copy of all regions is kept in device
 *    memory when it fits (else in host memory) for the restores.
 * 3. The code object (captured cubin or candidate) is loaded, the kernel
 *    looked up by its mangled name, its parameter layout checked against the
 *    snapshot's, dynamic shared memory above 48 KiB allowed, and the module
 *    globals found by name (in a candidate, where the name holds its
 *    translation unit's hash, by its own symbols: global_match.h) and
 *    restored.
 * 4. --check: launches on restored memory (written regions poisoned first
 *    with --poison where the captured code object proved it harmless), each
 *    region read back in chunks and compared with its post-image.
 * 5. Timing: warm-up, then the timed launches, each after a restore unless
 *    --no-recopy, with the packed parameter buffer passed through `extra`
 *    (cuLaunchKernelEx when a cluster is set); times from the timer of
 *    replay_cuda_timer.h.  Then the restore speed and a plain device copy of
 *    the same bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "global_match.h"
#include "replay_backend.h"
#include "rpl/clock.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"

#ifdef RPL_HAVE_CUDA

#include "replay_cuda_api.h"
#include "replay_cuda_timer.h"

#define BOUNCE_BYTES        ((size_t)64 << 20)
#define STATIC_SHARED_LIMIT (48u << 10)
#define FREE_MEMORY_MARGIN  ((uint64_t)512 << 20)
#define MAX_CODE_OBJECT     ((size_t)1 << 30)
#define SPEED_REPETITIONS   5
/*
 * The driver hands out address reservations in chunks of 32 MiB (580 on an
 * H100: a hint between two chunk boundaries came back at the next one),
 * while cudaMalloc places allocations at 2 MiB steps inside such chunks.
 * So spans are reserved on whole chunks around the captured ranges.
 */
#define RESERVE_CHUNK ((size_t)32 << 20)
#define NSEC_PER_SEC  1e9

typedef struct module {
    CUmodule mod;
    CUfunction f;
    CUdeviceptr *gaddr; /* each snapshot global in this module */
} module;

typedef struct replay {
    const rpl_cuda_api *cu;
    const rpl_snapshot *snap;
    const rpl_replay_opts *o;
    rpl_replay_result *res;
    CUdevice dev;
    bool ctx_held;
    size_t gran;
    rpl_range *spans;
    size_t nspans, nreserved, nmapped;
    CUstream stream;
    CUevent ev0, ev1;
    void *bounce;     /* pinned */
    uint8_t *want;    /* post-image chunk */
    uint64_t *offset; /* region i in the pristine copy */
    uint64_t total;
    CUdeviceptr pristine; /* device pristine copy, or 0 */
    uint8_t *host_pristine;
    bool host_pinned;
    uint8_t *kernarg;
    size_t kernarg_size;
    uint8_t **gpre;       /* pre-image of each global */
    module run, captured; /* the launched code object; the captured one for --poison */
    bool *poison;         /* written regions that may be poisoned */
} replay;

static int cuda_check(const replay *r, CUresult rc, const char *what)
{
    return rpl_cuda_check(r->cu, rc, RPL_ERROR, what);
}

/* ---- context and reservations ---- */

/* cuInit and the first device of the snapshot's architecture; no context yet. */
static int open_device(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    int count = 0, rc;
    CUresult cr = cu->cuInit(0);

    if (cr != CUDA_SUCCESS)
        return rpl_cuda_check(cu, cr, RPL_ENODEV, "no usable NVIDIA GPU (cuInit)");
    if ((rc = rpl_cuda_check(cu, cu->cuDeviceGetCount(&count), RPL_ENODEV, "cuDeviceGetCount")))
        return rc;
    if (count == 0)
        return rpl_error_set(RPL_ENODEV, "no NVIDIA GPU");
    for (int i = 0; i < count; i++) {
        int major = 0, minor = 0;
        char arch[32];
        CUdevice d;
        if (cu->cuDeviceGet(&d, i) != CUDA_SUCCESS ||
            cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) ||
            cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d))
            continue;
        snprintf(arch, sizeof(arch), "sm_%d%d", major, minor);
        if (strcmp(arch, r->snap->arch) == 0) {
            r->dev = d;
            return 0;
        }
    }
    return rpl_error_set(RPL_EINPUT, "'%s': the snapshot is of %s and no GPU here is",
                         r->snap->dir ? r->snap->dir : "snapshot", r->snap->arch);
}

static int open_context(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    CUcontext ctx;
    int rc;

    if (r->ctx_held)
        return 0;
    if ((rc =
             cuda_check(r, cu->cuDevicePrimaryCtxRetain(&ctx, r->dev), "cuDevicePrimaryCtxRetain")))
        return rc;
    r->ctx_held = true;
    return cuda_check(r, cu->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

static CUmemAllocationProp device_prop(const replay *r)
{
    CUmemAllocationProp p;

    memset(&p, 0, sizeof(p));
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = (int)r->dev;
    return p;
}

/*
 * What this process has mapped over [base, base+size), from
 * /proc/self/maps, for the relocation message ("" when nothing: then the
 * driver itself holds the range).  With debug logging every mapping within
 * 1 GiB of the range is logged too.
 */
static void describe_occupant(char *buf, size_t cap, uint64_t base, uint64_t size)
{
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    size_t used = 0;

    buf[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long lo, hi;
        char path[256] = "";
        if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s", &lo, &hi, path) < 2)
            continue;
        if (lo < base + size + (1ull << 30) && hi + (1ull << 30) > base)
            rpl_log_debug("replay: near 0x%llx: %s", (unsigned long long)base, strtok(line, "\n"));
        if (lo < base + size && hi > base && used + 80 < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%s0x%llx-0x%llx %s", used ? ", " : "",
                                     lo, hi, path[0] ? path : "(anonymous)");
    }
    fclose(f);
}

static void describe_span(char *buf, size_t cap, const rpl_range *s)
{
    snprintf(buf, cap, "0x%llx (%.1f MiB)", (unsigned long long)s->base,
             (double)s->size / (1 << 20));
}

/*
 * Reserve every span at its captured address, ascending, first thing: before
 * the primary context exists when the driver allows it (the context's own
 * allocations differ from process to process and would take addresses the
 * application's allocations had), else right after it.  RPL_EFAIL with the
 * report filled when one fails or moves.
 */
static int reserve(replay *r, rpl_reserve_report *rep)
{
    const rpl_cuda_api *cu = r->cu;
    CUmemAllocationProp prop = device_prop(r);
    rpl_range *in;
    CUresult cr;
    int rc;

    memset(rep, 0, sizeof(*rep));
    cr = cu->cuMemGetAllocationGranularity(&r->gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (cr == CUDA_ERROR_INVALID_CONTEXT && !r->ctx_held) {
        if ((rc = open_context(r)))
            return rc;
        cr = cu->cuMemGetAllocationGranularity(&r->gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    }
    if ((rc = cuda_check(r, cr, "cuMemGetAllocationGranularity")))
        return rc;
    in = calloc(r->snap->nregions + 1, sizeof(*in));
    if (!in)
        return rpl_error_oom();
    for (size_t i = 0; i < r->snap->nregions; i++)
        in[i] = (rpl_range){r->snap->regions[i].base, r->snap->regions[i].size};
    if (r->gran < RESERVE_CHUNK)
        r->gran = RESERVE_CHUNK;
    rc = rpl_ranges_merge(&r->spans, &r->nspans, in, r->snap->nregions, r->gran);
    free(in);
    if (rc)
        return rc;
    rep->nspans = r->nspans;
    for (size_t i = 0; i < r->nspans; i++) {
        const rpl_range *s = &r->spans[i];
        CUdeviceptr got = 0;
        char what[64];

        cr = cu->cuMemAddressReserve(&got, s->size, r->gran, s->base, 0);
        if (cr == CUDA_ERROR_INVALID_CONTEXT && !r->ctx_held) {
            if ((rc = open_context(r)))
                return rc;
            cr = cu->cuMemAddressReserve(&got, s->size, r->gran, s->base, 0);
        }

        describe_span(what, sizeof(what), s);
        if (cr != CUDA_SUCCESS) {
            const char *msg = NULL;
            cu->cuGetErrorString(cr, &msg);
            rep->failure = true;
            rep->first_bad = s->base;
            snprintf(rep->detail, sizeof(rep->detail), "reserving span %zu of %zu at %s failed: %s",
                     i + 1, r->nspans, what, msg ? msg : "unknown error");
            return rpl_error_set(RPL_EFAIL, "%s", rep->detail);
        }
        if (got != s->base) {
            char occupant[160];
            cu->cuMemAddressFree(got, s->size);
            describe_occupant(occupant, sizeof(occupant), s->base, s->size);
            rep->relocation = true;
            rep->first_bad = s->base;
            rep->got = got;
            snprintf(rep->detail, sizeof(rep->detail),
                     "span %zu of %zu at %s came back at 0x%llx: relocation (%.80s)", i + 1,
                     r->nspans, what, (unsigned long long)got,
                     occupant[0] ? occupant : "the driver holds part of the range");
            return rpl_error_set(RPL_EFAIL, "%s", rep->detail);
        }
        r->nreserved++;
        rep->reserved++;
    }
    snprintf(rep->detail, sizeof(rep->detail),
             "%zu span%s of %zu bytes granularity reserved at the captured addresses%s", r->nspans,
             r->nspans == 1 ? "" : "s", r->gran,
             r->ctx_held ? "" : ", before the context was created");
    return 0;
}

static int map_spans(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    CUmemAllocationProp prop = device_prop(r);
    CUmemAccessDesc access;
    int rc = 0;

    memset(&access, 0, sizeof(access));
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    for (size_t i = 0; i < r->nspans && rc == 0; i++) {
        const rpl_range *s = &r->spans[i];
        CUmemGenericAllocationHandle h = 0;

        if ((rc = cuda_check(r, cu->cuMemCreate(&h, s->size, &prop, 0), "cuMemCreate")))
            break;
        rc = cuda_check(r, cu->cuMemMap(s->base, s->size, 0, h, 0), "cuMemMap");
        cu->cuMemRelease(h); /* the mapping keeps the memory */
        if (rc)
            break;
        r->nmapped++;
        rc = cuda_check(r, cu->cuMemSetAccess(s->base, s->size, &access, 1), "cuMemSetAccess");
    }
    if (rc)
        rpl_error_prefix("mapping the captured ranges");
    return rc;
}

static void release_spans(replay *r)
{
    for (size_t i = 0; i < r->nmapped; i++)
        r->cu->cuMemUnmap(r->spans[i].base, r->spans[i].size);
    for (size_t i = 0; i < r->nreserved; i++)
        r->cu->cuMemAddressFree(r->spans[i].base, r->spans[i].size);
    r->nmapped = r->nreserved = 0;
}

/* ---- memory images ---- */

/* Stream a snapshot image file into device memory at `dst`. */
static int upload(replay *r, FILE *f, CUdeviceptr dst, uint64_t size, const char *what)
{
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < BOUNCE_BYTES ? (size_t)(size - off) : BOUNCE_BYTES;
        int rc;

        if (fread(r->bounce, 1, n, f) != n)
            return rpl_error_set(RPL_EINPUT, "'%s': %s ends early", r->snap->dir, what);
        if ((rc = cuda_check(r, r->cu->cuMemcpyHtoD_v2(dst + off, r->bounce, n), "cuMemcpyHtoD")))
            return rc;
        off += n;
    }
    return 0;
}

/* Regions from their files, then the pristine copy they are restored from. */
static int load_memory(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    const rpl_snapshot *snap = r->snap;
    size_t free_b = 0, total_b = 0;
    int rc;

    r->offset = calloc(snap->nregions + 1, sizeof(*r->offset));
    if (!r->offset)
        return rpl_error_oom();
    for (size_t i = 0; i < snap->nregions; i++) {
        FILE *f = NULL;
        r->offset[i] = r->total;
        r->total += snap->regions[i].size;
        if ((rc = rpl_snapshot_region_open(&f, snap, i, false)))
            return rc;
        rc = upload(r, f, snap->regions[i].base, snap->regions[i].size, snap->regions[i].file);
        fclose(f);
        if (rc)
            return rc;
    }
    if (r->total == 0)
        return 0;
    cu->cuMemGetInfo_v2(&free_b, &total_b);
    if (r->o->device_pristine && free_b > r->total + FREE_MEMORY_MARGIN &&
        cu->cuMemAlloc_v2(&r->pristine, r->total) == CUDA_SUCCESS) {
        for (size_t i = 0; i < snap->nregions; i++)
            if ((rc = cuda_check(r,
                                 cu->cuMemcpyDtoDAsync_v2(r->pristine + r->offset[i],
                                                          snap->regions[i].base,
                                                          snap->regions[i].size, r->stream),
                                 "cuMemcpyDtoDAsync")))
                return rc;
        r->res->restore_from_device = true;
        return cuda_check(r, cu->cuStreamSynchronize(r->stream), "cuStreamSynchronize");
    }
    r->pristine = 0;
    if (cu->cuMemAllocHost_v2((void **)&r->host_pristine, r->total) == CUDA_SUCCESS) {
        r->host_pinned = true;
    } else if (!(r->host_pristine = malloc(r->total))) {
        return rpl_error_set(RPL_ENOMEM, "no room for a %.1f MiB pristine copy of the regions",
                             (double)r->total / (1 << 20));
    }
    for (size_t i = 0; i < snap->nregions; i++)
        if ((rc = cuda_check(r,
                             cu->cuMemcpyDtoH_v2(r->host_pristine + r->offset[i],
                                                 snap->regions[i].base, snap->regions[i].size),
                             "cuMemcpyDtoH")))
            return rc;
    return 0;
}

/*
 * Regions (and the launched module's globals) back to the captured
 * pre-images: every region, or between timed launches only the ones the
 * captured dispatch wrote.  The others hold their captured bytes already,
 * and copying them again would leave the cache in a state the application
 * never had (their lines dirty), which the timing would show.
 */
static int restore(replay *r, bool all)
{
    const rpl_cuda_api *cu = r->cu;
    const rpl_snapshot *snap = r->snap;
    int rc = 0;

    for (size_t i = 0; i < snap->nregions && rc == 0; i++) {
        const rpl_snap_region *g = &snap->regions[i];
        if (!all && !g->written)
            continue;
        if (r->pristine)
            rc = cuda_check(
                r,
                cu->cuMemcpyDtoDAsync_v2(g->base, r->pristine + r->offset[i], g->size, r->stream),
                "restoring a region (cuMemcpyDtoDAsync)");
        else
            rc = cuda_check(r,
                            cu->cuMemcpyHtoDAsync_v2(g->base, r->host_pristine + r->offset[i],
                                                     g->size, r->stream),
                            "restoring a region (cuMemcpyHtoDAsync)");
    }
    for (size_t i = 0; i < snap->nglobals && rc == 0; i++)
        if (r->run.gaddr[i]) /* else left out: not in this code object */
            rc = cuda_check(r,
                            cu->cuMemcpyHtoDAsync_v2(r->run.gaddr[i], r->gpre[i],
                                                     snap->globals[i].size, r->stream),
                            "restoring a module global (cuMemcpyHtoDAsync)");
    return rc;
}

static int poison_regions(replay *r, const bool *which)
{
    int rc = 0;

    for (size_t i = 0; i < r->snap->nregions && rc == 0; i++)
        if (which[i])
            rc = cuda_check(r,
                            r->cu->cuMemsetD8Async(r->snap->regions[i].base, 0xFF,
                                                   r->snap->regions[i].size, r->stream),
                            "cuMemsetD8Async (poison)");
    return rc;
}

/* ---- code objects ---- */

static int read_kernarg(replay *r)
{
    char *path = NULL, *data = NULL;
    size_t len = 0;
    int rc;

    if ((rc = rpl_path_join(&path, r->snap->dir, r->snap->kernarg_file)) != 0 ||
        (rc = rpl_file_read_all(path, RPL_SNAPSHOT_MAX_JSON, &data, &len)) != 0) {
        free(path);
        return rc;
    }
    if (len != r->snap->kernarg_size)
        rc = rpl_error_set(RPL_EINPUT, "'%s': %zu bytes, the snapshot records %llu", path, len,
                           (unsigned long long)r->snap->kernarg_size);
    free(path);
    r->kernarg = (uint8_t *)data;
    r->kernarg_size = len;
    return rc;
}

/* The kernel's parameter layout in the loaded code object must equal the snapshot's. */
static int check_layout(replay *r, CUfunction f, const char *path)
{
    const rpl_snapshot *snap = r->snap;
    size_t i;

    for (i = 0;; i++) {
        size_t off = 0, size = 0;
        CUresult cr = r->cu->cuFuncGetParamInfo(f, i, &off, &size);
        if (cr == CUDA_ERROR_INVALID_VALUE)
            break;
        if (cr != CUDA_SUCCESS)
            return cuda_check(r, cr, "cuFuncGetParamInfo");
        if (i >= snap->nparams)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': %s takes more parameters than the snapshot's %zu", path,
                                 snap->mangled_name, snap->nparams);
        if (off != snap->params[i].offset || size != snap->params[i].size)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': parameter %zu of %s is at offset %zu, %zu bytes; the "
                                 "snapshot has offset %u, %u bytes",
                                 path, i, snap->mangled_name, off, size, snap->params[i].offset,
                                 snap->params[i].size);
    }
    if (i != snap->nparams)
        return rpl_error_set(RPL_EINPUT, "'%s': %s takes %zu parameters, the snapshot has %zu",
                             path, snap->mangled_name, i, snap->nparams);
    return 0;
}

/* Whether the captured dispatch changed snapshot global `i` (post-image not the pre-image). */
static int global_changed(const replay *r, size_t i, bool *changed)
{
    const rpl_snap_global *g = &r->snap->globals[i];
    uint8_t *post = NULL;
    FILE *f = NULL;
    int rc;

    *changed = false;
    if (!g->post_file) /* not compared either */
        return 0;
    if (!(post = malloc(g->size ? g->size : 1)))
        return rpl_error_oom();
    if ((rc = rpl_snapshot_global_open(&f, r->snap, i, true)) == 0) {
        if (fread(post, 1, g->size, f) != g->size)
            rc = rpl_error_set(RPL_EINPUT, "'%s': %s ends early", r->snap->dir, g->post_file);
        fclose(f);
    }
    *changed = rc == 0 && memcmp(post, r->gpre[i], g->size) != 0;
    free(post);
    return rc;
}

/*
 * Snapshot global `i` in the code object at `path`, which lacks its name
 * (global_match.h: a candidate compiled from an edited copy of the source,
 * or from a header): the name it gives the same global, or left out
 * (m->gaddr[i] stays 0, *bytes the snapshot's) when it holds no such global
 * and the dispatch did not change it.
 */
static int find_global_renamed(replay *r, module *m, const char *path, size_t i, size_t *bytes)
{
    const char *want = r->snap->globals[i].name;
    rpl_global_plan plan = RPL_GLOBAL_USE;
    rpl_codeobj_set *set = NULL;
    CUresult cr = CUDA_ERROR_NOT_FOUND;
    bool changed = false;
    size_t at = 0;
    int rc;

    if ((rc = rpl_codeobj_set_new(&set)) == 0 && (rc = rpl_codeobj_read_file(set, path)) == 0 &&
        (rc = global_changed(r, i, &changed)) == 0 &&
        (rc = rpl_global_resolve(want, changed, (const char *const *)set->globals, set->n_globals,
                                 &at, &plan)) == 0 &&
        plan == RPL_GLOBAL_USE)
        cr = r->cu->cuModuleGetGlobal_v2(&m->gaddr[i], bytes, m->mod, set->globals[at]);
    if (rc == RPL_EINPUT)
        rpl_error_prefix("'%s'", path);
    else if (rc == 0 && plan == RPL_GLOBAL_LEAVE_OUT) {
        m->gaddr[i] = 0;
        *bytes = r->snap->globals[i].size;
        rpl_log_info("'%s' has no module global '%s' of the snapshot, which the dispatch left "
                     "unchanged: left out",
                     path, want);
    } else if (rc == 0 && cr == CUDA_ERROR_NOT_FOUND)
        rc = rpl_error_set(RPL_EINPUT, "'%s' lists module global '%s' but does not load it", path,
                           set->globals[at]);
    else if (rc == 0 && (rc = cuda_check(r, cr, "cuModuleGetGlobal")) == 0)
        rpl_log_info("'%s': module global '%s' of the snapshot is '%s' there", path, want,
                     set->globals[at]);
    rpl_codeobj_set_free(set);
    return rc;
}

/*
 * Snapshot global `i` has another size in the code object at `path`: another
 * object under that name (nvcc names string literals `$str$N` and
 * `__unnamed_N` in the order of their translation unit, so a header compiled
 * alone numbers them otherwise).  Left out when the dispatch did not change
 * it; refused when it did.
 */
static int other_size(replay *r, module *m, const char *path, size_t i, size_t bytes)
{
    const rpl_snap_global *g = &r->snap->globals[i];
    bool changed = false;
    int rc = global_changed(r, i, &changed);

    if (rc == 0 && changed)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': module global '%s' has %zu bytes, the snapshot %llu, and the "
                             "captured dispatch wrote it",
                             path, g->name, bytes, (unsigned long long)g->size);
    if (rc == 0) {
        m->gaddr[i] = 0;
        rpl_log_info("'%s': module global '%s' has %zu bytes, the snapshot %llu: another object "
                     "of that name, which the dispatch left unchanged: left out",
                     path, g->name, bytes, (unsigned long long)g->size);
    }
    return rc;
}

static int load_module(replay *r, module *m, const char *path)
{
    const rpl_cuda_api *cu = r->cu;
    const rpl_snapshot *snap = r->snap;
    char *image = NULL;
    size_t len = 0;
    CUresult cr;
    int rc;

    if ((rc = rpl_file_read_all(path, MAX_CODE_OBJECT, &image, &len)) != 0)
        return rc;
    cr = cu->cuModuleLoadData(&m->mod, image);
    free(image);
    if (cr != CUDA_SUCCESS) {
        m->mod = NULL;
        rc = rpl_cuda_check(cu, cr, RPL_EINPUT, "cuModuleLoadData");
        rpl_error_prefix("'%s' does not load on %s", path, snap->arch);
        return rc;
    }
    cr = cu->cuModuleGetFunction(&m->f, m->mod, snap->code_object_symbol);
    if (cr == CUDA_ERROR_NOT_FOUND)
        return rpl_error_set(RPL_EINPUT, "'%s' has no kernel %s", path, snap->code_object_symbol);
    if ((rc = cuda_check(r, cr, "cuModuleGetFunction")) || (rc = check_layout(r, m->f, path)))
        return rc;
    if (snap->dynamic_shared_bytes > STATIC_SHARED_LIMIT &&
        (rc = cuda_check(r,
                         cu->cuFuncSetAttribute(m->f,
                                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                (int)snap->dynamic_shared_bytes),
                         "cuFuncSetAttribute (dynamic shared memory)")))
        return rc;
    m->gaddr = calloc(snap->nglobals + 1, sizeof(*m->gaddr));
    if (!m->gaddr)
        return rpl_error_oom();
    for (size_t i = 0; i < snap->nglobals; i++) {
        size_t bytes = 0;
        cr = cu->cuModuleGetGlobal_v2(&m->gaddr[i], &bytes, m->mod, snap->globals[i].name);
        if (cr == CUDA_ERROR_NOT_FOUND)
            rc = find_global_renamed(r, m, path, i, &bytes);
        else
            rc = cuda_check(r, cr, "cuModuleGetGlobal");
        if (rc == 0 && m->gaddr[i] && bytes != snap->globals[i].size)
            rc = other_size(r, m, path, i, bytes);
        if (rc)
            return rc;
    }
    return 0;
}

static void unload_module(replay *r, module *m)
{
    if (m->mod)
        r->cu->cuModuleUnload(m->mod);
    free(m->gaddr);
    memset(m, 0, sizeof(*m));
}

static int read_globals(replay *r)
{
    const rpl_snapshot *snap = r->snap;
    int rc = 0;

    r->gpre = calloc(snap->nglobals + 1, sizeof(*r->gpre));
    if (!r->gpre)
        return rpl_error_oom();
    for (size_t i = 0; i < snap->nglobals && rc == 0; i++) {
        FILE *f = NULL;
        uint64_t size = snap->globals[i].size;
        if (!(r->gpre[i] = malloc(size ? size : 1)))
            return rpl_error_oom();
        if ((rc = rpl_snapshot_global_open(&f, snap, i, false)) != 0)
            break;
        if (fread(r->gpre[i], 1, size, f) != size)
            rc = rpl_error_set(RPL_EINPUT, "'%s': %s ends early", snap->dir, snap->globals[i].file);
        fclose(f);
    }
    return rc;
}

/* ---- launching ---- */

/*
 * A launch or its completion that the device refused: the kernel faulted (an
 * illegal address, a trap), which is the kernel's failure, not the
 * environment's: RPL_EFAIL with res->fault set (rpl_replay_failure).
 */
static int device_check(replay *r, CUresult cr, const char *what)
{
    int rc = rpl_cuda_check(r->cu, cr, RPL_EFAIL, what);

    if (rc)
        snprintf(r->res->fault, sizeof(r->res->fault), "%s", rpl_error_last()->message);
    return rc;
}

static int launch(replay *r, CUfunction f)
{
    const rpl_cuda_api *cu = r->cu;
    const rpl_snapshot *s = r->snap;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, r->kernarg, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &r->kernarg_size, CU_LAUNCH_PARAM_END};
    void **ex = r->kernarg_size ? extra : NULL;
    CUresult cr;

    if (s->cluster[0] || s->cluster[1] || s->cluster[2]) {
        CUlaunchAttribute attr;
        CUlaunchConfig cfg;
        memset(&attr, 0, sizeof(attr));
        memset(&cfg, 0, sizeof(cfg));
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = s->cluster[0] ? s->cluster[0] : 1;
        attr.value.clusterDim.y = s->cluster[1] ? s->cluster[1] : 1;
        attr.value.clusterDim.z = s->cluster[2] ? s->cluster[2] : 1;
        cfg.gridDimX = s->grid[0], cfg.gridDimY = s->grid[1], cfg.gridDimZ = s->grid[2];
        cfg.blockDimX = s->block[0], cfg.blockDimY = s->block[1], cfg.blockDimZ = s->block[2];
        cfg.sharedMemBytes = s->dynamic_shared_bytes;
        cfg.hStream = r->stream;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        cr = cu->cuLaunchKernelEx(&cfg, f, NULL, ex);
    } else {
        cr = cu->cuLaunchKernel(f, s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
                                s->block[2], s->dynamic_shared_bytes, r->stream, NULL, ex);
    }
    return device_check(r, cr, "launching the kernel");
}

static int sync_stream(replay *r)
{
    return device_check(r, r->cu->cuStreamSynchronize(r->stream), "the replayed kernel");
}

/* ---- comparison ---- */

static uint64_t digest(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (size_t i = n & ~(size_t)7; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Read [addr, addr+size) back and compare it with the image in f; *hash of the device bytes. */
static int compare_image(replay *r, FILE *f, CUdeviceptr addr, uint64_t size, const char *what,
                         rpl_compare_state *st, uint64_t *hash)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < BOUNCE_BYTES ? (size_t)(size - off) : BOUNCE_BYTES;
        int rc;

        if ((rc = cuda_check(r, r->cu->cuMemcpyDtoH_v2(r->bounce, addr + off, n),
                             "reading back (cuMemcpyDtoH)")))
            return rc;
        if (fread(r->want, 1, n, f) != n)
            return rpl_error_set(RPL_EINPUT, "'%s': %s ends early", r->snap->dir, what);
        rpl_compare_chunk(st, addr + off, r->bounce, r->want, n);
        h = digest(h, r->bounce, n);
        off += n;
    }
    *hash = h;
    return 0;
}

/*
 * Compare every region and global with its post-image.  checks[] has
 * nregions + nglobals entries, initialised by the caller; hashes[] as many.
 */
static int compare_all(replay *r, const module *m, rpl_region_check *checks, uint64_t *hashes)
{
    const rpl_snapshot *snap = r->snap;
    int rc = 0;

    for (size_t i = 0; i < snap->nregions && rc == 0; i++) {
        const rpl_snap_region *g = &snap->regions[i];
        FILE *f = NULL;
        if (!g->post_file)
            continue;
        if ((rc = rpl_snapshot_region_open(&f, snap, i, true)))
            break;
        rc = compare_image(r, f, g->base, g->size, g->post_file, &checks[i].cmp, &hashes[i]);
        fclose(f);
    }
    for (size_t i = 0; i < snap->nglobals && rc == 0; i++) {
        const rpl_snap_global *g = &snap->globals[i];
        size_t k = snap->nregions + i;
        FILE *f = NULL;
        if (!g->post_file || !m->gaddr[i])
            continue;
        if ((rc = rpl_snapshot_global_open(&f, snap, i, true)))
            break;
        rc = compare_image(r, f, m->gaddr[i], g->size, g->post_file, &checks[k].cmp, &hashes[k]);
        fclose(f);
    }
    return rc;
}

/*
 * The checks without the globals left out of the launched code object (none
 * of its kernels can name them): their number, *left_out the others'.
 */
static size_t drop_left_out(const replay *r, rpl_region_check *checks, size_t *left_out)
{
    size_t n = r->snap->nregions;

    for (size_t i = 0; i < r->snap->nglobals; i++)
        if (r->run.gaddr[i])
            checks[n++] = checks[r->snap->nregions + i];
    *left_out = r->snap->nregions + r->snap->nglobals - n;
    return n;
}

static void init_checks(const replay *r, const module *m, rpl_region_check *checks)
{
    const rpl_snapshot *snap = r->snap;

    for (size_t i = 0; i < snap->nregions; i++) {
        checks[i].base = snap->regions[i].base;
        checks[i].size = snap->regions[i].size;
        checks[i].identical_runs = true;
        rpl_compare_init(&checks[i].cmp, snap->regions[i].dtype,
                         rpl_replay_tolerance(r->o, snap->regions[i].dtype));
    }
    for (size_t i = 0; i < snap->nglobals; i++) {
        rpl_region_check *c = &checks[snap->nregions + i];
        c->base = m->gaddr[i];
        c->size = snap->globals[i].size;
        c->global = true;
        c->identical_runs = true;
        rpl_compare_init(&c->cmp, RPL_DTYPE_BYTES, rpl_replay_tolerance(r->o, RPL_DTYPE_BYTES));
    }
}

static bool all_equal(const rpl_region_check *checks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (checks[i].cmp.mismatches)
            return false;
    return true;
}

/*
 * Whether a pointer parameter's type lets the kernel write what it points
 * to: "float*" does, "float const*" (as the demangler spells const
 * pointees) does not.  Qualifiers of the pointer itself are skipped.
 */
static bool writable_pointee(const char *type)
{
    const char *star = type ? strrchr(type, '*') : NULL;
    const char *end = star;

    if (!star)
        return false;
    for (;;) { /* "T const volatile*": step over the words after the element type */
        while (end > type && end[-1] == ' ')
            end--;
        if (end - type >= 5 && strncmp(end - 5, "const", 5) == 0 &&
            (end - type == 5 || end[-6] == ' ' || end[-6] == '*'))
            return false;
        if (end - type > 9 && strncmp(end - 9, " volatile", 9) == 0)
            end -= 9;
        else
            return true;
    }
}

/*
 * The regions the kernel may write: those the capture saw change, and
 * those a pointer parameter with a writable pointee points into (a kernel
 * captured while it rewrites the same result leaves its output unchanged).
 */
static bool maybe_output(const replay *r, size_t region)
{
    const rpl_snapshot *snap = r->snap;
    const rpl_snap_region *g = &snap->regions[region];

    if (g->written)
        return true;
    for (size_t i = 0; i < snap->nparams; i++) {
        const rpl_snap_param *p = &snap->params[i];
        uint64_t v = 0;
        if (!p->pointer || p->size != 8 || !writable_pointee(p->type))
            continue;
        memcpy(&v, r->kernarg + p->offset, 8);
        if (v >= g->base && v - g->base < g->size)
            return true;
    }
    return false;
}

/*
 * --poison: a region the kernel may write is filled with 0xFF before a
 * compared launch only when the captured code object still gives the
 * captured result that way (an in-place kernel reads its output first), so
 * that a candidate that leaves part of its output unwritten cannot pass on
 * the bytes that were there already.
 */
static int prove_poison(replay *r)
{
    const rpl_snapshot *snap = r->snap;
    size_t n = snap->nregions + snap->nglobals;
    rpl_region_check *tmp = calloc(n + 1, sizeof(*tmp));
    uint64_t *hashes = calloc(n + 1, sizeof(*hashes));
    bool *one = calloc(snap->nregions + 1, sizeof(*one));
    const module *m = r->captured.mod ? &r->captured : &r->run;
    module saved = r->run;
    int rc = 0;

    r->poison = calloc(snap->nregions + 1, sizeof(*r->poison));
    if (!tmp || !hashes || !one || !r->poison) {
        rc = rpl_error_oom();
        goto out;
    }
    r->run = *m; /* restore() writes the globals of r->run */
    for (size_t i = 0; i < snap->nregions && rc == 0; i++) {
        if (!maybe_output(r, i) || !snap->regions[i].post_file)
            continue;
        memset(one, 0, snap->nregions * sizeof(*one));
        one[i] = true;
        init_checks(r, m, tmp);
        if ((rc = restore(r, true)) || (rc = poison_regions(r, one)) || (rc = launch(r, m->f)) ||
            (rc = sync_stream(r)) || (rc = compare_all(r, m, tmp, hashes)))
            break;
        r->poison[i] = all_equal(tmp, n);
        rpl_log_info("replay: region 0x%llx %s poisoned", (unsigned long long)snap->regions[i].base,
                     r->poison[i] ? "may be" : "is read by the kernel: not");
    }
out:
    r->run = saved;
    RPL_FREE_EACH(tmp, hashes, one);
    return rc;
}

static int run_check(replay *r)
{
    const rpl_snapshot *snap = r->snap;
    rpl_replay_result *res = r->res;
    size_t n = snap->nregions + snap->nglobals;
    unsigned runs = r->o->check_runs ? r->o->check_runs : 1;
    uint64_t *first = calloc(n + 1, sizeof(*first)), *hashes = calloc(n + 1, sizeof(*hashes));
    int rc = 0;

    res->checks = calloc(n + 1, sizeof(*res->checks));
    if (!first || !hashes || !res->checks) {
        rc = rpl_error_oom();
        goto out;
    }
    res->nchecks = n;
    if (r->o->poison && (rc = prove_poison(r)) != 0)
        goto out;
    init_checks(r, &r->run, res->checks);
    for (size_t i = 0; r->poison && i < snap->nregions; i++)
        res->checks[i].poisoned = r->poison[i];
    for (unsigned k = 0; k < runs && rc == 0; k++) {
        if ((rc = restore(r, true)) || (r->poison && (rc = poison_regions(r, r->poison))) ||
            (rc = launch(r, r->run.f)) || (rc = sync_stream(r)) ||
            (rc = compare_all(r, &r->run, res->checks, k ? hashes : first)))
            break;
        for (size_t i = 0; k && i < n; i++)
            if (hashes[i] != first[i])
                res->checks[i].identical_runs = false;
    }
    if (rc == 0) {
        res->checked = true;
        res->check_passed = all_equal(res->checks, n);
        res->deterministic = true;
        for (size_t i = 0; i < n; i++)
            res->deterministic = res->deterministic && res->checks[i].identical_runs;
        res->nchecks = drop_left_out(r, res->checks, &res->globals_left_out);
    }
out:
    free(first);
    free(hashes);
    return rc;
}

/* ---- timing ---- */

static int elapsed_s(replay *r, double *s)
{
    float ms = 0;
    int rc = cuda_check(r, r->cu->cuEventSynchronize(r->ev1), "cuEventSynchronize");

    if (rc == 0)
        rc = cuda_check(r, r->cu->cuEventElapsedTime_v2(&ms, r->ev0, r->ev1), "cuEventElapsedTime");
    *s = (double)ms / 1e3;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int time_launches(replay *r)
{
    const rpl_replay_opts *o = r->o;
    rpl_replay_result *res = r->res;
    rpl_cuda_timer *t = NULL;
    double t0;
    int rc;

    if ((rc = rpl_cuda_timer_open(&t, r->cu)) != 0)
        return rc;
    res->timer = strdup(rpl_cuda_timer_name(t));
    res->times_ns = calloc(o->iterations + 1, sizeof(*res->times_ns));
    if (!res->timer || !res->times_ns) {
        rpl_cuda_timer_close(t);
        return rpl_error_oom();
    }
    /* Memory as captured before the first launch, with or without recopy. */
    if ((rc = restore(r, true)) || (rc = sync_stream(r)))
        goto out;
    for (unsigned i = 0; i < o->warmup && rc == 0; i++) {
        if ((o->recopy && (rc = restore(r, false))) || (rc = launch(r, r->run.f)))
            break;
        rc = sync_stream(r);
    }
    if (rc || (rc = rpl_cuda_timer_begin(t)))
        goto out;
    t0 = rpl_clock_mono_s();
    for (unsigned i = 0; i < o->iterations && rc == 0; i++) {
        if (o->recopy && i + o->warmup > 0 && (rc = restore(r, false)))
            break;
        if ((rc = rpl_cuda_timer_before(t, r->stream)) || (rc = launch(r, r->run.f)) ||
            (rc = rpl_cuda_timer_after(t, r->stream)))
            break;
        rc = sync_stream(r);
    }
    res->wall_s = rpl_clock_mono_s() - t0;
    if (rc == 0 && (rc = rpl_cuda_timer_end(t, res->times_ns, o->iterations)) == 0)
        res->ntimes = o->iterations;
out:
    rpl_cuda_timer_close(t);
    return rc;
}

/*
 * Speed of the restore between launches (the written regions), and of one
 * plain device-to-device copy of as many bytes, GB/s (medians).
 */
static int measure_copies(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    rpl_replay_result *res = r->res;
    double restore_s[SPEED_REPETITIONS], copy_s[SPEED_REPETITIONS];
    CUdeviceptr scratch = 0;
    size_t free_b = 0, total_b = 0;
    uint64_t bytes = 0;
    int rc = 0;

    for (size_t i = 0; i < r->snap->nregions; i++)
        if (r->snap->regions[i].written)
            bytes += r->snap->regions[i].size;
    res->restore_bytes = bytes;
    if (bytes == 0)
        return 0;
    for (int k = 0; k < SPEED_REPETITIONS && rc == 0; k++) {
        if ((rc = cuda_check(r, cu->cuEventRecord(r->ev0, r->stream), "cuEventRecord")) ||
            (rc = restore(r, false)) ||
            (rc = cuda_check(r, cu->cuEventRecord(r->ev1, r->stream), "cuEventRecord")))
            break;
        rc = elapsed_s(r, &restore_s[k]);
    }
    if (rc)
        return rc;
    res->restore_gbps = (double)bytes / median(restore_s, SPEED_REPETITIONS) / 1e9;
    cu->cuMemGetInfo_v2(&free_b, &total_b);
    if (!r->pristine || free_b < bytes + FREE_MEMORY_MARGIN ||
        cu->cuMemAlloc_v2(&scratch, bytes) != CUDA_SUCCESS) {
        rpl_log_info("replay: no room for a plain device copy of %.1f MiB; not measured",
                     (double)bytes / (1 << 20));
        return 0;
    }
    for (int k = 0; k < SPEED_REPETITIONS && rc == 0; k++) {
        if ((rc = cuda_check(r, cu->cuEventRecord(r->ev0, r->stream), "cuEventRecord")) ||
            (rc = cuda_check(r, cu->cuMemcpyDtoDAsync_v2(scratch, r->pristine, bytes, r->stream),
                             "cuMemcpyDtoDAsync")) ||
            (rc = cuda_check(r, cu->cuEventRecord(r->ev1, r->stream), "cuEventRecord")))
            break;
        rc = elapsed_s(r, &copy_s[k]);
    }
    cu->cuMemFree_v2(scratch);
    if (rc == 0)
        res->d2d_gbps = (double)bytes / median(copy_s, SPEED_REPETITIONS) / 1e9;
    return rc;
}

/* ---- the whole replay ---- */

static int setup(replay *r)
{
    const rpl_cuda_api *cu = r->cu;
    int rc;

    if ((rc = map_spans(r)) ||
        (rc = cuda_check(r, cu->cuStreamCreate(&r->stream, CU_STREAM_NON_BLOCKING),
                         "cuStreamCreate")) ||
        (rc = cuda_check(r, cu->cuEventCreate(&r->ev0, CU_EVENT_DEFAULT), "cuEventCreate")) ||
        (rc = cuda_check(r, cu->cuEventCreate(&r->ev1, CU_EVENT_DEFAULT), "cuEventCreate")) ||
        (rc = cuda_check(r, cu->cuMemAllocHost_v2(&r->bounce, BOUNCE_BYTES),
                         "cuMemAllocHost (bounce buffer)")))
        return rc;
    if (!(r->want = malloc(BOUNCE_BYTES)))
        return rpl_error_oom();
    return load_memory(r);
}

/* The code object the front end chose (res->code_object), and for --poison the captured one. */
static int load_code(replay *r)
{
    const rpl_snapshot *snap = r->snap;
    char *captured = NULL;
    int rc;

    if ((rc = read_kernarg(r)) != 0 || (rc = read_globals(r)) != 0 ||
        (rc = load_module(r, &r->run, r->res->code_object)) != 0)
        return rc;
    if (!r->o->check || !r->o->poison || !r->o->code_object)
        return 0;
    /* --poison proves itself on the captured code object, also when a candidate runs. */
    if ((rc = rpl_path_join(&captured, snap->dir, snap->code_object_file)) == 0)
        rc = load_module(r, &r->captured, captured);
    free(captured);
    return rc;
}

static void teardown(replay *r)
{
    const rpl_cuda_api *cu = r->cu;

    unload_module(r, &r->run);
    unload_module(r, &r->captured);
    if (r->pristine)
        cu->cuMemFree_v2(r->pristine);
    if (r->host_pristine && r->host_pinned)
        cu->cuMemFreeHost(r->host_pristine);
    else
        free(r->host_pristine);
    if (r->bounce)
        cu->cuMemFreeHost(r->bounce);
    if (r->ev0)
        cu->cuEventDestroy_v2(r->ev0);
    if (r->ev1)
        cu->cuEventDestroy_v2(r->ev1);
    if (r->stream)
        cu->cuStreamDestroy_v2(r->stream);
    release_spans(r);
    if (r->ctx_held)
        cu->cuDevicePrimaryCtxRelease_v2(r->dev);
    for (size_t i = 0; r->gpre && i < r->snap->nglobals; i++)
        free(r->gpre[i]);
    RPL_FREE_EACH(r->gpre, r->want, r->offset, r->kernarg, r->spans, r->poison);
}

static int describe(replay *r)
{
    char name[256] = "";

    r->cu->cuDeviceGetName(name, (int)sizeof(name) - 1, r->dev);
    r->res->device = strdup(name);
    return r->res->device ? 0 : rpl_error_oom();
}

int rpl_replay_cuda_run(rpl_replay_result *res, const rpl_snapshot *snap, const rpl_replay_opts *o)
{
    replay r;
    int rc;

    memset(&r, 0, sizeof(r));
    r.snap = snap;
    r.o = o;
    r.res = res;
    if ((rc = rpl_cuda_api_load(&r.cu)) != 0)
        return rc;
    if ((rc = open_device(&r)) == 0 && (rc = reserve(&r, &res->reserve)) == 0 &&
        (rc = open_context(&r)) == 0 && (rc = describe(&r)) == 0 && (rc = setup(&r)) == 0 &&
        (rc = load_code(&r)) == 0 && (!o->check || (rc = run_check(&r)) == 0) &&
        (rc = time_launches(&r)) == 0)
        rc = measure_copies(&r);
    teardown(&r);
    return rc;
}

int rpl_replay_cuda_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    replay r;
    int rc;

    memset(&r, 0, sizeof(r));
    memset(out, 0, sizeof(*out));
    r.snap = snap;
    if ((rc = rpl_cuda_api_load(&r.cu)) != 0)
        return rc;
    if ((rc = open_device(&r)) == 0)
        rc = reserve(&r, out);
    release_spans(&r);
    free(r.spans);
    if (r.ctx_held)
        r.cu->cuDevicePrimaryCtxRelease_v2(r.dev);
    return rc;
}

#else /* !RPL_HAVE_CUDA */

int rpl_replay_cuda_run(rpl_replay_result *res, const rpl_snapshot *snap, const rpl_replay_opts *o)
{
    (void)res;
    (void)snap;
    (void)o;
    return rpl_error_set(RPL_EENV, "CUDA replay: rocm-perf was built without CUDA headers");
}

int rpl_replay_cuda_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    (void)snap;
    memset(out, 0, sizeof(*out));
    return rpl_error_set(RPL_EENV, "CUDA replay: rocm-perf was built without CUDA headers");
}

#endif
