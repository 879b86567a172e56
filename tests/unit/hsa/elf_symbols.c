/* Test helper: symbol lookup in an in-memory ELF image (see elf_symbols.h). */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "elf_symbols.h"

/* The file offset of `value` inside the section that holds it. */
static int symbol_bytes(Elf *elf, size_t shndx, uint64_t value, uint64_t size, size_t len,
                        const unsigned char *image, const unsigned char **bytes)
{
    Elf_Scn *scn = elf_getscn(elf, shndx);
    GElf_Shdr sh;
    uint64_t off;

    if (!scn || !gelf_getshdr(scn, &sh) || value < sh.sh_addr)
        return -1;
    if (sh.sh_type == SHT_NOBITS) { /* zero-initialised data (.bss): no bytes in the file */
        *bytes = NULL;
        return 0;
    }
    off = sh.sh_offset + (value - sh.sh_addr);
    if (off > len || size > len - off)
        return -1;
    *bytes = image + off;
    return 0;
}

int test_elf_symbol(const void *image, size_t len, const char *name, const unsigned char **bytes,
                    uint64_t *value, uint64_t *size)
{
    Elf *elf;
    Elf_Scn *scn = NULL;
    int rc = -1;

    elf_version(EV_CURRENT);
    elf = elf_memory((char *)image, len);
    if (!elf)
        return -1;
    while (rc != 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
            continue;
        data = elf_getdata(scn, NULL);
        for (i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n;

            if (!gelf_getsym(data, (int)i, &sym))
                break;
            n = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (!n || strcmp(n, name) != 0)
                continue;
            *value = sym.st_value;
            *size = sym.st_size;
            rc = symbol_bytes(elf, sym.st_shndx, sym.st_value, sym.st_size, len, image, bytes);
            break;
        }
    }
    elf_end(elf);
    return rc;
}
