/*
 * The LLM loop (rpl/llm_loop.h): proposals and repairs, the splice of each
 * reply into the current best source, the backend's verdict, feedback,
 * the archive, acceptance and dominance-aware retargeting.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_int.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/kernel_source.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

#define NOT_AVAILABLE "Not available."

/* A formatted string (*out, free()). */
static int loop_printf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int loop_printf(char **out, const char *fmt, ...)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    va_list ap;
    int n;

    *out = NULL;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || rpl_strbuf_grow(&sb, (size_t)n) != 0)
        return rpl_error_oom();
    va_start(ap, fmt);
    vsnprintf(sb.ptr, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb.len = (size_t)n;
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

const char *rpl_llm_loop_stop_name(rpl_llm_loop_stop stop)
{
    static const char *const names[] = {"done", "budget", "llm-failed", "interrupted", "no-target"};
    return (unsigned)stop < sizeof(names) / sizeof(names[0]) ? names[stop] : "?";
}

void rpl_llm_facts_release(rpl_llm_facts *f)
{
    RPL_FREE_EACH(f->arch_facts, f->geometry, f->roofline, f->resources, f->critical_path,
                  f->bottleneck, f->att);
    memset(f, 0, sizeof(*f));
}

void rpl_llm_loop_result_release(rpl_llm_loop_result *r)
{
    free(r->stop_message);
    free(r->best_source);
    free(r->target);
    memset(r, 0, sizeof(*r));
}

/* The conversation of one proposal: user, assistant, user ... */
typedef struct convo {
    rpl_llm_message *msgs;
    char **owned;
    size_t n, cap;
} convo;

static int convo_add(convo *c, rpl_llm_role role, char *text /* taken */)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        rpl_llm_message *m = realloc(c->msgs, cap * sizeof(*m));
        char **o;
        if (m)
            c->msgs = m;
        o = m ? realloc(c->owned, cap * sizeof(*o)) : NULL;
        if (!o) {
            free(text);
            return rpl_error_oom();
        }
        c->owned = o;
        c->cap = cap;
    }
    c->msgs[c->n].role = role;
    c->msgs[c->n].content = text;
    c->owned[c->n++] = text;
    return 0;
}

static void convo_reset(convo *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->owned[i]);
    c->n = 0;
}

static void convo_release(convo *c)
{
    convo_reset(c);
    free(c->msgs);
    free(c->owned);
    memset(c, 0, sizeof(*c));
}

/* Everything the loop carries from turn to turn. */
typedef struct loop_state {
    rpl_llm_client *client;
    const rpl_llm_loop_backend *be;
    const rpl_llm_loop_opts *opts;
    rpl_llm_loop_result *r;
    rpl_llm_transcript *transcript;
    unsigned max_iters, max_repairs;

    rpl_kernel_source *best; /* the current best source, parsed */
    const rpl_ks_kernel *kernel;
    char *target;    /* the kernel's name as the loop asks for it */
    char *signature; /* the kernel's header as written */
    char *system;    /* the rendered system prompt (per target) */
    char *contract;
    rpl_llm_facts facts;
    rpl_archive archive;
    char *feedback; /* for the next prompt */
    convo convo;
    int turn;
} loop_state;

static const char *display_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

static const char *or_na(const char *s)
{
    return s && s[0] ? s : NOT_AVAILABLE;
}

/* The kernel's header as written: from its definition's start to the body's '{'. */
static int kernel_header(char **out, const rpl_kernel_source *src, const rpl_ks_kernel *k)
{
    size_t b = k->definition.begin, e = k->body.begin;

    while (e > b && strchr(" \t\r\n", src->text[e - 1]))
        e--;
    if (!(*out = strndup(src->text + b, e - b)))
        return rpl_error_oom();
    return 0;
}

/*
 * Find `name` in the parsed source: as given, else without a parameter list
 * or template arguments (profiles show "scale(float*, int)" or "gemm<64>").
 */
static int find_kernel(const rpl_kernel_source *src, const char *name, const rpl_ks_kernel **k)
{
    char *plain;
    size_t cut;
    int rc = rpl_kernel_source_find(src, name, k);

    if (rc != RPL_ENOTFOUND)
        return rc;
    cut = strcspn(name, "(<");
    if (name[cut] == '\0')
        return rc;
    if (!(plain = strndup(name, cut)))
        return rpl_error_oom();
    rc = rpl_kernel_source_find(src, plain, k);
    free(plain);
    return rc;
}

