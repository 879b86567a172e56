/*
 * Builds of the candidate pipeline: a scratch tree exported from the
 * repository with the source written over it, the program, and the device
 * code object for the snapshot's architecture.  A compiler that fails is no
 * error (*failed, with the log); one that cannot be started is RPL_EENV.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipe_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

void pipe_build_release(pipe_build *b)
{
    rpl_scratch_free(b->scratch);
    free(b->src);
    free(b->program);
    free(b->log);
    rpl_kernel_source_free(b->parsed);
    memset(b, 0, sizeof(*b));
}

/*
 * The default commands; {out} {src} {arch} are filled in by pipe_argv_expand.
 * The target's -I/-D words, and where the program has a build command, that
 * command's include, macro and -std words: the code object is compiled as
 * the program is.
 */
static int default_argv(char ***out, const rpl_pipe *p, bool codeobj)
{
    const bool nv = strcmp(p->compiler, "nvcc") == 0;
    char **argv = NULL, **build_flags = NULL;
    size_t n = 0;
    int rc = pipe_argv_push(&argv, &n, p->compiler);

    if (rc == 0)
        rc = pipe_argv_push(&argv, &n, "-O3");
    for (size_t i = 0; rc == 0 && p->target->cflags && p->target->cflags[i]; i++)
        rc = pipe_argv_push(&argv, &n, p->target->cflags[i]);
    if (rc == 0 && p->ks_words)
        rc = rpl_ks_compile_flags((const char *const *)p->ks_words, p->ks_dir, &build_flags);
    for (size_t i = 0; rc == 0 && build_flags && build_flags[i]; i++)
        rc = pipe_argv_push(&argv, &n, build_flags[i]);
    pipe_argv_free(build_flags);
    if (rc == 0 && codeobj)
        rc = pipe_argv_push(&argv, &n, nv ? "-cubin" : "--genco");
    if (rc == 0 && (codeobj || nv))
        rc = pipe_argv_push(&argv, &n,
                            nv ? (codeobj || p->opts.arch ? "-arch={arch}" : "-arch=native")
                               : "--offload-arch={arch}");
    if (rc == 0 && nv)
        rc = pipe_argv_push(&argv, &n, "-x");
    if (rc == 0 && nv)
        rc = pipe_argv_push(&argv, &n, "cu");
    if (rc == 0)
        rc = pipe_argv_push(&argv, &n, "-o");
    if (rc == 0)
        rc = pipe_argv_push(&argv, &n, "{out}");
    if (rc == 0)
        rc = pipe_argv_push(&argv, &n, "{src}");
    if (rc) {
        pipe_argv_free(argv);
        return rc;
    }
    *out = argv;
    return 0;
}

/* Run one compiler command on `src`; *failed when it ran and did not make `output`. */
static int compile(rpl_pipe *p, pipe_build *b, const char *const *cmd, const char *src,
                   const char *output, const char *arch, bool *failed)
{
    const char *dir = rpl_scratch_path(b->scratch);
    const char *vars[4] = {src, output, dir, arch ? arch : pipe_arch(p)};
    char **argv = NULL, **own = NULL, *srcdir = NULL, *slash;
    rpl_strbuf log = RPL_STRBUF_INIT;
    rpl_spawn_result res;
    struct stat st;
    int rc;

    if (!cmd) {
        if ((rc = default_argv(&own, p, output != b->program)) != 0)
            return rc;
        cmd = (const char *const *)own;
    }
    if ((rc = pipe_argv_expand(&argv, cmd, vars)) != 0 || !(srcdir = strdup(b->src))) {
        pipe_argv_free(own);
        pipe_argv_free(argv);
        return rc ? rc : rpl_error_oom();
    }
    if ((slash = strrchr(srcdir, '/')) != NULL)
        *slash = '\0';
    if (b->log)
        rpl_strbuf_puts(&log, b->log);
    unlink(output);
    rc = pipe_run(&res, (const char *const *)argv, srcdir, p->opts.build_timeout_ms, &log);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EENV, "cannot run the compiler '%s' (is it installed and in PATH?)",
                           argv[0]);
    else if (rc == RPL_ETIMEOUT || rc == 0) {
        *failed = rc == RPL_ETIMEOUT || !res.exited || res.exit_code != 0 ||
                  stat(output, &st) != 0 || st.st_size == 0;
        rc = 0;
    }
    rpl_spawn_result_release(&res);
    free(b->log);
    b->log = rpl_strbuf_detach(&log);
    if (!b->log)
        b->log = strdup("");
    pipe_argv_free(own);
    pipe_argv_free(argv);
    free(srcdir);
    return rc;
}

