/*
 * rocm-perf kernels: what the optimizer understands of a kernel source
 * (kernels, signatures, device symbols, loops and the unroll guardrails).
 * A debugging aid over src/optimize/source; it changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/autotune.h"
#include "rpl/codeobj.h"
#include "rpl/kernel_source.h"
#include "rpl/profile_backend.h"
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
    char **compile_words;         /* from either; owned */
    char *compile_dir;
    char gpu_arch[16];
    const char *code_object; /* --code-object FILE */
    rpl_codeobj_set *symbols;
} kernels_opts;

enum {
    OPT_LANG = 256,
    OPT_ARCH,
    OPT_WAVE,
    OPT_JSON,
    OPT_NO_VENDOR,
    OPT_BUILD,
    OPT_COMPILE_DB,
    OPT_CODE_OBJECT
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf kernels SOURCE [--lang hip|cuda] [--arch A] [-I DIR]...\n"
            "                         [-D NAME[=VALUE]]... [--build \"CMD\"]\n"
            "                         [--compile-commands FILE] [--code-object FILE]\n"
            "                         [--wave 32|64]\n"
            "                         [--no-vendor-headers] [--json] [-o FILE] [-v|-q]\n"
            "\n"
            "Parse a HIP or CUDA source with libclang, as the optimizer does, and print its\n"
            "__global__ kernels: qualified name, device symbol, signature, extent, launch\n"
            "bounds, and each loop with its nesting, unroll pragma, trip count and the\n"
            "verdict of the unroll guardrails (no unrolling across barriers, atomics,\n"
            "dynamic shared memory, break/return/goto or calls whose body is not visible).\n"
            "\n"
            "  --lang L             hip or cuda (default: .cu/.cuh are CUDA, the rest HIP)\n"
            "  --arch A             gfx942, sm_90, ... (default: the build's, else this\n"
            "                       machine's GPU, else gfx90a for HIP and the newest NVIDIA\n"
            "                       architecture libclang knows for CUDA)\n"
            "  -I DIR, -D NAME[=V]  include directories and macros, as for the compiler\n"
            "  --build \"CMD\"        the real compile command (nvcc, hipcc or clang words; no\n"
            "                       shell): its -I, -isystem, -D, -U, -include, -std and\n"
            "                       architecture words are used\n"
            "  --compile-commands FILE\n"
            "                       take SOURCE's compile command from a compilation\n"
            "                       database (compile_commands.json of CMake or Bear)\n"
            "  --code-object FILE   a code object, cubin or program built from SOURCE: list\n"
            "                       the instantiations of each template kernel it holds\n"
            "  --wave N             wavefront size for the unroll factor (default: the arch's)\n"
            "  --no-vendor-headers  parse with rocm-perf's CUDA prelude instead of the ROCm or\n"
            "                       CUDA headers\n"
            "  --json               print JSON (docs/schemas/kernels.schema.json)\n"
            "  -o, --out FILE       write the output to FILE (atomically) instead of stdout\n"
            "  -v, --verbose / -q, --quiet / -h, --help\n"
            "\n"
            "libclang is loaded at run time: ROCM_PERF_LIBCLANG=/path/to/libclang.so picks the\n"
            "library, ROCM_PERF_CLANG_RESOURCE_DIR its resource directory.\n"
            "Exit codes: 0 ok, 2 bad usage or unreadable source, 3 libclang not found.\n");
}

