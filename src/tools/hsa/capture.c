/*
 * One capture (tool_int.h), on the thread that submitted the dispatch,
 * inside the queue's intercept handler, with the tool's lock held:
 *
 *  1. drain: a BARRIER_AND packet with system-scope fences and a signal of
 *     our own goes through `writer`; once it completes, every earlier
 *     packet of this queue has finished and its writes are visible;
 *  2. kernarg segment, code object, and the pre-dispatch image of every
 *     tracked span and module variable go into the snapshot;
 *  3. the dispatch goes on with our completion signal (release fence
 *     raised to system scope, so its writes reach memory before we copy);
 *  4. once it completes, the post-dispatch images;
 *  5. the application's own completion signal, if it had one, is fired
 *     exactly once by a BARRIER_AND packet that carries it, as
 *     rocprofiler-sdk does, so its waiters wake only after step 4;
 *  6. commit: the snapshot directory appears whole or not at all.
 *
 * A failure before step 3 forwards the dispatch untouched; after it, the
 * application still gets its signal.  Either way the application runs on.
 * Other queues are not drained: work that another queue runs at the same
 * time can change memory while it is copied (docs/USER_GUIDE.md).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/hsa.h"
#include "rpl/version.h"
#include "tool_int.h"

/* A drain that takes longer gives up (rocprofiler-sdk's kernel replay allows 60 s too). */
#define DRAIN_TIMEOUT_S 60.0

typedef struct capture {
    const ch_queue *q;
    const ch_kernel *k;
    rpl_aql_dispatch d;
    rpl_snapshot *meta;
    rpl_snapshot_writer *w;
    ch_bounce bounce;
    const ch_code_object *code;
    rpl_codeobj_set *codeobj;
    unsigned char *kernarg;          /* the kernarg segment, meta->kernarg_size bytes */
    unsigned char (*pre_digest)[32]; /* per region */
} capture;

int ch_signal_wait(hsa_signal_t signal, double timeout_s)
{
    double start = rpl_clock_mono_s();
    uint64_t hint = ch_g.timestamp_hz / 10; /* wake up every 100 ms to check the clock */

    for (;;) {
        if (ch_g.core.hsa_signal_wait_scacquire_fn(signal, HSA_SIGNAL_CONDITION_LT, 1, hint,
                                                   HSA_WAIT_STATE_BLOCKED) < 1)
            return 0;
        if (timeout_s > 0 && rpl_clock_mono_s() - start > timeout_s)
            return rpl_error_set(RPL_ETIMEOUT, "no completion after %.0f s", timeout_s);
    }
}

/* Step 1.  RPL_ETIMEOUT leaves the barrier queued: its signal must then outlive us. */
static int drain(rpl_hsa_packet_writer writer, hsa_signal_t own)
{
    rpl_aql_header h = {RPL_AQL_BARRIER_AND, true, RPL_AQL_SCOPE_SYSTEM, RPL_AQL_SCOPE_SYSTEM};
    unsigned char pkt[RPL_AQL_PACKET_BYTES];
    int rc;

    rc = rpl_aql_barrier_and_encode(pkt, h, NULL, 0, own.handle);
    if (rc)
        return rc;
    writer(pkt, 1);
    rc = ch_signal_wait(own, DRAIN_TIMEOUT_S);
    if (rc) {
        rpl_error_prefix("draining the queue");
        return rc;
    }
    ch_g.core.hsa_signal_store_screlease_fn(own, 1);
    return 0;
}

static char *now_utc(void)
{
    char buf[32];
    time_t t = time(NULL);
    struct tm tm;

    if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
        return strdup("1970-01-01T00:00:00Z");
    return strdup(buf);
}

