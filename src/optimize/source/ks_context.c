/*
 * The clang command line for a kernel source: HIP with the ROCm headers,
 * CUDA with the toolkit's headers, or CUDA with rocm-perf's prelude when
 * neither (or no clang resource directory) is there.  Device side only, as
 * --cuda-device-only compiles it, so mangled names are the code object's.
 * The real compile's words add its include directories, macros and
 * standard, and the toolkit's implicit paths are added as nvcc adds them
 * (CUDA 13 keeps cub, thrust and cuda/std in include/cccl).  The
 * architecture is the one asked for or the build's, else the GPU's the
 * caller found; when libclang does not know it, the newest it knows below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ks_internal.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/spawn.h"

/* DIR/REL exists and is of `type` (S_IFREG, S_IFDIR). */
static bool path_is(const char *dir, const char *rel, mode_t type)
{
    char path[4096];
    struct stat st;

    if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
        return false;
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* The first of the given directory, then the environment's, then the usual places. */
static const char *find_install(const char *given, const char *const *envs,
                                const char *const *usual, const char *probe)
{
    if (given)
        return path_is(given, probe, S_IFREG) ? given : NULL;
    for (size_t i = 0; envs[i]; i++) {
        const char *v = getenv(envs[i]);
        if (v && v[0] && path_is(v, probe, S_IFREG))
            return v;
    }
    for (size_t i = 0; usual[i]; i++)
        if (path_is(usual[i], probe, S_IFREG))
            return usual[i];
    return NULL;
}

static const char *find_rocm(const rpl_ks_options *o)
{
    static const char *const envs[] = {"ROCM_PATH", NULL};
    static const char *const usual[] = {"/opt/rocm", "/usr", NULL};

    return find_install(o->rocm_path, envs, usual, "include/hip/hip_runtime.h");
}

static const char *find_cuda(const rpl_ks_options *o)
{
    static const char *const envs[] = {"CUDA_PATH", "CUDA_HOME", NULL};
    static const char *const usual[] = {"/usr/local/cuda", NULL};

    return find_install(o->cuda_path, envs, usual, "include/cuda_runtime.h");
}

static bool name_is_cuda(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0);
}

/* Looking for one macro among the build's -D words (ks_flags_take's sink). */
typedef struct define_probe {
    const char *name;
    bool found;
} define_probe;

static bool defines(const char *def, const char *name)
{
    size_t n = strlen(name);

    return strncmp(def, name, n) == 0 && (def[n] == '\0' || def[n] == '=');
}

static int probe_sink(void *ctx, const char *prefix, const char *value)
{
    define_probe *d = ctx;

    d->found |= strcmp(prefix, "-D") == 0 && value && defines(value, d->name);
    return 0;
}

/* A "-D" word of the build defines `name`. */
static int build_defines(const rpl_ks_options *o, const char *name, bool *found)
{
    define_probe d = {name, false};
    int rc = ks_flags_take(o->compile_words, NULL, probe_sink, &d);

    *found = d.found;
    return rc;
}

/* The build, or one of the --define values, defines `name`. */
static int user_defines(const rpl_ks_options *o, const char *name, bool *found)
{
    int rc = build_defines(o, name, found);

    for (size_t i = 0; o->defines && o->defines[i]; i++)
        *found |= defines(o->defines[i], name);
    return rc;
}

/*
 * A HIP source that the build compiles for NVIDIA GPUs (HIP's NVIDIA
 * platform: nvcc with -D__HIP_PLATFORM_NVIDIA__, or an sm_ architecture)
 * is CUDA to the compiler, and must be to libclang too: HIP mode defines
 * __HIP_PLATFORM_AMD__ as well, which HIP's headers refuse.
 */
static bool build_targets_nvidia(const rpl_ks_options *o, const char *build_arch)
{
    bool nvidia = strncmp(build_arch, "sm_", 3) == 0;

    if (!nvidia && o->compile_words)
        (void)build_defines(o, "__HIP_PLATFORM_NVIDIA__", &nvidia);
    return nvidia;
}

