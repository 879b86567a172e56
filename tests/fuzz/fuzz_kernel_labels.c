/*
 * libFuzzer target for the table labels of kernel names (names come from
 * untrusted traces): the input is a width byte, then names separated by
 * newlines.  Every label must fit the width, and different names must get
 * different labels.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/kernel_filter.h"

#define MAX_NAMES 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, *names[MAX_NAMES], **labels = NULL;
    size_t n = 0, width;

    if (size < 1 || !(text = malloc(size)))
        return 0;
    width = 16 + data[0] % 48; /* the first byte picks the width */
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    for (char *p = text; n < MAX_NAMES && p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        names[n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    if (rpl_kernel_labels(&labels, (const char *const *)names, n, width) == 0) {
        for (size_t i = 0; i < n; i++) {
            if (rpl_utf8_columns(labels[i]) > width)
                abort();
            for (size_t j = i + 1; j < n; j++)
                if (strcmp(names[i], names[j]) != 0 && strcmp(labels[i], labels[j]) == 0)
                    abort();
        }
        rpl_kernel_labels_free(labels, n);
    }
    free(text);
    return 0;
}
