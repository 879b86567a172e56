/* Running an application under a capture library (see rpl/capture.h). */
#define _GNU_SOURCE /* personality */

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>

#include "rpl/capture.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

#define PERSONALITY_QUERY 0xffffffffUL

/* Places relative to the rocm-perf binary: installed (bin/../lib), beside it, build tree. */
static const char *const cupti_dirs[] = {"../lib", ".", "../tools/cupti"};
static const char *const hsa_dirs[] = {"../lib", ".", "../tools/hsa"};

int rpl_capture_backend_parse(rpl_capture_backend *out, const char *name)
{
    if (strcmp(name, "auto") == 0)
        *out = RPL_CAPTURE_AUTO;
    else if (strcmp(name, "cuda") == 0)
        *out = RPL_CAPTURE_CUDA;
    else if (strcmp(name, "hsa") == 0)
        *out = RPL_CAPTURE_HSA;
    else
        return rpl_error_set(RPL_EUSAGE, "unknown capture backend '%s' (auto, cuda or hsa)", name);
    return 0;
}

void rpl_capture_result_release(rpl_capture_result *r)
{
    if (!r)
        return;
    rpl_snapshot_free(r->snap);
    memset(r, 0, sizeof(*r));
}

static int find_cupti(char **out)
{
    return rpl_find_own_lib(out, "librpl_cupti.so", RPL_CAPTURE_ENV_CUPTI_LIB, cupti_dirs,
                            sizeof(cupti_dirs) / sizeof(cupti_dirs[0]),
                            "build rocm-perf-lab with the CUDA toolkit");
}

static int find_hsa(char **out)
{
    return rpl_find_own_lib(out, "librpl_hsa.so", RPL_CAPTURE_ENV_HSA_LIB, hsa_dirs,
                            sizeof(hsa_dirs) / sizeof(hsa_dirs[0]),
                            "build rocm-perf-lab with the HSA runtime headers");
}

/*
 * "CUDA_INJECTION64_PATH=..." and "HSA_TOOLS_LIB=..." for the backend
 * asked for; auto takes each library that exists and fails only when none
 * does.
 */
static int injection_env(rpl_strbuf *cuda, rpl_strbuf *hsa, rpl_capture_backend backend)
{
    char *lib = NULL;
    int rc_cuda = 0, rc_hsa = 0, rc;

    if (backend != RPL_CAPTURE_HSA) {
        if ((rc_cuda = find_cupti(&lib)) == 0)
            rc_cuda = rpl_strbuf_printf(cuda, "CUDA_INJECTION64_PATH=%s", lib);
        free(lib);
        lib = NULL;
        if (backend == RPL_CAPTURE_CUDA || rc_cuda == RPL_ENOMEM)
            return rc_cuda;
    }
    if ((rc_hsa = find_hsa(&lib)) == 0) {
        /* HSA_TOOLS_LIB is a space-separated list: keep the user's tools after ours. */
        const char *user = getenv("HSA_TOOLS_LIB");

        rc_hsa = rpl_strbuf_printf(hsa, "HSA_TOOLS_LIB=%s%s%s", lib, user && *user ? " " : "",
                                   user && *user ? user : "");
    }
    free(lib);
    if (backend == RPL_CAPTURE_HSA || rc_hsa == RPL_ENOMEM)
        return rc_hsa;
    if (rc_cuda && rc_hsa) {
        rc = rpl_error_set(RPL_EENV,
                           "no capture library found: neither librpl_cupti.so nor librpl_hsa.so "
                           "is built (set %s or %s)",
                           RPL_CAPTURE_ENV_CUPTI_LIB, RPL_CAPTURE_ENV_HSA_LIB);
        return rc;
    }
    return 0;
}

