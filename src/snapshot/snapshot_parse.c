/*
 * Reading dispatch.json and memory_regions.json into an rpl_snapshot and
 * checking everything but the digests: types, ranges, sorted and
 * non-overlapping regions, safe paths, and that every file the metadata
 * names is listed and on disk with its recorded size.  Every message names
 * the file and the field.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/strbuf.h"
#include "snapshot_int.h"

#define MAX_JSON_INT 9007199254740992.0 /* 2^53: doubles hold integers exactly up to here */
/* Two images per region and per global, the code object, kernarg.bin, memory_regions.json. */
#define MAX_FILES (4 * (size_t)RPL_SNAPSHOT_MAX_REGIONS + 3)
/* Where an array element is ("kernarg.params[4095]"), and a field name in it or anywhere. */
#define WHERE_MAX 64
#define FIELD_MAX (WHERE_MAX + 32)

/* The file being read, for messages. */
typedef struct jctx {
    const char *path;
} jctx;

static int bad(const jctx *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(const jctx *c, const char *field, const char *fmt, ...)
{
    char problem[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(problem, sizeof(problem), fmt, ap);
    va_end(ap);
    return rpl_error_set(RPL_EINPUT, "'%s': %s %s", c->path, field, problem);
}

/* The name messages give the member `key` of the object at `where` ("" for the document). */
static const char *field_of(char field[FIELD_MAX], const char *where, const char *key)
{
    snprintf(field, FIELD_MAX, "%s%s%s", where, where[0] ? "." : "", key);
    return field;
}

/*
 * The member `key` of `obj`, the object at `where`, or NULL when absent;
 * field[] gets its name.  RPL_EINPUT when it is required and absent, or
 * present and not what `is` accepts (NULL: anything), `must` saying what it
 * must be.
 */
static int member(const jctx *c, const cJSON *obj, const char *where, const char *key,
                  bool required, cJSON_bool (*is)(const cJSON *), const char *must,
                  char field[FIELD_MAX], const cJSON **out)
{
    field_of(field, where, key);
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out && required)
        return bad(c, field, "is missing");
    if (*out && is && !is(*out))
        return bad(c, field, "%s", must);
    return 0;
}

static int get_object(const jctx *c, const cJSON *obj, const char *where, const char *key,
                      bool required, const cJSON **out)
{
    char field[FIELD_MAX];

    return member(c, obj, where, key, required, cJSON_IsObject, "must be an object", field, out);
}

static int get_array(const jctx *c, const cJSON *obj, const char *where, const char *key,
                     bool required, const cJSON **out, size_t max)
{
    char field[FIELD_MAX];
    int rc = member(c, obj, where, key, required, cJSON_IsArray, "must be an array", field, out);

    if (rc || !*out)
        return rc;
    if ((size_t)cJSON_GetArraySize(*out) > max) {
        char n[32];

        snprintf(n, sizeof(n), "%zu", max);
        return bad(c, field, "has more than %s entries", n);
    }
    return 0;
}

/* A string without control characters, copied into *out (left alone when absent). */
static int get_string(const jctx *c, const cJSON *obj, const char *where, const char *key,
                      bool required, char **out)
{
    char field[FIELD_MAX];
    const cJSON *item;
    int rc = member(c, obj, where, key, required, cJSON_IsString, "must be a string", field, &item);

    if (rc || !item)
        return rc;
    if (strlen(item->valuestring) > SNAP_MAX_STRING)
        return bad(c, field, "is longer than 64 KiB");
    for (const unsigned char *p = (const unsigned char *)item->valuestring; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return bad(c, field, "holds a control character");
    if (required && !item->valuestring[0])
        return bad(c, field, "is empty");
    free(*out);
    *out = strdup(item->valuestring);
    return *out ? 0 : rpl_error_oom();
}

/* A relative file path inside the snapshot. */
static int get_path(const jctx *c, const cJSON *obj, const char *where, const char *key,
                    bool required, char **out)
{
    int rc = get_string(c, obj, where, key, required, out);
    const char *problem;
    char field[FIELD_MAX];

    if (rc || !*out)
        return rc;
    if ((problem = snap_path_problem(*out)) != NULL)
        return bad(c, field_of(field, where, key), "'%.200s' %s", *out, problem);
    return 0;
}

static int get_uint(const jctx *c, const cJSON *obj, const char *where, const char *key,
                    bool required, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char field[FIELD_MAX];
    const cJSON *item;
    int rc = member(c, obj, where, key, required, NULL, NULL, field, &item);
    char range[64];

    if (rc || !item)
        return rc;
    snprintf(range, sizeof(range), "%llu to %llu", (unsigned long long)lo, (unsigned long long)hi);
    if (!cJSON_IsNumber(item) || item->valuedouble != item->valuedouble || item->valuedouble < 0 ||
        item->valuedouble > MAX_JSON_INT ||
        item->valuedouble != (double)(uint64_t)item->valuedouble ||
        (uint64_t)item->valuedouble < lo || (uint64_t)item->valuedouble > hi)
        return bad(c, field, "must be a whole number from %s", range);
    *out = (uint64_t)item->valuedouble;
    return 0;
}

static int get_u32(const jctx *c, const cJSON *obj, const char *where, const char *key,
                   bool required, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v = *out;
    int rc = get_uint(c, obj, where, key, required, lo, hi, &v);

    *out = (uint32_t)v;
    return rc;
}

static int get_bool(const jctx *c, const cJSON *obj, const char *where, const char *key,
                    bool required, bool *out)
{
    char field[FIELD_MAX];
    const cJSON *item;
    int rc =
        member(c, obj, where, key, required, cJSON_IsBool, "must be true or false", field, &item);

    if (rc || !item)
        return rc;
    *out = cJSON_IsTrue(item);
    return 0;
}

static int get_hex(const jctx *c, const cJSON *obj, const char *where, const char *key,
                   bool required, uint64_t *out)
{
    char field[FIELD_MAX];
    const cJSON *item;
    int rc = member(c, obj, where, key, required, cJSON_IsString,
                    "must be a hex string such as \"0x7f0000000000\"", field, &item);

    if (rc || !item)
        return rc;
    if (!snap_parse_hex(item->valuestring, out)) {
        char shown[40];

        snprintf(shown, sizeof(shown), "%.32s%s", item->valuestring,
                 strlen(item->valuestring) > 32 ? "..." : "");
        for (char *p = shown; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == '\'')
                *p = '?';
        return bad(c, field, "'%s' is not a hex address (0x and 1-16 hex digits)", shown);
    }
    return 0;
}

static int get_dtype(const jctx *c, const cJSON *obj, const char *where, const char *key,
                     rpl_dtype *out)
{
    char *name = NULL, field[FIELD_MAX];
    int rc = get_string(c, obj, where, key, false, &name), t;

    if (rc || !name)
        return rc;
    t = rpl_dtype_parse(name);
    free(name);
    if (t < 0)
        return bad(c, field_of(field, where, key),
                   "is not one of bytes, i8, u8, i16, u16, i32, u32, i64, u64, f16, "
                   "bf16, f32, f64");
    *out = (rpl_dtype)t;
    return 0;
}

/* Three whole numbers, e.g. launch geometry. */
static int get_dim3(const jctx *c, const cJSON *obj, const char *where, const char *key,
                    bool required, uint32_t lo, uint32_t hi, uint32_t out[3])
{
    char field[FIELD_MAX];
    const cJSON *arr;
    int rc = member(c, obj, where, key, required, NULL, NULL, field, &arr);
    char sub[FIELD_MAX + 16];

    if (rc || !arr)
        return rc;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 3)
        return bad(c, field, "must be an array of three whole numbers");
    for (int i = 0; i < 3; i++) {
        const cJSON *item = cJSON_GetArrayItem(arr, i);
        uint64_t v;

        snprintf(sub, sizeof(sub), "%s[%d]", field, i);
        if (!cJSON_IsNumber(item) || item->valuedouble != item->valuedouble ||
            item->valuedouble < lo || item->valuedouble > hi ||
            item->valuedouble != (double)(uint64_t)item->valuedouble) {
            char range[48];

            snprintf(range, sizeof(range), "%u to %u", lo, hi);
            return bad(c, sub, "must be a whole number from %s", range);
        }
        v = (uint64_t)item->valuedouble;
        out[i] = (uint32_t)v;
    }
    return 0;
}

static int check_version(const jctx *c, const cJSON *doc)
{
    char *v = NULL;
    int rc = get_string(c, doc, "", "schema_version", true, &v);

    if (rc == 0 && strncmp(v, "1.", 2) != 0)
        rc = bad(c, "schema_version", "'%s' is not supported (this rocm-perf reads 1.x)", v);
    free(v);
    return rc;
}

static int parse_doc(const char *dir, const char *name, char **path, cJSON **doc)
{
    rpl_strbuf quoted = RPL_STRBUF_INIT;
    char *text = NULL;
    size_t len;
    int rc;

    *doc = NULL;
    if ((rc = rpl_path_join(path, dir, name)) != 0)
        return rc;
    rc = rpl_file_read_all(*path, RPL_SNAPSHOT_MAX_JSON, &text, &len);
    if (rc == RPL_ENOTFOUND && strcmp(name, SNAP_DISPATCH) == 0)
        return rpl_error_set(RPL_EINPUT, "'%s' is not a snapshot: it has no %s", dir, name);
    if (rc == RPL_ENOTFOUND)
        return rpl_error_set(RPL_EINPUT, "'%s' is missing", *path);
    if (rc)
        return rc; /* a directory, larger than RPL_SNAPSHOT_MAX_JSON, unreadable */
    if ((rc = rpl_strbuf_printf(&quoted, "'%s'", *path)) == 0)
        rc = rpl_json_parse(doc, text, len, quoted.ptr);
    rpl_strbuf_release(&quoted);
    free(text);
    if (rc == 0 && !cJSON_IsObject(*doc)) {
        cJSON_Delete(*doc);
        *doc = NULL;
        rc = rpl_error_set(RPL_EINPUT, "'%s' must hold a JSON object", *path);
    }
    return rc;
}

/* Zeroed room for an element of `size` bytes per entry of the JSON array `arr` (*n of them). */
static void *entries_for(const cJSON *arr, size_t size, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(arr);
    return calloc(*n ? *n : 1, size);
}

/* Name entry i of the array `array` in where[], and check that it is an object. */
static int entry(const jctx *c, char where[WHERE_MAX], const char *array, size_t i,
                 const cJSON *item)
{
    snprintf(where, WHERE_MAX, "%s[%zu]", array, i);
    return cJSON_IsObject(item) ? 0 : bad(c, where, "must be an object");
}

static int parse_params(const jctx *c, rpl_snapshot *s, const cJSON *params)
{
    const cJSON *p;
    size_t i = 0;
    char where[WHERE_MAX];
    int rc = 0;

    if (!(s->params = entries_for(params, sizeof(*s->params), &s->nparams)))
        return rpl_error_oom();
    cJSON_ArrayForEach(p, params)
    {
        rpl_snap_param *sp = &s->params[i];
        uint64_t end;

        if ((rc = entry(c, where, "kernarg.params", i, p)) != 0 ||
            (rc = get_u32(c, p, where, "offset", true, 0, UINT32_MAX, &sp->offset)) != 0 ||
            (rc = get_u32(c, p, where, "size", true, 1, UINT32_MAX, &sp->size)) != 0 ||
            (rc = get_string(c, p, where, "type", false, &sp->type)) != 0 ||
            (rc = get_bool(c, p, where, "pointer", false, &sp->pointer)) != 0 ||
            (rc = get_dtype(c, p, where, "pointee", &sp->pointee)) != 0)
            return rc;
        end = (uint64_t)sp->offset + sp->size;
        if (end > s->kernarg_size)
            return bad(c, where, "ends past the kernarg segment (kernarg.size)");
        if (i > 0 && sp->offset < (uint64_t)s->params[i - 1].offset + s->params[i - 1].size)
            return bad(c, where,
                       "overlaps or comes before the parameter before it (params are sorted by "
                       "offset)");
        i++;
    }
    return 0;
}

static int parse_globals(const jctx *c, rpl_snapshot *s, const cJSON *globals)
{
    const cJSON *g;
    size_t i = 0;
    char where[WHERE_MAX];
    int rc;

    if (!(s->globals = entries_for(globals, sizeof(*s->globals), &s->nglobals)))
        return rpl_error_oom();
    cJSON_ArrayForEach(g, globals)
    {
        rpl_snap_global *sg = &s->globals[i];

        if ((rc = entry(c, where, "globals", i, g)) != 0 ||
            (rc = get_string(c, g, where, "name", true, &sg->name)) != 0 ||
            (rc = get_hex(c, g, where, "address", true, &sg->address)) != 0 ||
            (rc = get_uint(c, g, where, "size", true, 1, (uint64_t)MAX_JSON_INT, &sg->size)) != 0)
            return rc;
        if (sg->size > UINT64_MAX - sg->address)
            return bad(c, where, "runs past the end of the address space");
        if ((rc = get_path(c, g, where, "file", true, &sg->file)) != 0 ||
            (rc = get_path(c, g, where, "post_file", false, &sg->post_file)) != 0)
            return rc;
        i++;
    }
    return 0;
}

static int parse_files(const jctx *c, rpl_snapshot *s, const cJSON *files)
{
    const cJSON *f;
    size_t i = 0;
    char where[WHERE_MAX], field[FIELD_MAX];
    int rc;

    if (!(s->files = entries_for(files, sizeof(*s->files), &s->nfiles)))
        return rpl_error_oom();
    cJSON_ArrayForEach(f, files)
    {
        rpl_snap_file *sf = &s->files[i];
        char *digest = NULL;

        if ((rc = entry(c, where, "files", i, f)) != 0 ||
            (rc = get_path(c, f, where, "path", true, &sf->path)) != 0)
            return rc;
        if (strcmp(sf->path, SNAP_DISPATCH) == 0)
            return bad(c, field_of(field, where, "path"), "names dispatch.json itself");
        if ((rc = get_uint(c, f, where, "size", true, 0, (uint64_t)MAX_JSON_INT, &sf->size)) != 0 ||
            (rc = get_string(c, f, where, "sha256", true, &digest)) != 0)
            return rc;
        if (strlen(digest) != 64 || strspn(digest, "0123456789abcdef") != 64) {
            free(digest);
            return bad(c, field_of(field, where, "sha256"), "must be 64 lowercase hex digits");
        }
        memcpy(sf->sha256, digest, 65);
        free(digest);
        i++;
    }
    return 0;
}

static int parse_backend(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    char *backend = NULL;
    int rc = get_string(c, doc, "", "backend", true, &backend);

    if (rc)
        return rc;
    if (strcmp(backend, "cuda") == 0)
        s->backend = RPL_SNAP_CUDA;
    else if (strcmp(backend, "hsa") == 0)
        s->backend = RPL_SNAP_HSA;
    else
        rc = bad(c, "backend", "'%s' is neither \"cuda\" nor \"hsa\"", backend);
    free(backend);
    return rc;
}

static int parse_arch(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    int rc = get_string(c, doc, "", "arch", true, &s->arch);

    if (rc)
        return rc;
    if (strlen(s->arch) > 32 ||
        strspn(s->arch, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s->arch))
        return bad(c, "arch", "'%s' is not an architecture name such as sm_90 or gfx942", s->arch);
    if ((rc = get_string(c, doc, "", "target", false, &s->target)) != 0)
        return rc;
    if (!s->target && !(s->target = strdup(s->arch)))
        return rpl_error_oom();
    return 0;
}

static int parse_kernel(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    const cJSON *k;
    int rc;

    if ((rc = get_object(c, doc, "", "kernel", true, &k)) != 0 ||
        (rc = get_string(c, k, "kernel", "mangled_name", true, &s->mangled_name)) != 0 ||
        (rc = get_string(c, k, "kernel", "demangled_name", false, &s->demangled_name)) != 0 ||
        (rc = get_path(c, k, "kernel", "code_object", true, &s->code_object_file)) != 0 ||
        (rc = get_string(c, k, "kernel", "symbol", true, &s->code_object_symbol)) != 0)
        return rc;
    if (!s->demangled_name && !(s->demangled_name = strdup(s->mangled_name)))
        return rpl_error_oom();
    return 0;
}

static int parse_launch(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    const cJSON *l;
    uint64_t setup = 3;
    int rc;

    if ((rc = get_object(c, doc, "", "launch", true, &l)) != 0 ||
        (rc = get_dim3(c, l, "launch", "grid", true, 1, UINT32_MAX, s->grid)) != 0 ||
        (rc = get_dim3(c, l, "launch", "block", true, 1, 1024, s->block)) != 0 ||
        (rc = get_dim3(c, l, "launch", "cluster", false, 0, 1024, s->cluster)) != 0 ||
        (rc = get_u32(c, l, "launch", "dynamic_shared_bytes", false, 0, UINT32_MAX,
                      &s->dynamic_shared_bytes)) != 0 ||
        (rc = get_u32(c, l, "launch", "static_shared_bytes", false, 0, UINT32_MAX,
                      &s->static_shared_bytes)) != 0 ||
        (rc = get_u32(c, l, "launch", "private_segment_bytes", false, 0, UINT32_MAX,
                      &s->private_segment_bytes)) != 0 ||
        (rc = get_hex(c, l, "launch", "kernel_object", false, &s->kernel_object)) != 0 ||
        (rc = get_uint(c, l, "launch", "setup_dims", false, 1, 3, &setup)) != 0)
        return rc;
    s->setup_dims = (uint16_t)setup;
    if ((uint64_t)s->block[0] * s->block[1] * s->block[2] > 1024)
        return bad(c, "launch.block", "has more than 1024 threads");
    if ((s->cluster[0] || s->cluster[1] || s->cluster[2]) &&
        !(s->cluster[0] && s->cluster[1] && s->cluster[2]))
        return bad(c, "launch.cluster", "must be all zero (no cluster) or all at least 1");
    return 0;
}

static int parse_kernarg(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    const cJSON *k, *params;
    uint64_t align = 8;
    int rc;

    if ((rc = get_object(c, doc, "", "kernarg", true, &k)) != 0 ||
        (rc = get_path(c, k, "kernarg", "file", true, &s->kernarg_file)) != 0 ||
        (rc = get_uint(c, k, "kernarg", "size", true, 0, 16u << 20, &s->kernarg_size)) != 0 ||
        (rc = get_uint(c, k, "kernarg", "alignment", false, 1, 4096, &align)) != 0 ||
        (rc = get_array(c, k, "kernarg", "params", false, &params, RPL_SNAPSHOT_MAX_PARAMS)) != 0)
        return rc;
    if (align & (align - 1))
        return bad(c, "kernarg.alignment", "must be a power of two");
    s->kernarg_align = (uint32_t)align;
    return params ? parse_params(c, s, params) : 0;
}

static int parse_capture(const jctx *c, rpl_snapshot *s, const cJSON *doc)
{
    const cJSON *cap, *dev;
    uint64_t pid = 0;
    int rc;

    if ((rc = get_object(c, doc, "", "device", false, &dev)) != 0)
        return rc;
    if (dev &&
        ((rc = get_string(c, dev, "device", "name", false, &s->device_name)) != 0 ||
         (rc = get_string(c, dev, "device", "driver_version", false, &s->driver_version)) != 0 ||
         (rc = get_string(c, dev, "device", "runtime_version", false, &s->runtime_version)) != 0))
        return rc;
    if ((rc = get_string(c, doc, "", "tool_version", false, &s->tool_version)) != 0 ||
        (rc = get_object(c, doc, "", "capture", false, &cap)) != 0 || !cap)
        return rc;
    if ((rc = get_uint(c, cap, "capture", "dispatch_index", false, 0, (uint64_t)MAX_JSON_INT,
                       &s->dispatch_index)) != 0 ||
        (rc = get_uint(c, cap, "capture", "pid", false, 0, INT32_MAX, &pid)) != 0 ||
        (rc = get_bool(c, cap, "capture", "aslr_disabled", false, &s->aslr_disabled)) != 0 ||
        (rc = get_string(c, cap, "capture", "captured_at", false, &s->captured_at)) != 0)
        return rc;
    s->capture_pid = (int64_t)pid;
    return 0;
}

static int parse_dispatch(rpl_snapshot *s, const char *path, const cJSON *doc)
{
    const jctx c = {path};
    const cJSON *globals, *files;
    int rc;

    if ((rc = check_version(&c, doc)) != 0 || (rc = parse_backend(&c, s, doc)) != 0 ||
        (rc = parse_arch(&c, s, doc)) != 0 || (rc = parse_kernel(&c, s, doc)) != 0 ||
        (rc = parse_launch(&c, s, doc)) != 0 || (rc = parse_kernarg(&c, s, doc)) != 0 ||
        (rc = parse_capture(&c, s, doc)) != 0 ||
        (rc = get_array(&c, doc, "", "globals", false, &globals, RPL_SNAPSHOT_MAX_REGIONS)) != 0 ||
        (globals && (rc = parse_globals(&c, s, globals)) != 0) ||
        (rc = get_array(&c, doc, "", "files", true, &files, MAX_FILES)) != 0)
        return rc;
    return parse_files(&c, s, files);
}

/* A region's file name must be the canonical one for its base. */
static int check_region_file(const jctx *c, const char *field, const char *file, uint64_t base,
                             bool post)
{
    char *want = NULL;
    int rc = rpl_snapshot_region_path(&want, base, post);

    if (rc == 0 && strcmp(file, want) != 0)
        rc = bad(c, field, "must be \"%s\" for this base", want);
    free(want);
    return rc;
}

static int parse_region(const jctx *c, rpl_snap_region *r, const cJSON *item, size_t i)
{
    static const char *const kinds[] = {"device",  "pool",    "vmm", "host",
                                        "managed", "kernarg", "code"};
    char where[WHERE_MAX], field[FIELD_MAX];
    bool known = false;
    int rc;

    if ((rc = entry(c, where, "regions", i, item)) != 0 ||
        (rc = get_hex(c, item, where, "base", true, &r->base)) != 0 ||
        (rc = get_uint(c, item, where, "size", true, 1, (uint64_t)MAX_JSON_INT, &r->size)) != 0)
        return rc;
    if (r->size > UINT64_MAX - r->base)
        return bad(c, where, "runs past the end of the address space");
    if ((rc = get_string(c, item, where, "kind", true, &r->kind)) != 0)
        return rc;
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        known = known || strcmp(r->kind, kinds[k]) == 0;
    if (!known)
        return bad(c, field_of(field, where, "kind"),
                   "'%s' is not one of device, pool, vmm, host, managed, kernarg, code", r->kind);
    if ((rc = get_path(c, item, where, "file", true, &r->file)) != 0 ||
        (rc = check_region_file(c, field_of(field, where, "file"), r->file, r->base, false)) != 0)
        return rc;
    if ((rc = get_path(c, item, where, "post_file", false, &r->post_file)) != 0 ||
        (r->post_file && (rc = check_region_file(c, field_of(field, where, "post_file"),
                                                 r->post_file, r->base, true)) != 0))
        return rc;
    if ((rc = get_dtype(c, item, where, "dtype", &r->dtype)) != 0)
        return rc;
    return get_bool(c, item, where, "written", false, &r->written);
}

static int parse_regions(rpl_snapshot *s, const char *path, const cJSON *doc)
{
    const jctx c = {path};
    const cJSON *regions, *item;
    size_t i = 0;
    int rc;

    if ((rc = check_version(&c, doc)) != 0 ||
        (rc = get_array(&c, doc, "", "regions", true, &regions, RPL_SNAPSHOT_MAX_REGIONS)) != 0)
        return rc;
    if (!(s->regions = entries_for(regions, sizeof(*s->regions), &s->nregions)))
        return rpl_error_oom();
    cJSON_ArrayForEach(item, regions)
    {
        rpl_snap_region *r = &s->regions[i];

        if ((rc = parse_region(&c, r, item, i)) != 0)
            return rc;
        if (i > 0 && r->base < s->regions[i - 1].base + s->regions[i - 1].size) {
            const rpl_snap_region *p = &s->regions[i - 1];
            char field[96], prev[96];

            snprintf(field, sizeof(field), "regions[%zu] (0x%llx+%llu)", i,
                     (unsigned long long)r->base, (unsigned long long)r->size);
            if (r->base < p->base)
                return bad(&c, field,
                           "comes before the region before it (regions are sorted by base)");
            snprintf(prev, sizeof(prev), "regions[%zu] (0x%llx+%llu)", i - 1,
                     (unsigned long long)p->base, (unsigned long long)p->size);
            return bad(&c, field, "overlaps %s", prev);
        }
        i++;
    }
    return 0;
}

static int cmp_file_path(const void *a, const void *b)
{
    return strcmp((*(const rpl_snap_file *const *)a)->path,
                  (*(const rpl_snap_file *const *)b)->path);
}

/* A file named by the metadata: listed in files[], on disk with the recorded size. */
typedef struct file_index {
    const rpl_snapshot *s;
    const char *dispatch_path;
    rpl_snap_file **sorted;
} file_index;

static int need_file(const file_index *ix, const char *field, const char *rel, bool check_size,
                     uint64_t size)
{
    rpl_snap_file key, *keyp = &key, **hit;

    key.path = (char *)rel;
    hit = bsearch(&keyp, ix->sorted, ix->s->nfiles, sizeof(*ix->sorted), cmp_file_path);
    if (!hit)
        return rpl_error_set(RPL_EINPUT, "'%s': %s names '%s', which files[] does not list",
                             ix->dispatch_path, field, rel);
    if (check_size && (*hit)->size != size)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': files[] records %llu bytes for '%s', but %s says %llu",
                             ix->dispatch_path, (unsigned long long)(*hit)->size, rel, field,
                             (unsigned long long)size);
    return 0;
}