/* Launch geometry, names and provenance from the packet and the kernel symbol. */
static int describe(capture *c, uint64_t ordinal)
{
    rpl_snapshot *m = c->meta;
    int persona = personality(0xffffffff), i, rc;

    m->backend = RPL_SNAP_HSA;
    rc = ch_device_describe(m, c->q->agent);
    if (rc)
        return rc;
    m->tool_version = strdup(RPL_VERSION_STRING);
    m->mangled_name = strdup(c->k->name);
    m->demangled_name = strdup(c->k->demangled ? c->k->demangled : c->k->name);
    m->code_object_file = strdup("kernel.hsaco");
    m->code_object_symbol = strdup(c->k->symbol);
    m->kernarg_file = strdup("kernarg.bin");
    m->captured_at = now_utc();
    if (!m->tool_version || !m->mangled_name || !m->demangled_name || !m->code_object_file ||
        !m->code_object_symbol || !m->kernarg_file || !m->captured_at)
        return rpl_error_oom();
    for (i = 0; i < 3; i++) {
        /* The packet processor ignores sizes of unused dimensions; the snapshot says 1. */
        m->grid[i] = i < c->d.dims ? c->d.grid[i] : 1;
        m->block[i] = i < c->d.dims ? c->d.workgroup[i] : 1;
    }
    m->setup_dims = c->d.dims;
    m->dynamic_shared_bytes = c->d.group_segment_size;
    m->static_shared_bytes = c->k->group_segment_size;
    m->private_segment_bytes = c->d.private_segment_size;
    m->kernel_object = c->d.kernel_object;
    m->dispatch_index = ordinal;
    m->capture_pid = getpid();
    m->aslr_disabled = persona != -1 && (persona & ADDR_NO_RANDOMIZE);
    return 0;
}

/* Code object bytes and metadata; the kernarg size and parameter layout. */
static int code_and_kernarg(capture *c)
{
    const rpl_kernel_info *info = NULL;
    uint32_t size = c->k->kernarg_size, align = c->k->kernarg_align, meta_size = 0, meta_align = 0;
    int rc;

    c->code = ch_kernels_code_at(&ch_g.kernels, c->k->executable, c->k->kernel_object);
    if (!c->code || !c->code->bytes)
        return rpl_error_set(RPL_ENOTFOUND, "the code object of '%s' was not kept", c->k->name);
    rc = rpl_codeobj_set_new(&c->codeobj);
    if (rc == 0)
        rc = rpl_codeobj_read_buffer(c->codeobj, c->code->bytes, c->code->len, "kernel.hsaco");
    if (rc)
        return rc;
    if (ch_kernarg_from_metadata(&meta_size, &meta_align, &info, c->codeobj, c->k->name) == 0) {
        /* Tensile and assembly kernels report 0 through the symbol: the metadata knows. */
        if (size == 0)
            size = meta_size;
        if (align == 0)
            align = meta_align;
        rc = ch_params_build(&c->meta->params, &c->meta->nparams, info, c->meta->demangled_name);
        if (rc)
            return rc;
    } else if (size == 0) {
        return rpl_error_set(RPL_ENOTFOUND,
                             "'%s': the symbol reports no kernarg size and the code object "
                             "metadata does not describe the kernel",
                             c->k->name);
    }
    c->meta->kernarg_size = size;
    c->meta->kernarg_align = align && (align & (align - 1)) == 0 ? align : 0;
    rc = rpl_snapshot_writer_add(c->w, "kernel.hsaco", c->code->bytes, c->code->len);
    if (rc)
        return rc;
    c->kernarg = malloc(size ? size : 1);
    if (!c->kernarg)
        return rpl_error_oom();
    rc = ch_device_read(&c->bounce, c->kernarg, c->d.kernarg_address, size);
    if (rc == 0)
        rc = rpl_snapshot_writer_add(c->w, "kernarg.bin", c->kernarg, size);
    return rc;
}

/* The element type of a region: that of the first pointer parameter pointing into it. */
static rpl_dtype region_dtype(const capture *c, uint64_t base, uint64_t size)
{
    size_t i;

    for (i = 0; i < c->meta->nparams; i++) {
        const rpl_snap_param *p = &c->meta->params[i];
        uint64_t value;

        if (!p->pointer || p->size != 8 || p->offset > c->meta->kernarg_size - 8)
            continue;
        memcpy(&value, c->kernarg + p->offset, 8);
        if (value >= base && value - base < size)
            return p->pointee;
    }
    return RPL_DTYPE_BYTES;
}

