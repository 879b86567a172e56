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

#include "rpl/strbuf.h"

/*
 * POSIX extended regex matched against a kernel's short name (see
 * rpl_kernel_short_name), never against its template arguments or
 * parameters, so "gemm<rocblas_fill>(FillMode)" is no helper.  It catches:
 * - names that start with a runtime prefix: __amd_rocclr_ (the ROCclr blit
 *   kernels: fillBufferAligned, copyBuffer, copyBufferRect, streamOpsWait,
 *   initHeap, ...), amd_rocclr_, __hip, hip + capital or '_', hsa_;
 * - memset kernels: "memset" or "Memset" anywhere;
 * - fill kernels: "fill"/"Fill" as a word (fill_kernel, FillFunctor,
 *   deviceFill), not inside a word (prefill, refill);
 * - runtime buffer/image copies: copyBuffer*, copyImage*, CopyBuffer*.
 * Copies written by users (copy_kernel, copy_transpose) are real work and
 * are kept.
 */
#define RPL_HELPER_REGEX_DEFAULT                                                                   \
    "^(__amd_rocclr_|amd_rocclr_|__hip|hip[A-Z_]|hsa_)"                                            \
    "|[Mm]emset"                                                                                   \
    "|(^|[^A-Za-z])[Ff]ill([^a-z]|$)|[a-z0-9]Fill([^a-z]|$)"                                       \
    "|(^|[^A-Za-z])[Cc]opy(Buffer|Image)|[a-z0-9]Copy(Buffer|Image)"

/* Environment variable that replaces the default helper pattern. */
#define RPL_HELPER_REGEX_ENV "ROCM_PERF_HELPERS"

typedef struct rpl_kernel_filter {
    regex_t include; /* --kernel REGEX */
    regex_t helper;
    bool has_include;
    bool include_helpers; /* keep helpers too */
    char *kernel_regex;   /* the --kernel pattern, or NULL */
    char *helper_regex;   /* the helper pattern in effect */
} rpl_kernel_filter;

/*
 * kernel_regex: NULL for every kernel.  helper_regex: NULL for the
 * ROCM_PERF_HELPERS environment variable when it is set and not empty, else
 * the default.  A bad expression fails with RPL_EUSAGE.
 */
int rpl_kernel_filter_init(rpl_kernel_filter *f, const char *kernel_regex, const char *helper_regex,
                           bool include_helpers);
void rpl_kernel_filter_release(rpl_kernel_filter *f);

/* True when the kernel's short name matches the helper pattern. */
bool rpl_kernel_filter_is_helper(const rpl_kernel_filter *f, const char *name,
                                 const char *display_name);
/*
 * True when the kernel is selected: the --kernel pattern matches its display
 * name or its mangled name (anywhere, as grep does), and it is no helper
 * unless helpers are kept.
 */
bool rpl_kernel_filter_selects(const rpl_kernel_filter *f, const char *name,
                               const char *display_name);

/*
 * The short name of a kernel: its qualified function name without return
 * type, template arguments, parameters and a ".kd" suffix.  Taken from the
 * display name, or by decoding the mangled name when the display name is
 * empty or itself mangled:
 *   "void ns::gemm<float, 4>(float*, int)"  -> "ns::gemm"
 *   "_ZN2ns4gemmIfEEvPf"                    -> "ns::gemm"
 *   "__amd_rocclr_copyBuffer.kd"            -> "__amd_rocclr_copyBuffer"
 * `out` is reset first.
 */
int rpl_kernel_short_name(rpl_strbuf *out, const char *name, const char *display_name);

/*
 * Table labels of at most `width` columns (width >= 16) for names[0..n):
 * a name that fits as it is; else without a "void " return type and with
 * the parameters that fit ("f(int, flo…)"); else the qualified name with
 * the template arguments that fit ("f<int, 3…>(…)"); else elided in the
 * middle with "…" (its front and its end kept).  Labels of different names
 * stay different: where two would be equal, both show the part where the
 * names differ.  *out receives n strings; free them with
 * rpl_kernel_labels_free.
 */
int rpl_kernel_labels(char ***out, const char *const *names, size_t n, size_t width);
void rpl_kernel_labels_free(char **labels, size_t n);

/* Display columns of a UTF-8 string (its bytes less the continuation bytes). */
size_t rpl_utf8_columns(const char *s);
/* Byte offset of column `col` of UTF-8 text s (its end when s is shorter). */
size_t rpl_utf8_byte_at(const char *s, size_t col);
/* The first `len` bytes of UTF-8 text s cut to at most `max`, not inside a character. */
size_t rpl_utf8_cut(const char *s, size_t len, size_t max);
/*
 * `s` in `width` columns (head < width) with the middle elided: the first
 * `head` columns, "…", then the columns from `from` on, ending in "…" when the
 * end does not fit either; `from` == 0 asks for the end of s.  A copy of s when
 * it fits; NULL when out of memory.
 */
char *rpl_utf8_elide(const char *s, size_t width, size_t head, size_t from);

#endif
