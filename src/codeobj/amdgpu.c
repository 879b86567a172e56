/*
 * AMDGPU code objects (code object v3 and later): kernels from the
 * NT_AMDGPU_METADATA note, a msgpack map documented in LLVM's
 * AMDGPUUsage ("Code Object V3 Metadata" and later).
 */
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"

#define NT_AMDGPU_METADATA  32
#define ELFOSABI_AMDGPU_HSA 64

typedef struct md_ctx {
    const char *origin;
    const char *kernel; /* name of the kernel being read, for messages */
} md_ctx;

static int key_is(const msgpack_object *key, const char *name)
{
    size_t n = strlen(name);

    return key->type == MSGPACK_OBJECT_STR && key->via.str.size == n &&
           memcmp(key->via.str.ptr, name, n) == 0;
}

static const msgpack_object *map_get(const msgpack_object *map, const char *name)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (key_is(&map->via.map.ptr[i].key, name))
            return &map->via.map.ptr[i].val;
    return NULL;
}

static int bad_field(const md_ctx *c, const char *field, const char *what)
{
    if (c->kernel)
        return rpl_error_set(RPL_EINPUT, "'%s': kernel '%s': metadata field '%s' %s", c->origin,
                             c->kernel, field, what);
    return rpl_error_set(RPL_EINPUT, "'%s': metadata field '%s' %s", c->origin, field, what);
}

/* An unsigned field that fits in 31 bits; `required` decides whether absence is an error. */
static int get_uint(const md_ctx *c, const msgpack_object *map, const char *field, int required,
                    int64_t *out)
{
    const msgpack_object *v = map_get(map, field);

    if (!v) {
        *out = RPL_CODEOBJ_UNKNOWN;
        return required ? bad_field(c, field, "is missing") : 0;
    }
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > INT32_MAX)
        return bad_field(c, field, "is not a non-negative 32-bit integer");
    *out = (int64_t)v->via.u64;
    return 0;
}

/* A string field copied (printable); NULL when absent and optional. */
static int get_str(const md_ctx *c, const msgpack_object *map, const char *field, int required,
                   char **out)
{
    const msgpack_object *v = map_get(map, field);

    *out = NULL;
    if (!v)
        return required ? bad_field(c, field, "is missing") : 0;
    if (v->type != MSGPACK_OBJECT_STR)
        return bad_field(c, field, "is not a string");
    *out = co_strndup(v->via.str.ptr, v->via.str.size);
    return *out ? 0 : rpl_error_oom();
}

static int read_args(const md_ctx *c, const msgpack_object *kmap, rpl_kernel_info *k)
{
    const msgpack_object *args = map_get(kmap, ".args");

    if (!args)
        return 0;
    if (args->type != MSGPACK_OBJECT_ARRAY)
        return bad_field(c, ".args", "is not an array");
    if (args->via.array.size == 0)
        return 0;
    k->args = calloc(args->via.array.size, sizeof(*k->args));
    if (!k->args)
        return rpl_error_oom();
    for (uint32_t i = 0; i < args->via.array.size; i++) {
        const msgpack_object *a = &args->via.array.ptr[i];
        rpl_kernarg *arg = &k->args[k->n_args++];
        int64_t off, size;
        int rc;

        if (a->type != MSGPACK_OBJECT_MAP)
            return bad_field(c, ".args", "holds a non-map entry");
        if ((rc = get_uint(c, a, ".offset", 1, &off)) != 0 ||
            (rc = get_uint(c, a, ".size", 1, &size)) != 0 ||
            (rc = get_str(c, a, ".name", 0, &arg->name)) != 0 ||
            (rc = get_str(c, a, ".type_name", 0, &arg->type_name)) != 0 ||
            (rc = get_str(c, a, ".value_kind", 1, &arg->value_kind)) != 0 ||
            (rc = get_str(c, a, ".address_space", 0, &arg->address_space)) != 0)
            return rc;
        arg->offset = (uint32_t)off;
        arg->size = (uint32_t)size;
    }
    return 0;
}

