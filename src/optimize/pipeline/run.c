/*
 * One candidate through the pipeline: build, signature, static, replay,
 * test, measure, app; the first failing step decides (rpl/pipeline.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_int.h"
#include "rpl/baseline.h"
#include "rpl/cleanup.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/gate.h"
#include "rpl/json.h"
#include "rpl/log.h"

/* The state of one candidate while it runs. */
typedef struct cstate {
    rpl_pipe *p;
    const rpl_pipe_candidate *c;
    pipe_kernel *k;
    rpl_pipe_outcome *o;
    pipe_build b;
    char *co;
    bool decided;
    double *orig_ns, *cand_ns;
    size_t norig, ncand;
} cstate;

int pipe_add_metric(rpl_pipe_outcome *o, const char *name, double orig, double cand)
{
    rpl_pipe_metric *grown = realloc(o->metrics, (o->nmetrics + 1) * sizeof(*grown));

    if (!grown)
        return rpl_error_oom();
    o->metrics = grown;
    grown[o->nmetrics].original = orig;
    grown[o->nmetrics].candidate = cand;
    if (!(grown[o->nmetrics].name = strdup(name)))
        return rpl_error_oom();
    o->nmetrics++;
    return 0;
}

/* Record a step's end: passed, or the candidate's rejection with `evidence` as the reason. */
static int step_done(cstate *s, rpl_pipe_step step, double t0, bool passed, rpl_pipe_decision d,
                     const char *evidence)
{
    rpl_pipe_step_result *r = &s->o->steps[step];
    int rc;

    r->ran = true;
    r->passed = passed;
    r->seconds = rpl_clock_mono_s() - t0;
    if ((rc = pipe_set(&r->evidence, "%s", evidence)) != 0)
        return rc;
    if (!passed) {
        s->o->decision = d;
        s->decided = true;
        if ((rc = pipe_set(&s->o->message, "%s: %s", rpl_pipe_step_name(step), evidence)) != 0)
            return rc;
    }
    pipe_progress(s->p, s->o->id, step, "%s: %s", passed ? "passed" : "rejected", evidence);
    return 0;
}

static int step_build(cstate *s)
{
    double t0 = rpl_clock_mono_s();
    bool failed = false;
    int rc;

    pipe_progress(s->p, s->o->id, RPL_PIPE_STEP_BUILD, "building");
    if ((rc = pipe_build_make(s->p, &s->b, s->c->text, s->c->len, &failed)) != 0)
        return rc;
    if (!failed && (rc = pipe_set(&s->co, "%s/rocm-perf-build/candidate.co",
                                  rpl_scratch_path(s->b.scratch))) == 0)
        rc = pipe_build_codeobj(s->p, &s->b, s->k, s->co, &failed);
    if (rc == 0 && s->b.log)
        rc = rpl_file_write_atomic(s->o->build_log_path, s->b.log, strlen(s->b.log));
    if (rc)
        return rc;
    if (failed) {
        char *why = NULL;
        if ((rc = pipe_set(&why, "the compiler failed: %s", pipe_last_line(s->b.log))) == 0)
            rc = step_done(s, RPL_PIPE_STEP_BUILD, t0, false, RPL_PIPE_REJECT_BUILD, why);
        free(why);
        return rc;
    }
    if ((rc = pipe_set(&s->o->code_object, "%s", s->co)) != 0)
        return rc;
    return step_done(s, RPL_PIPE_STEP_BUILD, t0, true, 0, "program and code object built");
}

/* The source-level signature (libclang) and the device symbol in the code object. */
static int step_signature(cstate *s)
{
    const rpl_ks_kernel *ko = NULL, *kc = NULL;
    const rpl_kernel_source *src;
    rpl_codeobj_set *set = NULL;
    char *diff = NULL, *why = NULL;
    double t0 = rpl_clock_mono_s();
    bool found = false;
    int rc;

    if ((rc = rpl_kernel_source_find(s->p->orig_ks, s->k->display, &ko)) != 0)
        return rc;
    /* The candidate's parse, kept with its build for a rebase onto it. */
    if (s->c->parsed)
        s->b.parsed = rpl_kernel_source_ref(s->c->parsed);
    else if (rpl_kernel_source_parse_buffer(&s->b.parsed, s->p->target->source, s->c->text,
                                            s->c->len, &s->p->ks) != 0)
        s->b.parsed = NULL;
    src = s->b.parsed;
    if (src && src->n_errors <= s->p->orig_ks->n_errors) {
        if (rpl_kernel_source_find(src, s->k->display, &kc) != 0)
            rc = pipe_set(&why, "the candidate does not define %s", s->k->display);
        else if (rpl_ks_kernel_error(src, kc))
            kc = NULL; /* the compiler judges it in the build step */
        else if (rpl_ks_signature_diff(ko, kc, &diff) != 0)
            rc = pipe_set(&why, "%s", diff ? diff : "the signature changed");
    }
    rpl_error_clear();
    if (rc == 0 && !why && (rc = rpl_codeobj_set_new(&set)) == 0) {
        if (rpl_codeobj_read_file(set, s->co) != 0)
            rc = pipe_set(&why, "the code object cannot be read: %s", rpl_error_last()->message);
        for (size_t i = 0; set && i < set->count; i++)
            found |= strcmp(set->kernels[i].name, s->k->mangled) == 0;
        if (rc == 0 && !why && !found)
            rc = pipe_set(&why, "the code object has no kernel symbol %s", s->k->mangled);
    }
    if (rc == 0 && why)
        rc = step_done(s, RPL_PIPE_STEP_SIGNATURE, t0, false, RPL_PIPE_REJECT_SIGNATURE, why);
    else if (rc == 0 && (rc = pipe_set(&why, "symbol %s present%s", s->k->mangled,
                                       kc ? ", signature unchanged" : "")) == 0)
        rc = step_done(s, RPL_PIPE_STEP_SIGNATURE, t0, true, 0, why);
    rpl_codeobj_set_free(set);
    free(diff);
    free(why);
    return rc;
}

