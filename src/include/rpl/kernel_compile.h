/*
 * How a kernel source is compiled, for parsing it as its build does
 * (`rocm-perf kernels`): the machine's GPU, a compile command given as
 * words, or a compilation database's entry.
 */
#ifndef RPL_KERNEL_COMPILE_H
#define RPL_KERNEL_COMPILE_H

#include "rpl/kernel_source.h"

typedef struct rpl_ks_compile {
    char **words;      /* the compile command (NULL-terminated), or NULL */
    char *dir;         /* where it runs (a compilation database's "directory"), or NULL */
    char gpu_arch[16]; /* this machine's GPU, or "" */
} rpl_ks_compile;

/*
 * Point `ks` at how `source` is built, kept in `c`: this machine's GPU as
 * ks->gpu_arch when ks->arch is not given; the words of `build` (a command
 * template: {src} is `source`, {out} a scratch output nothing writes, {dir}
 * ".", {arch} ks->arch or the GPU's, else empty) or of the entry of
 * `compile_commands` that compiles `source` (rpl_compile_db_find), each
 * unless NULL.  RPL_EUSAGE for a bad template, rpl_compile_db_find's
 * failures.  Release `c` after the last use of `ks`.
 */
int rpl_ks_compile_find(rpl_ks_compile *c, rpl_ks_options *ks, const char *source,
                        const char *build, const char *compile_commands);
void rpl_ks_compile_release(rpl_ks_compile *c);

#endif