static int read_kernel(md_ctx *c, const msgpack_object *kmap, rpl_kernel_info *k,
                       const rpl_arch *arch)
{
    int64_t v[13];
    int rc;
    const msgpack_object *dyn;

    if (kmap->type != MSGPACK_OBJECT_MAP)
        return bad_field(c, "amdhsa.kernels", "holds a non-map entry");
    if ((rc = get_str(c, kmap, ".name", 1, &k->name)) != 0)
        return rc;
    c->kernel = k->name;
    if ((rc = get_str(c, kmap, ".symbol", 0, &k->symbol)) != 0 ||
        (rc = get_uint(c, kmap, ".vgpr_count", 1, &v[0])) != 0 ||
        (rc = get_uint(c, kmap, ".agpr_count", 0, &v[1])) != 0 ||
        (rc = get_uint(c, kmap, ".sgpr_count", 1, &v[2])) != 0 ||
        (rc = get_uint(c, kmap, ".vgpr_spill_count", 0, &v[3])) != 0 ||
        (rc = get_uint(c, kmap, ".sgpr_spill_count", 0, &v[4])) != 0 ||
        (rc = get_uint(c, kmap, ".group_segment_fixed_size", 1, &v[5])) != 0 ||
        (rc = get_uint(c, kmap, ".private_segment_fixed_size", 1, &v[6])) != 0 ||
        (rc = get_uint(c, kmap, ".wavefront_size", 1, &v[7])) != 0 ||
        (rc = get_uint(c, kmap, ".max_flat_workgroup_size", 1, &v[8])) != 0 ||
        (rc = get_uint(c, kmap, ".kernarg_segment_size", 0, &v[9])) != 0 ||
        (rc = get_uint(c, kmap, ".kernarg_segment_align", 0, &v[10])) != 0)
        return rc;
    if (v[7] != 32 && v[7] != 64)
        return bad_field(c, ".wavefront_size", "is neither 32 nor 64");
    if (v[8] == 0)
        return bad_field(c, ".max_flat_workgroup_size", "is zero");

    k->vgpr_count = (int32_t)v[0];
    k->agpr_count = v[1] < 0 ? 0 : (int32_t)v[1]; /* absent on targets without AGPRs */
    k->sgpr_count = (int32_t)v[2];
    k->vgpr_spill_count = (int32_t)v[3];
    k->sgpr_spill_count = (int32_t)v[4];
    k->group_segment_fixed_size = (uint32_t)v[5];
    k->private_segment_fixed_size = (uint32_t)v[6];
    k->wavefront_size = (uint32_t)v[7];
    k->max_flat_workgroup_size = (uint32_t)v[8];
    k->kernarg_segment_size = v[9] < 0 ? 0 : (uint32_t)v[9];
    k->kernarg_segment_align = v[10] < 0 ? 0 : (uint32_t)v[10];

    /*
     * .vgpr_count is what occupancy uses: on unified files alignTo(arch, 4) +
     * acc when AGPRs are used (so arch is known only to a multiple of 4),
     * max(arch, acc) elsewhere.
     */
    if (k->agpr_count == 0)
        k->arch_vgpr_count = k->vgpr_count;
    else if (arch && arch->unified_agprs && k->vgpr_count >= k->agpr_count)
        k->arch_vgpr_count = k->vgpr_count - k->agpr_count;
    else if (arch && !arch->unified_agprs && k->vgpr_count > k->agpr_count)
        k->arch_vgpr_count = k->vgpr_count;
    else if (arch && arch->unified_agprs)
        return bad_field(c, ".agpr_count", "exceeds .vgpr_count");

    dyn = map_get(kmap, ".uses_dynamic_stack");
    if (dyn && dyn->type == MSGPACK_OBJECT_BOOLEAN)
        k->uses_dynamic_stack = dyn->via.boolean ? 1 : 0;
    return read_args(c, kmap, k);
}

/* "amdgcn-amd-amdhsa--gfx90a:xnack-" -> "gfx90a" */
static char *processor_of(const char *target)
{
    const char *p = strstr(target, "--");
    size_t len;

    p = p ? p + 2 : target;
    len = strcspn(p, ":");
    return co_strndup(p, len);
}

