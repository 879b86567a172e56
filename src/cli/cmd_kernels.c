/*
 * rocm-perf kernels: what the optimizer understands of a kernel source
 * (kernels, signatures, device symbols, loops and the unroll guardrails).
 * A debugging aid over src/optimize/source; it changes nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_compile.h"
#include "rpl/strbuf.h"

#define MAX_LIST 64

typedef struct kernels_opts {
    const char *source;
    rpl_ks_options ks;
    const char *includes[MAX_LIST + 1];
    const char *defines[MAX_LIST + 1];
    size_t n_includes, n_defines;
    unsigned wave; /* 0: the architecture's */
    bool json;
    const char *out;
    const char *build;            /* --build "CMD" */
    const char *compile_commands; /* --compile-commands FILE */
    const char *code_object;      /* --code-object FILE */
} kernels_opts;

static int parse_lang(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (strcmp(arg, "hip") == 0)
        *(rpl_ks_lang *)value = RPL_KS_LANG_HIP;
    else if (strcmp(arg, "cuda") == 0)
        *(rpl_ks_lang *)value = RPL_KS_LANG_CUDA;
    else
        return rpl_cli_usage_error("--lang wants hip or cuda, not '%s'", arg);
    return 0;
}

static int parse_wave(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (strcmp(arg, "32") != 0 && strcmp(arg, "64") != 0)
        return rpl_cli_usage_error("--wave wants 32 or 64, not '%s'", arg);
    *(unsigned *)value = (unsigned)atoi(arg);
    return 0;
}

#define F(m) RPL_FIELD(kernels_opts, m)

static const rpl_option kernels_options[] = {
    OPT_CALLBACK(0, "lang", F(ks.lang), parse_lang, "L",
                 "hip or cuda (default: .cu/.cuh are CUDA, the rest HIP)"),
    OPT_STRING(0, "arch", F(ks.arch), "A",
               "gfx942, sm_90, ... (default: the build's, else this machine's GPU, else gfx90a "
               "for HIP and the newest NVIDIA architecture libclang knows for CUDA)"),
    OPT_STRING_LIST('I', NULL, F(includes), offsetof(kernels_opts, n_includes), "DIR",
                    "include directory, as for the compiler"),
    OPT_STRING_LIST('D', NULL, F(defines), offsetof(kernels_opts, n_defines), "NAME[=V]",
                    "macro, as for the compiler"),
    OPT_STRING(0, "build", F(build), "\"CMD\"",
               "the real compile command (nvcc, hipcc or clang words; no shell): its -I, "
               "-isystem, -D, -U, -include, -std and architecture words are used"),
    OPT_STRING(0, "compile-commands", F(compile_commands), "FILE",
               "take SOURCE's compile command from a compilation database (compile_commands.json "
               "of CMake or Bear)"),
    OPT_STRING(0, "code-object", F(code_object), "FILE",
               "a code object, cubin or program built from SOURCE: list the instantiations of "
               "each template kernel it holds"),
    OPT_CALLBACK(0, "wave", F(wave), parse_wave, "N",
                 "wavefront size for the unroll factor, 32 or 64 (default: the arch's)"),
    OPT_BOOL(0, "no-vendor-headers", F(ks.no_vendor_headers),
             "parse with rocm-perf's CUDA prelude instead of the ROCm or CUDA headers"),
    OPT_BOOL(0, "json", F(json), "print JSON (docs/schemas/kernels.schema.json)"),
    OPT_STRING('o', "out", F(out), "FILE",
               "write the output to FILE (atomically) instead of stdout"),
    OPT_END(),
};

static const rpl_command kernels_command = {
    .name = "kernels",
    .usage = "rocm-perf kernels SOURCE [--lang hip|cuda] [--arch A] [-I DIR]...\n"
             "                  [-D NAME[=VALUE]]... [--build \"CMD\"]\n"
             "                  [--compile-commands FILE] [--code-object FILE]\n"
             "                  [--wave 32|64]\n"
             "                  [--no-vendor-headers] [--json] [-o FILE] [-v|-q]",
    .description =
        "Parse a HIP or CUDA source with libclang, as the optimizer does, and print its\n"
        "__global__ kernels: qualified name, device symbol, signature, extent, launch\n"
        "bounds, and each loop with its nesting, unroll pragma, trip count and the\n"
        "verdict of the unroll guardrails (no unrolling across barriers, atomics,\n"
        "dynamic shared memory, break/return/goto or calls whose body is not visible).",
    .options = kernels_options,
    .notes = "libclang is loaded at run time: ROCM_PERF_LIBCLANG=/path/to/libclang.so picks the\n"
             "library, ROCM_PERF_CLANG_RESOURCE_DIR its resource directory.",
    .exit_codes = "0 ok, 2 bad usage or unreadable source, 3 libclang not found.",
};

/* 0 parsed, -1 after --help, else the exit code. */
static int parse_args(kernels_opts *o, int argc, char **argv)
{
    int rc = rpl_parse_options(&kernels_command, o, &argc, &argv);

    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (argc != 1)
        return rpl_cli_usage_error("kernels takes one SOURCE; see 'rocm-perf kernels --help'");
    if (o->build && o->compile_commands)
        return rpl_cli_usage_error("--build and --compile-commands both give the compile "
                                   "command: pass one");
    o->source = argv[0];
    o->ks.include_dirs = o->includes;
    o->ks.defines = o->defines;
    return 0;
}

static int write_output(const kernels_opts *o, const char *text, size_t len)
{
    if (o->out)
        return rpl_file_write_atomic(o->out, text, len);
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return rpl_error_set(RPL_EIO, "cannot write to stdout: %s", strerror(errno));
    return 0;
}

int cmd_kernels(int argc, char **argv)
{
    kernels_opts o;
    rpl_ks_compile compile = {0};
    rpl_codeobj_set *symbols = NULL;
    rpl_kernel_source *src = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    memset(&o, 0, sizeof(o));
    if ((rc = parse_args(&o, argc, argv)) != 0)
        return rc < 0 ? RPL_EXIT_OK : rc;
    rc = rpl_ks_compile_find(&compile, &o.ks, o.source, o.build, o.compile_commands);
    if (rc == 0 && o.code_object && (rc = rpl_codeobj_set_new(&symbols)) == 0)
        rc = rpl_codeobj_read_file(symbols, o.code_object);
    if (rc == 0)
        rc = rpl_kernel_source_parse_file(&src, o.source, &o.ks);
    rpl_ks_compile_release(&compile);
    if (rc == 0)
        rc = rpl_kernel_source_report(&sb, src, o.wave, symbols, o.json);
    if (rc == 0)
        rc = write_output(&o, rpl_strbuf_cstr(&sb), sb.len);
    rpl_strbuf_release(&sb);
    rpl_kernel_source_free(src);
    rpl_codeobj_set_free(symbols);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
