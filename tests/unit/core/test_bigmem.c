/* rpl_bigmem: advised blocks hold their bytes through realloc; the advice reaches the kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/bigmem.h"

#define MIB ((size_t)1 << 20)

/* The VmFlags line of the mapping that holds addr in /proc/self/smaps ("" if none). */
static void vm_flags_of(const void *addr, char *flags, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool inside = false;

    flags[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;

        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(flags, size, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

static bool has_flag(const char *flags, const char *flag)
{
    size_t n = strlen(flag);

    for (const char *s = strstr(flags, flag); s; s = strstr(s + 1, flag))
        if ((s == flags || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\n' || s[n] == '\0'))
            return true;
    return false;
}

static void realloc_keeps_every_byte(void **state)
{
    size_t n = 8 * MIB;
    unsigned char *p = rpl_bigmem_malloc(n), *q;

    (void)state;
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + 3);
    q = realloc(p, 3 * n);
    assert_non_null(q);
    rpl_bigmem_advise(q, 3 * n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(q[i], (unsigned char)(i * 7 + 3));
    memset(q + n, 0xab, 2 * n);
    assert_int_equal(q[3 * n - 1], 0xab);
    free(q);
}

static void calloc_is_zeroed(void **state)
{
    size_t n = 6 * MIB / sizeof(uint64_t);
    uint64_t *p = rpl_bigmem_calloc(n, sizeof(*p)), any = 0;

    (void)state;
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        any |= p[i];
    assert_int_equal(any, 0);
    free(p);
    assert_null(rpl_bigmem_calloc(SIZE_MAX / 2, 4)); /* overflow: NULL, no advice */
}

static void small_and_null_blocks_are_left_alone(void **state)
{
    char flags[512];
    char *p = malloc(64 * 1024);

    (void)state;
    rpl_bigmem_advise(NULL, 64 * MIB);
    assert_non_null(p);
    rpl_bigmem_advise(p, 64 * 1024);
    vm_flags_of(p, flags, sizeof(flags));
    assert_false(has_flag(flags, "hg"));
    free(p);
}

/* Where the kernel has transparent huge pages (Linux with THP built in), the block's
 * mapping carries the advice ("hg" in VmFlags). */
static void large_block_is_advised(void **state)
{
    char flags[512];
    char *p;

    (void)state;
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
        print_message("no transparent huge pages on this system: advice not checked\n");
        return;
    }
    p = rpl_bigmem_malloc(16 * MIB);
    assert_non_null(p);
    vm_flags_of(p + 8 * MIB, flags, sizeof(flags));
    assert_true(has_flag(flags, "hg"));
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* First: later tests may leave advised pages in the heap that a small block reuses. */
        cmocka_unit_test(small_and_null_blocks_are_left_alone),
        cmocka_unit_test(large_block_is_advised),
        cmocka_unit_test(realloc_keeps_every_byte),
        cmocka_unit_test(calloc_is_zeroed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
