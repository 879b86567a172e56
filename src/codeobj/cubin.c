/*
 * NVIDIA cubins (ELF, EM_CUDA).  Kernels are the FUNC symbols marked as
 * entries (st_other 0x10).  Their resources [M: CUDA 13.0 cubins checked
 * against ptxas -v on this project's build machine]:
 *   registers      EIATTR_REGCOUNT (0x2f) in .nv.info: u32 symbol, u32 count
 *                  (older cubins: the top byte of .text.<kernel> sh_info)
 *   stack frame    EIATTR_FRAME_SIZE (0x11) in .nv.info: u32 symbol, u32 bytes
 *   shared memory  size of .nv.shared.<kernel>; when the cubin lays out the
 *                  driver's reserve itself (.nv.shared.reserved.0, sm_90 with
 *                  CUDA 13) that reserve is part of the size and is taken off
 *   launch bound   EIATTR_MAX_THREADS (0x05) or EIATTR_REQNTID (0x10): x, y, z
 *   barriers       EIATTR_NUM_BARRIERS (0x4c)
 *   parameters     EIATTR_KPARAM_INFO (0x17), EIATTR_CBANK_PARAM_SIZE (0x19)
 * Device variables are the defined OBJECT symbols (not the "." ones the
 * toolkit adds, such as .nv.reservedSmem.offset0).
 * .nv.info records: u8 format (1 none, 2 byte, 3 half, 4 sized), u8 attribute,
 * then u16 value, or for format 4 a u16 size and that many bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"

#define STO_CUDA_ENTRY   0x10
#define ELFOSABI_CUDA_V2 0x41

#define EIFMT_SVAL              4
#define EIATTR_MAX_THREADS      0x05
#define EIATTR_REQNTID          0x10
#define EIATTR_FRAME_SIZE       0x11
#define EIATTR_KPARAM_INFO      0x17
#define EIATTR_CBANK_PARAM_SIZE 0x19
#define EIATTR_REGCOUNT         0x2f
#define EIATTR_NUM_BARRIERS     0x4c

typedef struct sec_ref {
    const char *name;
    Elf_Scn *scn;
} sec_ref;

typedef struct cubin {
    Elf *elf;
    const char *origin;
    sec_ref *secs; /* sorted by name */
    size_t n_secs;
    int32_t *regs;  /* per symbol index, -1 unknown */
    int32_t *frame; /* per symbol index, -1 unknown */
    size_t n_syms;
    int reserved_layout; /* .nv.shared.reserved.0 present */
} cubin;

static int cmp_sec(const void *a, const void *b)
{
    return strcmp(((const sec_ref *)a)->name, ((const sec_ref *)b)->name);
}

static Elf_Scn *find_sec(const cubin *cb, const char *name)
{
    sec_ref key = {name, NULL};
    const sec_ref *hit = bsearch(&key, cb->secs, cb->n_secs, sizeof(*cb->secs), cmp_sec);

    return hit ? hit->scn : NULL;
}

static Elf_Scn *find_sec2(const cubin *cb, const char *prefix, const char *kernel)
{
    size_t a = strlen(prefix), b = strlen(kernel);
    char *name = malloc(a + b + 1);
    Elf_Scn *scn;

    if (!name)
        return NULL;
    memcpy(name, prefix, a);
    memcpy(name + a, kernel, b + 1);
    scn = find_sec(cb, name);
    free(name);
    return scn;
}

