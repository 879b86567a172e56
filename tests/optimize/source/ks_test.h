/* Helpers shared by the kernel-source tests (cmocka). */
#ifndef KS_TEST_H
#define KS_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/kernel_source.h"

/* Parse tests/optimize/source/<name> (or any path) and fail the test on an error. */
static inline rpl_kernel_source *ks_test_parse(const char *path, const rpl_ks_options *o)
{
    rpl_kernel_source *src = NULL;
    int rc = rpl_kernel_source_parse_file(&src, path, o);

    if (rc != 0)
        fail_msg("parse %s: %s", path, rpl_error_last()->message);
    return src;
}

static inline rpl_kernel_source *ks_test_parse_text(const char *name, const char *text,
                                                    const rpl_ks_options *o)
{
    rpl_kernel_source *src = NULL;
    int rc = rpl_kernel_source_parse_buffer(&src, name, text, strlen(text), o);

    if (rc != 0)
        fail_msg("parse %s: %s", name, rpl_error_last()->message);
    return src;
}

static inline const rpl_ks_kernel *ks_test_kernel(const rpl_kernel_source *src, const char *name)
{
    const rpl_ks_kernel *k = NULL;

    if (rpl_kernel_source_find(src, name, &k) != 0)
        fail_msg("%s: %s", name, rpl_error_last()->message);
    return k;
}

/* The bytes of a range, as a new string. */
static inline char *ks_test_text(const rpl_kernel_source *src, const rpl_ks_range *r)
{
    char *s = malloc(r->end - r->begin + 1);

    assert_non_null(s);
    memcpy(s, src->text + r->begin, r->end - r->begin);
    s[r->end - r->begin] = '\0';
    return s;
}

/* The range starts with `head` and ends with `tail`. */
static inline void ks_test_range_is(const rpl_kernel_source *src, const rpl_ks_range *r,
                                    const char *head, const char *tail)
{
    char *s = ks_test_text(src, r);
    size_t n = strlen(s), nt = strlen(tail);

    if (strncmp(s, head, strlen(head)) != 0 || n < nt || strcmp(s + n - nt, tail) != 0)
        fail_msg("range [%zu,%zu) is '%s', expected '%s'...'%s'", r->begin, r->end, s, head, tail);
    free(s);
}

/* The last error message contains `part`. */
static inline void ks_test_error_has(int rc, int want, const char *part)
{
    if (rc != want)
        fail_msg("status %d, expected %d (%s)", rc, want, rpl_error_last()->message);
    if (!strstr(rpl_error_last()->message, part))
        fail_msg("message '%s' lacks '%s'", rpl_error_last()->message, part);
}

#endif
