/*
 * Kernel sources as the optimizer sees them: HIP and CUDA files parsed with
 * libclang (loaded at run time), their __global__ kernels with signatures,
 * device-side mangled names and exact extents, the loops inside each kernel
 * with the facts the unroll guardrails need, and the three edits the
 * optimizer makes: insert or change a `#pragma unroll`, replace a whole
 * kernel definition (an LLM's reply), and apply SEARCH/REPLACE blocks to one
 * kernel.  Every edit keeps the file byte-identical outside the kernel, is
 * parsed again, and must leave the kernel's signature unchanged.
 *
 * Offsets are byte offsets into the parsed text; lines are 1-based.
 * Errors: RPL_EENV when libclang (or its resource directory, when one is
 * named) cannot be loaded; RPL_EINPUT for a source that yields no
 * translation unit and for a rejected edit (the message is one line fit to
 * feed back to a model); RPL_ENOTFOUND for a kernel or loop that is not
 * there.
 */
#ifndef RPL_KERNEL_SOURCE_H
#define RPL_KERNEL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/codeobj.h"
#include "rpl/strbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rpl_ks_lang {
    RPL_KS_LANG_AUTO = 0, /* .cu/.cuh, or a build for NVIDIA (sm_, -D__HIP_PLATFORM_NVIDIA__):
                             CUDA; anything else: HIP */
    RPL_KS_LANG_HIP,
    RPL_KS_LANG_CUDA
} rpl_ks_lang;

/* How a source was parsed (device side only, like --cuda-device-only). */
typedef enum rpl_ks_mode {
    RPL_KS_MODE_HIP,         /* -x hip with the ROCm headers */
    RPL_KS_MODE_CUDA,        /* -x cuda with the CUDA toolkit's headers */
    RPL_KS_MODE_CUDA_PRELUDE /* -x cuda -nocudainc with rocm-perf's prelude of CUDA keywords,
                                builtins and intrinsics, and empty stand-ins for the runtime
                                headers: no toolkit, ROCm or clang resource directory needed */
} rpl_ks_mode;

typedef struct rpl_ks_options {
    rpl_ks_lang lang;
    const char *arch; /* HIP: --offload-arch, CUDA: --cuda-gpu-arch; NULL: the build's (from
                         compile_words), else gpu_arch, else gfx90a for HIP and the newest
                         NVIDIA architecture libclang knows for CUDA.  A CUDA architecture libclang
                         does not know is parsed as the newest one below it that it knows. */
    const char *const *compile_words; /* the real compile command (NULL-terminated) or NULL:
                                         its -I, -isystem, -iquote, -D, -U, -include and -std
                                         words in nvcc, clang or hipcc spelling, and its
                                         architecture (-arch, -gencode, --offload-arch) */
    const char *compile_dir;          /* relative paths of compile_words start here (NULL:
                                         the working directory) */
    const char *gpu_arch;             /* the machine's GPU: the architecture when neither arch
                                         nor compile_words names one (NULL: none) */
    const char *const *include_dirs;  /* -I, NULL-terminated, or NULL */
    const char *const *defines;       /* "NAME" or "NAME=VALUE", NULL-terminated, or NULL */
    const char *rocm_path;  /* NULL: $ROCM_PATH, /opt/rocm, /usr (the first with HIP headers) */
    const char *cuda_path;  /* NULL: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda */
    bool no_vendor_headers; /* parse in RPL_KS_MODE_CUDA_PRELUDE whatever is installed */
} rpl_ks_options;

/* [begin, end) in bytes, and the lines of its first and last byte. */
typedef struct rpl_ks_range {
    size_t begin;
    size_t end;
    unsigned line_begin;
    unsigned line_end;
} rpl_ks_range;

typedef struct rpl_ks_diag {
    int severity;  /* 2 warning, 3 error, 4 fatal (CXDiagnosticSeverity) */
    char *file;    /* "" for a location-less diagnostic */
    unsigned line; /* 0 when unknown */
    unsigned column;
    bool in_main_file;
    size_t offset; /* in the main file, when in_main_file */
    char *message;
} rpl_ks_diag;

typedef struct rpl_ks_param {
    char *name;      /* "" when unnamed */
    char *type;      /* as the function type spells it: "const float *__restrict", "size_t" */
    char *canonical; /* the ABI view: typedefs resolved, arrays and functions decayed, top-level
                        qualifiers dropped, template parameters as "type-parameter-D-I" */
} rpl_ks_param;

