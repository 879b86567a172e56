/* Stable LSD radix sort of (key, value) pairs: O(n) per pass (see radix_sort.h). */
#include <stdlib.h>
#include <string.h>

#include "radix_sort.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

int rpl_radix_sort_u64(uint64_t *keys, uint32_t *vals, uint32_t n)
{
    uint64_t max = 0, *k2;
    uint32_t *v2, *count;
    unsigned bits = 0;

    for (uint32_t i = 0; i < n; i++)
        if (keys[i] > max)
            max = keys[i];
    while (bits < 64 && (max >> bits) != 0)
        bits++;
    if (n < 2 || bits == 0)
        return 0;
    k2 = rpl_bigmem_malloc((size_t)n * sizeof(*k2));
    v2 = rpl_bigmem_malloc((size_t)n * sizeof(*v2));
    count = malloc(RADIX_SIZE * sizeof(*count));
    if (!k2 || !v2 || !count) {
        free(k2);
        free(v2);
        free(count);
        return rpl_error_oom();
    }
    for (unsigned shift = 0; shift < bits; shift += RADIX_BITS) {
        uint64_t *tk;
        uint32_t *tv, sum = 0;

        memset(count, 0, RADIX_SIZE * sizeof(*count));
        for (uint32_t i = 0; i < n; i++)
            count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++;
        for (uint32_t d = 0; d < RADIX_SIZE; d++) {
            uint32_t c = count[d];

            count[d] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t pos = count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++;

            k2[pos] = keys[i];
            v2[pos] = vals[i];
        }
        tk = keys, keys = k2, k2 = tk;
        tv = vals, vals = v2, v2 = tv;
    }
    /* An odd number of passes leaves the result in the scratch buffers. */
    if (((bits + RADIX_BITS - 1) / RADIX_BITS) % 2 == 1) {
        memcpy(k2, keys, (size_t)n * sizeof(*k2));
        memcpy(v2, vals, (size_t)n * sizeof(*v2));
        free(keys);
        free(vals);
    } else {
        free(k2);
        free(v2);
    }
    free(count);
    return 0;
}
