/*
 * Entry points of the code-object readers: files, buffers, content dispatch,
 * host ELF files.  The set they fill is set.c.
 */
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

static const char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";
#define BUNDLE_MAGIC_LEN 24
#define FATBIN_MAGIC     0xBA55ED50u

/* Position of the next bundle (plain or compressed) at or after `from`, or len. */
static size_t next_bundle(const uint8_t *data, size_t len, size_t from)
{
    for (size_t i = from; i + 4 <= len; i++) {
        if (data[i] != '_' && data[i] != 'C')
            continue;
        if (i + BUNDLE_MAGIC_LEN <= len && memcmp(data + i, bundle_magic, BUNDLE_MAGIC_LEN) == 0)
            return i;
        if (memcmp(data + i, "CCOB", 4) == 0)
            return i;
    }
    return len;
}

/* .hip_fatbin: one or more bundles, each padded to its section alignment. */
static int read_hip_fatbin(rpl_codeobj_set *set, const uint8_t *data, size_t len,
                           const char *origin, int depth)
{
    size_t pos = next_bundle(data, len, 0), found = 0;

    while (pos < len) {
        size_t extent;
        int rc = co_bundle_extent(&extent, data + pos, len - pos, origin);

        if (rc == 0)
            rc = co_read_any(set, data + pos, extent, origin, depth + 1);
        if (rc != 0)
            return rc;
        found++;
        pos = next_bundle(data, len, pos + extent);
    }
    if (!found)
        return rpl_error_set(RPL_EINPUT, "'%s' holds no clang offload bundle", origin);
    return 0;
}

/* .nv_fatbin: fatbins back to back, each aligned to 8 bytes. */
static int read_nv_fatbin(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                          int depth)
{
    size_t pos = 0, found = 0;

    while (pos + 16 <= len) {
        uint64_t size;
        int rc;

        if (co_le32(data + pos) != FATBIN_MAGIC) {
            if (co_le64(data + pos) == 0 && pos % 8 == 0) {
                pos += 8; /* padding between fatbins */
                continue;
            }
            return rpl_error_set(RPL_EINPUT, "'%s': bad fatbin magic at offset %zu", origin, pos);
        }
        size = (uint64_t)co_le16(data + pos + 6) + co_le64(data + pos + 8);
        if (size > len - pos)
            return rpl_error_set(RPL_EINPUT, "'%s': fatbin at offset %zu runs past the section",
                                 origin, pos);
        rc = co_read_fatbin(set, data + pos, (size_t)size, origin, depth + 1);
        if (rc != 0)
            return rc;
        found++;
        pos += (size_t)size;
        pos = (pos + 7) & ~(size_t)7;
    }
    if (!found)
        return rpl_error_set(RPL_EINPUT, "'%s' holds no fatbin", origin);
    return 0;
}

/* A host ELF file: look for device code in its sections. */
static int read_host_elf(rpl_codeobj_set *set, Elf *elf, const char *origin, int depth)
{
    size_t shstrndx, found = 0;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return rpl_error_set(RPL_EINPUT, "'%s': no section name table: %s", origin, elf_errmsg(-1));
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr shdr;
        const char *name;
        const uint8_t *bytes;
        size_t nbytes;
        char *where;
        int rc, hip, nv, bundled;

        if (!gelf_getshdr(scn, &shdr))
            return rpl_error_set(RPL_EINPUT, "'%s': bad section header: %s", origin,
                                 elf_errmsg(-1));
        name = elf_strptr(elf, shstrndx, shdr.sh_name);
        if (!name)
            continue;
        hip = strcmp(name, ".hip_fatbin") == 0;
        nv = strcmp(name, ".nv_fatbin") == 0 || strcmp(name, "__nv_relfatbin") == 0;
        /* clang-offload-bundler -type=o keeps each device object in its own section. */
        bundled = strncmp(name, bundle_magic, BUNDLE_MAGIC_LEN) == 0;
        if (!hip && !nv && !bundled)
            continue;
        rc = co_elf_section_bytes(elf, scn, &bytes, &nbytes, origin);
        if (rc != 0)
            return rc;
        if (nbytes == 0)
            continue;
        where = co_origin(origin, ":", name);
        if (!where)
            return rpl_error_oom();
        if (hip)
            rc = read_hip_fatbin(set, bytes, nbytes, where, depth);
        else if (nv)
            rc = read_nv_fatbin(set, bytes, nbytes, where, depth);
        else
            rc = co_read_any(set, bytes, nbytes, where, depth + 1);
        free(where);
        if (rc != 0)
            return rc;
        found++;
    }
    if (!found)
        return rpl_error_set(
            RPL_EINPUT, "'%s' holds no GPU code (no .hip_fatbin or .nv_fatbin section)", origin);
    return 0;
}

