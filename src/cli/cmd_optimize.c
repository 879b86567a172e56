/*
 * rocm-perf optimize: the guarded optimizer without an LLM.  Profile the
 * program, rank kernels by critical-path impact, propose loop unrolling
 * under the guardrails (or take --candidate FILE), put each proposal
 * through the candidate pipeline (src/optimize/pipeline), and commit what
 * is accepted on rocm-perf/opt/<kernel>/<UTC> branches.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "optimize_cli.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_source.h"
#include "rpl/optimize_rules.h"
#include "rpl/session.h"

#define DEFAULT_MAX_KERNELS 3

typedef struct optimize_args {
    rpl_optimize_cli cli; /* first: rpl_optimize_cli_options name its fields */
    const char *candidate;
    char *candidate_text; /* read before the original is built */
    size_t candidate_len;
    unsigned max_kernels;
} optimize_args;

_Static_assert(offsetof(optimize_args, cli) == 0, "the shared options' fields start the struct");

#define F(m) RPL_FIELD(optimize_args, m)

static const rpl_option optimize_options[] = {
    OPT_FILENAME(0, "candidate", F(candidate), "FILE",
                 "the whole source with a changed kernel (by hand or by another tool) instead "
                 "of the unroll proposals"),
    OPT_UINT(0, "max-kernels", F(max_kernels), 1, 100, "N", "ranked kernels to try (default {})"),
    OPT_INCLUDE(rpl_optimize_cli_options),
    OPT_END(),
};

static const rpl_command optimize_command = {
    .name = "optimize",
    .usage = "rocm-perf optimize SOURCE \"APP ARGS\" [options]\n"
             "rocm-perf optimize --test NAME --build-dir DIR [options]",
    .description =
        "Build the original in a scratch tree, profile it, rank its kernels by\n"
        "critical-path impact 1/(1-f), and for the best ones propose loop unrolling\n"
        "(factors 2-8, wave-aware; never across __syncthreads, atomics or dynamic shared\n"
        "memory).  Each proposal, or the kernel of --candidate FILE, is built, checked\n"
        "(same kernel symbol; no spills, no occupancy drop), replayed on a snapshot of the\n"
        "original with poisoned outputs and compared region by region, run through the\n"
        "program's own check on fresh seeds, measured against the original in\n"
        "alternating rounds, and kept only when its speedup's confidence bound beats\n"
        "--min-gain and the whole program does not get slower.  Accepted changes become\n"
        "commits on rocm-perf/opt/<kernel>/<UTC> branches; the checkout is never touched.",
    .options = optimize_options,
    .exit_codes = "0 the run finished (see the reports; with --candidate:\n"
                  "accepted), 1 --candidate rejected, 2 bad usage or input (a dirty source, an\n"
                  "original that does not build), 3 a tool is missing (compiler, libclang,\n"
                  "profiler), 77 no GPU.",
};

/* 1: --help printed; 0: parsed; else an exit code. */
static int parse(optimize_args *a, int argc, char **argv)
{
    int rc;

    rpl_optimize_cli_init(&a->cli);
    a->max_kernels = DEFAULT_MAX_KERNELS;
    if ((rc = rpl_parse_options(&optimize_command, a, &argc, &argv)) >= 0)
        return rc == 0 ? 1 : rc;
    return rpl_optimize_cli_finish(&a->cli, "optimize", argc, argv);
}

/* The one kernel whose definition the candidate changes, parsed as the pipeline parses. */
static int changed_kernel(const rpl_pipe *p, const char *text, size_t len, rpl_kernel_source **cand,
                          const char **out)
{
    const rpl_kernel_source *orig = rpl_pipe_original_parsed(p);
    const char *found = NULL;
    size_t n = 0;
    int rc = rpl_kernel_source_parse_buffer(cand, orig->name, text, len, rpl_pipe_parse_options(p));

    if (rc)
        return rc;
    for (size_t i = 0; i < orig->n_kernels; i++) {
        const rpl_ks_kernel *k = &orig->kernels[i], *c = NULL;
        size_t kl = k->definition.end - k->definition.begin;
        if (rpl_kernel_source_find(*cand, k->qualified_name, &c) != 0) {
            rpl_error_clear();
            continue;
        }
        if (kl != c->definition.end - c->definition.begin ||
            memcmp(orig->text + k->definition.begin, (*cand)->text + c->definition.begin, kl)) {
            found = k->qualified_name;
            n++;
        }
    }
    if (n == 1) {
        *out = found;
        return 0;
    }
    return rpl_error_set(RPL_EINPUT,
                         n ? "the candidate changes %zu kernels: name the one to check with "
                             "--kernel"
                           : "the candidate changes no kernel (%zu): name one with --kernel",
                         n);
}

