/*
 * libFuzzer target for the LLM loop's text handling: the input bytes are
 * read as a prompt template (a --prompt-dir file) and as a model's reply
 * (its strategy line), and as both files of an `analyze --out` folder for
 * the --analysis facts (a document may carry the fields of both).  Checked:
 * rendering fails only with a one-line usage error; the strategy line is one
 * line of at most 120 bytes without control characters; a bad analysis fails
 * only with a one-line input error, and the facts of a good one hold no
 * control characters but line breaks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/llm_analysis.h"
#include "rpl/llm_prompt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_fact(const char *text)
{
    for (const char *c = text; c && *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f)
            abort();
}

/* The facts of `kernel`: ENOTFOUND or text without stray control characters. */
static void check_facts(const rpl_llm_analysis *a, const char *kernel)
{
    rpl_llm_facts f = {0};
    int rc = rpl_llm_analysis_facts(a, kernel, 1, &f);

    if (rc != 0 && rc != RPL_ENOTFOUND)
        abort();
    check_fact(f.roofline);
    check_fact(f.bottleneck);
    check_fact(f.att);
    rpl_llm_facts_release(&f);
}

static void fuzz_analysis(const char *text, size_t size)
{
    rpl_llm_analysis *a = NULL;
    cJSON *doc;
    const cJSON *k;

    if (rpl_llm_analysis_parse(&a, text, size, "roofline.json", text, size, "analysis.json") != 0) {
        const rpl_error *e = rpl_error_last();
        if (a || e->code != RPL_EINPUT || !e->message[0] || strchr(e->message, '\n'))
            abort();
        return;
    }
    check_facts(a, "scale");
    /* Every kernel the document names, as the loop might ask for it. */
    doc = cJSON_ParseWithLength(text, size);
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(doc, "kernels"))
    {
        check_facts(a, cJSON_GetObjectItemCaseSensitive(k, "kernel")->valuestring);
    }
    cJSON_Delete(doc);
    rpl_llm_analysis_free(a);
}

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
    fuzz_analysis(text, size);
    free(text);
    return 0;
}