static int render(loop_state *st, rpl_prompt_kind kind, char **out, unsigned iteration,
                  unsigned repair)
{
    char it[16], max_it[16], rep[16], max_rep[16];
    char *kernel_text, *archive = NULL;
    const rpl_ks_kernel *k = st->kernel;
    int rc;

    snprintf(it, sizeof(it), "%u", iteration);
    snprintf(max_it, sizeof(max_it), "%u", st->max_iters);
    snprintf(rep, sizeof(rep), "%u", repair);
    snprintf(max_rep, sizeof(max_rep), "%u", st->max_repairs);
    if (!(kernel_text = strndup(st->best->text + k->definition.begin,
                                k->definition.end - k->definition.begin)))
        return rpl_error_oom();
    if ((rc = rpl_archive_format(&archive, &st->archive)) == 0) {
        const rpl_prompt_var vars[] = {
            {"kernel_name", st->target},
            {"source_file", display_name(st->opts->source_name)},
            {"signature", st->signature},
            {"iteration", it},
            {"max_iterations", max_it},
            {"repair", rep},
            {"max_repairs", max_rep},
            {"arch_facts", or_na(st->facts.arch_facts)},
            {"geometry", or_na(st->facts.geometry)},
            {"roofline", or_na(st->facts.roofline)},
            {"resources", or_na(st->facts.resources)},
            {"critical_path", or_na(st->facts.critical_path)},
            {"bottleneck", or_na(st->facts.bottleneck)},
            {"att", or_na(st->facts.att)},
            {"archive", archive},
            {"feedback", st->feedback ? st->feedback : "This is the first proposal."},
            {"kernel", kernel_text},
            {"contract", st->contract ? st->contract : ""},
        };
        size_t n = sizeof(vars) / sizeof(vars[0]);
        if (kind == RPL_PROMPT_CONTRACT)
            n--; /* the contract does not contain itself */
        rc = rpl_prompt_render(out, st->opts->prompts->path[kind], st->opts->prompts->text[kind],
                               vars, n);
    }
    free(archive);
    free(kernel_text);
    return rc;
}

/* The backend's facts about the target, again: they grow as candidates are checked. */
static int refresh_facts(loop_state *st)
{
    rpl_llm_facts_release(&st->facts);
    return st->be->facts ? st->be->facts(st->be->ctx, st->target, &st->facts) : 0;
}

/* Make `name` the target: find it, its header, the facts and the fixed prompts. */
static int set_target(loop_state *st, const char *name)
{
    int rc;

    if ((rc = find_kernel(st->best, name, &st->kernel)) != 0)
        return rc;
    RPL_FREE_EACH(st->target, st->signature, st->system, st->contract);
    st->system = st->contract = st->signature = NULL;
    if (!(st->target = strdup(st->kernel->name)))
        return rpl_error_oom();
    if ((rc = kernel_header(&st->signature, st->best, st->kernel)) != 0)
        return rc;
    if ((rc = refresh_facts(st)) != 0)
        return rc;
    if ((rc = render(st, RPL_PROMPT_CONTRACT, &st->contract, 0, 0)) != 0)
        return rc;
    return render(st, RPL_PROMPT_SYSTEM, &st->system, 0, 0);
}

static int parse_best(loop_state *st, const char *text, size_t len)
{
    rpl_kernel_source *src;
    int rc =
        rpl_kernel_source_parse_buffer(&src, st->opts->source_name, text, len, st->opts->parse);

    if (rc != 0)
        return rc;
    rpl_kernel_source_free(st->best);
    st->best = src;
    st->kernel = NULL;
    return 0;
}

/*
 * The ranking's name for the source's kernel `name`: the pipeline ranks the
 * instantiations a program launches ("reduce1<int>" for the template
 * "reduce1"), the loop knows the kernel by its name in the source.  `name`
 * itself when the ranking holds it as it is, or holds no name of that kernel.
 */
static const char *as_ranked(const loop_state *st, const char *name, const rpl_path_kernel *ranked,
                             size_t n)
{
    const rpl_ks_kernel *want = NULL, *k = NULL;

    if (!name)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(ranked[i].name, name) == 0)
            return name;
    if (find_kernel(st->best, name, &want) == 0)
        for (size_t i = 0; i < n; i++)
            if (find_kernel(st->best, ranked[i].name, &k) == 0 && k == want)
                return ranked[i].name;
    rpl_error_clear();
    return name;
}

