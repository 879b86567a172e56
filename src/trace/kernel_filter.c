/* Kernel selection: --kernel pattern and runtime-helper exclusion (see rpl/kernel_filter.h). */
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/kernel_filter.h"

static int compile(regex_t *re, const char *pattern, const char *what)
{
    char msg[128];
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);

    if (rc == 0)
        return 0;
    regerror(rc, re, msg, sizeof(msg));
    regfree(re);
    return rpl_error_set(RPL_EUSAGE, "bad %s regex '%s': %s", what, pattern, msg);
}

int rpl_kernel_filter_init(rpl_kernel_filter *f, const char *kernel_regex, const char *helper_regex,
                           bool include_helpers)
{
    const char *what = "--helpers";
    int rc;

    memset(f, 0, sizeof(*f));
    f->include_helpers = include_helpers;
    if (!helper_regex) {
        helper_regex = getenv(RPL_HELPER_REGEX_ENV);
        what = RPL_HELPER_REGEX_ENV;
        if (!helper_regex || !helper_regex[0]) {
            helper_regex = RPL_HELPER_REGEX_DEFAULT;
            what = "default helper";
        }
    }
    /* Each field is set only once its part is ready, so release() undoes exactly that. */
    rc = compile(&f->helper, helper_regex, what);
    if (rc)
        return rc;
    f->helper_regex = strdup(helper_regex);
    if (!f->helper_regex) {
        regfree(&f->helper);
        return rpl_error_oom();
    }
    if (!kernel_regex)
        return 0;
    rc = compile(&f->include, kernel_regex, "--kernel");
    if (rc) {
        rpl_kernel_filter_release(f);
        return rc;
    }
    f->has_include = true;
    f->kernel_regex = strdup(kernel_regex);
    if (!f->kernel_regex) {
        rpl_kernel_filter_release(f);
        return rpl_error_oom();
    }
    return 0;
}

void rpl_kernel_filter_release(rpl_kernel_filter *f)
{
    if (f->helper_regex)
        regfree(&f->helper);
    if (f->has_include)
        regfree(&f->include);
    free(f->helper_regex);
    free(f->kernel_regex);
    memset(f, 0, sizeof(*f));
}

bool rpl_kernel_filter_is_helper(const rpl_kernel_filter *f, const char *name,
                                 const char *display_name)
{
    rpl_strbuf short_name = RPL_STRBUF_INIT;
    bool helper;

    /* Out of memory leaves the buffer empty: treat the kernel as a user kernel. */
    rpl_kernel_short_name(&short_name, name, display_name);
    helper = regexec(&f->helper, rpl_strbuf_cstr(&short_name), 0, NULL, 0) == 0;
    rpl_strbuf_release(&short_name);
    return helper;
}

bool rpl_kernel_filter_selects(const rpl_kernel_filter *f, const char *name,
                               const char *display_name)
{
    if (f->has_include && regexec(&f->include, display_name ? display_name : "", 0, NULL, 0) &&
        regexec(&f->include, name ? name : "", 0, NULL, 0))
        return false;
    return f->include_helpers || !rpl_kernel_filter_is_helper(f, name, display_name);
}
