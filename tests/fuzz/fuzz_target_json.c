/*
 * libFuzzer target for the optimizer's target.json (docs/schemas/target.schema.json):
 * the input bytes are parsed as a test's target description.  Checked on the
 * way: a refused description hands nothing back and says why; an accepted one
 * has its name, an absolute source, non-empty build and test commands and the
 * build directory it was given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NULL-terminated argv of at least one non-empty word. */
static void check_words(char **argv, int required)
{
    if (!argv) {
        if (required)
            abort();
        return;
    }
    if (!argv[0])
        abort();
    for (size_t i = 0; argv[i]; i++)
        if (!argv[i][0])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_pipe_target *t = NULL;

    rpl_error_clear();
    if (rpl_pipe_target_parse(&t, (const char *)data, size, "fuzz") != 0) {
        const rpl_error *why = rpl_error_last();

        if (t || !why->code || !why->message[0])
            abort(); /* a refused file hands nothing back, and says why */
        return 0;
    }
    if (!t || !t->name || !t->name[0] || !t->source || t->source[0] != '/' || !t->build_dir ||
        strcmp(t->build_dir, "fuzz") != 0)
        abort();
    check_words(t->build_argv, 1);
    check_words(t->test_argv, 1);
    check_words(t->codeobj_argv, 0);
    rpl_pipe_target_free(t);
    return 0;
}
