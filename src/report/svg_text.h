/*
 * Text that has to fit a width in an SVG chart: its width estimated from
 * its characters, and names shortened until they fit.
 */
#ifndef RPL_SVG_TEXT_H
#define RPL_SVG_TEXT_H

#include <stdbool.h>

/*
 * Estimated width in pixels of UTF-8 text `s` at `font` pixels: per
 * character, rounded up from DejaVu Sans (the widest common sans-serif),
 * and never under 0.6 em a character, the estimate tests/tools/check_svg.py
 * checks labels with.
 */
double rpl_svg_text_width(const char *s, double font);

/*
 * `s` fitted to `max_w` pixels at `font`: as it is when it fits, else with
 * its middle replaced by "…" (at least 5 columns kept).  *out is malloc'ed,
 * or NULL when not even that fits.  0, or an error code when out of memory.
 */
int rpl_svg_fit_text(char **out, const char *s, double max_w, double font);

/*
 * An operation's name fitted like rpl_svg_fit_text.  A kernel (is_kernel;
 * `mangled` may be "") is shortened as in tables (rpl_kernel_labels: the
 * parameters and template arguments that fit), else to its short name
 * ("ns::gemm"), else to its function name ("gemm"), which is elided in the
 * middle when it is still too long.  A copy "MEMORY_COPY_HOST_TO_DEVICE"
 * becomes "H2D copy" (and "MEMORY_SET" "memset") where it does not fit.
 */
int rpl_svg_fit_name(char **out, const char *name, const char *mangled, bool is_kernel,
                     double max_w, double font);

#endif