static int index_sections(cubin *cb)
{
    size_t shstrndx, n = 0, cap = 0;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(cb->elf, &shstrndx) != 0)
        return rpl_error_set(RPL_EINPUT, "'%s': no section name table: %s", cb->origin,
                             elf_errmsg(-1));
    if (elf_getshdrnum(cb->elf, &cap) != 0)
        return rpl_error_set(RPL_EINPUT, "'%s': bad section count", cb->origin);
    cb->secs = calloc(cap ? cap : 1, sizeof(*cb->secs));
    if (!cb->secs)
        return rpl_error_oom();
    while ((scn = elf_nextscn(cb->elf, scn)) != NULL && n < cap) {
        GElf_Shdr shdr;
        const char *name;

        if (!gelf_getshdr(scn, &shdr))
            return rpl_error_set(RPL_EINPUT, "'%s': bad section header: %s", cb->origin,
                                 elf_errmsg(-1));
        name = elf_strptr(cb->elf, shstrndx, shdr.sh_name);
        if (!name)
            continue;
        cb->secs[n].name = name;
        cb->secs[n++].scn = scn;
        if (strcmp(name, ".nv.shared.reserved.0") == 0)
            cb->reserved_layout = 1;
    }
    cb->n_secs = n;
    qsort(cb->secs, n, sizeof(*cb->secs), cmp_sec);
    return 0;
}

/* Call fn(attr, value, payload, size) for every record of an .nv.info section. */
typedef int (*attr_fn)(void *ctx, unsigned attr, unsigned value, const uint8_t *p, size_t n);

static int walk_info(const cubin *cb, Elf_Scn *scn, attr_fn fn, void *ctx)
{
    const uint8_t *p;
    size_t len, pos = 0;
    int rc = co_elf_section_bytes(cb->elf, scn, &p, &len, cb->origin);

    while (rc == 0 && pos < len) {
        unsigned fmt, attr, value = 0;
        size_t n = 0;

        if (len - pos < 4)
            return rpl_error_set(RPL_EINPUT, "'%s': truncated .nv.info record", cb->origin);
        fmt = p[pos];
        attr = p[pos + 1];
        value = co_le16(p + pos + 2);
        pos += 4;
        if (fmt == EIFMT_SVAL) {
            n = value;
            if (n > len - pos)
                return rpl_error_set(RPL_EINPUT, "'%s': .nv.info record runs past its section",
                                     cb->origin);
        } else if (fmt < 1 || fmt > 3) {
            return rpl_error_set(RPL_EINPUT, "'%s': bad .nv.info record format %u", cb->origin,
                                 fmt);
        }
        rc = fn(ctx, attr, value, p + pos, n);
        pos += n;
    }
    return rc;
}

static int global_attr(void *ctx, unsigned attr, unsigned value, const uint8_t *p, size_t n)
{
    cubin *cb = ctx;
    uint32_t sym;

    (void)value;
    if ((attr != EIATTR_REGCOUNT && attr != EIATTR_FRAME_SIZE) || n < 8)
        return 0;
    sym = co_le32(p);
    if (sym >= cb->n_syms)
        return rpl_error_set(RPL_EINPUT, "'%s': .nv.info names symbol %u of %zu", cb->origin, sym,
                             cb->n_syms);
    if (co_le32(p + 4) > INT32_MAX)
        return rpl_error_set(RPL_EINPUT, "'%s': .nv.info value out of range", cb->origin);
    if (attr == EIATTR_REGCOUNT)
        cb->regs[sym] = (int32_t)co_le32(p + 4);
    else
        cb->frame[sym] = (int32_t)co_le32(p + 4);
    return 0;
}

typedef struct kattr_ctx {
    const cubin *cb;
    rpl_kernel_info *k;
} kattr_ctx;

