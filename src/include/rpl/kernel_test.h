/*
 * Kernel test scaffolds (`rocm-perf new-test`): a kernel source and the
 * CMakeLists.txt of its gate test, from the templates in
 * templates/kernel-test (kernel.in, CMakeLists.txt.in; @NAME@, @EXT@ and
 * @ARCHITECTURES@ replaced).
 */
#ifndef RPL_KERNEL_TEST_H
#define RPL_KERNEL_TEST_H

#include <stdbool.h>
#include <stdio.h>

/* A test name: a C identifier of 1 to 64 characters. */
bool rpl_kernel_test_name_ok(const char *name);

/*
 * Write dir/name/name.hip (or .cu) and dir/name/CMakeLists.txt from the
 * templates folder, saying "wrote PATH" on `out` for each.  Neither is
 * written when either exists (RPL_EUSAGE).
 */
int rpl_kernel_test_scaffold(FILE *out, const char *templates, const char *dir, const char *name,
                             bool hip);

#endif
