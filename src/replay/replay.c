/*
 * The replay front end (see rpl/replay.h): checks that need no GPU, then
 * the backend the snapshot was captured with (replay_backend.h), then the
 * statistics of the launch times.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_backend.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/stats.h"

void rpl_replay_opts_init(rpl_replay_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->iterations = 1;
    o->recopy = true;
    o->check_runs = 1;
    o->device_pristine = true;
}

void rpl_replay_result_free(rpl_replay_result *r)
{
    if (!r)
        return;
    RPL_FREE_EACH(r->snapshot, r->backend, r->arch, r->device, r->kernel, r->code_object,
                  r->times_ns, r->timer, r->checks, r);
}

static int check_opts(const rpl_replay_opts *o)
{
    if (o->iterations < 1)
        return rpl_error_set(RPL_EUSAGE, "replay needs at least one iteration");
    if (o->check && o->check_runs < 1)
        return rpl_error_set(RPL_EUSAGE, "--check-runs must be at least 1");
    if (o->have_tolerance && !(isfinite(o->tolerance.rtol) && o->tolerance.rtol >= 0 &&
                               isfinite(o->tolerance.atol) && o->tolerance.atol >= 0))
        return rpl_error_set(RPL_EUSAGE, "tolerances must be finite and not negative");
    return 0;
}

/*
 * Before any backend: the driver library must load (else RPL_EENV, exit 3)
 * and the GPU's device node must exist (else RPL_ENODEV, exit 77), so that
 * a machine without a GPU gets the same answer whatever backend is built.
 */
static int probe_environment(const rpl_snapshot *snap)
{
    const bool hsa = snap->backend == RPL_SNAP_HSA;
    const char *lib = hsa ? "libhsa-runtime64.so.1" : "libcuda.so.1";
    const char *node = hsa ? "/dev/kfd" : "/dev/nvidiactl";
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);

    if (!h)
        return rpl_error_set(RPL_EENV, "cannot load %s (the %s) to replay '%s': %s", lib,
                             hsa ? "HSA runtime" : "CUDA driver", snap->dir, dlerror());
    dlclose(h);
    if (access(node, F_OK) != 0)
        return rpl_error_set(RPL_ENODEV, "no %s GPU here (%s is missing) to replay '%s'",
                             hsa ? "AMD" : "NVIDIA", node, snap->dir);
    return 0;
}

int rpl_replay_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = probe_environment(snap)) != 0)
        return rc;
    switch (snap->backend) {
    case RPL_SNAP_CUDA:
        return rpl_replay_cuda_reserve_check(out, snap);
    case RPL_SNAP_HSA:
        return rpl_replay_hsa_reserve_check(out, snap);
    }
    return rpl_error_set(RPL_EINPUT, "snapshot '%s' names no known backend", snap->dir);
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int new_result(rpl_replay_result **out, const rpl_snapshot *snap,
                      const rpl_replay_opts *opts)
{
    rpl_replay_result *r = calloc(1, sizeof(*r));
    int rc = 0;

    *out = NULL;
    if (!r)
        return rpl_error_oom();
    r->snapshot = dup_or_null(snap->dir);
    r->backend = dup_or_null(snap->backend == RPL_SNAP_HSA ? "hsa" : "cuda");
    r->arch = dup_or_null(snap->arch);
    r->kernel = dup_or_null(snap->demangled_name);
    r->candidate = opts->code_object != NULL;
    if (opts->code_object)
        r->code_object = strdup(opts->code_object);
    else
        rc = rpl_path_join(&r->code_object, snap->dir, snap->code_object_file);
    if (rc == 0 && (!r->snapshot || !r->backend || !r->arch || !r->kernel || !r->code_object))
        rc = rpl_error_oom();
    if (rc) {
        rpl_replay_result_free(r);
        return rc;
    }
    r->iterations = opts->iterations;
    r->warmup = opts->warmup;
    r->recopy = opts->recopy;
    r->check_runs = opts->check ? opts->check_runs : 0;
    r->aslr_disabled = rpl_replay_aslr_disabled();
    *out = r;
    return 0;
}

static int compute_stats(rpl_replay_result *r)
{
    rpl_duration_stats st;
    double *copy;
    int rc;

    if (r->ntimes == 0)
        return 0;
    /* rpl_stats_compute reorders its input: keep times_ns in launch order. */
    if (!(copy = malloc(r->ntimes * sizeof(*copy))))
        return rpl_error_oom();
    memcpy(copy, r->times_ns, r->ntimes * sizeof(*copy));
    rc = rpl_stats_compute(&st, copy, r->ntimes);
    free(copy);
    if (rc)
        return rc;
    r->mean_ns = st.mean;
    r->median_ns = st.median;
    r->min_ns = st.min;
    r->max_ns = st.max;
    r->stddev_ns = st.stddev;
    return 0;
}

int rpl_replay_run(rpl_replay_result **out, const rpl_snapshot *snap, const rpl_replay_opts *opts)
{
    rpl_replay_result *r = NULL;
    int rc;

    *out = NULL;
    if ((rc = check_opts(opts)) != 0 || (rc = rpl_snapshot_verify(snap)) != 0 ||
        (rc = new_result(&r, snap, opts)) != 0)
        return rc;
    if ((rc = rpl_replay_check_code_object(snap, r->code_object)) != 0 ||
        (rc = probe_environment(snap)) != 0) {
        rpl_replay_result_free(r);
        return rc;
    }
    switch (snap->backend) {
    case RPL_SNAP_CUDA:
        rc = rpl_replay_cuda_run(r, snap, opts);
        break;
    case RPL_SNAP_HSA:
        rc = rpl_replay_hsa_run(r, snap, opts);
        break;
    default:
        rc = rpl_error_set(RPL_EINPUT, "snapshot '%s' names no known backend", snap->dir);
        break;
    }
    if (rc == 0)
        rc = compute_stats(r);
    /* A failed or moved reservation still reports what happened. */
    if (rc == 0 || rc == RPL_EFAIL)
        *out = r;
    else
        rpl_replay_result_free(r);
    return rc;
}