/* The next target from the backend's ranking; says when dominance shifted. */
static int retarget(loop_state *st)
{
    rpl_path_kernel *ranked = NULL;
    size_t n = 0;
    bool by_gpu_time = false;
    rpl_retarget choice;
    const char *name, *current;
    int rc;

    if (st->be->ranking && (rc = st->be->ranking(st->be->ctx, &ranked, &n, &by_gpu_time)) != 0)
        return rc;
    if (n == 0) {
        free(ranked);
        name = st->opts->kernel ? st->opts->kernel : st->target;
        if (!name) {
            if (st->best->n_kernels != 1)
                return rpl_error_set(RPL_ENOTFOUND,
                                     "no profile ranks the kernels of %s and it defines %zu: "
                                     "name one with --kernel",
                                     display_name(st->opts->source_name), st->best->n_kernels);
            name = st->best->kernels[0].name;
        }
        return set_target(st, name);
    }
    current = as_ranked(st, st->target ? st->target : st->opts->kernel, ranked, n);
    rc = rpl_retarget_choose(&choice, ranked, n, current, st->opts->kernel != NULL, by_gpu_time);
    if (rc == 0) {
        if (choice.message)
            rpl_log_warn("%s", choice.message);
        if (st->target && strcmp(choice.target, current) != 0)
            st->r->retargets++;
        rc = set_target(st, choice.target);
    }
    rpl_retarget_release(&choice);
    free(ranked);
    return rc;
}

