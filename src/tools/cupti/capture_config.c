/* What to capture, from the environment that `rocm-perf capture` sets. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/number.h"

static int parse_index(uint64_t *out, const char *s)
{
    *out = 0;
    if (!s || !s[0])
        return 0;
    if (!rpl_parse_u64(s, out))
        return rpl_error_set(RPL_EUSAGE, "dispatch index '%s' is not a whole number", s);
    return 0;
}

int cc_config_init(cc_config *c, const char *dir, const char *kernel, const char *dispatch,
                   const char *cwd)
{
    int rc;

    memset(c, 0, sizeof(*c));
    if (!dir || !dir[0])
        return rpl_error_set(RPL_EUSAGE, "no snapshot directory given");
    if ((rc = parse_index(&c->index, dispatch)) != 0)
        return rc;
    if (dir[0] == '/') {
        c->dir = strdup(dir);
        if (!c->dir)
            return rpl_error_oom();
    } else if ((rc = rpl_path_join(&c->dir, cwd, dir)) != 0) {
        return rc;
    }
    if (kernel && kernel[0]) {
        int err = regcomp(&c->re, kernel, REG_EXTENDED | REG_NOSUB);
        if (err) {
            char msg[128];
            regerror(err, &c->re, msg, sizeof(msg));
            cc_config_release(c);
            return rpl_error_set(RPL_EUSAGE, "bad kernel pattern '%s': %s", kernel, msg);
        }
        c->have_re = true;
        c->pattern = strdup(kernel);
        if (!c->pattern) {
            cc_config_release(c);
            return rpl_error_oom();
        }
    }
    return 0;
}

void cc_config_release(cc_config *c)
{
    if (c->have_re)
        regfree(&c->re);
    free(c->dir);
    free(c->pattern);
    memset(c, 0, sizeof(*c));
}

bool cc_config_matches(const cc_config *c, const char *mangled, const char *demangled)
{
    if (!c->have_re)
        return true;
    if (demangled && regexec(&c->re, demangled, 0, NULL, 0) == 0)
        return true;
    return mangled && regexec(&c->re, mangled, 0, NULL, 0) == 0;
}
