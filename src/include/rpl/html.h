/*
 * What the HTML reports share: the style sheet, escaping,
 * and the roofline and critical-path figures of recorded traces.
 */
#ifndef RPL_HTML_H
#define RPL_HTML_H

#include <stddef.h>

#include "rpl/strbuf.h"

extern const char rpl_html_style[];

/* Text and attribute values: <, >, & and " as entities. */
void rpl_html_esc(rpl_strbuf *out, const char *s);

/*
 * The roofline and the critical-path timeline of the rocpd databases a gate
 * read (input "trace", "app" or "static"), inline SVG with a text
 * alternative each; "not available: why" where a figure cannot be drawn.
 */
void rpl_html_trace_figures(rpl_strbuf *out, const char *const *traces, size_t ntraces,
                            const char *input);

#endif
