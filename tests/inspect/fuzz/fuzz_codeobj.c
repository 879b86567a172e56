/*
 * libFuzzer entry for the code-object readers: any bytes go through the
 * same content dispatch as `rocm-perf inspect` (ELF code objects, host ELF
 * files, offload bundles, compressed bundles, fatbins, cubins).  Seeds: the
 * files tests/inspect/make_inputs.py writes.  The device variables' names
 * then go through replay's matching of module globals (global_match.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "global_match.h"
#include "rpl/codeobj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_codeobj_set *set = NULL;

    if (rpl_codeobj_set_new(&set) != 0)
        return 0;
    (void)rpl_codeobj_read_buffer(set, data, size, "fuzz");
    for (size_t i = 0; i < set->n_globals; i++) {
        char *key = NULL;
        size_t at = 0;

        if (rpl_global_key(&key, set->globals[i]) == 0)
            (void)rpl_global_match(key, (const char *const *)set->globals, set->n_globals, &at);
        free(key);
    }
    rpl_codeobj_set_free(set);
    return 0;
}