typedef enum rpl_ks_tparam_kind {
    RPL_KS_TPARAM_TYPE,    /* typename T */
    RPL_KS_TPARAM_VALUE,   /* int N */
    RPL_KS_TPARAM_TEMPLATE /* template <class> class C */
} rpl_ks_tparam_kind;

typedef struct rpl_ks_tparam {
    rpl_ks_tparam_kind kind;
    char *name;
    char *type; /* RPL_KS_TPARAM_VALUE: the canonical type of the value; else NULL */
} rpl_ks_tparam;

typedef enum rpl_ks_loop_kind {
    RPL_KS_LOOP_FOR,
    RPL_KS_LOOP_WHILE,
    RPL_KS_LOOP_DO,
    RPL_KS_LOOP_RANGE_FOR
} rpl_ks_loop_kind;

/* rpl_ks_loop.pragma_unroll: the `#pragma unroll` (or equivalent) before a loop, or its count. */
#define RPL_KS_PRAGMA_NONE  (-1) /* no unroll pragma */
#define RPL_KS_PRAGMA_FULL  0    /* `#pragma unroll` without a count, unroll(full) */
#define RPL_KS_PRAGMA_OTHER (-2) /* a count that is not a literal, or unroll(enable) */

/*
 * One loop of a kernel and what its body does, followed through calls to
 * functions defined in the same translation unit outside system headers.
 */
typedef struct rpl_ks_loop {
    unsigned index; /* 0-based, in source order (pre-order) within the kernel */
    rpl_ks_loop_kind kind;
    unsigned depth;     /* 0 for a loop not nested in another loop of the kernel */
    unsigned n_inner;   /* loops nested in this one */
    rpl_ks_range range; /* from the loop keyword to the end of its body */
    bool in_macro;      /* the loop comes from a macro expansion: not editable */

    bool has_barrier;        /* __syncthreads, __syncwarp, barrier builtins, cg sync */
    bool has_atomic;         /* atomic* calls, __atomic/__hip_atomic builtins, std/cuda atomics */
    bool has_dynamic_shared; /* references an `extern __shared__` array (dynamic LDS) */
    bool has_break;          /* a break that leaves this loop */
    bool has_return;
    bool has_goto;
    bool has_unknown_call; /* a call through a pointer or to a function with no visible body
                              outside system headers */

    int pragma_unroll;     /* RPL_KS_PRAGMA_NONE, RPL_KS_PRAGMA_FULL or the count */
    rpl_ks_range pragma;   /* the pragma directive when there is one */
    bool trip_count_known; /* a for loop with constant bounds and step */
    int64_t trip_count;    /* iterations when known */
    char *blocker;         /* why the seed's guardrails forbid unrolling ("calls
                              __syncthreads at line 21"); NULL when allowed */
} rpl_ks_loop;

typedef struct rpl_ks_kernel {
    char *name;           /* "scale" */
    char *qualified_name; /* "alpha::scale" */
    char *mangled;        /* device symbol ("_ZN5alpha5scaleEPff"); NULL for a template */
    bool extern_c;
    bool is_template;
    bool in_macro; /* produced by a macro expansion: found, but not editable */
    rpl_ks_param *params;
    size_t n_params;
    rpl_ks_tparam *tparams;
    size_t n_tparams;
    char *launch_bounds;     /* the __launch_bounds__ arguments as written ("TILE * TILE"),
                                NULL when none */
    rpl_ks_range definition; /* all of it: template header, extern "C", attributes, body */
    rpl_ks_range body;       /* from '{' to '}' */
    unsigned name_line;
    rpl_ks_loop *loops;
    size_t n_loops;
} rpl_ks_kernel;

typedef struct rpl_ks_parse_ctx rpl_ks_parse_ctx;

typedef struct rpl_kernel_source {
    char *name; /* the path (or buffer name) the source was parsed as */
    char *text; /* the parsed bytes, NUL-terminated */
    size_t len;
    rpl_ks_mode mode;
    char *arch;          /* the architecture parsed for */
    char *wanted_arch;   /* the one asked for or the build's, when it differs; else NULL */
    char *clang_version; /* of the loaded libclang */
    rpl_ks_kernel *kernels;
    size_t n_kernels;
    rpl_ks_diag *diags; /* errors first, then warnings, each in order; at most RPL_KS_MAX_DIAGS */
    size_t n_diags;
    size_t n_errors;       /* all errors and fatal errors, kept or not */
    size_t n_warnings;     /* all warnings */
    rpl_ks_parse_ctx *ctx; /* how to parse an edited version the same way */
    unsigned refs;         /* holders besides the first (rpl_kernel_source_ref) */
} rpl_kernel_source;

