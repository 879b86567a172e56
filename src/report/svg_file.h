/* An SVG chart written as a file of its own (the same <svg> element is inlined in HTML). */
#ifndef RPL_SVG_FILE_H
#define RPL_SVG_FILE_H

#include "rpl/strbuf.h"

/* Appends the <svg> element that draws `what` to *out; 0 or an error code. */
typedef int (*rpl_svg_render_fn)(rpl_strbuf *out, const void *what);

/*
 * Writes path atomically: the XML declaration, then the element `render`
 * appends for `what`.  0, or the error code of the render or the write.
 */
int rpl_svg_file_write(const char *path, rpl_svg_render_fn render, const void *what);

#endif
