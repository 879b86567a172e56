/* How a kernel source is compiled: the GPU, a --build command, a compilation database. */
#include <stdio.h>
#include <stdlib.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/kernel_compile.h"
#include "rpl/profile_backend.h"

/*
 * The build's words as the build would run them, so that libclang gets real
 * paths in -include {src} or -I{dir}/include.
 */
static int build_words(rpl_ks_compile *c, const rpl_ks_options *ks, const char *source,
                       const char *build)
{
    static const char *const names[] = {"src", "out", "dir", "arch"};
    const char *arch = ks->arch ? ks->arch : c->gpu_arch;
    const char *values[] = {source, "/dev/null", ".", arch};
    rpl_template *t = NULL;
    int rc = rpl_template_parse(&t, build, "--build", names, 4);

    if (rc == 0)
        rc = rpl_template_expand(&c->words, t, names, values, 4);
    rpl_template_free(t);
    return rc;
}

int rpl_ks_compile_find(rpl_ks_compile *c, rpl_ks_options *ks, const char *source,
                        const char *build, const char *compile_commands)
{
    rpl_gpu_probe probe;
    int rc = 0;

    if (!ks->arch && rpl_gpu_probe_run(&probe, NULL) == 0) {
        snprintf(c->gpu_arch, sizeof(c->gpu_arch), "%s",
                 probe.nvidia_arch[0] ? probe.nvidia_arch : probe.amd_arch);
        ks->gpu_arch = c->gpu_arch[0] ? c->gpu_arch : NULL;
    }
    if (build && (rc = build_words(c, ks, source, build)) != 0)
        return rc;
    if (compile_commands &&
        (rc = rpl_compile_db_find(compile_commands, source, &c->words, &c->dir)) != 0)
        return rc;
    ks->compile_words = (const char *const *)c->words;
    ks->compile_dir = c->dir;
    return 0;
}

void rpl_ks_compile_release(rpl_ks_compile *c)
{
    rpl_argv_free(c->words);
    free(c->dir);
}