static int check_opts(const rpl_capture_opts *o)
{
    struct stat st;
    regex_t re;
    int err;

    if (!o->app_argv || !o->app_argv[0])
        return rpl_error_set(RPL_EUSAGE, "capture needs a program to run");
    if (!o->out_dir || !o->out_dir[0])
        return rpl_error_set(RPL_EUSAGE, "capture needs --out DIR");
    if (lstat(o->out_dir, &st) == 0)
        return rpl_error_set(RPL_EINPUT, "'%s' already exists; a snapshot is never written over",
                             o->out_dir);
    if (o->kernel_regex && o->kernel_regex[0]) {
        err = regcomp(&re, o->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (err) {
            char msg[128];

            regerror(err, &re, msg, sizeof(msg));
            return rpl_error_set(RPL_EUSAGE, "bad --kernel pattern '%s': %s", o->kernel_regex, msg);
        }
        regfree(&re);
    }
    return 0;
}

/* Spawn with ADDR_NO_RANDOMIZE set around it (inherited by the child, effective at its exec). */
static int spawn_no_aslr(rpl_spawn_result *res, const rpl_spawn_opts *so, bool *aslr_off)
{
    int cur = personality(PERSONALITY_QUERY), rc;
    bool set = cur != -1 && !(cur & ADDR_NO_RANDOMIZE);

    *aslr_off = cur != -1 && (cur & ADDR_NO_RANDOMIZE);
    if (set) {
        if (personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1)
            rpl_log_warn("cannot start the application with ASLR off (personality: %s): the "
                         "replay may not get the captured addresses back",
                         strerror(errno));
        else
            *aslr_off = true;
    }
    rc = rpl_spawn_run(res, so);
    if (set && *aslr_off)
        personality((unsigned long)cur);
    return rc;
}

static int missing_snapshot(const rpl_capture_opts *o, const rpl_spawn_result *res)
{
    const char *pattern = o->kernel_regex && o->kernel_regex[0] ? o->kernel_regex : ".*";

    if (!res->exited)
        return rpl_error_set(RPL_EINPUT,
                             "the application was killed by signal %d before a snapshot was "
                             "written to '%s'",
                             res->term_signal, o->out_dir);
    if (res->exit_code != 0)
        return rpl_error_set(RPL_EINPUT,
                             "the application exited with status %d before a snapshot was "
                             "written to '%s'",
                             res->exit_code, o->out_dir);
    return rpl_error_set(RPL_EINPUT,
                         "no snapshot in '%s': the application finished without dispatch %llu "
                         "of a kernel matching '%s' (fewer matches, or no CUDA/HSA work)",
                         o->out_dir, (unsigned long long)o->dispatch, pattern);
}

/* The snapshot must be of what was asked for: a matching kernel, the N-th dispatch. */
static int check_match(const rpl_snapshot *s, const rpl_capture_opts *o)
{
    regex_t re;
    bool match;

    if (s->dispatch_index != o->dispatch)
        return rpl_error_set(RPL_EINPUT,
                             "'%s' holds dispatch %llu of '%s', not dispatch %llu as asked",
                             o->out_dir, (unsigned long long)s->dispatch_index, s->demangled_name,
                             (unsigned long long)o->dispatch);
    if (!o->kernel_regex || !o->kernel_regex[0])
        return 0;
    if (regcomp(&re, o->kernel_regex, REG_EXTENDED | REG_NOSUB) != 0)
        return rpl_error_set(RPL_EUSAGE, "bad --kernel pattern '%s'", o->kernel_regex);
    match = regexec(&re, s->demangled_name, 0, NULL, 0) == 0 ||
            regexec(&re, s->mangled_name, 0, NULL, 0) == 0;
    regfree(&re);
    if (!match)
        return rpl_error_set(RPL_EINPUT, "'%s' holds kernel '%s', which does not match '%s'",
                             o->out_dir, s->demangled_name, o->kernel_regex);
    return 0;
}

int rpl_capture_run(rpl_capture_result *out, const rpl_capture_opts *o)
{
    rpl_strbuf cuda = RPL_STRBUF_INIT, hsa = RPL_STRBUF_INIT, dir = RPL_STRBUF_INIT,
               kernel = RPL_STRBUF_INIT, dispatch = RPL_STRBUF_INIT;
    const char *env[6] = {NULL};
    rpl_spawn_opts so = {0};
    rpl_spawn_result res = {0};
    struct stat st;
    size_t n = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = check_opts(o)) != 0 || (rc = injection_env(&cuda, &hsa, o->backend)) != 0)
        goto done;
    if ((rc = rpl_strbuf_printf(&dir, "%s=%s", RPL_CAPTURE_ENV_DIR, o->out_dir)) != 0 ||
        (rc = rpl_strbuf_printf(&kernel, "%s=%s", RPL_CAPTURE_ENV_KERNEL,
                                o->kernel_regex ? o->kernel_regex : "")) != 0 ||
        (rc = rpl_strbuf_printf(&dispatch, "%s=%llu", RPL_CAPTURE_ENV_DISPATCH,
                                (unsigned long long)o->dispatch)) != 0)
        goto done;
    if (cuda.len)
        env[n++] = cuda.ptr;
    if (hsa.len)
        env[n++] = hsa.ptr;
    env[n++] = dir.ptr;
    env[n++] = kernel.ptr;
    env[n++] = dispatch.ptr;
    so.argv = o->app_argv;
    so.env_set = env;
    rpl_log_info("capturing dispatch %llu of '%s' from %s into '%s'",
                 (unsigned long long)o->dispatch, o->kernel_regex ? o->kernel_regex : "",
                 o->app_argv[0], o->out_dir);
    if ((rc = spawn_no_aslr(&res, &so, &out->aslr_disabled)) != 0)
        goto done;
    out->app_exited = res.exited;
    out->app_status = res.exited ? res.exit_code : res.term_signal;
    if (lstat(o->out_dir, &st) != 0) {
        rc = missing_snapshot(o, &res);
        goto done;
    }
    if ((rc = rpl_snapshot_open(&out->snap, o->out_dir)) == 0 &&
        (rc = rpl_snapshot_verify(out->snap)) == 0)
        rc = check_match(out->snap, o);
    if (rc)
        rpl_error_prefix("the capture left a bad snapshot");