int pipe_statics(rpl_static_kernel **all, size_t *n, const rpl_static_kernel **one,
                 const char *path, const pipe_kernel *k)
{
    rpl_codeobj_set *set = NULL;
    int rc = rpl_codeobj_set_new(&set);

    *all = NULL;
    *n = 0;
    *one = NULL;
    if (rc == 0 && (rc = rpl_codeobj_read_file(set, path)) == 0)
        rc = rpl_baseline_static_from_codeobj(all, n, set, k->arch, k->block);
    for (size_t i = 0; rc == 0 && i < *n; i++)
        if (strcmp((*all)[i].name, k->mangled) == 0)
            *one = &(*all)[i];
    if (rc == 0 && !*one)
        rc = rpl_error_set(RPL_EINPUT, "%s: no %s for %s", path, k->mangled, k->arch);
    rpl_codeobj_set_free(set);
    return rc;
}

/*
 * Spills or scratch that grow and an occupancy that drops reject; register
 * and LDS figures are reported (more registers at the same occupancy are
 * what an unroll costs, and fine).
 */
static int step_static(cstate *s)
{
    rpl_static_kernel *oa = NULL, *ca = NULL;
    const rpl_static_kernel *o, *c;
    size_t on = 0, cn = 0;
    rpl_strbuf why = RPL_STRBUF_INIT;
    double t0 = rpl_clock_mono_s();
    int rc;

    if ((rc = pipe_statics(&oa, &on, &o, s->k->orig_co, s->k)) != 0 ||
        (rc = pipe_statics(&ca, &cn, &c, s->co, s->k)) != 0)
        goto done;
    if ((rc = pipe_add_metric(s->o, "vgpr", (double)o->vgpr, (double)c->vgpr)) ||
        (rc = pipe_add_metric(s->o, "sgpr", (double)o->sgpr, (double)c->sgpr)) ||
        (rc = pipe_add_metric(s->o, "lds_bytes", (double)o->lds_bytes, (double)c->lds_bytes)) ||
        (rc = pipe_add_metric(s->o, "scratch_bytes", (double)o->scratch_bytes,
                              (double)c->scratch_bytes)) ||
        (rc = pipe_add_metric(s->o, "spills", (double)o->spills, (double)c->spills)) ||
        (rc = pipe_add_metric(s->o, "occupancy", (double)o->occupancy, (double)c->occupancy)))
        goto done;
    if (c->spills > 0 && c->spills > o->spills)
        rpl_strbuf_printf(&why, "spills %lld -> %lld; ", (long long)o->spills,
                          (long long)c->spills);
    if (c->scratch_bytes > o->scratch_bytes && c->scratch_bytes > 0)
        rpl_strbuf_printf(&why, "scratch %lld -> %lld bytes; ", (long long)o->scratch_bytes,
                          (long long)c->scratch_bytes);
    if (o->occupancy >= 0 && c->occupancy >= 0 && c->occupancy < o->occupancy)
        rpl_strbuf_printf(&why, "occupancy %lld -> %lld %s (limited by %s); ",
                          (long long)o->occupancy, (long long)c->occupancy,
                          c->occ_unit ? c->occ_unit : "", c->limiter ? c->limiter : "?");
    if (why.len) {
        why.ptr[why.len - 2] = '\0';
        rc = step_done(s, RPL_PIPE_STEP_STATIC, t0, false, RPL_PIPE_REJECT_STATIC, why.ptr);
    } else {
        rpl_strbuf_printf(&why,
                          "vgpr %lld -> %lld, sgpr %lld -> %lld, lds %lld -> %lld, spills %lld, "
                          "occupancy %lld -> %lld %s",
                          (long long)o->vgpr, (long long)c->vgpr, (long long)o->sgpr,
                          (long long)c->sgpr, (long long)o->lds_bytes, (long long)c->lds_bytes,
                          (long long)c->spills, (long long)o->occupancy, (long long)c->occupancy,
                          c->occ_unit ? c->occ_unit : "");
        rc = why.ptr ? step_done(s, RPL_PIPE_STEP_STATIC, t0, true, 0, why.ptr) : rpl_error_oom();
    }
done:
    rpl_static_kernels_free(oa, on);
    rpl_static_kernels_free(ca, cn);
    rpl_strbuf_release(&why);
    return rc;
}

