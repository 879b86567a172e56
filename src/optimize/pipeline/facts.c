/*
 * What the pipeline measures of a kernel before its first candidate
 * (rpl/pipeline.h, rpl_pipe_kernel_facts): the other shapes the program
 * launches it with, the bytes the captured dispatch changed, the static
 * figures of the reference's code object, and one counter pass over the
 * replay of the captured dispatch (not the whole application), from which
 * the roofline time and the physical floor follow.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_int.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/snapshot.h"

/* A scalar parameter's value as its C type reads ("4096", "2.5"); bytes in hex otherwise. */
static int scalar_text(rpl_strbuf *sb, const rpl_snap_param *pa, const unsigned char *v)
{
    const char *t = pa->type ? pa->type : "";
    bool is_unsigned = strstr(t, "unsigned") || strstr(t, "size_t") || strstr(t, "uint");

    if (pa->size == 4 && strstr(t, "float")) {
        float f;
        memcpy(&f, v, 4);
        return rpl_strbuf_printf(sb, "%g", (double)f);
    }
    if (pa->size == 8 && strstr(t, "double")) {
        double d;
        memcpy(&d, v, 8);
        return rpl_strbuf_printf(sb, "%g", d);
    }
    if (pa->size == 1 || pa->size == 2 || pa->size == 4 || pa->size == 8) {
        uint64_t u = 0;
        memcpy(&u, v, pa->size); /* little-endian devices */
        if (!is_unsigned && pa->size < 8 && (u >> (8 * pa->size - 1)) & 1)
            u |= ~0ull << (8 * pa->size);
        return is_unsigned ? rpl_strbuf_printf(sb, "%llu", (unsigned long long)u)
                           : rpl_strbuf_printf(sb, "%lld", (long long)u);
    }
    for (uint32_t i = 0; i < pa->size && i < 16; i++)
        if (rpl_strbuf_printf(sb, "%s%02x", i ? "" : "0x", v[i]) != 0)
            return RPL_ENOMEM;
    return 0;
}

/*
 * A snapshot's shape: *key (geometry and the bytes of every scalar parameter: pointers differ
 * from run to run and are left out) and *text ("grid (4096, 1, 1) x block (256, 1, 1); param 3
 * (int) = 1048576").  RPL_EINPUT for a snapshot that does not read.
 */
static int shape_of(const char *dir, char **key, char **text)
{
    rpl_snapshot *s = NULL;
    rpl_strbuf k = RPL_STRBUF_INIT, t = RPL_STRBUF_INIT;
    unsigned char *args = NULL;
    size_t len = 0;
    char *path = NULL;
    int rc = rpl_snapshot_open(&s, dir);

    if (rc == 0 && (rc = rpl_path_join(&path, dir, s->kernarg_file)) == 0)
        rc = rpl_file_read_all(path, 16u << 20, (char **)&args, &len);
    if (rc == 0)
        rc = rpl_strbuf_printf(&t, "grid (%u, %u, %u) x block (%u, %u, %u)", s->grid[0], s->grid[1],
                               s->grid[2], s->block[0], s->block[1], s->block[2]);
    if (rc == 0 && s->dynamic_shared_bytes)
        rc = rpl_strbuf_printf(&t, ", %u bytes dynamic shared", s->dynamic_shared_bytes);
    if (rc == 0)
        rc = rpl_strbuf_printf(&k, "%s|", t.ptr);
    for (size_t i = 0; rc == 0 && i < s->nparams; i++) {
        const rpl_snap_param *pa = &s->params[i];
        if (pa->pointer || (uint64_t)pa->offset + pa->size > len)
            continue;
        for (uint32_t b = 0; rc == 0 && b < pa->size; b++)
            rc = rpl_strbuf_printf(&k, "%02x", args[pa->offset + b]);
        if (rc == 0)
            rc = rpl_strbuf_printf(&k, "|");
        if (rc == 0)
            rc = rpl_strbuf_printf(&t, "; param %zu (%s) = ", i + 1, pa->type ? pa->type : "?");
        if (rc == 0)
            rc = scalar_text(&t, pa, args + pa->offset);
    }
    if (rc == 0) {
        *key = rpl_strbuf_detach(&k);
        *text = rpl_strbuf_detach(&t);
        if (!*key || !*text)
            rc = rpl_error_oom();
    }
    rpl_strbuf_release(&k);
    rpl_strbuf_release(&t);
    rpl_snapshot_free(s);
    free(args);
    free(path);
    return rc;
}