/* Every tracked span, before the dispatch. */
static int regions_pre(capture *c)
{
    ch_alloc *spans = NULL;
    size_t n = 0, i;
    int rc;

    rc = ch_regions_spans(&ch_g.regions, &spans, &n);
    if (rc)
        return rc;
    c->meta->regions = calloc(n ? n : 1, sizeof(*c->meta->regions));
    c->pre_digest = calloc(n ? n : 1, sizeof(*c->pre_digest));
    if (!c->meta->regions || !c->pre_digest) {
        free(spans);
        return rpl_error_oom();
    }
    for (i = 0; i < n && rc == 0; i++) {
        rpl_snap_region *r = &c->meta->regions[i];

        c->meta->nregions = i + 1;
        r->base = spans[i].base;
        r->size = spans[i].size;
        r->dtype = region_dtype(c, r->base, r->size);
        if (!(r->kind = strdup(ch_kind_name(spans[i].kind))))
            rc = rpl_error_oom();
        if (rc == 0)
            rc = rpl_snapshot_region_path(&r->file, r->base, false);
        if (rc == 0)
            rc = rpl_snapshot_region_path(&r->post_file, r->base, true);
        if (rc == 0)
            rc = ch_image_write(c->w, &c->bounce, r->file, r->base, r->size, c->pre_digest[i]);
    }
    free(spans);
    return rc;
}

typedef struct var_scan {
    capture *c;
    int rc;
} var_scan;