/* Append the argument `prefix` followed by `value` (may be NULL). */
static int add_arg(rpl_ks_parse_ctx *c, const char *prefix, const char *value)
{
    char **grown = realloc(c->args, (c->n_args + 2) * sizeof(*grown));
    size_t np = strlen(prefix), nv = value ? strlen(value) : 0;
    char *s;

    if (!grown)
        return rpl_error_oom();
    c->args = grown;
    s = malloc(np + nv + 1);
    if (!s)
        return rpl_error_oom();
    memcpy(s, prefix, np);
    if (nv)
        memcpy(s + np, value, nv);
    s[np + nv] = '\0';
    c->args[c->n_args++] = s;
    c->args[c->n_args] = NULL;
    return 0;
}

typedef struct build_sink {
    rpl_ks_parse_ctx *c;
    const char *source;
} build_sink;

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/*
 * A build word for libclang, but not "-include SOURCE": a build that compiles
 * a header kernel by forcing it into another file (nvcc -include {src} main.cu)
 * would have the parse read the source twice.
 */
static int add_sink(void *ctx, const char *prefix, const char *value)
{
    build_sink *b = ctx;
    rpl_ks_parse_ctx *c = b->c;

    if (!value && c->n_args > 0 && strcmp(c->args[c->n_args - 1], "-include") == 0 &&
        same_file(prefix, b->source)) {
        free(c->args[--c->n_args]);
        c->args[c->n_args] = NULL;
        return 0;
    }
    return add_arg(c, prefix, value);
}

/*
 * nvcc's __CUDA_ARCH_LIST__ ("800,900"), which libclang does not define: CCCL
 * names its versioned namespace after it (cub::CUB_300001_SM_900), so the
 * kernels must parse under the names the program's code object has.  The
 * build's architectures, else the one asked for or parsed for.
 */
