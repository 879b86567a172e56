/*
 * libFuzzer entry for the capture's readers of driver-provided bytes
 * (src/tools/cupti/capture.h): a cubin's symbol table walk, and for each
 * function found, demangling, the split of the parameter list and the
 * classification of each parameter type.  Input that starts like an ELF
 * file is a cubin, anything else a demangled name.  Seeds: the committed
 * cubins (and the text files beside them).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void classify_name(const char *demangled)
{
    char **types = NULL;
    size_t n = 0;

    if (rpl_param_types(&types, &n, demangled) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        bool pointer;
        rpl_dtype pointee;
        rpl_param_type_classify(types[i], &pointer, &pointee);
    }
    rpl_strv_free(types, n);
}

static int each_symbol(void *ud, const char *name, uint64_t size, bool function)
{
    char *dem;

    (void)ud;
    (void)size;
    if (!function)
        return 0;
    dem = cc_demangle(name);
    classify_name(dem ? dem : name);
    free(dem);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;

    if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
        cc_cubin_symbols(data, size, each_symbol, NULL);
        return 0;
    }
    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    classify_name(text);
    free(text);
    return 0;
}