/* Bytes that differ between the pre and post images of the written regions. */
static int written_bytes(const char *dir, double *out)
{
    rpl_snapshot *s = NULL;
    unsigned char a[65536], b[65536];
    double n = 0;
    int rc = rpl_snapshot_open(&s, dir);

    for (size_t i = 0; rc == 0 && i < s->nregions; i++) {
        FILE *pre = NULL, *post = NULL;
        size_t ra, rb;
        if (!s->regions[i].written || !s->regions[i].post_file)
            continue;
        if ((rc = rpl_snapshot_region_open(&pre, s, i, false)) == 0 &&
            (rc = rpl_snapshot_region_open(&post, s, i, true)) == 0)
            while ((ra = fread(a, 1, sizeof(a), pre)) > 0 &&
                   (rb = fread(b, 1, sizeof(b), post)) > 0)
                for (size_t j = 0; j < ra && j < rb; j++)
                    n += a[j] != b[j];
        if (pre)
            fclose(pre);
        if (post)
            fclose(post);
    }
    rpl_snapshot_free(s);
    *out = n;
    return rc;
}

/*
 * Whether the original replays on the snapshot in `dir` (a later dispatch's device addresses
 * may be taken in a replay process): 0, or RPL_ENOTFOUND (no error set) with a warning.
 */
static int replays(rpl_pipe *p, const pipe_kernel *k, const char *dir, unsigned dispatch)
{
    pipe_kernel sk = *k;
    pipe_replay_failure fail;
    char *failure;
    cJSON *doc = NULL;
    int rc;

    sk.snapshot = (char *)dir;
    /* Checked as candidates will be: the original must pass on it. */
    rc = pipe_replay(p, &sk, k->orig_co, true, 1, &doc, &fail);
    failure = fail.evidence;
    if (rc == RPL_ENOMEM || rpl_interrupted()) {
        cJSON_Delete(doc);
        free(failure);
        return rc == RPL_ENOMEM ? rc : rpl_interrupt_check();
    }
    if (rc == 0 && !failure &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(doc, "check"), "passed")))
        rc = pipe_set(&failure, "its own replay check fails");
    if (rc != 0 || failure) {
        rpl_log_warn("%s: dispatch %u is not used as another shape: the original does not "
                     "replay on it (%s)",
                     k->display, dispatch, failure ? failure : rpl_error_last()->message);
        rpl_error_clear();
        free(failure);
        cJSON_Delete(doc);
        return RPL_ENOTFOUND;
    }
    cJSON_Delete(doc);
    return 0;
}