static int parse_args(kernels_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"lang", required_argument, NULL, OPT_LANG},
        {"arch", required_argument, NULL, OPT_ARCH},
        {"wave", required_argument, NULL, OPT_WAVE},
        {"json", no_argument, NULL, OPT_JSON},
        {"no-vendor-headers", no_argument, NULL, OPT_NO_VENDOR},
        {"build", required_argument, NULL, OPT_BUILD},
        {"compile-commands", required_argument, NULL, OPT_COMPILE_DB},
        {"code-object", required_argument, NULL, OPT_CODE_OBJECT},
        {"out", required_argument, NULL, 'o'},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0}};
    int opt;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "I:D:o:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) !=
           -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return -1;
        case OPT_LANG:
            if (strcmp(optarg, "hip") == 0)
                o->ks.lang = RPL_KS_LANG_HIP;
            else if (strcmp(optarg, "cuda") == 0)
                o->ks.lang = RPL_KS_LANG_CUDA;
            else
                return rpl_cli_usage_error("--lang wants hip or cuda, not '%s'", optarg);
            break;
        case OPT_ARCH:
            o->ks.arch = optarg;
            break;
        case OPT_WAVE:
            if (strcmp(optarg, "32") != 0 && strcmp(optarg, "64") != 0)
                return rpl_cli_usage_error("--wave wants 32 or 64, not '%s'", optarg);
            o->wave = (unsigned)atoi(optarg);
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_NO_VENDOR:
            o->ks.no_vendor_headers = true;
            break;
        case OPT_BUILD:
            o->build = optarg;
            break;
        case OPT_COMPILE_DB:
            o->compile_commands = optarg;
            break;
        case OPT_CODE_OBJECT:
            o->code_object = optarg;
            break;
        case 'I':
        case 'D':
            if ((opt == 'I' ? o->n_includes : o->n_defines) == MAX_LIST)
                return rpl_cli_usage_error("more than %d -%c options", MAX_LIST, opt);
            if (opt == 'I')
                o->includes[o->n_includes++] = optarg;
            else
                o->defines[o->n_defines++] = optarg;
            break;
        case 'o':
            o->out = optarg;
            break;
        default:
            return rpl_cli_usage_error("unknown or incomplete option '%s'; see 'rocm-perf kernels "
                                       "--help'",
                                       argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return rpl_cli_usage_error("kernels takes one SOURCE; see 'rocm-perf kernels --help'");
    if (o->build && o->compile_commands)
        return rpl_cli_usage_error("--build and --compile-commands both give the compile "
                                   "command: pass one");
    o->source = argv[optind];
    o->ks.include_dirs = o->includes;
    o->ks.defines = o->defines;
    return 0;
}

/*
 * --build's words as the build would run them ({src} SOURCE, {out} a scratch
 * output nothing writes, {dir} the working directory, {arch} --arch or the
 * GPU's, else empty: the default architecture), so that libclang gets real
 * paths in -include {src} or -I{dir}/include.
 */
static int build_words(kernels_opts *o)
{
    static const char *const names[] = {"src", "out", "dir", "arch"};
    const char *arch = o->ks.arch ? o->ks.arch : o->gpu_arch;
    const char *values[] = {o->source, "/dev/null", ".", arch};
    rpl_template *t = NULL;
    int rc = rpl_template_parse(&t, o->build, "--build", names, 4);

    if (rc == 0)
        rc = rpl_template_expand(&o->compile_words, t, names, values, 4);
    rpl_template_free(t);
    return rc;
}

/* The architecture of this machine's GPU, and the compile command's words. */
static int compile_context(kernels_opts *o)
{
    rpl_gpu_probe probe;
    int rc = 0;

    if (!o->ks.arch && rpl_gpu_probe_run(&probe, NULL) == 0) {
        snprintf(o->gpu_arch, sizeof(o->gpu_arch), "%s",
                 probe.nvidia_arch[0] ? probe.nvidia_arch : probe.amd_arch);
        o->ks.gpu_arch = o->gpu_arch[0] ? o->gpu_arch : NULL;
    }
    if (o->build && (rc = build_words(o)) != 0)
        return rc == RPL_EUSAGE ? rpl_cli_usage_error("%s", rpl_error_last()->message)
                                : rpl_cli_fail(rc);
    if (o->compile_commands && (rc = rpl_compile_db_find(o->compile_commands, o->source,
                                                         &o->compile_words, &o->compile_dir)) != 0)
        return rpl_cli_fail(rc == RPL_ENOTFOUND ? RPL_EINPUT : rc);
    if (o->code_object && ((rc = rpl_codeobj_set_new(&o->symbols)) != 0 ||
                           (rc = rpl_codeobj_read_file(o->symbols, o->code_object)) != 0))
        return rpl_cli_fail(rc);
    o->ks.compile_words = (const char *const *)o->compile_words;
    o->ks.compile_dir = o->compile_dir;
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
    rpl_kernel_source *src = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    memset(&o, 0, sizeof(o));
    if ((rc = parse_args(&o, argc, argv)) != 0)
        return rc < 0 ? RPL_EXIT_OK : rc;
    if ((rc = compile_context(&o)) != 0 ||
        ((rc = rpl_kernel_source_parse_file(&src, o.source, &o.ks)) != 0 &&
         (rc = rpl_cli_fail(rc)) != 0)) {
        rpl_argv_free(o.compile_words);
        free(o.compile_dir);
        rpl_codeobj_set_free(o.symbols);
        return rc;
    }
    rpl_argv_free(o.compile_words);
    free(o.compile_dir);
    rc = rpl_kernel_source_report(&sb, src, o.wave, o.symbols, o.json);
    if (!rc)
        rc = write_output(&o, rpl_strbuf_cstr(&sb), sb.len);
    rpl_strbuf_release(&sb);
    rpl_kernel_source_free(src);
    rpl_codeobj_set_free(o.symbols);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