static int kernel_attr(void *ctx, unsigned attr, unsigned value, const uint8_t *p, size_t n)
{
    kattr_ctx *c = ctx;
    rpl_kernel_info *k = c->k;

    switch (attr) {
    case EIATTR_MAX_THREADS:
    case EIATTR_REQNTID:
        if (n >= 12) {
            uint64_t t = (uint64_t)co_le32(p) * co_le32(p + 4) * co_le32(p + 8);

            if (t == 0 || t > 1u << 20)
                return rpl_error_set(RPL_EINPUT, "'%s': kernel '%s' has a bad launch bound",
                                     c->cb->origin, k->name);
            k->max_flat_workgroup_size = (uint32_t)t;
        }
        break;
    case EIATTR_NUM_BARRIERS:
        k->num_barriers = (int32_t)(value & 0xff);
        break;
    case EIATTR_CBANK_PARAM_SIZE:
        k->kernarg_segment_size = value;
        break;
    case EIATTR_KPARAM_INFO:
        if (n >= 12) {
            rpl_kernarg *grown = realloc(k->args, (k->n_args + 1) * sizeof(*grown));
            rpl_kernarg *a;

            if (!grown)
                return rpl_error_oom();
            k->args = grown;
            a = &k->args[k->n_args++];
            memset(a, 0, sizeof(*a));
            a->offset = co_le16(p + 6);
            a->size = (co_le32(p + 8) >> 18) & 0x3fff;
        }
        break;
    default:
        break;
    }
    return 0;
}

static int cmp_arg(const void *a, const void *b)
{
    const rpl_kernarg *x = a, *y = b;

    return (x->offset > y->offset) - (x->offset < y->offset);
}

static int read_kernel(cubin *cb, rpl_codeobj_set *set, const char *name, size_t symidx,
                       const GElf_Sym *sym, const char *arch)
{
    rpl_kernel_info *k = co_kernel_push(set);
    kattr_ctx kc;
    Elf_Scn *scn;
    GElf_Shdr shdr;
    int rc;

    if (!k)
        return rpl_error_oom();
    k->vendor = RPL_VENDOR_NVIDIA;
    k->name = co_strndup(name, strlen(name));
    k->symbol = co_strndup(name, strlen(name));
    k->arch = strdup(arch);
    k->target = strdup(arch);
    k->origin = strdup(cb->origin);
    if (!k->name || !k->symbol || !k->arch || !k->target || !k->origin)
        return rpl_error_oom();
    k->wavefront_size = 32;
    k->agpr_count = 0;
    k->num_barriers = 0;
    k->vgpr_count = cb->regs[symidx];
    if (k->vgpr_count < 0 && sym->st_shndx != SHN_UNDEF) {
        /* Older toolkits keep the count in the top byte of .text.<kernel> sh_info. */
        scn = elf_getscn(cb->elf, sym->st_shndx);
        if (scn && gelf_getshdr(scn, &shdr))
            k->vgpr_count = (int32_t)((shdr.sh_info >> 24) & 0xff);
    }
    if (k->vgpr_count < 0)
        return rpl_error_set(RPL_EINPUT, "'%s': no register count for kernel '%s'", cb->origin,
                             k->name);
    k->arch_vgpr_count = k->vgpr_count;
    k->private_segment_fixed_size = cb->frame[symidx] < 0 ? 0 : (uint32_t)cb->frame[symidx];

    scn = find_sec2(cb, ".nv.shared.", name);
    if (scn && gelf_getshdr(scn, &shdr)) {
        uint64_t size = shdr.sh_size;
        const rpl_arch *a = rpl_arch_find(arch);

        if (cb->reserved_layout && a && size >= a->reserved_smem_per_block)
            size -= a->reserved_smem_per_block;
        if (size > UINT32_MAX)
            return rpl_error_set(RPL_EINPUT, "'%s': kernel '%s' shared memory is too large",
                                 cb->origin, k->name);
        k->group_segment_fixed_size = (uint32_t)size;
    }
    scn = find_sec2(cb, ".nv.info.", name);
    if (scn) {
        kc.cb = cb;
        kc.k = k;
        rc = walk_info(cb, scn, kernel_attr, &kc);
        if (rc != 0)
            return rc;
        if (k->n_args)
            qsort(k->args, k->n_args, sizeof(*k->args), cmp_arg);
    }
    return 0;
}