/* Said with every failure on another size: the model must not specialise for the one shown. */
#define SIZES "the kernel must be correct at every size and launch geometry, not only the one timed"

/* "f32 rtol 1e-05 atol 1e-06, u8 exact": every dtype's tolerance once. */
static void tolerances(rpl_strbuf *sb, const cJSON *regions)
{
    const cJSON *r, *q;
    int i = 0;

    cJSON_ArrayForEach(r, regions)
    {
        const char *dt = NULL;
        double rtol = 0, atol = 0;
        bool seen = false;
        int j = 0;
        rpl_json_get_string(r, "dtype", &dt);
        cJSON_ArrayForEach(q, regions)
        {
            const char *d2 = NULL;
            if (j++ >= i)
                break;
            rpl_json_get_string(q, "dtype", &d2);
            seen |= dt && d2 && strcmp(dt, d2) == 0;
        }
        i++;
        if (seen || !dt)
            continue;
        rpl_json_get_number(r, "rtol", &rtol);
        rpl_json_get_number(r, "atol", &atol);
        if (rtol == 0 && atol == 0)
            rpl_strbuf_printf(sb, "%s%s exact", sb->len ? ", " : "", dt);
        else
            rpl_strbuf_printf(sb, "%s%s rtol %g atol %g", sb->len ? ", " : "", dt, rtol, atol);
    }
}

/* "on shape 2 of 3 (n=4096), not the one timed: WHY; SIZES" (*out, free()). */
static int on_shape(char **out, const cstate *s, size_t shape, const char *why)
{
    return pipe_set(out, "on shape %zu of %zu (%s), not the one timed: %s; " SIZES, shape + 1,
                    s->k->nshapes, s->k->shape_text[shape], why);
}

/* The regions of a replay's check: counted, the first bad one said in *why. */
typedef struct region_tally {
    int nreg, nbad;
    char *why;
} region_tally;

static int tally_regions(region_tally *t, const cJSON *regions, const char *tol)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, regions)
    {
        double bad = 0, elements = 0, maxabs = NAN;
        bool poisoned = false;
        const char *base = "?", *dt = "?";
        int rc;
        t->nreg++;
        rpl_json_get_number(r, "mismatches", &bad);
        if (bad == 0)
            continue;
        if (t->nbad++ > 0)
            continue;
        rpl_json_get_number(r, "elements", &elements);
        rpl_json_get_number(r, "max_abs_err", &maxabs);
        rpl_json_get_bool(r, "poisoned", &poisoned);
        rpl_json_get_string(r, "base", &base);
        rpl_json_get_string(r, "dtype", &dt);
        if (!poisoned)
            rc = pipe_set(&t->why,
                          "writes outside the outputs: region %s, which the original does not "
                          "write, changed (%.0f of %.0f %s elements)",
                          base, bad, elements, dt);
        else
            rc = pipe_set(&t->why,
                          "wrong result: region %s: %.0f of %.0f %s elements differ (max abs "
                          "error %g; %s)",
                          base, bad, elements, dt, maxabs, tol);
        if (rc)
            return rc;
    }
    return 0;
}

/* A replay that gave no JSON: refused (the symbol or arguments) or a crash, hang, failure. */
static int replay_failed(cstate *s, size_t shape, double t0, pipe_replay_failure *f)
{
    bool refused = f->end == PIPE_REPLAY_REFUSED;
    char *why = NULL;
    int rc = 0;

    if (shape > 0) /* passed the captured shape, failed this one: say which, and that sizes vary */
        rc = on_shape(&why, s, shape, f->evidence);
    if (rc == 0)
        rc = step_done(s, refused ? RPL_PIPE_STEP_SIGNATURE : RPL_PIPE_STEP_REPLAY, t0, false,
                       refused ? RPL_PIPE_REJECT_SIGNATURE : RPL_PIPE_REJECT_WRONG_RESULT,
                       why ? why : f->evidence);
    free(why);
    free(f->evidence);
    return rc;
}

/* The verdict of a replay's check on shape `shape`: a decision, or *ok with the evidence. */
static int judge_check(cstate *s, size_t shape, double t0, const cJSON *doc, char **ok)
{
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(doc, "check");
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(check, "regions");
    rpl_strbuf tol = RPL_STRBUF_INIT;
    region_tally t = {0, 0, NULL};
    bool passed = false, det = false;
    char *why = NULL;
    int rc;

    if (rpl_json_get_bool(check, "passed", &passed) ||
        rpl_json_get_bool(check, "deterministic", &det))
        return rpl_error_set(RPL_EINPUT, "the replay's JSON has no check");
    tolerances(&tol, regions);
    rc = tally_regions(&t, regions, tol.ptr ? tol.ptr : "");
    if (rc == 0 && shape > 0 && (!det || !passed || t.nbad))
        rc = on_shape(&why, s, shape, t.why ? t.why : "the replay's check failed");
    else if (rc == 0 && t.why)
        rc = pipe_set(&why, "%s", t.why);
    if (rc == 0 && !det) {
        rc = pipe_set(&why, "two launches on the same input gave different bytes%s",
                      t.nbad ? " and differ from the original" : "");
        if (rc == 0)
            rc = step_done(s, RPL_PIPE_STEP_REPLAY, t0, false, RPL_PIPE_REJECT_NONDETERMINISTIC,
                           why);
    } else if (rc == 0 && (!passed || t.nbad)) {
        if (!why)
            rc = pipe_set(&why, "the replay's check failed");
        if (rc == 0)
            rc = step_done(s, RPL_PIPE_STEP_REPLAY, t0, false, RPL_PIPE_REJECT_WRONG_RESULT, why);
    } else if (rc == 0) {
        rc = pipe_set(ok, "replay %d/%d regions equal (%s), 2 runs identical", t.nreg, t.nreg,
                      tol.ptr ? tol.ptr : "no regions");
    }
    rpl_strbuf_release(&tol);
    free(t.why);
    free(why);
    return rc;
}

