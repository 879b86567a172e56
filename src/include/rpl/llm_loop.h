/*
 * The LLM optimization loop (docs/USER_GUIDE.md sections 13.7-13.10): the
 * model proposes, the candidate pipeline (rpl/pipeline.h) decides, and the
 * exact reason of every rejection goes back to the model.
 *
 * Per turn: render the prompt (rpl/llm_prompt.h) -> rpl_llm_complete ->
 * rpl_llm_patch_extract -> splice into the current best source
 * (rpl/kernel_source.h: one definition of the target, nothing outside it
 * may change) -> the pipeline -> feedback text for the next prompt.
 *
 * - A proposal starts a new conversation from user.md, which shows the
 *   current best kernel (not the original), the facts of the target, the
 *   archive of the best correct candidates so far and what became of the
 *   last answer.  --max-iters proposals at most.
 * - A reply that breaks the output contract, does not compile or changes
 *   the signature gets repair.md in the same conversation, up to
 *   --max-repairs times per proposal.  Wrong results, slower and unproven
 *   candidates end the proposal; their feedback opens the next one.
 * - An accepted candidate is committed (the backend: optimization branch),
 *   becomes the current best, and the application is ranked again: when
 *   another kernel of the source became dominant the loop says so and
 *   retargets (not with --kernel); a dominant share below 0.7 is reported.
 * - The token budget, an interrupt, and a model that cannot be reached end
 *   the run cleanly: the reports and the transcript are complete up to the
 *   last turn.
 */
#ifndef RPL_LLM_LOOP_H
#define RPL_LLM_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/llm.h"
#include "rpl/llm_prompt.h"
#include "rpl/pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RPL_LLM_LOOP_DEFAULT_MAX_ITERS   5
#define RPL_LLM_LOOP_DEFAULT_MAX_REPAIRS 2
#define RPL_LLM_LOOP_ARCHIVE_K           3

/* One kernel of the application's critical path, as the backend ranks it. */
typedef struct rpl_path_kernel {
    const char *name; /* as the source defines it */
    double share;     /* of the critical path, 0..1 */
    bool in_source;   /* defined in the source being optimized (editable) */
} rpl_path_kernel;

/* The facts of a kernel for the prompt; NULL fields render as "not available". */
typedef struct rpl_llm_facts {
    char *arch_facts, *geometry, *roofline, *resources, *critical_path, *bottleneck, *att;
} rpl_llm_facts;

void rpl_llm_facts_release(rpl_llm_facts *f);

/*
 * What the loop puts candidates through.  The pipeline adapter
 * (rpl_llm_loop_pipe_backend) is the real one; tests may bring their own.
 * Outcomes belong to the backend and stay valid until it is closed.
 */
typedef struct rpl_llm_loop_backend {
    void *ctx;
    /* The critical-path kernels of the current reference, largest share first (*kernels: free()
       the array; names belong to the backend); *by_gpu_time when the shares are of the GPU's
       busy time instead (no kernel of the source on the critical path). */
    int (*ranking)(void *ctx, rpl_path_kernel **kernels, size_t *n, bool *by_gpu_time);
    /* Facts about `kernel` for the prompt (release with rpl_llm_facts_release). */
    int (*facts)(void *ctx, const char *kernel, rpl_llm_facts *out);
    /* Put a candidate through every check; a rejection is no error. */
    int (*run)(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_outcome **out);
    /* Record a candidate the loop rejected itself (contract, signature) for the reports. */
    int (*reject)(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_decision d, const char *message,
                  rpl_pipe_outcome **out);
    /*
     * An accepted candidate: commit it once approved and make it the reference the next
     * candidates are measured against.  *where (free()) gets "committed <commit> on
     * <branch>" or "not committed: ...".
     */
    int (*accept)(void *ctx, const rpl_pipe_outcome *o, const rpl_pipe_candidate *c, char **where);
    /* Write the reports (JUnit, Markdown, JSON log) as they stand. */
    int (*reports)(void *ctx);
} rpl_llm_loop_backend;

