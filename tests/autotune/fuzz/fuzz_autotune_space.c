/*
 * libFuzzer target for the autotune inputs that come from users: the search
 * space file (JSON, parameters, constraint expressions, expansion), command
 * templates (quoting, placeholders) and expressions on their own; and the
 * driver version text that tools and /proc print.
 * Run: fuzz_autotune_space -max_total_time=180 CORPUS_DIR tests/autotune/fuzz/seeds
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"BM", "BN", "BK", "TM", "TN", "OUT"};
    static const char *const values[] = {"64", "128", "8", "4", "4", "/tmp/x"};
    static const double vals[] = {64, 128, 8, 4, 4};
    rpl_tune_space *s = NULL;
    rpl_template *t = NULL;
    rpl_expr *e = NULL;
    char *text = malloc(size + 1);

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (rpl_tune_space_parse(&s, (const char *)data, size, "fuzz") == 0) {
        char buf[256];
        double v[RPL_TUNE_MAX_PARAMS];
        for (size_t j = 0; j < s->nparams; j++)
            v[j] = rpl_tune_space_value(s, s->nconfigs - 1, j);
        rpl_tune_space_describe(buf, sizeof(buf), s, v);
        rpl_tune_space_free(s);
    }
    if (rpl_template_parse(&t, text, "fuzz", names, 6) == 0) {
        char **argv = NULL;
        if (rpl_template_expand(&argv, t, names, values, 6) == 0)
            rpl_argv_free(argv);
        rpl_template_free(t);
    }
    {
        char version[64];
        rpl_tune_driver_version(version, sizeof(version), text);
    }
    if (rpl_expr_parse(&e, text, names, 5) == 0) {
        double r;
        rpl_expr_eval(e, vals, &r);
        rpl_expr_free(e);
    }
    rpl_error_clear();
    free(text);
    return 0;
}
