/*
 * Feedback for the model: what became of its last answer, from the exact
 * failure (compiler errors, the signature difference, the first differing
 * output, the static numbers, the measured times with their CI), in the
 * words of the pipeline's evidence.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/strbuf.h"

/* The compiler output shown: enough for the first errors, not a whole log. */
#define BUILD_LOG_MAX_LINES 40
#define BUILD_LOG_MAX_BYTES 4000

static const char *const decision_names[] = {
    "accepted",         "build",  "signature",       "static", "wrong-result",
    "nondeterministic", "slower", "not-significant", "patch",  "impossible"};
static const char *const step_names[] = {"build", "signature", "static", "replay",
                                         "test",  "measure",   "app"};

const char *rpl_loop_decision_name(int d)
{
    return d >= 0 && (size_t)d < sizeof(decision_names) / sizeof(decision_names[0])
               ? decision_names[d]
               : "?";
}

bool rpl_loop_decision_repairable(int d)
{
    return d == RPL_PIPE_REJECT_BUILD || d == RPL_PIPE_REJECT_SIGNATURE ||
           d == RPL_PIPE_REJECT_PATCH;
}

/* The first lines of the build log: the compiler's first errors. */
static int put_build_log(rpl_strbuf *sb, const char *path)
{
    char *log = NULL;
    size_t len = 0, shown = 0;
    unsigned lines = 0;
    int rc;

    if (!path || rpl_file_read_all(path, 16u << 20, &log, &len) != 0) {
        rpl_error_clear();
        return 0;
    }
    while (shown < len && lines < BUILD_LOG_MAX_LINES && shown < BUILD_LOG_MAX_BYTES) {
        const char *nl = memchr(log + shown, '\n', len - shown);
        shown = nl ? (size_t)(nl - log) + 1 : len;
        lines++;
    }
    rc = rpl_strbuf_puts(sb, "Compiler output:\n```\n");
    if (rc == 0)
        rc = rpl_strbuf_put(sb, log, shown);
    if (rc == 0 && shown > 0 && log[shown - 1] != '\n')
        rc = rpl_strbuf_putc(sb, '\n');
    if (rc == 0 && shown < len)
        rc = rpl_strbuf_printf(sb, "[... %zu more bytes]\n", len - shown);
    if (rc == 0)
        rc = rpl_strbuf_puts(sb, "```\n");
    free(log);
    return rc;
}

static const char *headline(int d)
{
    switch (d) {
    case RPL_PIPE_ACCEPTED:
        return "It was accepted: it is the current best version shown below.";
    case RPL_PIPE_REJECT_BUILD:
        return "It does not compile.";
    case RPL_PIPE_REJECT_SIGNATURE:
        return "It changes the kernel's signature, which must stay exactly as it is.";
    case RPL_PIPE_REJECT_STATIC:
        return "It compiles, but uses more registers, LDS or scratch, spills, or lowers "
               "occupancy.";
    case RPL_PIPE_REJECT_WRONG_RESULT:
        return "It computes wrong results (or writes memory the original does not write).";
    case RPL_PIPE_REJECT_NONDETERMINISTIC:
        return "Two runs of it on the same inputs gave different results.";
    case RPL_PIPE_REJECT_SLOWER:
        return "It is correct but slower than the current best.";
    case RPL_PIPE_REJECT_NOT_SIGNIFICANT:
        return "It is correct but not measurably faster than the current best.";
    case RPL_PIPE_REJECT_PATCH:
        return "It breaks the output contract.";
    case RPL_PIPE_REJECT_IMPOSSIBLE:
        return "It was timed faster than the hardware can move its data: it skips work in the "
               "timed launches that the checks did not see. Do every launch's whole work.";
    default:
        return "It was rejected.";
    }
}

int rpl_loop_feedback(char **out, const rpl_pipe_outcome *o, int turn)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    *out = NULL;
    rc = rpl_strbuf_printf(&sb, "Turn %d, verdict `%s`: %s\n", turn,
                           rpl_loop_decision_name((int)o->decision), headline((int)o->decision));
    if (rc == 0 && o->message && o->message[0])
        rc = rpl_strbuf_printf(&sb, "Reason: %s\n", o->message);
    for (int s = 0; rc == 0 && s < RPL_PIPE_STEPS; s++) {
        const rpl_pipe_step_result *st = &o->steps[s];
        if (!st->ran || !st->evidence || !st->evidence[0])
            continue;
        rc = rpl_strbuf_printf(&sb, "- %s: %s: %s\n", step_names[s],
                               st->passed ? "passed" : "FAILED", st->evidence);
    }
    if (rc == 0 && !isnan(o->speedup)) {
        rc = rpl_strbuf_printf(&sb, "Measured speedup over the current best: %.3fx", o->speedup);
        if (rc == 0 && !isnan(o->speedup_lo) && !isnan(o->speedup_hi))
            rc = rpl_strbuf_printf(&sb, " (95%% CI %.3f-%.3f)", o->speedup_lo, o->speedup_hi);
        if (rc == 0 && !isnan(o->median_orig_ns) && !isnan(o->median_cand_ns))
            rc = rpl_strbuf_printf(&sb, "; median %.0f ns before, %.0f ns with it",
                                   o->median_orig_ns, o->median_cand_ns);
        if (rc == 0)
            rc = rpl_strbuf_puts(&sb, ".\n");
    }
    if (rc == 0 && o->decision == RPL_PIPE_REJECT_BUILD)
        rc = put_build_log(&sb, o->build_log_path);
    if (rc != 0) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}
