/* Targets of the candidate pipeline: the seed form and a test's target.json (rpl/pipeline.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_int.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/strbuf.h"

void rpl_pipe_target_free(rpl_pipe_target *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->source);
    free(t->kernel);
    pipe_argv_free(t->build_argv);
    pipe_argv_free(t->test_argv);
    free(t->seed_flag);
    free(t->baseline);
    free(t->build_dir);
    pipe_argv_free(t->cflags);
    pipe_argv_free(t->codeobj_argv);
    pipe_argv_free(t->compile_words);
    free(t->compile_dir);
    free(t);
}

/* The file's absolute path and its stem ("dir/saxpy.hip" -> "saxpy"). */
static int source_and_name(rpl_pipe_target *t, const char *source)
{
    char *real = realpath(source, NULL);
    const char *base, *dot;

    if (!real)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "kernel source '%s': %s",
                             source, strerror(errno));
    t->source = real;
    base = strrchr(real, '/');
    base = base ? base + 1 : real;
    dot = strrchr(base, '.');
    t->name = strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
    return t->name ? 0 : rpl_error_oom();
}

int rpl_pipe_command_words(char ***out, const char *text, const char *option, unsigned needs)
{
    size_t n = 0;
    int rc = rpl_words_split(out, &n, text, option);

    if (rc == 0 && (rc = rpl_pipe_command_check((const char *const *)*out, option, needs)) != 0) {
        rpl_argv_free(*out);
        *out = NULL;
    }
    return rc ? rpl_error_set(RPL_EINPUT, "%s", rpl_error_last()->message) : 0;
}

int rpl_pipe_target_from_commands(rpl_pipe_target **out, const char *source, const char *app_args,
                                  const char *build, const char *run)
{
    rpl_pipe_target *t = calloc(1, sizeof(*t));
    int rc;

    *out = NULL;
    if (!t)
        return rpl_error_oom();
    if ((rc = source_and_name(t, source)) == 0 && build)
        rc = rpl_pipe_command_words(&t->build_argv, build, "--build",
                                    RPL_PIPE_NEEDS_SRC | RPL_PIPE_NEEDS_OUT);
    if (rc == 0 && run)
        rc = rpl_pipe_command_words(&t->test_argv, run, "--run", RPL_PIPE_NEEDS_OUT);
    else if (rc == 0 && (rc = pipe_split_words(&t->test_argv, app_args)) == 0) {
        free(t->test_argv[0]);
        if (!(t->test_argv[0] = strdup("{out}")))
            rc = rpl_error_oom();
    }
    if (rc) {
        rpl_error_prefix("optimize");
        rpl_pipe_target_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int rpl_pipe_command_check(const char *const *argv, const char *field, unsigned needs)
{
    static const char *const names[] = {"src", "out", "dir", "arch"};
    static const char *const roles[] = {"the kernel source", "the program built",
                                        "the scratch tree", "the GPU architecture"};
    uint64_t used = 0;

    if (rpl_template_check_words(argv, field, names, 4, &used) != 0)
        return rpl_error_set(RPL_EINPUT, "%s", rpl_error_last()->message);
    for (unsigned k = 0; k < 4; k++)
        if ((needs & (1u << k)) && !(used & (1u << k)))
            return rpl_error_set(RPL_EINPUT, "%s must hold {%s} (%s)", field, names[k], roles[k]);
    return 0;
}

/* A JSON array of strings as a NULL-terminated argv; a missing key leaves NULL. */
static int json_words(char ***out, const cJSON *doc, const char *key, bool required)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, key), *w;
    size_t n = 0, i = 0;

    *out = NULL;
    if (!a || cJSON_IsNull(a))
        return required ? rpl_error_set(RPL_EINPUT, "'%s' is missing", key) : 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1)
        return rpl_error_set(RPL_EINPUT, "'%s' must be an array of words", key);
    n = (size_t)cJSON_GetArraySize(a);
    if (!(*out = calloc(n + 1, sizeof(char *))))
        return rpl_error_oom();
    cJSON_ArrayForEach(w, a)
    {
        if (!cJSON_IsString(w) || !w->valuestring[0])
            return rpl_error_set(RPL_EINPUT, "'%s' must hold non-empty strings", key);
        if (!((*out)[i++] = strdup(w->valuestring)))
            return rpl_error_oom();
    }
    return 0;
}

