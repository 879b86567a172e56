/* SVG charts written as files; see svg_file.h. */
#include "svg_file.h"

#include "rpl/fsutil.h"

int rpl_svg_file_write(const char *path, rpl_svg_render_fn render, const void *what)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_strbuf_puts(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");

    if (!rc)
        rc = render(&sb, what);
    if (!rc)
        rc = rpl_file_write_atomic(path, sb.ptr, sb.len);
    rpl_strbuf_release(&sb);
    return rc;
}