/*
 * One checked replay of the candidate on shape `shape` (0: the captured dispatch the candidate
 * is timed on).  A failure decides (its evidence names the shape when it is not the first);
 * a pass leaves *ok with the evidence.
 */
static int replay_shape(cstate *s, size_t shape, double t0, char **ok)
{
    pipe_kernel sk = *s->k;
    pipe_replay_failure fail;
    cJSON *doc = NULL;
    int rc;

    *ok = NULL;
    if (shape > 0)
        sk.snapshot = s->k->shapes[shape - 1];
    pipe_progress(s->p, s->o->id, RPL_PIPE_STEP_REPLAY,
                  "replaying shape %zu of %zu, outputs poisoned", shape + 1, s->k->nshapes);
    rc = pipe_replay(s->p, &sk, s->co, true, 1, &doc, &fail);
    if (rc == RPL_EENV && shape > 0) {
        /* The replay could not run there (device addresses taken in its process): that
           shape goes unchecked for this candidate, said, rather than ending the run. */
        rpl_log_warn("%s: shape %zu not checked: %s", s->o->id, shape + 1,
                     rpl_error_last()->message);
        rpl_error_clear();
        return 0;
    }
    if (rc == 0 && fail.end != PIPE_REPLAY_RAN)
        return replay_failed(s, shape, t0, &fail);
    if (rc == 0)
        rc = judge_check(s, shape, t0, doc, ok);
    cJSON_Delete(doc);
    return rc;
}

static int step_replay(cstate *s)
{
    double t0 = rpl_clock_mono_s();
    size_t n = s->k->nshapes ? s->k->nshapes : 1;
    char *ok = NULL, *first = NULL;
    int rc = 0;

    size_t unchecked = 0;

    for (size_t i = 0; rc == 0 && !s->decided && i < n; i++) {
        free(ok);
        ok = NULL;
        if ((rc = replay_shape(s, i, t0, &ok)) == 0 && i == 0 && ok)
            first = strdup(ok);
        unchecked += rc == 0 && !s->decided && !ok;
    }
    if (rc == 0 && !s->decided) {
        free(ok);
        ok = NULL;
        if (!first)
            rc = rpl_error_oom();
        else if (n > 1)
            rc = unchecked ? pipe_set(&ok,
                                      "%s; the same on %zu of %zu other shapes (the replay could "
                                      "not run on the rest)",
                                      first, n - 1 - unchecked, n - 1)
                           : pipe_set(&ok, "%s; the same on %zu other shape%s", first, n - 1,
                                      n == 2 ? "" : "s");
        else
            rc = pipe_set(&ok, "%s", first);
        if (rc == 0 && (rc = pipe_set(&s->o->correctness, "%s", ok)) == 0)
            rc = step_done(s, RPL_PIPE_STEP_REPLAY, t0, true, 0, ok);
    }
    free(ok);
    free(first);
    return rc;
}

/*
 * --verify-run ARGS: the program built with the candidate, run with ARGS instead of its
 * arguments (other sizes); *why set when its check fails.
 */
static int verify_run(cstate *s, const char *args, char **why)
{
    const char *vars[4] = {NULL, s->b.program, NULL, NULL};
    char **words = NULL, **argv = NULL, **prog = NULL;
    const char *first[2] = {s->p->target->test_argv[0], NULL};
    rpl_spawn_result res = {0};
    size_t n = 0;
    int rc;

    if ((rc = pipe_split_words(&words, args)) != 0 ||
        (rc = pipe_argv_expand(&prog, first, vars)) != 0 ||
        (rc = pipe_argv_push(&argv, &n, prog[0])) != 0)
        goto done;
    for (size_t i = 0; rc == 0 && words[i]; i++)
        rc = pipe_argv_push(&argv, &n, words[i]);
    if (rc)
        goto done;
    pipe_progress(s->p, s->o->id, RPL_PIPE_STEP_TEST, "the program's own check with %s", args);
    rc = pipe_run(&res, (const char *const *)argv, NULL, s->p->opts.run_timeout_ms, NULL);
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EENV, "cannot run the built program");
    else if (rc == 0 || rc == RPL_ETIMEOUT) {
        rc = 0;
        if (res.timed_out || !res.exited || res.exit_code != 0)
            rc = pipe_set(
                why, "the program's own check failed with --verify-run \"%s\" (%s): %s; " SIZES,
                args,
                res.timed_out ? "time limit"
                : res.exited  ? "non-zero exit"
                              : "signal",
                pipe_last_line(res.err && res.err[0] ? res.err : res.out));
    }