static int read_kernels(cubin *cb, rpl_codeobj_set *set, const char *arch)
{
    GElf_Shdr shdr;
    Elf_Scn *symtab = NULL, *scn = NULL;
    Elf_Data *data;
    size_t found = 0;
    int rc;

    while ((scn = elf_nextscn(cb->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &shdr))
            return rpl_error_set(RPL_EINPUT, "'%s': bad section header", cb->origin);
        if (shdr.sh_type == SHT_SYMTAB) {
            symtab = scn;
            break;
        }
    }
    if (!symtab)
        return rpl_error_set(RPL_EINPUT, "'%s': cubin has no symbol table", cb->origin);
    data = elf_getdata(symtab, NULL);
    if (!data || shdr.sh_entsize == 0)
        return rpl_error_set(RPL_EINPUT, "'%s': unreadable symbol table: %s", cb->origin,
                             elf_errmsg(-1));
    cb->n_syms = data->d_size / sizeof(Elf64_Sym);
    cb->regs = malloc((cb->n_syms ? cb->n_syms : 1) * sizeof(*cb->regs));
    cb->frame = malloc((cb->n_syms ? cb->n_syms : 1) * sizeof(*cb->frame));
    if (!cb->regs || !cb->frame)
        return rpl_error_oom();
    for (size_t i = 0; i < cb->n_syms; i++)
        cb->regs[i] = cb->frame[i] = -1;

    scn = find_sec(cb, ".nv.info");
    if (scn && (rc = walk_info(cb, scn, global_attr, cb)) != 0)
        return rc;

    for (size_t i = 0; i < cb->n_syms; i++) {
        GElf_Sym sym;
        const char *name;

        if (!gelf_getsym(data, (int)i, &sym))
            return rpl_error_set(RPL_EINPUT, "'%s': bad symbol %zu", cb->origin, i);
        if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_shndx != SHN_UNDEF &&
            (name = elf_strptr(cb->elf, shdr.sh_link, sym.st_name)) != NULL && name[0] &&
            name[0] != '.' && (rc = co_global_push(set, name)) != 0)
            return rc;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !(sym.st_other & STO_CUDA_ENTRY))
            continue;
        name = elf_strptr(cb->elf, shdr.sh_link, sym.st_name);
        if (!name || !*name)
            return rpl_error_set(RPL_EINPUT, "'%s': kernel symbol %zu has no name", cb->origin, i);
        rc = read_kernel(cb, set, name, i, &sym, arch);
        if (rc != 0)
            return rc;
        found++;
    }
    if (!found)
        return co_warn(set, "'%s' holds no kernels", cb->origin);
    return 0;
}

int co_read_cubin(rpl_codeobj_set *set, Elf *elf, const char *origin)
{
    GElf_Ehdr ehdr;
    cubin cb = {0};
    char arch[16];
    unsigned sm;
    size_t keep = set->count, keep_globals = set->n_globals;
    int rc;

    if (!gelf_getehdr(elf, &ehdr))
        return rpl_error_set(RPL_EINPUT, "'%s': bad ELF header: %s", origin, elf_errmsg(-1));
    /* ABI v2 (CUDA 12.x+) keeps the SM in bits 8-15 of e_flags, older cubins in bits 0-7. */
    if (ehdr.e_ident[EI_OSABI] == ELFOSABI_CUDA_V2)
        sm = (unsigned)(ehdr.e_flags >> 8) & 0xff;
    else
        sm = (unsigned)ehdr.e_flags & 0xff;
    if (sm == 0)
        return rpl_error_set(RPL_EINPUT, "'%s': cubin names no SM architecture", origin);
    snprintf(arch, sizeof(arch), "sm_%u", sm);

    cb.elf = elf;
    cb.origin = origin;
    rc = index_sections(&cb);
    if (rc == 0)
        rc = read_kernels(&cb, set, arch);
    if (rc != 0) {
        co_set_truncate(set, keep);
        co_globals_truncate(set, keep_globals);
    }
    free(cb.secs);
    free(cb.regs);
    free(cb.frame);
    return rc;
}
