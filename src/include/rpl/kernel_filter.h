/*
 * Which kernels an analysis looks at.  Runtime helpers (the HIP runtime's
 * copy/fill/memset kernels and the like) are excluded unless asked for; the
 * default helper pattern is RPL_HELPER_REGEX_DEFAULT, documented in
 * docs/USER_GUIDE.md and overridable by --helpers or ROCM_PERF_HELPERS.
 */
#ifndef RPL_KERNEL_FILTER_H
#define RPL_KERNEL_FILTER_H

#include <regex.h>
#include <stdbool.h>

/* POSIX extended regex matched against the mangled and the display name. */
#define RPL_HELPER_REGEX_DEFAULT                                                                   \
    "^(__amd_rocclr_|hip[A-Z_]|hsa_|__hip|_Z[0-9]+__amd_rocclr_|amd_rocclr_)"                      \
    "|([Mm]emset|[Ff]ill[A-Z_]|[Cc]opy[A-Z_](Buffer|Image)|BlitKernel)"

typedef struct rpl_kernel_filter {
    regex_t include; /* --kernel REGEX */
    regex_t helper;
    bool has_include;
    bool include_helpers; /* keep helpers too */
} rpl_kernel_filter;

/*
 * kernel_regex: NULL for every kernel.  helper_regex: NULL for the
 * ROCM_PERF_HELPERS environment variable, else the default.  A bad
 * expression fails with RPL_EUSAGE.
 */
int rpl_kernel_filter_init(rpl_kernel_filter *f, const char *kernel_regex,
                           const char *helper_regex, bool include_helpers);
void rpl_kernel_filter_release(rpl_kernel_filter *f);

/* True when either name looks like a runtime helper. */
bool rpl_kernel_filter_is_helper(const rpl_kernel_filter *f, const char *name,
                                 const char *display_name);
/* True when the kernel is selected: matches --kernel, and is no helper unless kept. */
bool rpl_kernel_filter_selects(const rpl_kernel_filter *f, const char *name,
                               const char *display_name);

#endif