done:
    rpl_spawn_result_release(&res);
    pipe_argv_free(words);
    pipe_argv_free(prog);
    pipe_argv_free(argv);
    return rc;
}

/* The program's own check on fresh seeds (or once as it is, without a seed flag), and with
   each --verify-run. */
static int step_test(cstate *s)
{
    const rpl_pipe_target *t = s->p->target;
    const char *vars[4] = {NULL, s->b.program, NULL, NULL};
    const char *const *verify = s->p->opts.verify_runs;
    unsigned runs = s->p->opts.seeds == 0 ? 0 : t->seed_flag ? s->p->opts.seeds : 1, ok = 0;
    unsigned nverify = 0;
    char *why = NULL;
    double t0 = rpl_clock_mono_s();
    int rc = 0;

    if (runs == 0 && !(verify && verify[0]))
        return 0;
    for (unsigned i = 0; rc == 0 && !why && i < runs; i++) {
        char **argv = NULL, seed[32];
        size_t n = 0;
        rpl_spawn_result res;
        /* Seeds nobody wrote down in the candidate's source or prompt. */
        snprintf(seed, sizeof(seed), "%llu",
                 1000 + (unsigned long long)(rpl_rng_next(&s->p->rng) % 4000000000u));
        if ((rc = pipe_argv_expand(&argv, (const char *const *)t->test_argv, vars)) != 0)
            break;
        while (argv[n])
            n++;
        if (t->seed_flag && ((rc = pipe_argv_push(&argv, &n, t->seed_flag)) != 0 ||
                             (rc = pipe_argv_push(&argv, &n, seed)) != 0)) {
            pipe_argv_free(argv);
            break;
        }
        pipe_progress(s->p, s->o->id, RPL_PIPE_STEP_TEST, "the program's own check%s%s",
                      t->seed_flag ? ", seed " : "", t->seed_flag ? seed : "");
        rc = pipe_run(&res, (const char *const *)argv, NULL, s->p->opts.run_timeout_ms, NULL);
        pipe_argv_free(argv);
        if (rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EENV, "cannot run the built program");
        if (rc != 0 && rc != RPL_ETIMEOUT) {
            rpl_spawn_result_release(&res);
            break;
        }
        rc = 0;
        if (res.timed_out || !res.exited || res.exit_code != 0)
            rc = pipe_set(&why, "the program's own check failed%s%s%s%s (%s): %s",
                          t->seed_flag ? " with " : "", t->seed_flag ? t->seed_flag : "",
                          t->seed_flag ? " " : "", t->seed_flag ? seed : "",
                          res.timed_out ? "time limit"
                          : res.exited  ? "non-zero exit"
                                        : "signal",
                          pipe_last_line(res.err && res.err[0] ? res.err : res.out));
        else
            ok++;
        rpl_spawn_result_release(&res);
    }
    for (size_t i = 0; rc == 0 && !why && verify && verify[i]; i++)
        if ((rc = rpl_interrupt_check()) == 0 && (rc = verify_run(s, verify[i], &why)) == 0)
            nverify++;
    if (rc == 0 && why)
        rc = step_done(s, RPL_PIPE_STEP_TEST, t0, false, RPL_PIPE_REJECT_WRONG_RESULT, why);
    else if (rc == 0) {
        if (runs == 0)
            rc = pipe_set(&why, "test skipped (--seeds 0)");
        else if (t->seed_flag)
            rc = pipe_set(&why, "test %u/%u fresh seeds passed", ok, runs);
        else
            rc = pipe_set(&why, "test passed (the program has no seed option)");
        if (rc == 0 && nverify)
            rc = pipe_set(&why, "%s; %u --verify-run size%s passed", why, nverify,
                          nverify == 1 ? "" : "s");
        if (rc == 0)
            rc = pipe_set(&s->o->correctness, "%s; %s", s->o->correctness, why);
        if (rc == 0)
            rc = step_done(s, RPL_PIPE_STEP_TEST, t0, true, 0, why);
    }
    free(why);
    return rc;
}

/* Append a replay's times_ns to a sample. */
static int append_times(double **v, size_t *n, const cJSON *doc)
{
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "timing"), "times_ns");
    const cJSON *t;
    size_t add = (size_t)cJSON_GetArraySize(times);
    double *grown;

    if (!cJSON_IsArray(times) || add == 0)
        return rpl_error_set(RPL_EINPUT, "the replay's JSON has no timing.times_ns");
    if (!(grown = realloc(*v, (*n + add) * sizeof(double))))
        return rpl_error_oom();
    *v = grown;
    cJSON_ArrayForEach(t, times)
    {
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0))
            return rpl_error_set(RPL_EINPUT, "the replay's JSON has a bad time");
        grown[(*n)++] = t->valuedouble;
    }
    return 0;
}