int pipe_shapes_capture(rpl_pipe *p, pipe_kernel *k)
{
    unsigned want = p->opts.shapes ? p->opts.shapes : RPL_PIPE_DEFAULT_SHAPES;
    char **keys = NULL, *key = NULL, *text = NULL, *dir = NULL;
    size_t nkeys = 0, ntext = 0, nshapes = 0, nprobes = 0;
    unsigned *probes = NULL, beyond = UINT_MAX;
    double t0 = rpl_clock_mono_s();
    int rc;

    k->written_bytes = NAN;
    k->nshapes = 1;
    if ((rc = shape_of(k->snapshot, &key, &text)) != 0) {
        rpl_log_warn("%s: the snapshot's shape cannot be read (%s): one shape only", k->display,
                     rpl_error_last()->message);
        rpl_error_clear();
        return 0;
    }
    if (written_bytes(k->snapshot, &k->written_bytes) != 0) {
        k->written_bytes = NAN;
        rpl_error_clear();
    }
    rc = pipe_argv_push(&keys, &nkeys, key);
    if (rc == 0)
        rc = pipe_argv_push(&k->shape_text, &ntext, text);
    free(key);
    free(text);
    if (rc == 0 && want > 1)
        rc = pipe_shape_probes_of_profile(p, k, &probes, &nprobes);
    for (size_t i = 0; rc == 0 && nkeys < want && i < nprobes; i++) {
        bool seen = false;
        key = text = NULL;
        if (probes[i] >= beyond)
            continue;
        if ((rc = pipe_set(&dir, "%s-shape%zu", k->snapshot, nkeys + 1)) != 0)
            break;
        pipe_progress(p, NULL, RPL_PIPE_STEP_REPLAY, "capturing dispatch %u of %s for its shape",
                      probes[i], k->display);
        rc = pipe_capture_dispatch(p, k, probes[i], dir);
        if (rc == RPL_ENOTFOUND) { /* the program makes fewer dispatches */
            rc = 0;
            beyond = probes[i];
            continue;
        }
        if (rc != 0 && rc != RPL_ENOMEM && !rpl_interrupted()) {
            rpl_log_warn("%s: no more shapes: %s", k->display, rpl_error_last()->message);
            rpl_error_clear();
            rc = rpl_remove_tree(dir);
            break;
        }
        if (rc == 0 && shape_of(dir, &key, &text) != 0) {
            rpl_error_clear();
            rc = rpl_remove_tree(dir);
            continue;
        }
        for (size_t j = 0; rc == 0 && j < nkeys; j++)
            seen |= strcmp(keys[j], key) == 0;
        /* A shape seen already, or one the original does not replay on, is not kept. */
        if (rc == 0 && (seen || (rc = replays(p, k, dir, probes[i])) == RPL_ENOTFOUND))
            rc = rpl_remove_tree(dir);
        else if (rc == 0 && (rc = pipe_argv_push(&keys, &nkeys, key)) == 0 &&
                 (rc = pipe_argv_push(&k->shape_text, &ntext, text)) == 0)
            rc = pipe_argv_push(&k->shapes, &nshapes, dir);
        free(key);
        free(text);
    }
    k->nshapes = nkeys;
    k->shapes_s = rpl_clock_mono_s() - t0;
    for (size_t s = 0; rc == 0 && s < ntext; s++)
        rc = pipe_set(&k->shapes_joined, "%s%s- shape %zu: %s%s", s ? k->shapes_joined : "",
                      s ? "\n" : "", s + 1, k->shape_text[s], s ? "" : " (timed)");
    if (rc == 0 && want > 1 && nkeys < want)
        rpl_log_info("%s: %zu distinct shape%s among the dispatches probed (%u wanted)", k->display,
                     nkeys, nkeys == 1 ? "" : "s", want);
    rpl_log_info("%s: %zu shape%s, %.1f s to find the others", k->display, nkeys,
                 nkeys == 1 ? "" : "s", k->shapes_s);
    pipe_argv_free(keys);
    free(probes);
    free(dir);
    return rc;
}

/* The roofline.json entry of the kernel: its mangled name, else the one of most time. */
static const cJSON *roofline_entry(const cJSON *doc, const pipe_kernel *k)
{
    const cJSON *e, *best = NULL;
    double bt = -1, t;

    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        const char *m = NULL;
        if (rpl_json_get_string(e, "mangled", &m) == 0 && k->mangled[0] &&
            strcmp(m, k->mangled) == 0)
            return e;
        if (rpl_json_get_number(e, "time_ns", &t) == 0 && t > bt) {
            bt = t;
            best = e;
        }
    }
    rpl_error_clear();
    return best;
}

