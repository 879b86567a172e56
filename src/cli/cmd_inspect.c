/*
 * rocm-perf inspect: registers, LDS/shared memory, scratch and theoretical
 * occupancy of every kernel in compiled GPU code, with no GPU needed.
 */
#include <stdbool.h>
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

static int add_archs(void *value, const rpl_option *opt, const char *arg)
{
    inspect_opts *o = value;

    (void)opt;
    if (rpl_arch_list_parse(o->archs, &o->narchs, MAX_ARCH_FILTERS, arg) != 0)
        return rpl_cli_fail(RPL_EUSAGE);
    return 0;
}

#define F(m) RPL_FIELD(inspect_opts, m)

static const rpl_option inspect_options[] = {
    OPT_CALLBACK(0, "arch", RPL_WHOLE_STRUCT, add_archs, "A",
                 "only kernels built for A (gfx90a, gfx942, sm_90 ...; repeatable or "
                 "comma-separated)"),
    OPT_UINT(0, "block", F(block), 1, 1024, "N",
             "workgroup / block size for occupancy (default: the kernel's maximum, i.e. its "
             "launch bound or 1024)"),
    OPT_SIZE(0, "smem", F(dyn_smem), 0, 1u << 24, "BYTES",
             "dynamic LDS / shared memory per block (default 0)"),
    OPT_BOOL(0, "json", F(json),
             "print JSON (docs/schemas/inspect.schema.json) instead of the table"),
    OPT_STRING('o', "out", F(out), "FILE",
               "write the output to FILE (atomically) instead of stdout"),
    OPT_END(),
};

static const rpl_command inspect_command = {
    .name = "inspect",
    .usage = "rocm-perf inspect FILE... [--arch A]... [--block N] [--smem BYTES]\n"
             "                  [--json] [-o FILE] [-v|-q]",
    .description =
        "Read compiled GPU code (AMDGPU code objects, clang offload bundles such as\n"
        ".hipfb files, HIP executables and libraries, NVIDIA cubins, fatbins and CUDA\n"
        "executables) and print one row per kernel and architecture: VGPRs (NVIDIA:\n"
        "registers), AGPRs, SGPRs, LDS (shared memory), scratch (stack frame), spills,\n"
        "wave size, workgroup size and theoretical occupancy with its limiting factor.\n"
        "AMD occupancy is waves per SIMD as the LLVM version that built the code computes\n"
        "it; NVIDIA occupancy is blocks per SM as cuda_occupancy.h computes it.  With -v,\n"
        "where each kernel was found and the entries skipped.",
    .options = inspect_options,
    .exit_codes = "0 ok, 2 bad usage, unreadable or malformed input, or no kernel\n"
                  "selected, 3 output could not be written or a needed library is missing.",
};

/* 0 parsed, -1 after --help, else the exit code. */
static int parse_args(inspect_opts *o, int argc, char **argv)
{
    int rc = rpl_parse_options(&inspect_command, o, &argc, &argv);

    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (argc == 0)
        return rpl_cli_usage_error("inspect needs at least one FILE; see 'rocm-perf inspect "
                                   "--help'");
    o->files = argv;
    o->nfiles = (size_t)argc;
    return 0;
}

static int emit(const inspect_opts *o, const char *text)
{
    if (o->out)
        return rpl_file_write_atomic(o->out, text, strlen(text));
    if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
        return rpl_error_set(RPL_EIO, "cannot write to standard output");
    return 0;
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
    if (rc == 0) {
        rpl_inspect_opts io = {
            (const char *const *)o.files, o.nfiles, o.archs, o.narchs, o.block, o.dyn_smem, o.json};
        rc = rpl_inspect_render(&text, &io, set);
    }
    if (rc == 0)
        rc = emit(&o, rpl_strbuf_cstr(&text));
    rpl_strbuf_release(&text);
    rpl_codeobj_set_free(set);
    return rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
}
