/* What the runners share: running the program under a profiler. */
#include <stdlib.h>
#include <string.h>

#include "profile_int.h"
#include "rpl/error.h"

/* Bytes of a quiet program's output kept: enough for its last lines. */
#define QUIET_CAPTURE_LIMIT ((size_t)64 << 10)

static size_t count_words(const char *const *v)
{
    size_t n = 0;

    while (v && v[n])
        n++;
    return n;
}

int rpl_profile_spawn(const rpl_profile_ctx *ctx, const char *const *argv,
                      const char *const *env_set, bool capture_stderr, rpl_spawn_result *res)
{
    const rpl_profile_opts *o = ctx->opts;
    size_t nl = count_words(o->launcher), na = count_words(argv);
    size_t ne = count_words(env_set), no = count_words(o->env_set);
    const char **full = calloc(nl + na + 1, sizeof(*full));
    const char **env = calloc(ne + no + 1, sizeof(*env));
    rpl_spawn_opts so = {0};
    int rc;

    memset(res, 0, sizeof(*res));
    if (!full || !env) {
        free(full);
        free(env);
        return rpl_error_oom();
    }
    /* memcpy from NULL is undefined even for 0 bytes: absent lists are skipped. */
    if (nl)
        memcpy(full, o->launcher, nl * sizeof(*full));
    if (na)
        memcpy(full + nl, argv, na * sizeof(*full));
    if (ne)
        memcpy(env, env_set, ne * sizeof(*env));
    if (no)
        memcpy(env + ne, o->env_set, no * sizeof(*env));
    so.argv = full;
    so.env_set = env;
    so.timeout_ms = o->timeout_ms;
    so.capture_stdout = o->quiet_app;
    so.capture_stderr = capture_stderr || o->quiet_app;
    so.capture_limit = o->quiet_app ? QUIET_CAPTURE_LIMIT : 0;
    rc = rpl_spawn_run(res, &so);
    free(full);
    free(env);
    return rc;
}
