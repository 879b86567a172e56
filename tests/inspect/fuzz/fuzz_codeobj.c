/*
 * libFuzzer entry for the code-object readers: any bytes go through the
 * same content dispatch as `rocm-perf inspect` (ELF code objects, host ELF
 * files, offload bundles, compressed bundles, fatbins, cubins).  Seeds: the
 * files tests/inspect/make_inputs.py writes.
 */
#include <stddef.h>
#include <stdint.h>

#include "rpl/codeobj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_codeobj_set *set = NULL;

    if (rpl_codeobj_set_new(&set) != 0)
        return 0;
    (void)rpl_codeobj_read_buffer(set, data, size, "fuzz");
    rpl_codeobj_set_free(set);
    return 0;
}