static hsa_status_t add_variable(hsa_executable_t exe, hsa_agent_t agent,
                                 hsa_executable_symbol_t sym, void *data)
{
    var_scan *v = data;
    rpl_snapshot *m = v->c->meta;
    hsa_symbol_kind_t kind;
    uint64_t address = 0;
    uint32_t size = 0, len = 0;
    rpl_snap_global *g, *grown;

    if (ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) !=
            HSA_STATUS_SUCCESS ||
        kind != HSA_SYMBOL_KIND_VARIABLE ||
        ch_g.core.hsa_executable_symbol_get_info_fn(
            sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, &address) != HSA_STATUS_SUCCESS ||
        ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE,
                                                    &size) != HSA_STATUS_SUCCESS ||
        ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH,
                                                    &len) != HSA_STATUS_SUCCESS ||
        address == 0 || size == 0)
        return HSA_STATUS_SUCCESS;
    grown = realloc(m->globals, (m->nglobals + 1) * sizeof(*grown));
    if (!grown) {
        v->rc = rpl_error_oom();
        return HSA_STATUS_INFO_BREAK;
    }
    m->globals = grown;
    g = &m->globals[m->nglobals++];
    memset(g, 0, sizeof(*g));
    g->address = address;
    g->size = size;
    g->name = calloc(1, (size_t)len + 1);
    if (!g->name ||
        ch_g.core.hsa_executable_symbol_get_info_fn(sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                                    g->name) != HSA_STATUS_SUCCESS ||
        rpl_snapshot_global_path(&g->file, m->nglobals - 1, false) ||
        rpl_snapshot_global_path(&g->post_file, m->nglobals - 1, true)) {
        v->rc = g->name && g->file && g->post_file ? rpl_error_set(RPL_ERROR, "variable name")
                                                   : rpl_error_oom();
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

/*
 * Module variables (__device__, __constant__) of the kernel's executable:
 * the loader places them itself, out of the allocation hooks' sight.
 */
static int globals_image(capture *c, bool post)
{
    size_t i;
    int rc = 0;

    if (!post) {
        var_scan v = {c, 0};
        hsa_executable_t exe = {c->k->executable};
        hsa_agent_t agent = {c->k->agent};

        ch_g.core.hsa_executable_iterate_agent_symbols_fn(exe, agent, add_variable, &v);
        if (v.rc)
            return v.rc;
    }
    for (i = 0; i < c->meta->nglobals && rc == 0; i++) {
        const rpl_snap_global *g = &c->meta->globals[i];

        rc = ch_image_write(c->w, &c->bounce, post ? g->post_file : g->file, g->address, g->size,
                            NULL);
    }
    return rc;
}

static int regions_post(capture *c)
{
    unsigned char digest[32];
    size_t i;
    int rc = 0;

    for (i = 0; i < c->meta->nregions && rc == 0; i++) {
        rpl_snap_region *r = &c->meta->regions[i];

        rc = ch_image_write(c->w, &c->bounce, r->post_file, r->base, r->size, digest);
        r->written = memcmp(digest, c->pre_digest[i], sizeof(digest)) != 0;
    }
    return rc;
}

/* Steps 2 before the dispatch runs. */
static int prepare(capture *c, uint64_t ordinal)
{
    int rc;

    c->meta = calloc(1, sizeof(*c->meta));
    if (!c->meta)
        return rpl_error_oom();
    rc = describe(c, ordinal);
    if (rc == 0)
        rc = ch_bounce_init(&c->bounce, c->q->agent);
    if (rc == 0)
        rc = rpl_snapshot_writer_begin(&c->w, ch_g.cfg.dir);
    if (rc == 0)
        rc = code_and_kernarg(c);
    if (rc == 0)
        rc = regions_pre(c);
    if (rc == 0)
        rc = globals_image(c, false);
    return rc;
}

static void cleanup(capture *c)
{
    rpl_snapshot_writer_abort(c->w);
    rpl_snapshot_free(c->meta);
    rpl_codeobj_set_free(c->codeobj);
    ch_bounce_release(&c->bounce);
    free(c->kernarg);
    free(c->pre_digest);
    memset(c, 0, sizeof(*c));
}

/* Step 3: the dispatch as the application wrote it, completing on `own`. */
static void forward(const capture *c, rpl_hsa_packet_writer writer, hsa_signal_t own)
{
    rpl_aql_dispatch d = c->d;
    unsigned char pkt[RPL_AQL_PACKET_BYTES];

    d.completion_signal = own.handle;
    d.header.release = RPL_AQL_SCOPE_SYSTEM;
    rpl_aql_dispatch_encode(pkt, &d); /* cannot fail: d was decoded from a valid packet */
    writer(pkt, 1);
}

/* Step 5: the application's completion signal, decremented once by the packet processor. */
static void fire_app_signal(const capture *c, rpl_hsa_packet_writer writer)
{
    rpl_aql_header h = {RPL_AQL_BARRIER_AND, true, RPL_AQL_SCOPE_NONE, RPL_AQL_SCOPE_SYSTEM};
    unsigned char pkt[RPL_AQL_PACKET_BYTES];

    if (c->d.completion_signal == 0)
        return;
    rpl_aql_barrier_and_encode(pkt, h, NULL, 0, c->d.completion_signal);
    writer(pkt, 1);
}

void ch_capture(const ch_queue *q, const void *packet, const ch_kernel *k, uint64_t ordinal,
                rpl_hsa_packet_writer writer)
{
    capture c;
    hsa_signal_t own = {0};
    bool barrier_pending = false; /* a drain that timed out still holds `own` */
    int rc;

    memset(&c, 0, sizeof(c));
    c.q = q;
    c.k = k;
    rc = rpl_aql_dispatch_decode(&c.d, packet, RPL_AQL_PACKET_BYTES);
    if (rc == 0 && ch_g.core.hsa_signal_create_fn(1, 0, NULL, &own) != HSA_STATUS_SUCCESS)
        rc = rpl_error_set(RPL_ERROR, "cannot create a signal");
    if (rc == 0) {
        rc = drain(writer, own);
        barrier_pending = rc == RPL_ETIMEOUT;
    }
    if (rc == 0)
        rc = prepare(&c, ordinal);
    if (rc) {
        ch_say("%s; dispatch %llu of %s not captured", rpl_error_last()->message,
               (unsigned long long)ordinal, k->name);
        cleanup(&c);
        writer(packet, 1);
        if (own.handle && !barrier_pending)
            ch_g.core.hsa_signal_destroy_fn(own);
        return;
    }
    forward(&c, writer, own);
    ch_signal_wait(own, 0);
    rc = regions_post(&c);
    if (rc == 0)
        rc = globals_image(&c, true);
    fire_app_signal(&c, writer);
    if (rc == 0) {
        rc = rpl_snapshot_writer_commit(c.w, c.meta);
        c.w = NULL; /* commit frees the writer, on failure too */
    }
    if (rc == 0)
        ch_say("wrote %s (%s, dispatch %llu, %zu regions)", ch_g.cfg.dir, c.meta->demangled_name,
               (unsigned long long)ordinal, c.meta->nregions);
    else
        ch_say("%s; no snapshot written", rpl_error_last()->message);
    cleanup(&c);
    ch_g.core.hsa_signal_destroy_fn(own);
}
