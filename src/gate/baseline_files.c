/* `baseline show` and `baseline diff`: baseline files read and rendered for people. */
#include "rpl/baseline.h"
#include "rpl/error.h"

int rpl_baseline_show_file(rpl_strbuf *out, const char *path)
{
    rpl_baseline *b = NULL;
    int rc = rpl_baseline_read(&b, path);

    if (rc == 0)
        rc = rpl_baseline_describe(out, b);
    rpl_baseline_free(b);
    return rc;
}

int rpl_baseline_diff_files(rpl_strbuf *out, const char *path_a, const char *path_b)
{
    rpl_baseline *a = NULL, *b = NULL;
    size_t head = 0;
    int rc = rpl_baseline_read(&a, path_a);

    if (rc == 0)
        rc = rpl_baseline_read(&b, path_b);
    if (rc == 0 && (rc = rpl_strbuf_printf(out, "%s -> %s:\n", path_a, path_b)) == 0) {
        head = out->len;
        rc = rpl_baseline_diff(out, a, b);
    }
    if (rc == 0 && out->len == head)
        rc = rpl_strbuf_puts(out, "  no differences\n");
    rpl_baseline_free(a);
    rpl_baseline_free(b);
    return rc;
}