/* One timed replay; a failure in the middle of measuring is a wrong result (a flaky crash). */
static int timed(cstate *s, const char *co, double **v, size_t *n, char **failure)
{
    pipe_replay_failure fail;
    cJSON *doc = NULL;
    int rc = pipe_replay(s->p, s->k, co, false, s->p->opts.iterations, &doc, &fail);

    *failure = fail.evidence;
    if (rc == 0 && !*failure)
        rc = append_times(v, n, doc);
    cJSON_Delete(doc);
    return rc;
}

/* The gate's bootstrap comparison of candidate with original, `delta` its threshold. */
static int compare(const rpl_pipe_opts *po, double delta, const double *orig, size_t norig,
                   const double *cand, size_t ncand, rpl_runtime_cmp *out)
{
    rpl_gate_stat_opts so;

    rpl_gate_stat_opts_init(&so);
    so.delta = delta;
    so.confidence = po->confidence;
    if (po->seed)
        so.seed = po->seed;
    return rpl_gate_compare_samples(out, orig, norig, cand, ncand, NULL, 0, &so);
}

static int step_measure(cstate *s)
{
    const rpl_pipe_opts *po = &s->p->opts;
    rpl_runtime_cmp cmp;
    char *failure = NULL, *why = NULL;
    double t0 = rpl_clock_mono_s(), lo, hi;
    rpl_pipe_outcome *o = s->o;
    rpl_pipe_decision decision;
    int rc = 0, digits;

    for (unsigned r = 0; rc == 0 && !failure && r < po->rounds; r++) {
        if ((rc = rpl_interrupt_check()) != 0)
            return rc;
        pipe_progress(s->p, o->id, RPL_PIPE_STEP_MEASURE, "round %u/%u", r + 1, po->rounds);
        rc = timed(s, s->k->orig_co, &s->orig_ns, &s->norig, &failure);
        if (rc == 0 && !failure)
            rc = timed(s, s->co, &s->cand_ns, &s->ncand, &failure);
    }
    if (rc == 0 && failure) {
        rc = step_done(s, RPL_PIPE_STEP_MEASURE, t0, false, RPL_PIPE_REJECT_WRONG_RESULT, failure);
        free(failure);
        return rc;
    }
    if (rc)
        return rc;
    if ((rc = compare(po, po->min_gain, s->orig_ns, s->norig, s->cand_ns, s->ncand, &cmp)) != 0)
        return rc;
    o->median_orig_ns = cmp.median_base;
    o->median_cand_ns = cmp.median_cand;
    o->speedup = exp(-cmp.log_ratio);
    o->speedup_lo = exp(-cmp.upper);
    o->speedup_hi = exp(-cmp.lower);
    o->time_change_pct = (exp(cmp.log_ratio) - 1) * 100;
    o->ci_half_pct = (exp(cmp.upper) - exp(cmp.lower)) * 50;
    if ((rc = pipe_add_metric(o, "median_ns", o->median_orig_ns, o->median_cand_ns)) != 0)
        return rc;
    lo = o->speedup_lo;
    hi = o->speedup_hi;
    o->floor_ns = s->k->floor_ns;
    if (s->k->roof_ns > 0)
        o->headroom = o->median_orig_ns / s->k->roof_ns;
    if (o->floor_ns > 0 && o->median_cand_ns < (1 - RPL_PIPE_FLOOR_MARGIN) * o->floor_ns) {
        if ((rc = pipe_set(&why,
                           "median %.0f ns is below the physical floor of %.0f ns (%.0f bytes the "
                           "dispatch must write at %.0f GB/s, %.0f FLOP at %.0f GFLOP/s; margin "
                           "%.0f%%): the timed launches skip work the checks did not see",
                           o->median_cand_ns, o->floor_ns, s->k->written_bytes, s->k->peak_gbps,
                           s->k->flops, s->k->peak_gflops, RPL_PIPE_FLOOR_MARGIN * 100)) == 0)
            rc = step_done(s, RPL_PIPE_STEP_MEASURE, t0, false, RPL_PIPE_REJECT_IMPOSSIBLE, why);
        free(why);
        return rc;
    }
    digits = rpl_pipe_speedup_digits(o->speedup, lo, hi);
    if ((rc = pipe_set(&why,
                       "speedup %.*fx (%.0f%% CI %.*f-%.*f), median %.0f ns -> %.0f ns, %u rounds "
                       "x %u launches, needs > %.3fx",
                       digits, o->speedup, po->confidence * 100, digits, lo, digits, hi,
                       o->median_orig_ns, o->median_cand_ns, po->rounds, po->iterations,
                       1 + po->min_gain)) != 0)
        return rc;
    /* Within min_gain of 1 either way is not significant (an A/A pair lands here). */
    decision = rpl_pipe_speedup_decision(lo, hi, po->min_gain);
    rc = step_done(s, RPL_PIPE_STEP_MEASURE, t0, decision == RPL_PIPE_ACCEPTED, decision, why);
    free(why);
    return rc;
}

/* One whole-app profile of `program` into `dir`: its critical path in *cp. */
static int app_profile(cstate *s, const char *program, const char *dir, double *cp)
{
    cJSON *dag = NULL;
    int rc = pipe_profile_app(s->p, program, dir, &dag);

    if (rc == 0 && (rpl_json_get_number(dag, "critical_path_ns", cp) || !(*cp >= 0)))
        rc = rpl_error_set(RPL_EINPUT, "%s/dag.json has no critical_path_ns", dir);
    cJSON_Delete(dag);
    return rc;
}

