/* Internals of the code-object readers (src/codeobj/). */
#ifndef RPL_CODEOBJ_INT_H
#define RPL_CODEOBJ_INT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/codeobj.h"

/* Nesting limit: host ELF -> bundle -> compressed bundle -> bundle -> code object. */
#define CO_MAX_DEPTH 6

#define CO_EM_AMDGPU 224
#define CO_EM_CUDA   190

/* Dispatch on content: bundle, compressed bundle, fatbin, ELF. */
int co_read_any(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                int depth);

int co_read_bundle(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                   int depth);
int co_read_ccob(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                 int depth);
int co_read_fatbin(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                   int depth);
int co_read_amdgpu(rpl_codeobj_set *set, Elf *elf, const char *origin);
int co_read_cubin(rpl_codeobj_set *set, Elf *elf, const char *origin);

/* Byte length of the bundle (or compressed bundle) at `data`, for walking concatenations. */
int co_bundle_extent(size_t *out, const uint8_t *data, size_t len, const char *origin);

/* Check that `len` bytes hold well-formed msgpack whose containers fit the bytes. */
int co_msgpack_check(const uint8_t *data, size_t len, const char *origin);

/* zstd decompression of exactly `out_len` bytes (RPL_EENV without libzstd). */
int co_zstd_decompress(uint8_t **out, size_t out_len, const uint8_t *data, size_t len,
                       const char *origin);

/* libelf helpers. */
int co_elf_open(Elf **out, const uint8_t *data, size_t len, const char *origin);
/* The section named `name`, or NULL. */
Elf_Scn *co_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr);
/* A section's bytes in the file, bounds-checked (NULL data with 0 length for NOBITS). */
int co_elf_section_bytes(Elf *elf, Elf_Scn *scn, const uint8_t **data, size_t *len,
                         const char *origin);
/* Major version from a "clang version N.x" string in .comment, 0 when absent. */
unsigned co_elf_llvm_major(Elf *elf);

/* A printable copy of `len` bytes (control and non-ASCII bytes become '?'). */
char *co_strndup(const char *s, size_t len);
/* "<origin><sep><what>" */
char *co_origin(const char *origin, const char *sep, const char *what);

/* A new zeroed kernel at the end of the set (counts unknown), or NULL on OOM. */
rpl_kernel_info *co_kernel_push(rpl_codeobj_set *set);
void co_kernel_clear(rpl_kernel_info *k);
/* Remove kernels from index `keep` on (rollback after a failure). */
void co_set_truncate(rpl_codeobj_set *set, size_t keep);
/* Append a copy of a device variable's name to set->globals; 0 or OOM. */
int co_global_push(rpl_codeobj_set *set, const char *name);
/* Remove device variables from index `keep` on. */
void co_globals_truncate(rpl_codeobj_set *set, size_t keep);
int co_warn(rpl_codeobj_set *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline uint16_t co_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t co_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t co_le64(const uint8_t *p)
{
    return (uint64_t)co_le32(p) | ((uint64_t)co_le32(p + 4) << 32);
}

#endif