#define RPL_KS_MAX_DIAGS 256

/* Parse a file (read whole, at most 16 MiB). */
int rpl_kernel_source_parse_file(rpl_kernel_source **out, const char *path,
                                 const rpl_ks_options *opts);

/*
 * Parse bytes in memory as if they were the file `name`: its directory is
 * searched for "quoted" includes, and the name picks the language in
 * RPL_KS_LANG_AUTO.
 */
int rpl_kernel_source_parse_buffer(rpl_kernel_source **out, const char *name, const char *text,
                                   size_t len, const rpl_ks_options *opts);

/* Drop a holder's reference; the last one frees.  NULL is fine. */
void rpl_kernel_source_free(rpl_kernel_source *src);

/* One more holder of `src` (a candidate's parse shared by the loop and the pipeline; one
   thread at a time).  Returns src. */
rpl_kernel_source *rpl_kernel_source_ref(rpl_kernel_source *src);

/*
 * The kernel called `name`: a device symbol ("_ZN5alpha5scaleEPff"), a
 * qualified name ("alpha::scale") or a plain name that only one kernel has;
 * for a template kernel also an instantiation, by its symbol
 * ("_Z8tiled_mmILj16EEvPKfS1_Pfj") or demangled ("void tiled_mm<16u>(float
 * const*, ...)", "tiled_mm<16>").
 * RPL_ENOTFOUND when none matches, RPL_EINPUT when the name is ambiguous (the
 * message lists the candidates: qualified names, or the device symbols of
 * overloads).
 */
int rpl_kernel_source_find(const rpl_kernel_source *src, const char *name,
                           const rpl_ks_kernel **out);

/*
 * The first error inside the kernel's definition, or NULL when the kernel
 * parsed completely (errors in headers or in other functions do not count:
 * the kernel's AST, signature and loops are whole without them).
 */
const rpl_ks_diag *rpl_ks_kernel_error(const rpl_kernel_source *src, const rpl_ks_kernel *k);

/* "saxpy(unsigned long, float, const float *, float *)": name and canonical parameters. */
int rpl_ks_kernel_signature(const rpl_ks_kernel *k, char **out);

/*
 * Compare two kernels' signatures: qualified name, linkage, template
 * parameters (kinds and value types; names do not matter), parameter
 * count and canonical types (names do not matter: they are not part of the
 * ABI), and device symbols.  0 when equal; else RPL_EFAIL with *diff set to
 * one line ("parameter 3: 'float *' became 'double *'"; free()).
 */
int rpl_ks_signature_diff(const rpl_ks_kernel *before, const rpl_ks_kernel *after, char **diff);

/*
 * The unroll factor for `loop` under the seed's guardrails and the
 * wavefront size (32 or 64), given the factor the caller would like (0:
 * the default).  The rule, in order:
 *  - a loop with a blocker (rpl_ks_loop.blocker) or from a macro is not
 *    unrolled;
 *  - the factor lies in 2..8 (a wish outside it is RPL_EUSAGE);
 *  - the default wish keeps the work per wave the same on both wave sizes:
 *    256 / wave_size lane-iterations, i.e. 4 on wave64 (CDNA), 8 on wave32;
 *  - a known trip count must be a multiple of the factor (no remainder
 *    iterations): the largest divisor of it from 2 up to the wish is taken,
 *    and a loop that runs fewer than 2 times is not unrolled;
 *  - an unknown trip count gets the largest power of two (2, 4, 8) not above
 *    the wish, as problem and block sizes are powers of two in practice.
 * Register pressure is judged afterwards, on the built code object.
 * 0 and *factor, or RPL_EINPUT with the reason, which names the loop
 * ("loop 2 (line 31) ...").
 */
int rpl_ks_unroll_factor(const rpl_ks_loop *loop, unsigned wave_size, unsigned wish,
                         unsigned *factor);

/*
 * The unroll transform: `#pragma unroll factor` on its own line before
 * loop `loop_index` of `kernel` (or the factor of an existing unroll pragma
 * replaced), the rest of the file byte-identical.  The result is parsed
 * again and must hold the same kernels with equal signatures and the pragma
 * on that loop.  The guardrails are the caller's business
 * (rpl_ks_unroll_factor); factor must lie in 2..8.
 */
int rpl_kernel_source_unroll(rpl_kernel_source **out, const rpl_kernel_source *src,
                             const rpl_ks_kernel *kernel, unsigned loop_index, unsigned factor);

