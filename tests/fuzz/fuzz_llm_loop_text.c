/*
 * libFuzzer target for the LLM loop's text handling: the input bytes are
 * read as a prompt template (a --prompt-dir file) and as a model's reply
 * (its strategy line).  Checked: rendering fails only with a one-line usage
 * error; the strategy line is one line of at most 120 bytes without control
 * characters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/llm_prompt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const rpl_prompt_var vars[] = {
        {"kernel_name", "saxpy"},     {"kernel", "__global__ void saxpy() {{ }}"},
        {"feedback", NULL},           {"archive", "- turn 1"},
        {"contract", "{{contract}}"},
    };
    char *text = malloc(size + 1), *out = NULL;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* a NUL inside ends the text, as for a file read as a string */

    if (rpl_prompt_render(&out, "fuzz.md", text, vars, sizeof(vars) / sizeof(vars[0])) != 0) {
        const rpl_error *e = rpl_error_last();
        if (out || e->code != RPL_EUSAGE || !e->message[0] || strchr(e->message, '\n'))
            abort();
    } else if (!out) {
        abort();
    }
    free(out);

    out = NULL;
    if (rpl_reply_strategy(&out, text) != 0)
        abort();
    if (strlen(out) > 120)
        abort();
    for (const char *c = out; *c; c++)
        if ((unsigned char)*c < 0x20)
            abort();
    free(out);
    free(text);
    return 0;
}