/* --candidate FILE: a source text, read before anything is built or profiled. */
static int read_candidate(optimize_args *a)
{
    int rc = rpl_file_read_all(a->candidate, 16u << 20, &a->candidate_text, &a->candidate_len);

    if (rc) {
        rpl_error_prefix("--candidate");
        return rc == RPL_ENOTFOUND ? RPL_EINPUT : rc;
    }
    if (memchr(a->candidate_text, '\0', a->candidate_len))
        return rpl_error_set(
            RPL_EINPUT, "--candidate '%s' is not a source file (it holds NUL bytes)", a->candidate);
    return 0;
}

/* An outcome, printed; an accepted one offered to the session (committed, or why not). */
static int offer(rpl_session *s, const rpl_pipe_outcome *oc, const char *text, size_t len)
{
    rpl_session_commit c;
    int rc;

    printf("%s  %s  %s: %s\n", oc->id, oc->kernel, rpl_pipe_decision_name(oc->decision),
           oc->message);
    fflush(stdout);
    if (oc->decision != RPL_PIPE_ACCEPTED)
        return 0;
    if ((rc = rpl_session_offer(s, oc, text, len, NULL, &c)) != 0)
        return rc;
    if (c.verdict == RPL_SESSION_DRY_RUN)
        printf("  dry run: not committed (no terminal; pass --auto-approve to commit)\n");
    else if (c.verdict == RPL_SESSION_DECLINED)
        printf("  not committed: declined\n");
    else
        printf("  committed %s on %s: %s\n", c.id.short_hex, c.branch, c.subject);
    fflush(stdout); /* before a later Ctrl-C ends the process */
    rpl_session_commit_release(&c);
    return 0;
}

static int run_candidate_file(optimize_args *a, rpl_pipe *p, rpl_session *s, bool *accepted)
{
    rpl_pipe_candidate c = {.strategy = "hand-written candidate", .origin = RPL_PIPE_ORIGIN_FILE};
    rpl_pipe_outcome *oc = NULL;
    const char *text = a->candidate_text;
    size_t len = a->candidate_len;
    int rc = 0;

    c.text = text;
    c.len = len;
    c.kernel = a->cli.kernel;
    if (!c.kernel)
        rc = changed_kernel(p, text, len, &c.parsed, &c.kernel);
    if (rc == 0 && (rc = rpl_pipe_run(p, &c, &oc)) == 0) {
        *accepted = oc->decision == RPL_PIPE_ACCEPTED;
        rc = offer(s, oc, text, len);
    }
    if (rc == 0)
        rc = rpl_pipe_write_reports(p);
    rpl_kernel_source_free(c.parsed);
    return rc;
}

/* The kernels to try: --kernel, else the ranked ones, else every kernel of the source. */
static size_t kernels_to_try(const optimize_args *a, const rpl_pipe *p, const char **out,
                             size_t max)
{
    const rpl_kernel_source *src = rpl_pipe_original_parsed(p);
    const char *const *ranked = NULL;
    size_t n = rpl_pipe_ranked(p, &ranked, NULL), k = 0;

    if (a->cli.kernel) {
        out[0] = a->cli.kernel;
        return 1;
    }
    for (size_t i = 0; i < n && k < max; i++)
        out[k++] = ranked[i];
    for (size_t i = 0; n == 0 && i < src->n_kernels && k < max; i++)
        if (!src->kernels[i].in_macro)
            out[k++] = src->kernels[i].qualified_name;
    return k;
}