int pipe_counter_figures(const pipe_kernel *k, const char *dir, double *flops, double *bytes,
                         double *peak_gbps, double *peak_gflops, char **why)
{
    const cJSON *e, *roof;
    char *path = NULL;
    cJSON *doc = NULL;
    double n = 0;
    int rc;

    *flops = *bytes = *peak_gbps = *peak_gflops = NAN;
    *why = NULL;
    if ((rc = pipe_set(&path, "%s/roofline.json", dir)) != 0)
        return rc;
    if (rpl_json_parse_file(&doc, path, 256u << 20) != 0) {
        rc = pipe_set(why, "the counter pass wrote no readable roofline.json: %s",
                      rpl_error_last()->message);
        rpl_error_clear();
    } else if (!(e = roofline_entry(doc, k))) {
        rc = pipe_set(why, "the counter pass recorded no dispatch of %s", k->display);
    } else {
        const char *reason = NULL;
        roof = cJSON_GetObjectItemCaseSensitive(e, "roofline");
        rpl_json_get_number(e, "dispatches_with_counters", &n);
        if (n >= 1) {
            rpl_json_get_number(e, "flops", flops);
            rpl_json_get_number(e, "bytes", bytes);
            *flops /= n;
            *bytes /= n;
        }
        rpl_json_get_number(roof, "peak_gbps", peak_gbps);
        rpl_json_get_number(roof, "peak_gflops", peak_gflops);
        rpl_json_get_string(e, "reason", &reason);
        rpl_error_clear();
        if (!(n >= 1) || !(*bytes >= 0) || !(*peak_gbps > 0))
            rc = pipe_set(why, "the counter pass has no counters for %s%s%s", k->display,
                          reason ? ": " : "", reason ? reason : "");
    }
    cJSON_Delete(doc);
    free(path);
    return rc;
}

/* The resources fact: registers, spills, LDS, scratch, occupancy of the reference's code
   object. */
static int resources_text(pipe_kernel *k)
{
    rpl_static_kernel *all = NULL;
    const rpl_static_kernel *o;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t n = 0;
    int rc = pipe_statics(&all, &n, &o, k->orig_co, k);

    free(k->resources);
    free(k->resources_why);
    k->resources = k->resources_why = NULL;
    if (rc != 0 && rc != RPL_ENOMEM) {
        rc = pipe_set(&k->resources_why, "the code object cannot be read: %s",
                      rpl_error_last()->message);
        rpl_error_clear();
        return rc;
    }
    /* Figures the code object does not give (SGPRs on NVIDIA) are -1: left out. */
    if (rc == 0)
        rc = rpl_strbuf_printf(&sb, "- registers per thread: %lld%s", (long long)o->vgpr,
                               o->sgpr >= 0 ? " VGPRs" : "");
    if (rc == 0 && o->sgpr >= 0)
        rc = rpl_strbuf_printf(&sb, ", %lld SGPRs", (long long)o->sgpr);
    if (rc == 0 && o->spills >= 0)
        rc = rpl_strbuf_printf(&sb, "; spills %lld", (long long)o->spills);
    if (rc == 0)
        rc =
            rpl_strbuf_printf(&sb, "\n- LDS/shared per block: %lld bytes", (long long)o->lds_bytes);
    if (rc == 0 && o->scratch_bytes >= 0)
        rc =
            rpl_strbuf_printf(&sb, "; scratch per thread: %lld bytes", (long long)o->scratch_bytes);
    if (rc == 0)
        rc = rpl_strbuf_putc(&sb, '\n');
    if (rc == 0 && o->occupancy >= 0)
        rc = rpl_strbuf_printf(&sb, "- occupancy: %lld %s at block size %u, limited by %s\n",
                               (long long)o->occupancy, o->occ_unit ? o->occ_unit : "", k->block,
                               o->limiter ? o->limiter : "?");
    if (rc == 0 && sb.len) {
        sb.ptr[--sb.len] = '\0';
        k->resources = rpl_strbuf_detach(&sb);
        rc = k->resources ? 0 : rpl_error_oom();
    }
    rpl_strbuf_release(&sb);
    rpl_static_kernels_free(all, n);
    return rc;
}

