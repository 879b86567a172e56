/*
 * libFuzzer target: SEARCH/REPLACE blocks on a region of a text (the pure
 * text part of the kernel splice; libclang stays out of the loop).
 *
 * Input: two bytes that place the region, then NUL-separated parts: the
 * text, then SEARCH and REPLACE of each block in turn.  The applier must
 * accept or reject (RPL_EINPUT) without crashing, leaking or reading out of
 * bounds; an accepted result is a NUL-terminated string of its length.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/kernel_source.h"

#define MAX_BLOCKS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_search_replace blocks[MAX_BLOCKS];
    const char *part[1 + 2 * MAX_BLOCKS];
    size_t part_len[1 + 2 * MAX_BLOCKS], n_parts = 0, begin, end, out_len = 0;
    const char *p, *stop;
    char *out = NULL;
    int rc;

    if (size < 2)
        return 0;
    p = (const char *)data + 2;
    stop = (const char *)data + size;
    while (n_parts < sizeof(part) / sizeof(part[0])) {
        const char *nul = memchr(p, '\0', (size_t)(stop - p));
        part[n_parts] = p;
        part_len[n_parts] = nul ? (size_t)(nul - p) : (size_t)(stop - p);
        n_parts++;
        if (!nul)
            break;
        p = nul + 1;
    }
    /* The region: the two leading bytes as fractions of the text. */
    begin = part_len[0] * data[0] / 255;
    end = begin + (part_len[0] - begin) * data[1] / 255;
    size_t n_blocks = (n_parts - 1) / 2;
    for (size_t i = 0; i < n_blocks; i++) {
        blocks[i].search = part[1 + 2 * i];
        blocks[i].search_len = part_len[1 + 2 * i];
        blocks[i].replace = part[2 + 2 * i];
        blocks[i].replace_len = part_len[2 + 2 * i];
    }
    rc = rpl_search_replace_apply(&out, &out_len, part[0], part_len[0], begin, end, blocks,
                                  n_blocks);
    if (rc != 0 && rc != RPL_EINPUT)
        abort();
    if (rc == 0 && (!out || out[out_len] != '\0' || memchr(out, '\0', out_len)))
        abort();
    if (rc != 0 && out)
        abort();
    free(out);
    return 0;
}
