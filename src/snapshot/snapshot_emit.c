/* dispatch.json and memory_regions.json from snapshot metadata (the writer's half). */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/json_doc.h"
#include "snapshot_int.h"

/* Optional strings are left out when NULL. */
static void add_str(rpl_json_doc *e, cJSON *obj, const char *key, const char *v)
{
    if (v)
        rpl_json_doc_add_string(e, obj, key, v);
}

static void add_hex(rpl_json_doc *e, cJSON *obj, const char *key, uint64_t v)
{
    char buf[20];

    snap_format_hex(buf, v);
    add_str(e, obj, key, buf);
}

static void add_dim3(rpl_json_doc *e, cJSON *obj, const char *key, const uint32_t v[3])
{
    cJSON *arr = rpl_json_doc_check(e, cJSON_AddArrayToObject(obj, key));

    for (int i = 0; arr && i < 3; i++)
        if (!rpl_json_doc_push(e, arr, cJSON_CreateNumber(v[i])))
            arr = NULL;
}

static void emit_launch(rpl_json_doc *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *l = rpl_json_doc_check(e, cJSON_AddObjectToObject(doc, "launch"));

    if (!l)
        return;
    add_dim3(e, l, "grid", s->grid);
    add_dim3(e, l, "block", s->block);
    add_dim3(e, l, "cluster", s->cluster);
    rpl_json_doc_add_number(e, l, "dynamic_shared_bytes", s->dynamic_shared_bytes);
    rpl_json_doc_add_number(e, l, "static_shared_bytes", s->static_shared_bytes);
    rpl_json_doc_add_number(e, l, "private_segment_bytes", s->private_segment_bytes);
    add_hex(e, l, "kernel_object", s->kernel_object);
    if (s->setup_dims)
        rpl_json_doc_add_number(e, l, "setup_dims", s->setup_dims);
}

static void emit_kernarg(rpl_json_doc *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *k = rpl_json_doc_check(e, cJSON_AddObjectToObject(doc, "kernarg")), *params;

    if (!k)
        return;
    add_str(e, k, "file", s->kernarg_file);
    rpl_json_doc_add_number(e, k, "size", (double)s->kernarg_size);
    if (s->kernarg_align)
        rpl_json_doc_add_number(e, k, "alignment", s->kernarg_align);
    if (!(params = rpl_json_doc_check(e, cJSON_AddArrayToObject(k, "params"))))
        return;
    for (size_t i = 0; i < s->nparams; i++) {
        const rpl_snap_param *p = &s->params[i];
        cJSON *o = rpl_json_doc_push_object(e, params);

        if (!o)
            return;
        rpl_json_doc_add_number(e, o, "offset", p->offset);
        rpl_json_doc_add_number(e, o, "size", p->size);
        add_str(e, o, "type", p->type);
        rpl_json_doc_check(e, cJSON_AddBoolToObject(o, "pointer", p->pointer));
        add_str(e, o, "pointee", rpl_dtype_name(p->pointee));
    }
}

static void emit_globals(rpl_json_doc *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *arr = rpl_json_doc_check(e, cJSON_AddArrayToObject(doc, "globals"));

    for (size_t i = 0; arr && i < s->nglobals; i++) {
        const rpl_snap_global *g = &s->globals[i];
        cJSON *o = rpl_json_doc_push_object(e, arr);

        if (!o)
            return;
        add_str(e, o, "name", g->name);
        add_hex(e, o, "address", g->address);
        rpl_json_doc_add_number(e, o, "size", (double)g->size);
        add_str(e, o, "file", g->file);
        add_str(e, o, "post_file", g->post_file);
    }
}

static void emit_files(rpl_json_doc *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *arr = rpl_json_doc_check(e, cJSON_AddArrayToObject(doc, "files"));

    for (size_t i = 0; arr && i < s->nfiles; i++) {
        cJSON *o = rpl_json_doc_push_object(e, arr);

        if (!o)
            return;
        add_str(e, o, "path", s->files[i].path);
        rpl_json_doc_add_number(e, o, "size", (double)s->files[i].size);
        add_str(e, o, "sha256", s->files[i].sha256);
    }
}

int snap_dispatch_json(cJSON **out, const rpl_snapshot *s)
{
    rpl_json_doc e = {false};
    cJSON *doc = rpl_json_doc_begin(&e, RPL_SNAPSHOT_SCHEMA_VERSION, out), *dev, *k, *cap;

    if (!doc)
        return rpl_error_oom();
    add_str(&e, doc, "backend", s->backend == RPL_SNAP_HSA ? "hsa" : "cuda");
    add_str(&e, doc, "arch", s->arch);
    add_str(&e, doc, "target", s->target);
    if ((dev = rpl_json_doc_check(&e, cJSON_AddObjectToObject(doc, "device"))) != NULL) {
        add_str(&e, dev, "name", s->device_name);
        add_str(&e, dev, "driver_version", s->driver_version);
        add_str(&e, dev, "runtime_version", s->runtime_version);
    }
    add_str(&e, doc, "tool_version", s->tool_version);
    if ((k = rpl_json_doc_check(&e, cJSON_AddObjectToObject(doc, "kernel"))) != NULL) {
        add_str(&e, k, "mangled_name", s->mangled_name);
        add_str(&e, k, "demangled_name", s->demangled_name);
        add_str(&e, k, "code_object", s->code_object_file);
        add_str(&e, k, "symbol", s->code_object_symbol);
    }
    emit_launch(&e, doc, s);
    emit_kernarg(&e, doc, s);
    if ((cap = rpl_json_doc_check(&e, cJSON_AddObjectToObject(doc, "capture"))) != NULL) {
        rpl_json_doc_add_number(&e, cap, "dispatch_index", (double)s->dispatch_index);
        if (s->capture_pid > 0)
            rpl_json_doc_add_number(&e, cap, "pid", (double)s->capture_pid);
        rpl_json_doc_check(&e, cJSON_AddBoolToObject(cap, "aslr_disabled", s->aslr_disabled));
        add_str(&e, cap, "captured_at", s->captured_at);
    }
    emit_globals(&e, doc, s);
    emit_files(&e, doc, s);
    return rpl_json_doc_finish(&e, doc, out);
}

int snap_regions_json(cJSON **out, const rpl_snapshot *s)
{
    rpl_json_doc e = {false};
    cJSON *doc = rpl_json_doc_begin(&e, RPL_SNAPSHOT_SCHEMA_VERSION, out), *arr;

    if (!doc)
        return rpl_error_oom();
    arr = rpl_json_doc_check(&e, cJSON_AddArrayToObject(doc, "regions"));
    for (size_t i = 0; arr && i < s->nregions; i++) {
        const rpl_snap_region *r = &s->regions[i];
        cJSON *o = rpl_json_doc_push_object(&e, arr);

        if (!o)
            break;
        add_hex(&e, o, "base", r->base);
        rpl_json_doc_add_number(&e, o, "size", (double)r->size);
        add_str(&e, o, "kind", r->kind);
        add_str(&e, o, "file", r->file);
        add_str(&e, o, "post_file", r->post_file);
        add_str(&e, o, "dtype", rpl_dtype_name(r->dtype));
        rpl_json_doc_check(&e, cJSON_AddBoolToObject(o, "written", r->written));
    }
    return rpl_json_doc_finish(&e, doc, out);
}