/*
 * The whole application, original and candidate profiled alternately for
 * opts.app_rounds rounds: slower only when the CI of the ratio of their
 * critical paths' medians lies above 1 + app_tolerance.  The candidate's
 * last profile stays as candidates/<id>/profile (llm-optimize ranks from
 * it after an acceptance); the others are removed.
 */
static int step_app(cstate *s)
{
    const rpl_pipe_opts *po = &s->p->opts;
    unsigned rounds = po->app_rounds ? po->app_rounds : RPL_PIPE_DEFAULT_APP_ROUNDS;
    double *orig = NULL, *cand = NULL, t0 = rpl_clock_mono_s();
    char *base = NULL, *dir = NULL, *keep = NULL, *why = NULL;
    rpl_pipe_outcome *o = s->o;
    rpl_runtime_cmp cmp;
    int rc = 0;

    if (po->skip_app || !(s->p->app_ns >= 0))
        return 0;
    if (!(orig = calloc(rounds, sizeof(double))) || !(cand = calloc(rounds, sizeof(double)))) {
        rc = rpl_error_oom();
        goto done;
    }
    if ((rc = pipe_set(&base, "%s/candidates/%s/app-rounds", s->p->artifacts, o->id)) != 0 ||
        (rc = pipe_set(&keep, "%s/candidates/%s/profile", s->p->artifacts, o->id)) != 0)
        goto done;
    for (unsigned r = 0; rc == 0 && r < rounds; r++) {
        pipe_progress(s->p, o->id, RPL_PIPE_STEP_APP, "profiling the program, round %u/%u", r + 1,
                      rounds);
        if ((rc = rpl_interrupt_check()) != 0 ||
            (rc = pipe_set(&dir, "%s/original-%u", base, r + 1)) != 0 ||
            (rc = app_profile(s, s->p->orig.program, dir, &orig[r])) != 0)
            break;
        if (r + 1 == rounds)
            rc = pipe_set(&dir, "%s", keep);
        else
            rc = pipe_set(&dir, "%s/candidate-%u", base, r + 1);
        if (rc == 0)
            rc = app_profile(s, s->b.program, dir, &cand[r]);
    }
    rpl_remove_tree(base);
    if (rc)
        goto done;
    if ((rc = compare(po, po->app_tolerance, orig, rounds, cand, rounds, &cmp)) != 0)
        goto done;
    o->app_orig_ns = cmp.median_base;
    o->app_cand_ns = cmp.median_cand;
    o->app_ratio = exp(cmp.log_ratio);
    o->app_ratio_lo = exp(cmp.lower);
    o->app_ratio_hi = exp(cmp.upper);
    if ((rc = pipe_add_metric(o, "critical_path_ns", o->app_orig_ns, o->app_cand_ns)) != 0 ||
        (rc = pipe_set(&why,
                       "whole-app critical path median %.0f ns -> %.0f ns, ratio %.3f (%.0f%% CI "
                       "%.3f-%.3f), %u profiles each (ABAB), slower only above %.3f",
                       o->app_orig_ns, o->app_cand_ns, o->app_ratio, po->confidence * 100,
                       o->app_ratio_lo, o->app_ratio_hi, rounds, 1 + po->app_tolerance)) != 0)
        goto done;
    rc = step_done(s, RPL_PIPE_STEP_APP, t0, !(o->app_ratio_lo > 1 + po->app_tolerance),
                   RPL_PIPE_REJECT_SLOWER, why);
done:
    free(orig);
    free(cand);
    free(base);
    free(dir);
    free(keep);
    free(why);
    return rc;
}

/* "c03-unroll-x4-loop-1": the number and the strategy's letters and digits. */
static int outcome_new(cstate *s)
{
    rpl_pipe_outcome *o = calloc(1, sizeof(*o));
    const char *base = strrchr(s->p->target->source, '/');
    char *dir = NULL;
    int rc;

    if (!(s->o = o))
        return rpl_error_oom();
    o->origin = s->c->origin;
    o->iteration = s->c->iteration;
    if (s->c->model && !(o->model = strdup(s->c->model)))
        return rpl_error_oom();
    o->speedup = o->speedup_lo = o->speedup_hi = o->time_change_pct = o->ci_half_pct = NAN;
    o->median_orig_ns = o->median_cand_ns = o->app_orig_ns = o->app_cand_ns = NAN;
    o->app_ratio = o->app_ratio_lo = o->app_ratio_hi = NAN;
    o->floor_ns = o->headroom = NAN;
    if ((rc = pipe_set(&o->id, "c%02zu-", s->p->noutcomes + 1)) != 0)
        return rc;
    for (const char *c = s->c->strategy; *c && strlen(o->id) < 40; c++) {
        char ch = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : *c;
        bool word = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        size_t len = strlen(o->id);
        if (!word && o->id[len - 1] == '-')
            continue;
        if ((rc = pipe_set(&o->id, "%s%c", o->id, word ? ch : '-')) != 0)
            return rc;
    }
    if (o->id[strlen(o->id) - 1] == '-')
        o->id[strlen(o->id) - 1] = '\0';
    if ((rc = pipe_set(&o->kernel, "%s", s->k->display)) ||
        (rc = pipe_set(&o->strategy, "%s", s->c->strategy)) ||
        (rc = pipe_set(&o->correctness, "%s", "")) ||
        (rc = pipe_set(&dir, "%s/candidates/%s", s->p->artifacts, o->id)) ||
        (rc = rpl_mkdir_p(dir)) ||
        (rc = pipe_set(&o->source_path, "%s/%s", dir, base ? base + 1 : s->p->target->source)) ||
        (rc = pipe_set(&o->build_log_path, "%s/build.log", dir)))
        goto done;
    rc = rpl_file_write_atomic(o->source_path, s->c->text, s->c->len);
done:
    free(dir);
    return rc;
}

