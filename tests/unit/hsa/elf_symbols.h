/*
 * Test helper: the bytes and address of a named symbol of an ELF file held
 * in memory (libelf), to read kernel descriptors out of the fixture code
 * object the way the loader would find them.
 */
#ifndef RPL_TEST_ELF_SYMBOLS_H
#define RPL_TEST_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* 0 and *bytes pointing into `image` (NULL for .bss data) when found, -1 otherwise. */
int test_elf_symbol(const void *image, size_t len, const char *name, const unsigned char **bytes,
                    uint64_t *value, uint64_t *size);

#endif