/* Why a splice was rejected; the one line saying it is the thread's error (rpl/error.h). */
typedef enum rpl_ks_splice_verdict {
    RPL_KS_SPLICE_OK = 0,
    RPL_KS_SPLICE_REPLY,    /* not one definition of the kernel in its place (none, two,
                               another kernel, code outside changed, empty, a macro's kernel) */
    RPL_KS_SPLICE_PARSE,    /* the reply does not parse */
    RPL_KS_SPLICE_CONTEXT,  /* the reply breaks the code around the kernel */
    RPL_KS_SPLICE_SIGNATURE /* the reply changes the kernel's signature */
} rpl_ks_splice_verdict;

/*
 * Replace the whole definition of `kernel` with `text` (a full kernel
 * definition, as a model returns it) and parse the result.  Rejected with
 * RPL_EINPUT, *verdict (may be NULL) saying which check failed, and one
 * line when the reply does not define the kernel or defines it more than
 * once, defines another kernel, redefines something that lies outside the
 * kernel, does not parse, or changes the signature.  Other errors leave
 * *verdict RPL_KS_SPLICE_OK.  The result's text equals the original
 * outside the replaced extent.
 */
int rpl_kernel_source_splice(rpl_kernel_source **out, rpl_ks_splice_verdict *verdict,
                             const rpl_kernel_source *src, const rpl_ks_kernel *kernel,
                             const char *text, size_t len);

/* One SEARCH/REPLACE block of a model's reply. */
typedef struct rpl_search_replace {
    const char *search;
    size_t search_len;
    const char *replace;
    size_t replace_len;
} rpl_search_replace;

/*
 * Apply SEARCH/REPLACE blocks, in order, to the bytes [begin, end) of
 * `text` (a kernel's definition within its file), and return the new bytes
 * of that region (*out, free(); *out_len).  Each SEARCH must match exactly
 * once in the region as it stands, first byte for byte, else line by line
 * ignoring leading whitespace (the replacement then takes the region's
 * indentation).  A block that matches nowhere, more than once, or only
 * outside the region is an error naming the block (RPL_EINPUT).  Pure text:
 * no parsing.
 */
int rpl_search_replace_apply(char **out, size_t *out_len, const char *text, size_t len,
                             size_t begin, size_t end, const rpl_search_replace *blocks,
                             size_t n_blocks);

/*
 * SEARCH/REPLACE blocks on `kernel`, then rpl_kernel_source_splice with the
 * result (a block that does not apply: RPL_KS_SPLICE_REPLY).
 */
int rpl_kernel_source_apply_edits(rpl_kernel_source **out, rpl_ks_splice_verdict *verdict,
                                  const rpl_kernel_source *src, const rpl_ks_kernel *kernel,
                                  const rpl_search_replace *blocks, size_t n_blocks);

/*
 * The command that compiles `source` in a compilation database
 * (compile_commands.json, as CMake and Bear write it): its words (*words,
 * NULL-terminated, rpl_argv_free) and the directory it runs in (*dir,
 * free()), ready for rpl_ks_options.compile_words and compile_dir.  An
 * entry matches when its "file", taken from its "directory", is the same
 * file as `source`.  RPL_ENOTFOUND when no entry compiles it, RPL_EINPUT
 * when the text is not a compilation database.
 */
int rpl_compile_db_find(const char *db_path, const char *source, char ***words, char **dir);
/* The same on the database's text; `db_name` names it in messages. */
int rpl_compile_db_parse(const char *text, size_t len, const char *db_name, const char *source,
                         char ***words, char **dir);

/*
 * The words of a compile command that decide how a source parses (include
 * directories, macros, forced includes, -std), as clang spells them, with
 * relative paths made absolute against `dir`: *out NULL-terminated
 * (rpl_argv_free; NULL when there are none).
 */
int rpl_ks_compile_flags(const char *const *words, const char *dir, char ***out);

/* "hip", "cuda", "cuda-prelude"; "for", "while", "do", "range-for". */
/*
 * The kernels report of a parsed source, appended to `out`: text for people
 * or the kernels.schema.json document.  `wave`: the wavefront size the
 * unroll verdicts assume, 0 for the architecture's; `symbols`: a code
 * object whose kernels are matched to the template kernels, or NULL.
 */
int rpl_kernel_source_report(rpl_strbuf *out, const rpl_kernel_source *src, unsigned wave,
                             const rpl_codeobj_set *symbols, bool json);

const char *rpl_ks_mode_name(rpl_ks_mode mode);
const char *rpl_ks_loop_kind_name(rpl_ks_loop_kind kind);

#ifdef __cplusplus
}
#endif
#endif