static int read_metadata(rpl_codeobj_set *set, const uint8_t *desc, size_t len, const char *origin,
                         unsigned cov, unsigned llvm_major)
{
    msgpack_unpacked u;
    size_t off = 0, keep = set->count;
    const msgpack_object *kernels, *tgt;
    md_ctx c = {origin, NULL};
    char *target = NULL, *proc = NULL;
    const rpl_arch *arch;
    int rc = co_msgpack_check(desc, len, origin);

    if (rc != 0)
        return rc;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, (const char *)desc, len, &off) != MSGPACK_UNPACK_SUCCESS) {
        msgpack_unpacked_destroy(&u);
        return rpl_error_set(RPL_EINPUT, "'%s': metadata note is not valid msgpack", origin);
    }
    if (u.data.type != MSGPACK_OBJECT_MAP) {
        rc = rpl_error_set(RPL_EINPUT, "'%s': metadata is not a msgpack map", origin);
        goto out;
    }
    tgt = map_get(&u.data, "amdhsa.target");
    if (tgt && (rc = get_str(&c, &u.data, "amdhsa.target", 1, &target)) != 0)
        goto out;
    kernels = map_get(&u.data, "amdhsa.kernels");
    if (!kernels || kernels->type != MSGPACK_OBJECT_ARRAY) {
        rc = rpl_error_set(RPL_EINPUT, "'%s': metadata has no 'amdhsa.kernels' array", origin);
        goto out;
    }
    if (!target) {
        rc = rpl_error_set(RPL_EINPUT, "'%s': metadata has no 'amdhsa.target'", origin);
        goto out;
    }
    proc = processor_of(target);
    if (!proc) {
        rc = rpl_error_oom();
        goto out;
    }
    arch = rpl_arch_find(proc);
    for (uint32_t i = 0; i < kernels->via.array.size; i++) {
        rpl_kernel_info *k = co_kernel_push(set);

        if (!k) {
            rc = rpl_error_oom();
            goto out;
        }
        k->vendor = RPL_VENDOR_AMD;
        k->code_object_version = cov;
        k->llvm_major = llvm_major;
        k->target = strdup(target);
        k->arch = strdup(proc);
        k->origin = strdup(origin);
        if (!k->target || !k->arch || !k->origin) {
            rc = rpl_error_oom();
            goto out;
        }
        c.kernel = NULL;
        rc = read_kernel(&c, &kernels->via.array.ptr[i], k, arch);
        if (rc != 0)
            goto out;
    }
out:
    if (rc != 0)
        co_set_truncate(set, keep);
    free(target);
    free(proc);
    msgpack_unpacked_destroy(&u);
    return rc;
}

int co_read_amdgpu(rpl_codeobj_set *set, Elf *elf, const char *origin)
{
    GElf_Ehdr ehdr;
    Elf_Scn *scn = NULL;
    unsigned cov;

    if (!gelf_getehdr(elf, &ehdr))
        return rpl_error_set(RPL_EINPUT, "'%s': bad ELF header: %s", origin, elf_errmsg(-1));
    if (ehdr.e_ident[EI_OSABI] != ELFOSABI_AMDGPU_HSA)
        return rpl_error_set(RPL_EINPUT, "'%s': not an HSA code object (ELF OS ABI %u)", origin,
                             ehdr.e_ident[EI_OSABI]);
    /* EI_ABIVERSION 1..4 = code object v3..v6; 0 = v2 (YAML metadata, not supported). */
    if (ehdr.e_ident[EI_ABIVERSION] < 1 || ehdr.e_ident[EI_ABIVERSION] > 4)
        return rpl_error_set(RPL_EINPUT, "'%s': unsupported code object ABI version %u", origin,
                             ehdr.e_ident[EI_ABIVERSION]);
    cov = ehdr.e_ident[EI_ABIVERSION] + 2u;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr shdr;
        Elf_Data *data;
        GElf_Nhdr nhdr;
        size_t off = 0, name_off, desc_off, next;

        if (!gelf_getshdr(scn, &shdr))
            return rpl_error_set(RPL_EINPUT, "'%s': bad section header: %s", origin,
                                 elf_errmsg(-1));
        if (shdr.sh_type != SHT_NOTE)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data || !data->d_buf)
            return rpl_error_set(RPL_EINPUT, "'%s': unreadable note section: %s", origin,
                                 elf_errmsg(-1));
        while ((next = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
            const char *name = (const char *)data->d_buf + name_off;

            off = next;
            if (nhdr.n_type != NT_AMDGPU_METADATA || nhdr.n_namesz != 7 ||
                memcmp(name, "AMDGPU", 7) != 0)
                continue;
            return read_metadata(set, (const uint8_t *)data->d_buf + desc_off, nhdr.n_descsz,
                                 origin, cov, co_elf_llvm_major(elf));
        }
    }
    return rpl_error_set(RPL_EINPUT, "'%s': no NT_AMDGPU_METADATA note", origin);
}