int pipe_kernel_measure(rpl_pipe *p, pipe_kernel *k)
{
    char *dir = NULL;
    const char *base = strrchr(k->snapshot, '/');
    double t0 = rpl_clock_mono_s();
    int rc;

    k->flops = k->bytes = k->peak_gbps = k->peak_gflops = k->roof_ns = k->floor_ns = NAN;
    free(k->counters_dir);
    free(k->counters_why);
    k->counters_dir = k->counters_why = NULL;
    if ((rc = resources_text(k)) != 0)
        return rc;
    if (p->opts.no_counters)
        return pipe_set(&k->counters_why, "the counter pass is off (--no-counters)");
    if ((rc = pipe_set(&dir, "%s/counters/%s-%zu", p->artifacts, base ? base + 1 : k->snapshot,
                       p->noutcomes)) != 0)
        return rc;
    pipe_progress(p, NULL, RPL_PIPE_STEP_REPLAY, "counter pass over the replay of %s", k->display);
    if ((rc = pipe_counter_pass(p, k, k->orig_co, dir, &k->counters_why)) == 0 && !k->counters_why)
        rc = pipe_counter_figures(k, dir, &k->flops, &k->bytes, &k->peak_gbps, &k->peak_gflops,
                                  &k->counters_why);
    k->counters_s = rpl_clock_mono_s() - t0;
    rpl_log_info("%s: counter pass %.1f s", k->display, k->counters_s);
    if (rc == 0 && !k->counters_why) {
        double fl = k->peak_gflops > 0 && k->flops >= 0 ? k->flops / k->peak_gflops : 0;
        /* GB/s is bytes per ns; GFLOP/s FLOP per ns. */
        k->roof_ns = fmax(k->bytes / k->peak_gbps, fl);
        if (k->written_bytes >= 0)
            k->floor_ns = fmax(k->written_bytes / k->peak_gbps, fl);
        k->counters_dir = dir;
        dir = NULL;
    } else if (rc == 0) {
        rpl_log_warn("%s: %s; no roofline facts and no physical floor", k->display,
                     k->counters_why);
    }
    free(dir);
    return rc;
}

void pipe_kernel_facts_release(pipe_kernel *k)
{
    pipe_argv_free(k->shapes);
    pipe_argv_free(k->shape_text);
    free(k->resources);
    free(k->resources_why);
    free(k->counters_dir);
    free(k->counters_why);
    free(k->shapes_joined);
    free(k->demangled);
    k->shapes_joined = k->demangled = NULL;
    k->shapes = k->shape_text = NULL;
    k->resources = k->resources_why = k->counters_dir = k->counters_why = NULL;
}

int rpl_pipe_kernel_facts(const rpl_pipe *p, const char *kernel, rpl_pipe_facts *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < p->nkernels; i++) {
        const pipe_kernel *k = &p->kernels[i];
        if (strcmp(k->name, kernel) != 0 && strcmp(k->display, kernel) != 0)
            continue;
        out->arch = k->arch;
        out->resources = k->resources;
        out->resources_why = k->resources_why;
        out->counters_dir = k->counters_dir;
        out->counters_why = k->counters_why;
        out->flops = k->flops;
        out->bytes = k->bytes;
        out->written_bytes = k->written_bytes;
        out->peak_gbps = k->peak_gbps;
        out->peak_gflops = k->peak_gflops;
        out->roof_ns = k->roof_ns;
        out->floor_ns = k->floor_ns;
        out->nshapes = k->nshapes;
        out->shapes = k->shapes_joined;
        return 0;
    }
    return rpl_error_set(RPL_ENOTFOUND, "kernel %s was not prepared", kernel);
}
