/* Internals of the LLM loop (src/optimize/loop), shared with its unit tests. */
#ifndef RPL_LOOP_INT_H
#define RPL_LOOP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "rpl/llm_loop.h"

/* ---- the archive of correct candidates --------------------------------- */

typedef struct rpl_archive_entry {
    int turn;       /* the turn that produced it */
    char *kernel;   /* the target it was written for */
    char *strategy; /* the model's one-line strategy, or "" */
    char *verdict;  /* "accepted", "slower", "not-significant" ... */
    double speedup; /* against the best at the time; NAN when not measured */
    double ci_lo, ci_hi;
    char *facts; /* an accepted one's counter figures, before -> after, or NULL */
} rpl_archive_entry;

/* The top-k correct candidates, best speedup first (ties: earlier turn first). */
typedef struct rpl_archive {
    rpl_archive_entry *items;
    size_t count, cap; /* cap is k */
} rpl_archive;

int rpl_archive_init(rpl_archive *a, size_t k);
/* Insert a copy; the worst entry falls out when more than k are held. */
int rpl_archive_add(rpl_archive *a, const rpl_archive_entry *e);
void rpl_archive_release(rpl_archive *a);
/* The counter figures of turn `turn`'s entry (accepted: measured when it became the
   reference), shown beside the reference's; nothing when the entry fell out. */
int rpl_archive_set_facts(rpl_archive *a, int turn, const char *facts);
/* The {{archive}} text: one line per entry, or a sentence when empty (*out, free()). */
int rpl_archive_format(char **out, const rpl_archive *a);

/* ---- the model's strategy line ------------------------------------------ */

/*
 * The strategy the model named: the first non-blank line of the reply
 * outside code blocks and think sections, markdown markers trimmed, at most
 * 120 bytes (cut at a UTF-8 boundary), one line.  "" when there is none
 * (*out, free()).
 */
int rpl_reply_strategy(char **out, const char *reply);

/* ---- dominance ----------------------------------------------------------- */

#define RPL_DOMINANCE_LOW_FRACTION 0.7 /* seed 003 section 7 */

typedef struct rpl_retarget {
    const char *target; /* the kernel to work on next (one of the input names), or NULL */
    bool shifted;       /* the dominant kernel is no longer the current target */
    bool low_fraction;  /* the dominant kernel's share is below 0.7 */
    char *message;      /* what to tell the user, or NULL (free()) */
} rpl_retarget;

/*
 * Choose the next target after a (re)profile of the whole application:
 * the kernel with the largest critical-path share among those defined in
 * the source; `current` stays when it still has the largest share (or
 * when `pinned`, the user named it with --kernel).  The message says when
 * another kernel became dominant (naming both and their shares), when the
 * dominant kernel is not in the source, and when its share is below 0.7
 * (with the whole-application ceiling 1/(1-f)).  With `by_gpu_time` the
 * shares are of the GPU's busy time (the ranking's fallback) and are called
 * so, with no ceiling.  RPL_ENOTFOUND when no kernel of the source is on
 * the path.
 */
int rpl_retarget_choose(rpl_retarget *out, const rpl_path_kernel *kernels, size_t n,
                        const char *current, bool pinned, bool by_gpu_time);
void rpl_retarget_release(rpl_retarget *r);

/* ---- feedback ------------------------------------------------------------ */

/* The decision's JUnit name ("build", "patch" ...). */
const char *rpl_loop_decision_name(int decision);
/* Whether the model gets a repair turn in the same conversation (contract, build, signature). */
bool rpl_loop_decision_repairable(int decision);
/* What became of the model's answer of turn `turn`, for the next prompt (*out, free()). */
int rpl_loop_feedback(char **out, const rpl_pipe_outcome *o, int turn);

#endif