/* Keep the outcome and its build in the context. */
static int keep(cstate *s)
{
    rpl_pipe *p = s->p;
    rpl_pipe_outcome **o = realloc(p->outcomes, (p->noutcomes + 1) * sizeof(*o));
    char **c;
    pipe_build *b;

    if (o)
        p->outcomes = o;
    c = o ? realloc(p->commits, (p->noutcomes + 1) * sizeof(*c)) : NULL;
    if (c)
        p->commits = c;
    b = c ? realloc(p->builds, (p->noutcomes + 1) * sizeof(*b)) : NULL;
    if (!b)
        return rpl_error_oom();
    p->builds = b;
    p->outcomes[p->noutcomes] = s->o;
    p->commits[p->noutcomes] = NULL;
    p->builds[p->noutcomes] = s->b;
    p->noutcomes++;
    return 0;
}

int rpl_pipe_run(rpl_pipe *p, const rpl_pipe_candidate *c, rpl_pipe_outcome **out)
{
    int (*const steps[])(cstate *) = {step_build, step_signature, step_static, step_replay,
                                      step_test,  step_measure,   step_app};
    cstate s = {.p = p, .c = c};
    double t0 = rpl_clock_mono_s();
    int rc;

    *out = NULL;
    if (!c || !c->kernel || !c->text || !c->strategy)
        return rpl_error_set(RPL_EUSAGE, "a candidate needs a kernel, a text and a strategy");
    if ((rc = rpl_interrupt_check()) != 0 || (rc = pipe_kernel_get(p, c->kernel, &s.k)) != 0 ||
        (rc = outcome_new(&s)) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !s.decided; i++)
        if ((rc = rpl_interrupt_check()) != 0 || (rc = steps[i](&s)) != 0)
            goto fail;
    if (!s.decided) {
        s.o->decision = RPL_PIPE_ACCEPTED;
        if ((rc = pipe_set(&s.o->message, "%.1f%% faster (speedup %.3fx, CI %.3f-%.3f)",
                           -s.o->time_change_pct, s.o->speedup, s.o->speedup_lo,
                           s.o->speedup_hi)) != 0 ||
            (s.o->headroom > 0 &&
             (rc = pipe_set(&s.o->message,
                            "%s; headroom was %.2fx at the roof with the bytes the reference "
                            "moved, %.2fx at the physical floor",
                            s.o->message, s.o->headroom, s.o->median_orig_ns / s.o->floor_ns)) !=
                 0))
            goto fail;
    }
    s.o->seconds = rpl_clock_mono_s() - t0;
    if ((rc = keep(&s)) != 0)
        goto fail;
    free(s.co);
    free(s.orig_ns);
    free(s.cand_ns);
    *out = s.o;
    return 0;
fail:
    pipe_outcome_free(s.o);
    pipe_build_release(&s.b);
    free(s.co);
    free(s.orig_ns);
    free(s.cand_ns);
    return rc;
}

int rpl_pipe_record(rpl_pipe *p, const rpl_pipe_candidate *c, rpl_pipe_decision decision,
                    const char *message, rpl_pipe_outcome **out)
{
    pipe_kernel k = {0};
    cstate s = {.p = p, .c = c, .k = &k};
    int rc;

    *out = NULL;
    if (!c || !c->kernel || !c->text || !c->strategy || decision == RPL_PIPE_ACCEPTED ||
        (unsigned)decision >= RPL_PIPE_DECISIONS)
        return rpl_error_set(RPL_EUSAGE, "a recorded candidate needs a kernel, a text, a "
                                         "strategy and a rejection");
    k.display = (char *)c->kernel; /* not captured: nothing runs */
    if ((rc = outcome_new(&s)) == 0) {
        char *note = NULL;
        s.o->decision = decision;
        rc = pipe_set(&s.o->message, "%s", message && message[0] ? message : "rejected");
        /* Nothing was built: the build log says so, for the reports that link it. */
        if (rc == 0 && (rc = pipe_set(&note, "not built: rejected before the build (%s): %s\n",
                                      rpl_pipe_decision_name(decision), s.o->message)) == 0)
            rc = rpl_file_write_atomic(s.o->build_log_path, note, strlen(note));
        free(note);
    }
    if (rc == 0)
        rc = keep(&s);
    if (rc != 0) {
        pipe_outcome_free(s.o);
        return rc;
    }
    *out = s.o;
    return 0;
}
