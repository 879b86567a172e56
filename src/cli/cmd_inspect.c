/*
 * rocm-perf inspect: registers, LDS/shared memory, scratch and theoretical
 * occupancy of every kernel in compiled GPU code, with no GPU needed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/arch.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/inspect.h"
#include "rpl/strbuf.h"

#define MAX_ARCH_FILTERS 32

typedef struct inspect_opts {
    char *const *files;
    size_t nfiles;
    const rpl_arch *archs[MAX_ARCH_FILTERS];
    size_t narchs;
    unsigned block;    /* 0: each kernel's own maximum workgroup size */
    unsigned dyn_smem; /* dynamic LDS / shared memory per block */
    bool json;
    const char *out;
} inspect_opts;

enum { OPT_ARCH = 256, OPT_BLOCK, OPT_JSON, OPT_SMEM };

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: rocm-perf inspect FILE... [--arch A]... [--block N] [--smem BYTES]\n"
        "                         [--json] [-o FILE] [-v|-q]\n"
        "\n"
        "Read compiled GPU code (AMDGPU code objects, clang offload bundles such as\n"
        ".hipfb files, HIP executables and libraries, NVIDIA cubins, fatbins and CUDA\n"
        "executables) and print one row per kernel and architecture: VGPRs (NVIDIA:\n"
        "registers), AGPRs, SGPRs, LDS (shared memory), scratch (stack frame), spills,\n"
        "wave size, workgroup size and theoretical occupancy with its limiting factor.\n"
        "AMD occupancy is waves per SIMD as the LLVM version that built the code computes\n"
        "it; NVIDIA occupancy is blocks per SM as cuda_occupancy.h computes it.\n"
        "\n"
        "  --arch A          only kernels built for A (gfx90a, gfx942, sm_90 ...;\n"
        "                    repeatable or comma-separated)\n"
        "  --block N         workgroup / block size for occupancy (default: the kernel's\n"
        "                    maximum, i.e. its launch bound or 1024)\n"
        "  --smem BYTES      dynamic LDS / shared memory per block (default 0)\n"
        "  --json            print JSON (docs/schemas/inspect.schema.json) instead of the table\n"
        "  -o, --out FILE    write the output to FILE (atomically) instead of stdout\n"
        "  -v, --verbose     more detail: where each kernel was found, skipped entries\n"
        "  -q, --quiet       errors only\n"
        "  -h, --help        this help\n"
        "\n"
        "Exit codes: 0 ok, 2 bad usage, unreadable or malformed input, or no kernel\n"
        "selected, 3 output could not be written or a needed library is missing.\n");
}

static int parse_uint(const char *arg, const char *opt, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v < lo || v > hi)
        return rpl_cli_usage_error("%s wants a whole number from %u to %u, not '%s'", opt, lo, hi,
                                   arg);
    *out = (unsigned)v;
    return 0;
}

static int add_archs(inspect_opts *o, const char *arg)
{
    const char *p = arg;

    while (*p) {
        size_t len = strcspn(p, ",");
        char name[64];
        const rpl_arch *a;

        if (len == 0 || len >= sizeof(name))
            return rpl_cli_usage_error("bad --arch value '%s'", arg);
        memcpy(name, p, len);
        name[len] = '\0';
        a = rpl_arch_find(name);
        if (!a)
            return rpl_cli_usage_error("unknown architecture '%s' (see docs/CLI.md for the list)",
                                       name);
        if (o->narchs == MAX_ARCH_FILTERS)
            return rpl_cli_usage_error("too many --arch values");
        o->archs[o->narchs++] = a;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int parse_args(inspect_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {{"arch", required_argument, NULL, OPT_ARCH},
                                             {"block", required_argument, NULL, OPT_BLOCK},
                                             {"smem", required_argument, NULL, OPT_SMEM},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"out", required_argument, NULL, 'o'},
                                             RPL_CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int opt, rc;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return -1;
        case OPT_ARCH:
            if ((rc = add_archs(o, optarg)) != 0)
                return rc;
            break;
        case OPT_BLOCK:
            if ((rc = parse_uint(optarg, "--block", 1, 1024, &o->block)) != 0)
                return rc;
            break;
        case OPT_SMEM:
            if ((rc = parse_uint(optarg, "--smem", 0, 1u << 24, &o->dyn_smem)) != 0)
                return rc;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case 'o':
            o->out = optarg;
            break;
        default:
            if (optopt)
                return rpl_cli_usage_error("option '-%c' is unknown or lacks its value; see "
                                           "'rocm-perf inspect --help'",
                                           optopt);
            return rpl_cli_usage_error("option '%s' is unknown or lacks its value; see "
                                       "'rocm-perf inspect --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return rpl_cli_usage_error("inspect needs at least one FILE; see 'rocm-perf inspect "
                                   "--help'");
    o->files = argv + optind;
    o->nfiles = (size_t)(argc - optind);
    return 0;
}

static int emit(const inspect_opts *o, const char *text)
{
    if (o->out)
        return rpl_file_write_atomic(o->out, text, strlen(text));
    if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
        return rpl_error_set(RPL_EIO, "cannot write to standard output");
    return RPL_OK;
}

int cmd_inspect(int argc, char **argv)
{
    inspect_opts o = {0};
    rpl_codeobj_set *set = NULL;
    rpl_strbuf text = RPL_STRBUF_INIT;
    int rc = parse_args(&o, argc, argv);

    if (rc < 0)
        return RPL_EXIT_OK; /* --help */
    if (rc > 0)
        return rc;
    rc = rpl_codeobj_set_new(&set);
    if (rc == RPL_OK) {
        rpl_inspect_opts io = {
            (const char *const *)o.files, o.nfiles, o.archs, o.narchs, o.block, o.dyn_smem, o.json};
        rc = rpl_inspect_render(&text, &io, set);
    }
    if (rc == RPL_OK)
        rc = emit(&o, rpl_strbuf_cstr(&text));
    rpl_strbuf_release(&text);
    rpl_codeobj_set_free(set);
    return rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
}
