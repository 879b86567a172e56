/* Internals of the kernel-source layer shared by its files (not installed). */
#ifndef RPL_KS_INTERNAL_H
#define RPL_KS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "libclang.h"
#include "rpl/kernel_source.h"

/* How to parse: the clang command line and the virtual files that go with it. */
struct rpl_ks_parse_ctx {
    rpl_ks_mode mode;
    char *arch;
    char *wanted_arch; /* what the options or the build asked for, or NULL */
    char **args;       /* NULL-terminated */
    size_t n_args;
};

/* Decide the mode from the options, the file name and what is installed; build the command. */
int ks_ctx_new(rpl_ks_parse_ctx **out, const rpl_libclang *lc, const char *name,
               const rpl_ks_options *opts);
int ks_ctx_dup(rpl_ks_parse_ctx **out, const rpl_ks_parse_ctx *ctx);
void ks_ctx_free(rpl_ks_parse_ctx *ctx);

/*
 * The words of a real compile command (ks_flags.c).  ks_flags_arch: the
 * first GPU architecture they name ("sm_90", "gfx942").  ks_flags_take:
 * hand each include, macro, forced include and -std to `add` as clang
 * spells them ("-I" "/abs/dir", "-include" then "/abs/file"); relative
 * paths are made absolute against `dir` (NULL: left as they are).
 */
bool ks_flags_arch(const char *const *words, char *arch, size_t size);
/*
 * ks_flags_cuda_arch_list: the architectures the words compile for, as nvcc
 * lists them in __CUDA_ARCH_LIST__ (the virtual ones: "-arch=sm_90" and
 * "-gencode arch=compute_90,code=sm_90" give 900), ascending and distinct, at
 * most `max` into `list`; the count.  ks_flags_openmp: the words ask for
 * OpenMP ("-fopenmp", or in an -Xcompiler list).  ks_flags_host_compiler:
 * nvcc's -ccbin / --compiler-bindir value, or NULL.
 */
size_t ks_flags_cuda_arch_list(const char *const *words, unsigned *list, size_t max);
bool ks_flags_openmp(const char *const *words);
const char *ks_flags_host_compiler(const char *const *words);
typedef int (*ks_flags_sink)(void *ctx, const char *prefix, const char *value);
int ks_flags_take(const char *const *words, const char *dir, ks_flags_sink add, void *ctx);

/* The virtual files of a mode (prelude, stub headers): unsaved files for libclang. */
size_t ks_virtual_files(rpl_ks_mode mode, struct CXUnsavedFile *files, size_t max);
/* Where they live (no such directory exists on disk). */
#define KS_VIRTUAL_DIR      "/rocm-perf-virtual"
#define KS_PRELUDE_PATH     KS_VIRTUAL_DIR "/rpl_cuda_prelude.h"
#define KS_STUB_DIR         KS_VIRTUAL_DIR "/stub"
#define KS_CUDA_COMPAT_PATH KS_VIRTUAL_DIR "/rpl_cuda_compat.h"

/* Parse `text` as the file `name` with `ctx` (copied into the result). */
int ks_parse(rpl_kernel_source **out, const rpl_ks_parse_ctx *ctx, const char *name,
             const char *text, size_t len);

/* A raw token of the main file. */
typedef struct ks_token {
    CXTokenKind kind;
    size_t begin, end;
    bool directive;       /* part of a preprocessor directive line */
    bool directive_start; /* the '#' that begins one */
} ks_token;

/* One parsed main file: what the collectors work on. */
typedef struct ks_unit {
    const rpl_libclang *lc;
    CXTranslationUnit tu;
    CXFile file; /* the main file */
    const char *text;
    size_t len;
    ks_token *tokens;
    size_t n_tokens;
    size_t *line_starts; /* offset of each line's first byte */
    size_t n_lines;
    const rpl_ks_diag *first_error; /* the translation unit's first error, or NULL */
} ks_unit;

int ks_unit_tokenize(ks_unit *u);
void ks_unit_release(ks_unit *u);

/* 1-based line of a byte offset. */
unsigned ks_line_of(const ks_unit *u, size_t offset);
/* The index of the first token that begins at or after `offset` (n_tokens when none). */
size_t ks_token_at(const ks_unit *u, size_t offset);
/* The token's text equals `s`. */
bool ks_token_is(const ks_unit *u, size_t i, const char *s);
/* The index of the ')' (or ']', '}', '>') closing the bracket at `open`; n_tokens when none. */
size_t ks_token_match(const ks_unit *u, size_t open);

/*
 * The offset of a source location in the main file: its expansion location
 * (where a macro was used, for what a macro wrote).  false when the location
 * is not in the main file.
 */
bool ks_main_offset(const ks_unit *u, CXSourceLocation loc, size_t *offset);

/*
 * A token `s` lies exactly at [begin, end) of the text.  How code written by
 * a macro is told apart: its expansion location holds the macro's name.
 * (clang_getSpellingLocation cannot tell: libclang returns the file location.)
 */
bool ks_token_spans(const ks_unit *u, size_t begin, size_t end, const char *s);

/* Fill src->kernels from the translation unit. */
int ks_collect_kernels(ks_unit *u, rpl_kernel_source *src);
/* Fill k->loops for the kernel at `fn`. */
int ks_collect_loops(ks_unit *u, CXCursor fn, rpl_ks_kernel *k);
void ks_kernel_release(rpl_ks_kernel *k);
/* The unroll pragma before the loop whose keyword is token `kw`. */
void ks_loop_pragma(const ks_unit *u, size_t kw, rpl_ks_loop *l);
/* The trip count of a counted for loop with constant bounds and step. */
void ks_loop_trip_count(const ks_unit *u, CXCursor loop, size_t kw, rpl_ks_loop *l);

/* Set *r to [begin, end) and the lines of its first and last byte. */
void ks_range_set(const ks_unit *u, rpl_ks_range *r, size_t begin, size_t end);

/* text with [begin, end) replaced by `repl`: a new NUL-terminated buffer (*out, free()). */
int ks_replace_range(char **out, size_t *out_len, const char *text, size_t len, size_t begin,
                     size_t end, const char *repl, size_t repl_len);

/* The kernel's index in src->kernels; RPL_EUSAGE when it is not one of them. */
int ks_kernel_index(const rpl_kernel_source *src, const rpl_ks_kernel *k, size_t *index);

/* A copy of `len` bytes as a NUL-terminated string; NULL on no memory. */
char *ks_strndup(const char *s, size_t len);

#endif
