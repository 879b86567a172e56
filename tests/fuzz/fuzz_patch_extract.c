/*
 * libFuzzer target for patch extraction from a model's reply: the input
 * bytes are the reply text, read once for the kernel "saxpy" and once for
 * any kernel.  Checked: a result is consistent with its kind (a NONE patch
 * says why, a full kernel holds __global__, SEARCH/REPLACE pairs have a
 * SEARCH part), and an error is one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *reply, size_t size, const char *kernel)
{
    rpl_llm_patch *p = NULL;

    if (rpl_llm_patch_extract(&p, reply, size, kernel) != 0) {
        const char *msg = rpl_error_last()->message;
        if (p || !msg[0] || strchr(msg, '\n'))
            abort();
        return;
    }
    switch (p->kind) {
    case RPL_LLM_PATCH_NONE:
        if (!p->notes || p->code || p->n_edits)
            abort();
        break;
    case RPL_LLM_PATCH_FULL_KERNEL:
        if (!p->code || !strstr(p->code, "__global__") || (kernel && !strstr(p->code, kernel)))
            abort();
        break;
    case RPL_LLM_PATCH_SEARCH_REPLACE:
        if (!p->n_edits || p->code)
            abort();
        for (size_t i = 0; i < p->n_edits; i++)
            if (!p->edits[i].search[0] || !p->edits[i].replace || p->edits[i].line < 1)
                abort();
        break;
    default:
        abort();
    }
    rpl_llm_patch_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check((const char *)data, size, "saxpy");
    check((const char *)data, size, NULL);
    return 0;
}