static bool cuda_arch_list(const rpl_ks_parse_ctx *c, const rpl_ks_options *o, char *out,
                           size_t size)
{
    unsigned list[16];
    size_t n = 0, len = 0;

    if (!o->arch)
        n = ks_flags_cuda_arch_list(o->compile_words, list, sizeof(list) / sizeof(list[0]));
    if (n == 0) {
        const char *one =
            c->wanted_arch && strncmp(c->wanted_arch, "sm_", 3) == 0 ? c->wanted_arch : c->arch;
        const char *const words[] = {"-arch", one, NULL};
        n = ks_flags_cuda_arch_list(words, list, 1);
    }
    out[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%u", i ? "," : "", list[i]);
    return n > 0 && len < size;
}

/*
 * Where the host compiler keeps omp.h, for a build that asks for OpenMP: nvcc
 * hands -Xcompiler -fopenmp to gcc, which finds its own omp.h; libclang's
 * resource directory has none.  NULL when there is no such folder.
 */
static char *openmp_include(const rpl_libclang *lc, const rpl_ks_options *o)
{
    const char *cc = ks_flags_host_compiler(o->compile_words);
    const char *argv[] = {cc ? cc : "gcc", "-print-file-name=include", NULL};
    rpl_spawn_opts so = {
        .argv = argv, .timeout_ms = 10000, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result res = {0};
    char line[4096], *dir = NULL;

    if (!ks_flags_openmp(o->compile_words) ||
        (lc->resource_dir && path_is(lc->resource_dir, "include/omp.h", S_IFREG)))
        return NULL;
    if (rpl_spawn_run(&res, &so) == 0 && res.exited && res.exit_code == 0 &&
        path_is(rpl_spawn_last_line(line, sizeof(line), res.out), "omp.h", S_IFREG))
        dir = strdup(line);
    else
        rpl_log_debug("%s has no omp.h for the build's -fopenmp", argv[0]);
    rpl_spawn_result_release(&res);
    rpl_error_clear();
    return dir;
}

#define ADD(prefix, value)                                                                         \
    do {                                                                                           \
        if ((rc = add_arg(c, (prefix), (value))) != 0)                                             \
            return rc;                                                                             \
    } while (0)

/* The words of the parse's language mode: its architecture and toolkit. */
static int mode_args(rpl_ks_parse_ctx *c, const char *rocm, const char *cuda)
{
    int rc;

    switch (c->mode) {
    case RPL_KS_MODE_HIP:
        ADD("--offload-arch=", c->arch);
        ADD("-nogpulib", NULL);
        ADD("--rocm-path=", rocm);
        /* What hipcc gets from its --hip-version: builtins and keywords without an
           #include of hip_runtime.h.  The header guards itself against a second time. */
        ADD("-include", NULL);
        ADD("__clang_hip_runtime_wrapper.h", NULL);
        break;
    case RPL_KS_MODE_CUDA:
        ADD("--cuda-gpu-arch=", c->arch);
        ADD("--cuda-path=", cuda);
        /* -nocudalib would also hide the toolkit's version from clang, which then
           expects the launch API of CUDA 9 (cudaConfigureCall): only without libdevice. */
        if (!path_is(cuda, "nvvm/libdevice", S_IFDIR))
            ADD("-nocudalib", NULL);
        /* CUDA 12 removed the texture references clang's wrappers still expect: skip
           clang's texture intrinsics (by their include guard) and give the two
           headers the wrapper includes as empty stand-ins. */
        ADD("-D__CLANG_CUDA_TEXTURE_INTRINSICS_H__", NULL);
        ADD("-isystem", NULL);
        ADD(KS_STUB_DIR, NULL);
        /* nvcc's implicit path for CCCL (cub, thrust, cuda/std) since CUDA 13. */
        if (path_is(cuda, "include/cccl", S_IFDIR)) {
            ADD("-isystem", NULL);
            ADD(cuda, "/include/cccl");
        }
        /* libcu++ uses C variadics in unevaluated SFINAE tests, which clang's CUDA
           mode refuses in device code unless told otherwise (nvcc accepts them). */
        ADD("-Xclang", NULL);
        ADD("-fcuda-allow-variadic-functions", NULL);
        ADD("-include", NULL);
        ADD(KS_CUDA_COMPAT_PATH, NULL);
        break;
    case RPL_KS_MODE_CUDA_PRELUDE:
        ADD("--cuda-gpu-arch=", c->arch);
        ADD("-nocudainc", NULL);
        ADD("-nocudalib", NULL);
        ADD("-include", NULL);
        ADD(KS_PRELUDE_PATH, NULL);
        ADD("-isystem", NULL);
        ADD(KS_STUB_DIR, NULL);
        break;
    }
    return 0;
}

static int build_args(rpl_ks_parse_ctx *c, const rpl_libclang *lc, const rpl_ks_options *o,
                      const char *name, const char *rocm, const char *cuda)
{
    build_sink sink = {c, name};
    char arch_list[128], *openmp;
    bool user_list;
    int rc;

    ADD("-x", NULL);
    ADD(c->mode == RPL_KS_MODE_HIP ? "hip" : "cuda", NULL);
    ADD("--cuda-device-only", NULL);
    ADD("-std=c++17", NULL);
    ADD("-Wno-unknown-cuda-version", NULL);
    if (lc->resource_dir && c->mode != RPL_KS_MODE_CUDA_PRELUDE) {
        ADD("-resource-dir", NULL);
        ADD(lc->resource_dir, NULL);
    }
    if ((rc = mode_args(c, rocm, cuda)) != 0)
        return rc;
    if (c->mode != RPL_KS_MODE_HIP) {
        if ((rc = user_defines(o, "__CUDA_ARCH_LIST__", &user_list)) != 0)
            return rc;
        if (!user_list && cuda_arch_list(c, o, arch_list, sizeof(arch_list)))
            ADD("-D__CUDA_ARCH_LIST__=", arch_list);
    }
    if ((rc = ks_flags_take(o->compile_words, o->compile_dir, add_sink, &sink)) != 0)
        return rc;
    /* After every other folder: the host compiler's own headers must not shadow clang's.
       gcc's omp.h names a deallocator in __malloc__ (omp_free), which clang refuses: read
       it as the plain __malloc__ (a bare __malloc__ is no function-like macro's call). */
    if ((openmp = openmp_include(lc, o)) != NULL) {
        rc = add_arg(c, "-idirafter", NULL);
        if (rc == 0)
            rc = add_arg(c, openmp, NULL);
        if (rc == 0)
            rc = add_arg(c, "-D__malloc__(...)=__malloc__", NULL);
        free(openmp);
        if (rc)
            return rc;
    }
    for (size_t i = 0; o->include_dirs && o->include_dirs[i]; i++)
        ADD("-I", o->include_dirs[i]);
    for (size_t i = 0; o->defines && o->defines[i]; i++)
        ADD("-D", o->defines[i]);
    return 0;
}

/* libclang accepts `arch` for CUDA: a throw-away parse of an empty file without headers. */
static bool arch_known(const rpl_libclang *lc, const char *arch)
{
    char opt[64];
    const char *args[] = {"-x", "cuda", "--cuda-device-only", opt, "-nocudainc", "-nocudalib"};
    struct CXUnsavedFile file = {
        .Filename = KS_VIRTUAL_DIR "/probe.cu", .Contents = "", .Length = 0};
    CXTranslationUnit tu = NULL;
    CXIndex index;
    enum CXErrorCode e;

    snprintf(opt, sizeof(opt), "--cuda-gpu-arch=%s", arch);
    index = lc->clang_createIndex(0, 0);
    e = lc->clang_parseTranslationUnit2(index, file.Filename, args, 6, &file, 1,
                                        CXTranslationUnit_None, &tu);
    if (tu)
        lc->clang_disposeTranslationUnit(tu);
    lc->clang_disposeIndex(index);
    return e == CXError_Success && tu;
}

/* NVIDIA architectures, newest first: the fallback for one libclang does not know. */
static const char *const cuda_arches[] = {"sm_120", "sm_100", "sm_90", "sm_89", "sm_87", "sm_86",
                                          "sm_80",  "sm_75",  "sm_72", "sm_70", NULL};

static unsigned sm_number(const char *arch)
{
    return strncmp(arch, "sm_", 3) == 0 ? (unsigned)strtoul(arch + 3, NULL, 10) : 0;
}

/*
 * The architecture to parse for: `wanted` when libclang knows it, else the
 * newest NVIDIA one it knows not above it (any, when nothing is wanted).
 */
static int pick_cuda_arch(char **out, const rpl_libclang *lc, const char *wanted)
{
    unsigned limit = wanted ? sm_number(wanted) : 0;

    if (wanted && arch_known(lc, wanted))
        return (*out = strdup(wanted)) ? 0 : rpl_error_oom();
    for (size_t i = 0; cuda_arches[i]; i++)
        if ((!limit || sm_number(cuda_arches[i]) <= limit) && arch_known(lc, cuda_arches[i]))
            return (*out = strdup(cuda_arches[i])) ? 0 : rpl_error_oom();
    return rpl_error_set(RPL_EENV, "%s knows no NVIDIA architecture%s%s", lc->version,
                         wanted ? " up to " : "", wanted ? wanted : "");
}

void ks_ctx_free(rpl_ks_parse_ctx *ctx)
{
    if (!ctx)
        return;
    for (size_t i = 0; i < ctx->n_args; i++)
        free(ctx->args[i]);
    free(ctx->args);
    free(ctx->arch);
    free(ctx->wanted_arch);
    free(ctx);
}

int ks_ctx_new(rpl_ks_parse_ctx **out, const rpl_libclang *lc, const char *name,
               const rpl_ks_options *opts)
{
    static const rpl_ks_options defaults;
    const rpl_ks_options *o = opts ? opts : &defaults;
    rpl_ks_lang lang = o->lang;
    const char *rocm = NULL, *cuda = NULL, *wanted;
    char build_arch[32];
    rpl_ks_parse_ctx *c;
    int rc;

    *out = NULL;
    if (o->arch)
        snprintf(build_arch, sizeof(build_arch), "%s", o->arch);
    else if (!ks_flags_arch(o->compile_words, build_arch, sizeof(build_arch)))
        build_arch[0] = '\0';
    if (lang == RPL_KS_LANG_AUTO)
        lang = name_is_cuda(name) || build_targets_nvidia(o, build_arch) ? RPL_KS_LANG_CUDA
                                                                         : RPL_KS_LANG_HIP;
    if (!build_arch[0])
        snprintf(build_arch, sizeof(build_arch), "%s", o->gpu_arch ? o->gpu_arch : "");
    c = calloc(1, sizeof(*c));
    if (!c)
        return rpl_error_oom();
    /* Vendor headers need clang's resource directory (its CUDA wrappers). */
    c->mode = RPL_KS_MODE_CUDA_PRELUDE;
    if (!o->no_vendor_headers && lc->resource_dir) {
        if (lang == RPL_KS_LANG_HIP && (rocm = find_rocm(o)) != NULL)
            c->mode = RPL_KS_MODE_HIP;
        else if ((cuda = find_cuda(o)) != NULL)
            /* A portable .hip source (rpl_harness.h) reads as CUDA where only CUDA is. */
            c->mode = RPL_KS_MODE_CUDA;
    }
    wanted = build_arch[0] ? build_arch : NULL;
    if (c->mode == RPL_KS_MODE_HIP)
        rc = (c->arch = strdup(wanted && strncmp(wanted, "gfx", 3) == 0 ? wanted : "gfx90a"))
                 ? 0
                 : rpl_error_oom();
    else
        rc = pick_cuda_arch(&c->arch, lc, wanted && strncmp(wanted, "sm_", 3) == 0 ? wanted : NULL);
    if (rc == 0 && wanted && !(c->wanted_arch = strdup(wanted)))
        rc = rpl_error_oom();
    if (rc) {
        ks_ctx_free(c);
        return rc;
    }
    if (wanted && strcmp(wanted, c->arch) != 0)
        rpl_log_info("%s: parsed as %s for %s, not %s (%s)", name, rpl_ks_mode_name(c->mode),
                     c->arch, wanted,
                     c->mode != RPL_KS_MODE_HIP && strncmp(wanted, "sm_", 3) == 0
                         ? "the newest libclang knows"
                         : "not an architecture of this language");
    if ((rc = build_args(c, lc, o, name, rocm, cuda)) != 0) {
        ks_ctx_free(c);
        return rc;
    }
    rpl_log_debug("%s: parsed as %s (%s)", name, rpl_ks_mode_name(c->mode), c->arch);
    *out = c;
    return 0;
}

int ks_ctx_dup(rpl_ks_parse_ctx **out, const rpl_ks_parse_ctx *ctx)
{
    rpl_ks_parse_ctx *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c)
        return rpl_error_oom();
    c->mode = ctx->mode;
    c->arch = strdup(ctx->arch);
    if (ctx->wanted_arch)
        c->wanted_arch = strdup(ctx->wanted_arch);
    if (!c->arch || (ctx->wanted_arch && !c->wanted_arch)) {
        ks_ctx_free(c);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < ctx->n_args; i++)
        if ((rc = add_arg(c, ctx->args[i], NULL)) != 0) {
            ks_ctx_free(c);
            return rc;
        }
    *out = c;
    return 0;
}

const char *rpl_ks_mode_name(rpl_ks_mode mode)
{
    switch (mode) {
    case RPL_KS_MODE_HIP:
        return "hip";
    case RPL_KS_MODE_CUDA:
        return "cuda";
    case RPL_KS_MODE_CUDA_PRELUDE:
        return "cuda-prelude";
    }
    return "unknown";
}
