/*
 * libFuzzer target for chart text fitted to its room (src/report/svg_text.c;
 * the names come from untrusted traces): the first byte picks the room in
 * pixels, the second the font size and whether the name is a kernel's, the
 * rest is the name.  A result must fit the room, and must be the name
 * itself where the name fits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "svg_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double room, font;
    bool kernel;
    char *name, *out = NULL;

    if (size < 2 || !(name = malloc(size - 1)))
        return 0;
    room = 4.0 * data[0];
    font = 8 + data[1] % 12;
    kernel = data[1] & 0x80;
    memcpy(name, data + 2, size - 2);
    name[size - 2] = '\0';
    if (rpl_svg_fit_name(&out, name, "", kernel, room, font) == 0 && out) {
        if (rpl_svg_text_width(out, font) > room)
            abort();
        if (rpl_svg_text_width(name, font) <= room && strcmp(out, name) != 0)
            abort();
    }
    free(out);
    out = NULL;
    if (rpl_svg_fit_text(&out, name, room, font) == 0 && out &&
        rpl_svg_text_width(out, font) > room)
        abort();
    free(out);
    free(name);
    return 0;
}