static int run_rules(optimize_args *a, rpl_pipe *p, rpl_session *s)
{
    const char *kernels[100];
    size_t nk = kernels_to_try(a, p, kernels, a->max_kernels);
    int rc = 0;

    if (nk == 0)
        printf("no kernel to optimise: the profile shows none of the source's kernels\n");
    for (size_t i = 0; rc == 0 && i < nk; i++) {
        rpl_unroll_plan *plan = NULL;
        bool kept = false;
        /* A kernel with nothing to unroll is not captured; the wave size needs the capture. */
        if ((rc = rpl_rules_unroll(&plan, rpl_pipe_original_parsed(p), kernels[i], 64)) != 0)
            break;
        if (plan->count) {
            rpl_unroll_plan_free(plan);
            plan = NULL;
            if ((rc = rpl_pipe_prepare(p, kernels[i])) != 0 ||
                (rc = rpl_rules_unroll(&plan, rpl_pipe_original_parsed(p), kernels[i],
                                       rpl_pipe_wave_size(p))) != 0)
                break;
        }
        for (size_t j = 0; j < plan->nskipped; j++)
            printf("%s: %s\n", kernels[i], plan->skipped[j]);
        if (plan->count == 0)
            printf("%s: no loop to unroll\n", kernels[i]);
        /* One accepted change per kernel: later proposals were made against the original. */
        for (size_t j = 0; rc == 0 && !kept && j < plan->count; j++) {
            rpl_pipe_candidate c = {.kernel = kernels[i],
                                    .text = plan->proposals[j].text,
                                    .len = plan->proposals[j].len,
                                    .strategy = plan->proposals[j].strategy,
                                    .origin = RPL_PIPE_ORIGIN_RULE,
                                    .parsed = plan->proposals[j].parsed};
            rpl_pipe_outcome *oc = NULL;
            if ((rc = rpl_pipe_run(p, &c, &oc)) == 0 && (rc = offer(s, oc, c.text, c.len)) == 0)
                rc = rpl_pipe_write_reports(p);
            kept = rc == 0 && oc->decision == RPL_PIPE_ACCEPTED;
        }
        rpl_unroll_plan_free(plan);
    }
    return rc;
}

/* Keep the branches made and push them (--push). */
static int keep_branches(rpl_session *s, const char *remote)
{
    int rc = rpl_session_keep(s);

    for (size_t i = 0; remote && i < rpl_session_branch_count(s); i++) {
        const char *name = rpl_session_branch_name(s, i);
        int r = name ? rpl_session_push(s, name) : 0;
        if (r == 0 && name)
            printf("pushed %s to %s\n", name, remote);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int cmd_optimize(int argc, char **argv)
{
    optimize_args a = {0};
    rpl_pipe_target *t = NULL;
    rpl_pipe *p = NULL;
    rpl_session *s = NULL;
    bool accepted = false;
    int rc = parse(&a, argc, argv);

    if (rc)
        return rc == 1 ? RPL_EXIT_OK : rc;
    if (a.cli.check_args)
        return RPL_EXIT_OK;
    if (a.candidate && (rc = read_candidate(&a)) != 0) {
        free(a.candidate_text);
        return rpl_cli_fail(rc);
    }
    rpl_cleanup_install_signals();
    rpl_session_opts so = {.auto_approve = a.cli.auto_approve, .push = a.cli.push};
    if ((rc = rpl_optimize_cli_target(&t, &a.cli)) == 0 &&
        (rc = rpl_pipe_open(&p, t, &a.cli.pipe)) == 0 && (rc = rpl_session_open(&s, p, &so)) == 0)
        rc = a.candidate ? run_candidate_file(&a, p, s, &accepted) : run_rules(&a, p, s);
    if (rc == 0) {
        rc = keep_branches(s, a.cli.push);
        if (rpl_pipe_write_reports(p) == 0)
            printf("artifacts: %s\n", rpl_pipe_artifacts(p));
    }
    if (rc && p)
        rpl_pipe_write_reports(p);
    rpl_session_free(s);
    rpl_pipe_close(p);
    rpl_pipe_target_free(t);
    free(a.candidate_text);
    rpl_cleanup_exit_if_interrupted();
    if (rc)
        return rpl_cli_fail(rc);
    return a.candidate && !accepted ? RPL_EXIT_FAIL : RPL_EXIT_OK;
}