typedef struct rpl_llm_loop_opts {
    const char *source_name; /* shown to the model ("saxpy.hip") */
    const char *source;      /* the original source text */
    size_t source_len;
    const char *kernel;     /* --kernel: pinned target; NULL: the dominant kernel */
    const char *model;      /* for the candidates' records */
    unsigned max_iters;     /* proposals; 0: the default */
    unsigned max_repairs;   /* repair turns per proposal; 0 is allowed (see has_max_repairs) */
    bool has_max_repairs;   /* false: the default */
    int64_t budget_tokens;  /* <= 0: none */
    const char *transcript; /* the transcript's path (JSON Lines) */
    const rpl_prompt_set *prompts;
    const struct rpl_ks_options *parse; /* how to parse the source (libclang), or NULL */
    /* Told of every outcome as it comes (for a progress line); NULL: nothing. */
    void (*on_outcome)(void *ctx, int turn, const rpl_pipe_outcome *o);
    void *on_outcome_ctx;
} rpl_llm_loop_opts;

/* Why the run ended. */
typedef enum rpl_llm_loop_stop {
    RPL_LLM_LOOP_DONE = 0,    /* --max-iters proposals made */
    RPL_LLM_LOOP_BUDGET,      /* --budget-tokens spent */
    RPL_LLM_LOOP_LLM_FAILED,  /* the model could not be used (auth, quota, unreachable...) */
    RPL_LLM_LOOP_INTERRUPTED, /* SIGINT / SIGTERM */
    RPL_LLM_LOOP_NO_TARGET    /* no kernel of the source to work on */
} rpl_llm_loop_stop;

/* "done", "budget", "llm-failed", "interrupted", "no-target". */
const char *rpl_llm_loop_stop_name(rpl_llm_loop_stop stop);

typedef struct rpl_llm_loop_result {
    rpl_llm_loop_stop stop;
    char *stop_message;  /* one line (the budget message, the LLM error), or NULL */
    unsigned turns;      /* requests to the model */
    unsigned candidates; /* outcomes recorded */
    unsigned accepted;
    int64_t tokens;    /* input + output over the run */
    char *best_source; /* the current best source at the end (== the original when none) */
    size_t best_len;
    char *target;       /* the kernel worked on last */
    unsigned retargets; /* dominance shifts that changed the target */
} rpl_llm_loop_result;

void rpl_llm_loop_result_release(rpl_llm_loop_result *r);

/*
 * Run the loop.  0 whenever the run ended in an orderly way (every stop
 * reason; r->stop says which); an error only for what stops the program
 * itself (out of memory, a transcript that cannot be written, a backend
 * error: the pipeline's environment).  For RPL_LLM_LOOP_LLM_FAILED the
 * client's status is returned as well (RPL_EENV for auth and quota,
 * RPL_EUSAGE for a rejected request, RPL_EIO/RPL_ETIMEOUT for an
 * unreachable model) with r filled in.
 */
int rpl_llm_loop_run(rpl_llm_client *client, const rpl_llm_loop_backend *backend,
                     const rpl_llm_loop_opts *opts, rpl_llm_loop_result *r);

/* ---- the pipeline as the backend ---------------------------------------- */

struct rpl_session;
struct rpl_llm_analysis;
struct rpl_llm_kernel_note;

typedef struct rpl_llm_pipe_ctx {
    rpl_pipe *pipe;
    struct rpl_session *session; /* accepted candidates are offered here (rpl/session.h) */
    /* --analysis DIR (rpl/llm_analysis.h): roofline, bottleneck and ATT facts; NULL: none */
    const struct rpl_llm_analysis *analysis;
    const char *analysis_dir;          /* named in the note about a kernel it lacks */
    struct rpl_llm_analysis *counters; /* internal: the pipeline's counter pass, as read */
    char *counters_dir;
    struct rpl_llm_kernel_note *notes; /* internal: accepted changes per kernel, notes given */
    size_t nnotes;
} rpl_llm_pipe_ctx;

/* Free what the backend kept in `ctx` (not the pipe or the session). */
void rpl_llm_pipe_ctx_release(rpl_llm_pipe_ctx *ctx);

/*
 * Fill `be` with the pipeline: ranking (rpl_pipe_ranked), the facts it has
 * (critical-path shares; the architecture and the launch geometry from the
 * kernel's snapshot, captured for it; the reference's registers, LDS,
 * scratch, spills and occupancy once a candidate went through the static
 * step; with `analysis`, the roofline, bottleneck and ATT of the kernel as
 * it was analysed, said once per kernel when the analysis lacks it),
 * rpl_pipe_run, rpl_pipe_record for the
 * loop's own rejections, and for an accepted candidate rpl_session_offer
 * (approval, commit, note, rebase); the reports with
 * rpl_pipe_write_reports.  `ctx` must outlive the run.
 */
void rpl_llm_loop_pipe_backend(rpl_llm_loop_backend *be, rpl_llm_pipe_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