/* The source with [begin, end) replaced by `text`, unchecked: the compiler judges it. */
static int raw_replace(char **out, size_t *out_len, const rpl_kernel_source *src, size_t begin,
                       size_t end, const char *text, size_t len)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    if (rpl_strbuf_put(&sb, src->text, begin) != 0 || rpl_strbuf_put(&sb, text, len) != 0 ||
        rpl_strbuf_put(&sb, src->text + end, src->len - end) != 0) {
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    *out_len = sb.len;
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

/*
 * The candidate source of a reply: *text set (and *parsed, its parse, when the splice
 * checked it), or *decision and *why set for a reply rejected here.
 */
static int make_candidate(loop_state *st, const char *reply, char **text, size_t *len,
                          rpl_kernel_source **parsed, rpl_pipe_decision *decision, char **why)
{
    rpl_llm_patch *patch = NULL;
    rpl_kernel_source *spliced = NULL;
    rpl_ks_splice_verdict verdict;
    char *region = NULL;
    size_t region_len = 0;
    const rpl_ks_kernel *k = st->kernel;
    int rc;

    *text = *why = NULL;
    *parsed = NULL;
    *decision = RPL_PIPE_ACCEPTED;
    rc = rpl_llm_patch_extract(&patch, reply, strlen(reply), st->target);
    if (rc == RPL_EINPUT || (rc == 0 && patch->kind == RPL_LLM_PATCH_NONE)) {
        *decision = RPL_PIPE_REJECT_PATCH;
        *why = strdup(rc == 0 && patch->notes ? patch->notes : rpl_error_last()->message);
        rpl_llm_patch_free(patch);
        return *why ? 0 : rpl_error_oom();
    }
    if (rc != 0)
        return rc;

    if (patch->kind == RPL_LLM_PATCH_SEARCH_REPLACE) {
        rpl_search_replace *blocks = calloc(patch->n_edits, sizeof(*blocks));
        if (!blocks) {
            rpl_llm_patch_free(patch);
            return rpl_error_oom();
        }
        for (size_t i = 0; i < patch->n_edits; i++) {
            blocks[i].search = patch->edits[i].search;
            blocks[i].search_len = strlen(patch->edits[i].search);
            blocks[i].replace = patch->edits[i].replace;
            blocks[i].replace_len = strlen(patch->edits[i].replace);
        }
        rc = rpl_search_replace_apply(&region, &region_len, st->best->text, st->best->len,
                                      k->definition.begin, k->definition.end, blocks,
                                      patch->n_edits);
        free(blocks);
    } else {
        region_len = strlen(patch->code);
        if (!(region = strndup(patch->code, region_len)))
            rc = rpl_error_oom();
    }
    rpl_llm_patch_free(patch);
    if (rc == RPL_EINPUT) {
        *decision = RPL_PIPE_REJECT_PATCH;
        return (*why = strdup(rpl_error_last()->message)) ? 0 : rpl_error_oom();
    }
    if (rc != 0)
        return rc;

    rc = rpl_kernel_source_splice(&spliced, &verdict, st->best, k, region, region_len);
    if (rc == 0) {
        *len = spliced->len;
        if (!(*text = strndup(spliced->text, spliced->len)))
            rc = rpl_error_oom();
        *parsed = spliced;
        spliced = NULL;
    } else if (rc == RPL_EINPUT) {
        const char *msg = rpl_error_last()->message;
        /* Failed on the C++ itself: the compiler then gives the errors. */
        if (verdict == RPL_KS_SPLICE_PARSE || verdict == RPL_KS_SPLICE_CONTEXT) {
            rpl_log_info("turn %d: %s; the compiler decides", st->turn, msg);
            rc = raw_replace(text, len, st->best, k->definition.begin, k->definition.end, region,
                             region_len);
        } else {
            *decision = verdict == RPL_KS_SPLICE_SIGNATURE ? RPL_PIPE_REJECT_SIGNATURE
                                                           : RPL_PIPE_REJECT_PATCH;
            if (!(*why = strdup(msg)))
                rc = rpl_error_oom();
            else /* what the reply would have made of the file, for the artifacts */
                rc = raw_replace(text, len, st->best, k->definition.begin, k->definition.end,
                                 region, region_len);
        }
    }
    rpl_kernel_source_free(spliced);
    free(region);
    return rc;
}

/* Stop the run for an LLM turn that ends it; returns the client's status. */
static int llm_failed(loop_state *st, const rpl_llm_turn *turn, int status)
{
    st->r->stop =
        turn->outcome == RPL_LLM_INTERRUPTED ? RPL_LLM_LOOP_INTERRUPTED : RPL_LLM_LOOP_LLM_FAILED;
    st->r->stop_message = strdup(turn->error ? turn->error : rpl_llm_outcome_name(turn->outcome));
    return st->r->stop == RPL_LLM_LOOP_INTERRUPTED ? 0 : status;
}

static int note_outcome(loop_state *st, const rpl_pipe_outcome *o, const char *strategy)
{
    int rc = 0;

    st->r->candidates++;
    if (st->opts->on_outcome)
        st->opts->on_outcome(st->opts->on_outcome_ctx, st->turn, o);
    rpl_log_info("turn %d (%s): %s%s%s", st->turn, st->target,
                 rpl_loop_decision_name((int)o->decision), o->message ? ": " : "",
                 o->message ? o->message : "");
    if (o->decision == RPL_PIPE_ACCEPTED || o->decision == RPL_PIPE_REJECT_SLOWER ||
        o->decision == RPL_PIPE_REJECT_NOT_SIGNIFICANT) {
        rpl_archive_entry e = {st->turn,         st->target,
                               (char *)strategy, (char *)rpl_loop_decision_name((int)o->decision),
                               o->speedup,       o->speedup_lo,
                               o->speedup_hi,    NULL};
        rc = rpl_archive_add(&st->archive, &e);
    }
    free(st->feedback);
    st->feedback = NULL;
    if (rc == 0)
        rc = rpl_loop_feedback(&st->feedback, o, st->turn);
    if (rc == 0 && st->be->reports)
        rc = st->be->reports(st->be->ctx);
    return rc;
}

/*
 * The counter figures the backend measured of an accepted candidate as the new reference
 * (metrics counter_hbm_bytes, counter_flops, roofline_ns), beside the old reference's, into
 * its archive entry.
 */
static int archive_counters(loop_state *st, const rpl_pipe_outcome *o)
{
    static const char *const names[] = {"counter_hbm_bytes", "counter_flops", "roofline_ns"};
    static const char *const labels[] = {"HBM bytes", "FLOPs", "roofline time ns"};
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    for (size_t n = 0; rc == 0 && n < sizeof(names) / sizeof(names[0]); n++)
        for (size_t i = 0; rc == 0 && i < o->nmetrics; i++)
            if (strcmp(o->metrics[i].name, names[n]) == 0)
                rc = rpl_strbuf_printf(&sb, "%s%s %.4g -> %.4g",
                                       sb.len ? ", " : "counters: ", labels[n],
                                       o->metrics[i].original, o->metrics[i].candidate);
    if (rc == 0 && sb.len)
        rc = rpl_archive_set_facts(&st->archive, st->turn, sb.ptr);
    rpl_strbuf_release(&sb);
    return rc;
}

/* An accepted candidate: commit (or not), make it the best, rank again. */
static int accept(loop_state *st, const rpl_pipe_outcome *o, const rpl_pipe_candidate *c)
{
    char *where = NULL;
    int rc;

    if ((rc = st->be->accept(st->be->ctx, o, c, &where)) != 0)
        return rc;
    rpl_log_warn("turn %d: %s accepted, speedup %.3fx: %s", st->turn, st->target, o->speedup,
                 where ? where : "");
    free(where);
    if ((rc = archive_counters(st, o)) != 0)
        return rc;
    st->r->accepted++;
    if (c->parsed) { /* the splice's parse is the new best's */
        rpl_kernel_source_free(st->best);
        st->best = rpl_kernel_source_ref(c->parsed);
        st->kernel = NULL;
    } else if ((rc = parse_best(st, c->text, c->len)) != 0) {
        return rc;
    }
    return retarget(st);
}

/* One turn: ask, make the candidate, get the verdict.  *again: a repair turn follows. */
static int one_turn(loop_state *st, unsigned iteration, unsigned repair, bool *again)
{
    rpl_llm_request req = {st->system, st->convo.msgs, st->convo.n};
    rpl_llm_turn turn;
    rpl_pipe_outcome *o = NULL;
    rpl_pipe_decision decision;
    rpl_kernel_source *parsed = NULL;
    char *text = NULL, *why = NULL, *strategy = NULL, *label = NULL, *reply;
    size_t len = 0;
    int rc, status;

    *again = false;
    st->turn++;
    st->r->turns++;
    rpl_log_info("turn %d: proposal %u%s for %s", st->turn, iteration, repair ? " (repair)" : "",
                 st->target);
    status = rpl_llm_complete(st->client, &req, &turn);
    st->r->tokens += rpl_llm_turn_tokens(&turn);
    if (rpl_llm_outcome_ends_run(turn.outcome)) {
        rc = rpl_llm_transcript_append(st->transcript, st->turn, &req, &turn, "the run ends");
        if (rc == 0)
            rc = llm_failed(st, &turn, status);
        rpl_llm_turn_release(&turn);
        return rc;
    }
    if (turn.outcome != RPL_LLM_OK) {
        /* Truncated or unreadable: no candidate; the model is told and tries again. */
        free(st->feedback);
        st->feedback = NULL;
        rc =
            loop_printf(&st->feedback,
                        "Turn %d: your reply could not be used (%s): %s. Answer "
                        "again, shorter: only the strategy line and the kernel.\n",
                        st->turn, rpl_llm_outcome_name(turn.outcome), turn.error ? turn.error : "");
        if (rc == 0)
            rc = rpl_llm_transcript_append(st->transcript, st->turn, &req, &turn,
                                           rpl_llm_outcome_name(turn.outcome));
        *again = true;
        rpl_llm_turn_release(&turn);
        return rc;
    }

    reply = turn.text;
    if ((rc = rpl_reply_strategy(&strategy, reply)) == 0)
        rc = make_candidate(st, reply, &text, &len, &parsed, &decision, &why);
    if (rc == 0)
        rc = loop_printf(&label, "LLM: %s", strategy[0] ? strategy : "unnamed");
    if (rc == 0) {
        /* A reply rejected here: the file it would make, or the reply as it came. */
        rpl_pipe_candidate c = {
            st->target,          text ? text : reply, text ? len : strlen(reply), label,
            RPL_PIPE_ORIGIN_LLM, st->opts->model,     (unsigned)st->turn,         parsed};
        if (!why)
            rc = st->be->run(st->be->ctx, &c, &o);
        else
            rc = st->be->reject(st->be->ctx, &c, decision, why, &o);
        if (rc == 0)
            rc = note_outcome(st, o, strategy);
        if (rc == 0)
            rc = rpl_llm_transcript_append(st->transcript, st->turn, &req, &turn,
                                           rpl_loop_decision_name((int)o->decision));
        if (rc == 0 && o->decision == RPL_PIPE_ACCEPTED)
            rc = accept(st, o, &c);
        if (rc == 0 && rpl_loop_decision_repairable((int)o->decision)) {
            *again = true;
            /* The reply stays in the conversation for the repair turn. */
            rc = convo_add(&st->convo, RPL_LLM_ASSISTANT, turn.text);
            turn.text = NULL;
        }
    }
    rpl_kernel_source_free(parsed);
    RPL_FREE_EACH(text, why, strategy, label);
    rpl_llm_turn_release(&turn);
    return rc;
}

static bool budget_spent(loop_state *st)
{
    if (rpl_llm_budget_check(st->r->tokens, st->opts->budget_tokens) == 0)
        return false;
    st->r->stop = RPL_LLM_LOOP_BUDGET;
    st->r->stop_message = strdup(rpl_error_last()->message);
    return true;
}

static bool interrupted(loop_state *st)
{
    if (!rpl_interrupted())
        return false;
    st->r->stop = RPL_LLM_LOOP_INTERRUPTED;
    return true;
}

static int run(loop_state *st)
{
    int rc;

    for (unsigned it = 1; it <= st->max_iters; it++) {
        bool again = true;
        char *prompt;
        convo_reset(&st->convo);
        if (budget_spent(st) || interrupted(st))
            return 0;
        if ((it > 1 && (rc = refresh_facts(st)) != 0) ||
            (rc = render(st, RPL_PROMPT_USER, &prompt, it, 0)) != 0 ||
            (rc = convo_add(&st->convo, RPL_LLM_USER, prompt)) != 0 ||
            (rc = one_turn(st, it, 0, &again)) != 0 || st->r->stop != RPL_LLM_LOOP_DONE)
            return rc;
        for (unsigned rep = 1; again && rep <= st->max_repairs; rep++) {
            if (budget_spent(st) || interrupted(st))
                return 0;
            if (st->convo.n % 2 == 1) /* no reply to keep (truncated): drop the question */
                convo_reset(&st->convo);
            if (st->convo.n == 0) {
                if ((rc = render(st, RPL_PROMPT_USER, &prompt, it, 0)) != 0 ||
                    (rc = convo_add(&st->convo, RPL_LLM_USER, prompt)) != 0)
                    return rc;
            } else if ((rc = render(st, RPL_PROMPT_REPAIR, &prompt, it, rep)) != 0 ||
                       (rc = convo_add(&st->convo, RPL_LLM_USER, prompt)) != 0) {
                return rc;
            }
            if ((rc = one_turn(st, it, rep, &again)) != 0 || st->r->stop != RPL_LLM_LOOP_DONE)
                return rc;
        }
    }
    return 0;
}

int rpl_llm_loop_run(rpl_llm_client *client, const rpl_llm_loop_backend *backend,
                     const rpl_llm_loop_opts *opts, rpl_llm_loop_result *r)
{
    loop_state st;
    int rc;

    memset(r, 0, sizeof(*r));
    memset(&st, 0, sizeof(st));
    if (!client || !backend || !backend->run || !backend->reject || !backend->accept || !opts ||
        !opts->prompts || !opts->source || !opts->transcript)
        return rpl_error_set(RPL_EUSAGE, "the LLM loop needs a client, a backend, a source, "
                                         "prompts and a transcript path");
    st.client = client;
    st.be = backend;
    st.opts = opts;
    st.r = r;
    st.max_iters = opts->max_iters ? opts->max_iters : RPL_LLM_LOOP_DEFAULT_MAX_ITERS;
    st.max_repairs = opts->has_max_repairs ? opts->max_repairs : RPL_LLM_LOOP_DEFAULT_MAX_REPAIRS;

    if ((rc = rpl_archive_init(&st.archive, RPL_LLM_LOOP_ARCHIVE_K)) == 0 &&
        (rc = rpl_llm_transcript_open(&st.transcript, opts->transcript, client)) == 0 &&
        (rc = parse_best(&st, opts->source, opts->source_len)) == 0) {
        rc = retarget(&st);
        if (rc == RPL_ENOTFOUND) {
            r->stop = RPL_LLM_LOOP_NO_TARGET;
            r->stop_message = strdup(rpl_error_last()->message);
        } else if (rc == 0) {
            rpl_log_info("optimizing %s of %s", st.target, display_name(opts->source_name));
            rc = run(&st);
        }
    }
    if (rc == 0 && st.be->reports)
        rc = st.be->reports(st.be->ctx);
    if (st.best) {
        r->best_len = st.best->len;
        r->best_source = strndup(st.best->text, st.best->len);
    }
    if (st.target)
        r->target = strdup(st.target);

    convo_release(&st.convo);
    rpl_llm_transcript_free(st.transcript);
    rpl_archive_release(&st.archive);
    rpl_llm_facts_release(&st.facts);
    rpl_kernel_source_free(st.best);
    RPL_FREE_EACH(st.target, st.signature, st.system, st.contract, st.feedback);
    return rc;
}
