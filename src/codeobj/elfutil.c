/* libelf helpers shared by the AMDGPU, cubin and host-ELF readers. */
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"

int co_elf_open(Elf **out, const uint8_t *data, size_t len, const char *origin)
{
    /* elf_memory takes a non-const image; in read mode libelf does not write to it. */
    Elf *elf = elf_memory((char *)(uintptr_t)data, len);
    size_t nsec;

    if (!elf)
        return rpl_error_set(RPL_EINPUT, "'%s': not a readable ELF file: %s", origin,
                             elf_errmsg(-1));
    if (elf_kind(elf) != ELF_K_ELF) {
        elf_end(elf);
        return rpl_error_set(RPL_EINPUT, "'%s': not an ELF object", origin);
    }
    if (gelf_getclass(elf) != ELFCLASS64) {
        elf_end(elf);
        return rpl_error_set(RPL_EINPUT, "'%s': only 64-bit ELF files are supported", origin);
    }
    if (elf_getshdrnum(elf, &nsec) != 0 || nsec == 0) {
        elf_end(elf);
        return rpl_error_set(RPL_EINPUT,
                             "'%s': no section headers (truncated file, or they lie outside it)",
                             origin);
    }
    *out = elf;
    return 0;
}

Elf_Scn *co_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        const char *n;

        if (!gelf_getshdr(scn, shdr))
            return NULL;
        n = elf_strptr(elf, shstrndx, shdr->sh_name);
        if (n && strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

int co_elf_section_bytes(Elf *elf, Elf_Scn *scn, const uint8_t **data, size_t *len,
                         const char *origin)
{
    GElf_Shdr shdr;
    Elf_Data *d;

    (void)elf;
    *data = NULL;
    *len = 0;
    if (!gelf_getshdr(scn, &shdr))
        return rpl_error_set(RPL_EINPUT, "'%s': bad section header: %s", origin, elf_errmsg(-1));
    if (shdr.sh_type == SHT_NOBITS || shdr.sh_size == 0)
        return 0;
    d = elf_rawdata(scn, NULL);
    if (!d)
        return rpl_error_set(RPL_EINPUT, "'%s': section %zu lies outside the file: %s", origin,
                             elf_ndxscn(scn), elf_errmsg(-1));
    if (!d->d_buf && d->d_size)
        return rpl_error_set(RPL_EINPUT, "'%s': section %zu has no data", origin, elf_ndxscn(scn));
    *data = d->d_buf;
    *len = d->d_size;
    return 0;
}

unsigned co_elf_llvm_major(Elf *elf)
{
    static const char key[] = "clang version ";
    GElf_Shdr shdr;
    Elf_Scn *scn = co_elf_section(elf, ".comment", &shdr);
    const uint8_t *p;
    size_t len, klen = sizeof(key) - 1;

    if (!scn || co_elf_section_bytes(elf, scn, &p, &len, "") != 0)
        return 0;
    for (size_t i = 0; i + klen < len; i++) {
        unsigned v = 0;
        size_t j = i + klen;

        if (memcmp(p + i, key, klen) != 0)
            continue;
        while (j < len && p[j] >= '0' && p[j] <= '9' && v < 10000)
            v = v * 10 + (unsigned)(p[j++] - '0');
        if (v)
            return v;
    }
    return 0;
}