done:
    if (rc)
        rpl_capture_result_release(out);
    rpl_spawn_result_release(&res);
    rpl_strbuf_release(&cuda);
    rpl_strbuf_release(&hsa);
    rpl_strbuf_release(&dir);
    rpl_strbuf_release(&kernel);
    rpl_strbuf_release(&dispatch);
    return rc;
}

void rpl_capture_summary_print(FILE *out, const rpl_capture_result *r)
{
    const rpl_snapshot *s = r->snap;
    uint64_t bytes = 0;

    for (size_t i = 0; i < s->nregions; i++)
        bytes += s->regions[i].size;
    fprintf(out, "Snapshot: %s\n", s->dir);
    fprintf(out, "Kernel: %s (dispatch %" PRIu64 ")\n", s->demangled_name, s->dispatch_index);
    fprintf(out, "Backend: %s, %s%s%s\n", s->backend == RPL_SNAP_HSA ? "hsa" : "cuda", s->arch,
            s->device_name ? ", " : "", s->device_name ? s->device_name : "");
    fprintf(out, "Launch: grid %u,%u,%u block %u,%u,%u, %u bytes dynamic shared memory\n",
            s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1], s->block[2],
            s->dynamic_shared_bytes);
    fprintf(out, "Memory: %zu region%s, %" PRIu64 " bytes; %zu module global%s\n", s->nregions,
            s->nregions == 1 ? "" : "s", bytes, s->nglobals, s->nglobals == 1 ? "" : "s");
    fprintf(out, "ASLR: %s\n",
            r->aslr_disabled ? "off" : "on (the replay may not get these addresses)");
}
