/*
 * The prompt's roofline, bottleneck and ATT facts from an earlier
 * `rocm-perf analyze --out DIR` (llm-optimize --analysis DIR): DIR/roofline.json
 * and DIR/analysis.json (docs/schemas/roofline.schema.json,
 * analysis.schema.json), usually of a profile with counters, which the
 * loop's own profiles lack.
 *
 * The numbers were measured on the kernel as it was then: every fact says
 * "measured on the original kernel", and once a change of the kernel was
 * accepted it says as well that the current version may behave otherwise.
 */
#ifndef RPL_LLM_ANALYSIS_H
#define RPL_LLM_ANALYSIS_H

#include <stddef.h>

#include "rpl/llm_loop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rpl_llm_analysis rpl_llm_analysis;

/*
 * Read DIR/roofline.json and DIR/analysis.json and check the fields the
 * facts use.  A missing, unreadable or malformed file fails with a one-line
 * message that names it (RPL_EINPUT or RPL_ENOTFOUND: the user's input).
 */
int rpl_llm_analysis_load(rpl_llm_analysis **out, const char *dir);

/* The same from documents in memory; the names stand for the files in messages. */
int rpl_llm_analysis_parse(rpl_llm_analysis **out, const char *roofline, size_t roofline_len,
                           const char *roofline_name, const char *analysis, size_t analysis_len,
                           const char *analysis_name);

void rpl_llm_analysis_free(rpl_llm_analysis *a);

/* The first line of every fact instead of "Measured on the original kernel ... by `rocm-perf
   analyze`" (the pipeline's own counter pass says what it measured); NULL: that line. */
int rpl_llm_analysis_set_origin(rpl_llm_analysis *a, const char *origin);

/*
 * The roofline, bottleneck and att facts of `kernel` (the loop's name for it:
 * plain, qualified, demangled with parameters, or the device symbol), into
 * the NULL fields of `out`; fields the analysis has nothing for stay NULL.
 * `changes`: accepted changes of the kernel so far (the text then says the
 * numbers are of the original).  RPL_ENOTFOUND (no error set) when the
 * analysis does not name the kernel.
 */
int rpl_llm_analysis_facts(const rpl_llm_analysis *a, const char *kernel, unsigned changes,
                           rpl_llm_facts *out);

#ifdef __cplusplus
}
#endif
#endif