static int check_files(const rpl_snapshot *s, const char *dispatch_path)
{
    file_index ix = {s, dispatch_path, NULL};
    char field[64];
    int rc = 0;

    ix.sorted = malloc((s->nfiles ? s->nfiles : 1) * sizeof(*ix.sorted));
    if (!ix.sorted)
        return rpl_error_oom();
    for (size_t i = 0; i < s->nfiles; i++)
        ix.sorted[i] = &s->files[i];
    qsort(ix.sorted, s->nfiles, sizeof(*ix.sorted), cmp_file_path);
    for (size_t i = 1; rc == 0 && i < s->nfiles; i++)
        if (strcmp(ix.sorted[i - 1]->path, ix.sorted[i]->path) == 0)
            rc = rpl_error_set(RPL_EINPUT, "'%s': files[] lists '%s' twice", dispatch_path,
                               ix.sorted[i]->path);
    if (rc == 0)
        rc = need_file(&ix, "the snapshot", SNAP_REGIONS, false, 0);
    if (rc == 0)
        rc = need_file(&ix, "kernel.code_object", s->code_object_file, false, 0);
    if (rc == 0)
        rc = need_file(&ix, "kernarg.file", s->kernarg_file, true, s->kernarg_size);
    for (size_t i = 0; rc == 0 && i < s->nregions; i++) {
        snprintf(field, sizeof(field), "regions[%zu] of %s", i, SNAP_REGIONS);
        rc = need_file(&ix, field, s->regions[i].file, true, s->regions[i].size);
        if (rc == 0 && s->regions[i].post_file)
            rc = need_file(&ix, field, s->regions[i].post_file, true, s->regions[i].size);
    }
    for (size_t i = 0; rc == 0 && i < s->nglobals; i++) {
        snprintf(field, sizeof(field), "globals[%zu]", i);
        rc = need_file(&ix, field, s->globals[i].file, true, s->globals[i].size);
        if (rc == 0 && s->globals[i].post_file)
            rc = need_file(&ix, field, s->globals[i].post_file, true, s->globals[i].size);
    }
    free(ix.sorted);
    /* Every listed file is on disk, a regular file of the recorded size. */
    for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
        uint64_t size = 0;

        rc = snap_file_stat(s->dir, s->files[i].path, &size);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EINPUT, "'%s/%s' is missing (dispatch.json lists it)", s->dir,
                               s->files[i].path);
        else if (rc == 0 && size != s->files[i].size)
            rc = rpl_error_set(RPL_EINPUT, "'%s/%s' is %llu bytes, dispatch.json records %llu (%s)",
                               s->dir, s->files[i].path, (unsigned long long)size,
                               (unsigned long long)s->files[i].size,
                               size < s->files[i].size ? "truncated" : "grown");
    }
    return rc;
}

int snap_read(rpl_snapshot *s)
{
    char *dpath = NULL, *rpath = NULL;
    cJSON *ddoc = NULL, *rdoc = NULL;
    int rc;

    if ((rc = parse_doc(s->dir, SNAP_DISPATCH, &dpath, &ddoc)) == 0 &&
        (rc = parse_dispatch(s, dpath, ddoc)) == 0 &&
        (rc = parse_doc(s->dir, SNAP_REGIONS, &rpath, &rdoc)) == 0 &&
        (rc = parse_regions(s, rpath, rdoc)) == 0)
        rc = check_files(s, dpath);
    cJSON_Delete(ddoc);
    cJSON_Delete(rdoc);
    free(dpath);
    free(rpath);
    return rc;
}
