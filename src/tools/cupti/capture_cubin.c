/*
 * The symbols of a cubin that the capture needs: its functions (to tell
 * which loaded cubin holds the launched kernel) and its module globals
 * (__device__ and __constant__ variables, whose contents the snapshot keeps
 * and replay restores by name).  The cubin comes from the driver; its
 * offsets are still checked by libelf.
 */
#include <gelf.h>
#include <string.h>

#include "capture.h"
#include "rpl/error.h"

#define EM_CUDA_MACHINE 190

/* __device__ variables live in .nv.global(.init), __constant__ ones in .nv.constant<bank>. */
static bool global_section(const char *name)
{
    if (!name)
        return false;
    if (strncmp(name, ".nv.global", 10) == 0)
        return true;
    /* bank 0 holds the kernel parameters, no variables */
    return strncmp(name, ".nv.constant", 12) == 0 && name[12] >= '1' && name[12] <= '9';
}

static int walk(Elf *elf, cc_symbol_fn fn, void *ud)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return rpl_error_set(RPL_EINPUT, "cubin: no section name table");
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t count;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data)
            return rpl_error_set(RPL_EINPUT, "cubin: unreadable symbol table");
        count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < count; i++) {
            GElf_Sym sym;
            GElf_Shdr owner;
            Elf_Scn *oscn;
            const char *name;
            int type, rc;

            if (!gelf_getsym(data, (int)i, &sym))
                return rpl_error_set(RPL_EINPUT, "cubin: bad symbol %zu", i);
            name = elf_strptr(elf, sh.sh_link, sym.st_name);
            type = GELF_ST_TYPE(sym.st_info);
            if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
                continue;
            if (type == STT_FUNC) {
                rc = fn(ud, name, sym.st_size, true);
            } else if (type == STT_OBJECT && sym.st_size > 0 &&
                       (oscn = elf_getscn(elf, sym.st_shndx)) != NULL &&
                       gelf_getshdr(oscn, &owner) &&
                       global_section(elf_strptr(elf, shstrndx, owner.sh_name))) {
                rc = fn(ud, name, sym.st_size, false);
            } else {
                continue;
            }
            if (rc)
                return rc;
        }
    }
    return 0;
}

int cc_cubin_symbols(const void *data, size_t len, cc_symbol_fn fn, void *ud)
{
    Elf *elf;
    GElf_Ehdr eh;
    size_t nsec = 0;
    int rc;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return rpl_error_set(RPL_ERROR, "libelf: %s", elf_errmsg(-1));
    if (len < 4 || memcmp(data, "\177ELF", 4) != 0)
        return rpl_error_set(RPL_EINPUT, "cubin: not an ELF image");
    /* elf_memory takes a non-const image; read mode does not write to it. */
    elf = elf_memory((char *)(uintptr_t)data, len);
    if (!elf)
        return rpl_error_set(RPL_EINPUT, "cubin: %s", elf_errmsg(-1));
    if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_CUDA_MACHINE)
        rc = rpl_error_set(RPL_EINPUT, "cubin: not an NVIDIA (EM_CUDA) ELF image");
    else if (elf_getshdrnum(elf, &nsec) != 0 || nsec == 0 || eh.e_shoff > len ||
             (uint64_t)nsec * eh.e_shentsize > len - eh.e_shoff)
        rc = rpl_error_set(RPL_EINPUT, "cubin: section headers lie outside the image");
    else
        rc = walk(elf, fn, ud);
    elf_end(elf);
    return rc;
}

static int is_named(void *ud, const char *name, uint64_t size, bool function)
{
    (void)size;
    return function && strcmp(name, ud) == 0;
}

bool cc_cubin_has_function(const void *data, size_t len, const char *mangled)
{
    return cc_cubin_symbols(data, len, is_named, (void *)(uintptr_t)mangled) == 1;
}
