/*
 * libFuzzer target for `report --html` of an optimize run: the input bytes
 * are an optimize-log.json (docs/schemas/optimize-log.schema.json), however
 * malformed.  Checked on the way: a log refused says why and writes nothing;
 * an accepted one gives one whole page in which no byte of the log opened a
 * tag (every table closed, no script).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *s, const char *what)
{
    size_t n = 0;

    for (; (s = strstr(s, what)); s += strlen(what))
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *log = cJSON_ParseWithLength((const char *)data, size);
    rpl_strbuf out = RPL_STRBUF_INIT;
    const char *page;

    if (!log)
        return 0;
    rpl_error_clear();
    if (rpl_optimize_html_page(&out, log, "fuzz") != 0) {
        if (!rpl_error_last()->message[0])
            abort(); /* a refused log says why */
    } else {
        page = rpl_strbuf_cstr(&out);
        if (strncmp(page, "<!DOCTYPE html>", 15) != 0 || !strstr(page, "</html>\n") ||
            strstr(page, "<script") || count(page, "<table") != count(page, "</table>") ||
            count(page, "<tr>") != count(page, "</tr>"))
            abort();
    }
    rpl_strbuf_release(&out);
    cJSON_Delete(log);
    return 0;
}