int pipe_build_make(rpl_pipe *p, pipe_build *b, const char *text, size_t len, bool *failed)
{
    rpl_git_file file = {.path = p->relpath, .data = text, .len = len};
    rpl_scratch_opts so = {
        .parent = p->scratch_parent, .rev = p->baseline, .overlay = &file, .n_overlay = 1};
    int rc;

    *failed = false;
    if ((rc = rpl_scratch_export(&b->scratch, p->repo, &so)) != 0)
        return rc;
    if ((rc = rpl_path_join(&b->src, rpl_scratch_path(b->scratch), p->relpath)) != 0 ||
        (rc = pipe_set(&b->program, "%s/rocm-perf-build/%s", rpl_scratch_path(b->scratch),
                       p->target->name)) != 0)
        return rc;
    {
        char *dir = NULL;
        if ((rc = pipe_set(&dir, "%s/rocm-perf-build", rpl_scratch_path(b->scratch))) != 0)
            return rc;
        rc = rpl_mkdir_p(dir);
        free(dir);
        if (rc)
            return rc;
    }
    return compile(p, b, (const char *const *)p->target->build_argv, b->src, b->program, NULL,
                   failed);
}

static bool is_header(const char *path)
{
    static const char *const exts[] = {".h",   ".hh",  ".hpp", ".hxx", ".cuh",
                                       ".inl", ".inc", ".ipp", ".tcc"};
    const char *dot = strrchr(path, '.');

    for (size_t i = 0; dot && !strchr(dot, '/') && i < sizeof(exts) / sizeof(exts[0]); i++)
        if (strcmp(dot, exts[i]) == 0)
            return true;
    return false;
}

/*
 * A header compiled alone holds no instantiation of its template kernels:
 * the program instantiates them in another file.  So the code object of a
 * launched instantiation is built from a unit that includes the header and
 * instantiates it explicitly, spelled as the snapshot demangles it
 * ("void k<128, 8>(int, float const*)").  *out: that unit's path, or NULL
 * when the source is no header or the kernel no instantiation.
 */
static int instantiating_unit(char **out, const rpl_pipe *p, const pipe_build *b,
                              const pipe_kernel *k)
{
    const char *lt = k->demangled ? strchr(k->demangled, '<') : NULL;
    char *text = NULL;
    int rc;

    *out = NULL;
    if (!is_header(b->src) || !lt || lt > strchr(k->demangled, '('))
        return 0;
    if ((rc = pipe_set(&text,
                       "// rocm-perf: the kernel header and the instantiation the program "
                       "launches\n#include \"%s\"\ntemplate __global__ %s;\n",
                       b->src, k->demangled)) == 0 &&
        (rc = pipe_set(out, "%s/rocm-perf-build/instantiate.%s", rpl_scratch_path(b->scratch),
                       strcmp(p->compiler, "hipcc") == 0 ? "hip" : "cu")) == 0)
        rc = rpl_file_write_atomic(*out, text, strlen(text));
    free(text);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int pipe_build_codeobj(rpl_pipe *p, pipe_build *b, const pipe_kernel *k, const char *co_path,
                       bool *failed)
{
    char *unit = NULL;
    int rc = instantiating_unit(&unit, p, b, k);

    *failed = false;
    if (rc == 0)
        rc = compile(p, b, (const char *const *)p->target->codeobj_argv, unit ? unit : b->src,
                     co_path, k->arch, failed);
    free(unit);
    return rc;
}