static int read_elf(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                    int depth)
{
    Elf *elf;
    GElf_Ehdr ehdr;
    int rc = co_elf_open(&elf, data, len, origin);

    if (rc != 0)
        return rc;
    if (!gelf_getehdr(elf, &ehdr)) {
        rc = rpl_error_set(RPL_EINPUT, "'%s': bad ELF header: %s", origin, elf_errmsg(-1));
    } else if (ehdr.e_machine == CO_EM_AMDGPU) {
        set->n_images++;
        if (set->on_image)
            set->on_image(set->image_ctx, "amdgpu", data, len);
        rc = co_read_amdgpu(set, elf, origin);
    } else if (ehdr.e_machine == CO_EM_CUDA) {
        set->n_images++;
        if (set->on_image)
            set->on_image(set->image_ctx, "cubin", data, len);
        rc = co_read_cubin(set, elf, origin);
    } else {
        rc = read_host_elf(set, elf, origin, depth);
    }
    elf_end(elf);
    return rc;
}

int co_read_any(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                int depth)
{
    if (depth > CO_MAX_DEPTH)
        return rpl_error_set(RPL_EINPUT, "'%s': containers nested too deeply", origin);
    if (len >= BUNDLE_MAGIC_LEN && memcmp(data, bundle_magic, BUNDLE_MAGIC_LEN) == 0)
        return co_read_bundle(set, data, len, origin, depth);
    if (len >= 4 && memcmp(data, "CCOB", 4) == 0)
        return co_read_ccob(set, data, len, origin, depth);
    if (len >= 4 && co_le32(data) == FATBIN_MAGIC)
        return co_read_fatbin(set, data, len, origin, depth);
    if (len >= 4 && memcmp(data, "\177ELF", 4) == 0)
        return read_elf(set, data, len, origin, depth);
    return rpl_error_set(RPL_EINPUT,
                         "'%s' is not a code object, offload bundle, fatbin or ELF file", origin);
}

/* Read a writable buffer (libelf wants one); on failure drop what this call added. */
static int read_owned(rpl_codeobj_set *set, uint8_t *data, size_t len, const char *name)
{
    size_t keep_kernels = set->count, keep_warnings = set->n_warnings, keep_images = set->n_images;
    size_t keep_globals = set->n_globals;
    int rc;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return rpl_error_set(RPL_EENV, "libelf is unusable: %s", elf_errmsg(-1));
    rc = co_read_any(set, data, len, name, 0);
    if (rc != 0) {
        co_set_truncate(set, keep_kernels);
        while (set->n_warnings > keep_warnings)
            free(set->warnings[--set->n_warnings]);
        co_globals_truncate(set, keep_globals);
        set->n_images = keep_images;
    }
    return rc;
}

int rpl_codeobj_read_buffer(rpl_codeobj_set *set, const void *data, size_t len, const char *name)
{
    uint8_t *copy;
    int rc;

    if (len > RPL_CODEOBJ_MAX_FILE)
        return rpl_error_set(RPL_EINPUT, "'%s' is larger than %u bytes", name,
                             RPL_CODEOBJ_MAX_FILE);
    copy = malloc(len ? len : 1);
    if (!copy)
        return rpl_error_oom();
    if (len)
        memcpy(copy, data, len);
    rc = read_owned(set, copy, len, name);
    free(copy);
    return rc;
}

int rpl_codeobj_read_file(rpl_codeobj_set *set, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    int rc = rpl_file_read_all(path, RPL_CODEOBJ_MAX_FILE, &data, &len);

    if (rc != 0)
        return rc;
    rc = read_owned(set, (uint8_t *)data, len, path);
    free(data);
    return rc;
}