static int json_text(char **out, const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return rpl_error_set(RPL_EINPUT, "'%s' must be a non-empty string", key);
    return (*out = strdup(v->valuestring)) ? 0 : rpl_error_oom();
}

static int from_doc(rpl_pipe_target *t, const cJSON *doc, const char *build_dir)
{
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(doc, "sources"), *first;
    const char *version = NULL;
    int rc;

    if (!cJSON_IsObject(doc) || rpl_json_get_string(doc, "schema_version", &version) ||
        strncmp(version, "1.", 2) != 0)
        return rpl_error_set(RPL_EINPUT, "not a target description (schema_version 1.x)");
    if (!cJSON_IsArray(sources) || !(first = cJSON_GetArrayItem(sources, 0)) ||
        !cJSON_IsString(first))
        return rpl_error_set(RPL_EINPUT, "'sources' must list the kernel source first");
    if ((rc = source_and_name(t, first->valuestring)) != 0)
        return rc;
    free(t->name);
    t->name = NULL;
    if ((rc = json_text(&t->name, doc, "name")) || !t->name)
        return rc ? rc : rpl_error_set(RPL_EINPUT, "'name' is missing");
    if ((rc = json_text(&t->kernel, doc, "kernel")) ||
        (rc = json_text(&t->baseline, doc, "baseline")) ||
        (rc = json_text(&t->seed_flag, doc, "seed_flag")) ||
        (rc = json_words(&t->build_argv, doc, "build_command", true)) ||
        (rc = json_words(&t->codeobj_argv, doc, "codeobj_command", false)) ||
        (rc = json_words(&t->test_argv, doc, "test_command", true)) ||
        (rc = rpl_pipe_command_check((const char *const *)t->build_argv, "'build_command'",
                                     RPL_PIPE_NEEDS_SRC | RPL_PIPE_NEEDS_OUT)) ||
        (t->codeobj_argv &&
         (rc = rpl_pipe_command_check((const char *const *)t->codeobj_argv, "'codeobj_command'",
                                      RPL_PIPE_NEEDS_SRC | RPL_PIPE_NEEDS_OUT))) ||
        (rc = rpl_pipe_command_check((const char *const *)t->test_argv, "'test_command'", 0)))
        return rc;
    return (t->build_dir = strdup(build_dir)) ? 0 : rpl_error_oom();
}

int rpl_pipe_target_parse(rpl_pipe_target **out, const char *text, size_t len,
                          const char *build_dir)
{
    rpl_pipe_target *t = NULL;
    cJSON *doc = NULL;
    int rc;

    *out = NULL;
    if ((rc = rpl_json_parse(&doc, text, len, "target description")) == 0) {
        if (!(t = calloc(1, sizeof(*t))))
            rc = rpl_error_oom();
        else
            rc = from_doc(t, doc, build_dir);
    }
    cJSON_Delete(doc);
    if (rc) {
        rpl_pipe_target_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int rpl_pipe_target_from_test(rpl_pipe_target **out, const char *build_dir, const char *name)
{
    rpl_strbuf path = RPL_STRBUF_INIT;
    char *text = NULL;
    size_t len = 0;
    int rc;

    *out = NULL;
    if ((rc = rpl_strbuf_printf(&path, "%s/rocm-perf/%s/target.json", build_dir, name)) != 0)
        return rc;
    if ((rc = rpl_file_read_all(path.ptr, 1u << 20, &text, &len)) == 0) {
        if ((rc = rpl_pipe_target_parse(out, text, len, build_dir)) != 0)
            rpl_error_prefix("%s", path.ptr);
    } else if (rc == RPL_ENOTFOUND) {
        rc = rpl_error_set(RPL_ENOTFOUND,
                           "no target description '%s': is '%s' a test registered with "
                           "rocm_perf_add_kernel_test in that build directory?",
                           path.ptr, name);
    }
    free(text);
    rpl_strbuf_release(&path);
    return rc;
}
