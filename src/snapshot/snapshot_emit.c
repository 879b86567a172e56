/* dispatch.json and memory_regions.json from snapshot metadata (the writer's half). */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "snapshot_int.h"

/* cJSON adders report allocation failure as NULL; `ok` collects them. */
typedef struct emit {
    bool ok;
} emit;

static void add_str(emit *e, cJSON *obj, const char *key, const char *v)
{
    if (v && !cJSON_AddStringToObject(obj, key, v))
        e->ok = false;
}

static void add_num(emit *e, cJSON *obj, const char *key, double v)
{
    if (!cJSON_AddNumberToObject(obj, key, v))
        e->ok = false;
}

static void add_bool(emit *e, cJSON *obj, const char *key, bool v)
{
    if (!cJSON_AddBoolToObject(obj, key, v))
        e->ok = false;
}

static void add_hex(emit *e, cJSON *obj, const char *key, uint64_t v)
{
    char buf[20];

    snap_format_hex(buf, v);
    add_str(e, obj, key, buf);
}

static void add_dim3(emit *e, cJSON *obj, const char *key, const uint32_t v[3])
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);

    for (int i = 0; arr && i < 3; i++) {
        cJSON *n = cJSON_CreateNumber(v[i]);

        if (!n || !cJSON_AddItemToArray(arr, n)) {
            cJSON_Delete(n);
            arr = NULL;
        }
    }
    if (!arr)
        e->ok = false;
}

static cJSON *add_obj(emit *e, cJSON *obj, const char *key)
{
    cJSON *child = cJSON_AddObjectToObject(obj, key);

    if (!child)
        e->ok = false;
    return child;
}

static cJSON *add_arr(emit *e, cJSON *obj, const char *key)
{
    cJSON *child = cJSON_AddArrayToObject(obj, key);

    if (!child)
        e->ok = false;
    return child;
}

static cJSON *push_obj(emit *e, cJSON *arr)
{
    cJSON *o = cJSON_CreateObject();

    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        e->ok = false;
        return NULL;
    }
    return o;
}

static void emit_launch(emit *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *l = add_obj(e, doc, "launch");

    if (!l)
        return;
    add_dim3(e, l, "grid", s->grid);
    add_dim3(e, l, "block", s->block);
    add_dim3(e, l, "cluster", s->cluster);
    add_num(e, l, "dynamic_shared_bytes", s->dynamic_shared_bytes);
    add_num(e, l, "static_shared_bytes", s->static_shared_bytes);
    add_num(e, l, "private_segment_bytes", s->private_segment_bytes);
    add_hex(e, l, "kernel_object", s->kernel_object);
    if (s->setup_dims)
        add_num(e, l, "setup_dims", s->setup_dims);
}

static void emit_kernarg(emit *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *k = add_obj(e, doc, "kernarg"), *params;

    if (!k)
        return;
    add_str(e, k, "file", s->kernarg_file);
    add_num(e, k, "size", (double)s->kernarg_size);
    if (s->kernarg_align)
        add_num(e, k, "alignment", s->kernarg_align);
    if (!(params = add_arr(e, k, "params")))
        return;
    for (size_t i = 0; i < s->nparams; i++) {
        const rpl_snap_param *p = &s->params[i];
        cJSON *o = push_obj(e, params);

        if (!o)
            return;
        add_num(e, o, "offset", p->offset);
        add_num(e, o, "size", p->size);
        add_str(e, o, "type", p->type);
        add_bool(e, o, "pointer", p->pointer);
        add_str(e, o, "pointee", rpl_dtype_name(p->pointee));
    }
}

static void emit_globals(emit *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *arr = add_arr(e, doc, "globals");

    for (size_t i = 0; arr && i < s->nglobals; i++) {
        const rpl_snap_global *g = &s->globals[i];
        cJSON *o = push_obj(e, arr);

        if (!o)
            return;
        add_str(e, o, "name", g->name);
        add_hex(e, o, "address", g->address);
        add_num(e, o, "size", (double)g->size);
        add_str(e, o, "file", g->file);
        add_str(e, o, "post_file", g->post_file);
    }
}

static void emit_files(emit *e, cJSON *doc, const rpl_snapshot *s)
{
    cJSON *arr = add_arr(e, doc, "files");

    for (size_t i = 0; arr && i < s->nfiles; i++) {
        cJSON *o = push_obj(e, arr);

        if (!o)
            return;
        add_str(e, o, "path", s->files[i].path);
        add_num(e, o, "size", (double)s->files[i].size);
        add_str(e, o, "sha256", s->files[i].sha256);
    }
}

int snap_dispatch_json(cJSON **out, const rpl_snapshot *s)
{
    emit e = {true};
    cJSON *doc = cJSON_CreateObject(), *dev, *k, *cap;

    *out = NULL;
    if (!doc)
        return rpl_error_oom();
    add_str(&e, doc, "schema_version", RPL_SNAPSHOT_SCHEMA_VERSION);
    add_str(&e, doc, "backend", s->backend == RPL_SNAP_HSA ? "hsa" : "cuda");
    add_str(&e, doc, "arch", s->arch);
    add_str(&e, doc, "target", s->target);
    if ((dev = add_obj(&e, doc, "device")) != NULL) {
        add_str(&e, dev, "name", s->device_name);
        add_str(&e, dev, "driver_version", s->driver_version);
        add_str(&e, dev, "runtime_version", s->runtime_version);
    }
    add_str(&e, doc, "tool_version", s->tool_version);
    if ((k = add_obj(&e, doc, "kernel")) != NULL) {
        add_str(&e, k, "mangled_name", s->mangled_name);
        add_str(&e, k, "demangled_name", s->demangled_name);
        add_str(&e, k, "code_object", s->code_object_file);
        add_str(&e, k, "symbol", s->code_object_symbol);
    }
    emit_launch(&e, doc, s);
    emit_kernarg(&e, doc, s);
    if ((cap = add_obj(&e, doc, "capture")) != NULL) {
        add_num(&e, cap, "dispatch_index", (double)s->dispatch_index);
        if (s->capture_pid > 0)
            add_num(&e, cap, "pid", (double)s->capture_pid);
        add_bool(&e, cap, "aslr_disabled", s->aslr_disabled);
        add_str(&e, cap, "captured_at", s->captured_at);
    }
    emit_globals(&e, doc, s);
    emit_files(&e, doc, s);
    if (!e.ok) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    *out = doc;
    return 0;
}

int snap_regions_json(cJSON **out, const rpl_snapshot *s)
{
    emit e = {true};
    cJSON *doc = cJSON_CreateObject(), *arr;

    *out = NULL;
    if (!doc)
        return rpl_error_oom();
    add_str(&e, doc, "schema_version", RPL_SNAPSHOT_SCHEMA_VERSION);
    arr = add_arr(&e, doc, "regions");
    for (size_t i = 0; arr && i < s->nregions; i++) {
        const rpl_snap_region *r = &s->regions[i];
        cJSON *o = push_obj(&e, arr);

        if (!o)
            break;
        add_hex(&e, o, "base", r->base);
        add_num(&e, o, "size", (double)r->size);
        add_str(&e, o, "kind", r->kind);
        add_str(&e, o, "file", r->file);
        add_str(&e, o, "post_file", r->post_file);
        add_str(&e, o, "dtype", rpl_dtype_name(r->dtype));
        add_bool(&e, o, "written", r->written);
    }
    if (!e.ok) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    *out = doc;
    return 0;
}
