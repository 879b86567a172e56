/*
 * The strategy line of a reply: the contract asks the model to name its
 * strategy in one line before the code.  It labels the candidate in the
 * JUnit report, the archive and the commit subject, so it is kept short
 * and on one line.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/kernel_filter.h"

#define STRATEGY_MAX 120

/* Whether the line [p, end) starts (after blanks) with `prefix`. */
static bool line_starts(const char *p, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);

    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/* The end of a think section opened at p (past its closing tag), or NULL when none opens here. */
static const char *skip_think(const char *p)
{
    static const char *const tags[][2] = {{"<think>", "</think>"}, {"<thinking>", "</thinking>"}};

    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(tags[i][0]);
        if (strncmp(p, tags[i][0], n) == 0) {
            const char *close = strstr(p + n, tags[i][1]);
            return close ? close + strlen(tags[i][1]) : p + strlen(p);
        }
    }
    return NULL;
}

/* Drop "**" emphasis, a leading "Strategy:" label and control characters, in place. */
static void tidy(char *s)
{
    char *w = s;

    for (const char *r = s; *r; r++) {
        if (r[0] == '*' && r[1] == '*') {
            r++;
            continue;
        }
        *w++ = (unsigned char)*r < 0x20 ? ' ' : *r;
    }
    *w = '\0';
    if (strncasecmp(s, "strategy", 8) == 0) {
        const char *r = s + 8;
        while (*r == ' ')
            r++;
        if (*r == ':') {
            for (r++; *r == ' '; r++)
                ;
            memmove(s, r, strlen(r) + 1);
        }
    }
    w = s + strlen(s);
    while (w > s && w[-1] == ' ')
        *--w = '\0';
}

int rpl_reply_strategy(char **out, const char *reply)
{
    const char *p = reply ? reply : "";
    bool in_fence = false, in_sr = false;
    const char *lone = strstr(p, "</think>");

    *out = NULL;
    if (lone && !strstr(p, "<think>")) /* servers that drop the opening tag */
        p = lone + strlen("</think>");
    while (*p) {
        const char *end = strchr(p, '\n'), *s, *e, *skip;
        size_t len;

        if (!end)
            end = p + strlen(p);
        if ((skip = skip_think(p)) != NULL) {
            p = skip;
            continue;
        }
        if (line_starts(p, end, "```") || line_starts(p, end, "~~~")) {
            in_fence = !in_fence;
        } else if (line_starts(p, end, "<<<<<<<")) {
            in_sr = true;
        } else if (line_starts(p, end, ">>>>>>>")) {
            in_sr = false;
        } else if (!in_fence && !in_sr) {
            for (s = p; s < end && strchr(" \t#*->`_", *s); s++)
                ;
            for (e = end; e > s && strchr(" \t\r*`_:", e[-1]); e--)
                ;
            if (e > s) {
                len = rpl_utf8_cut(s, (size_t)(e - s), STRATEGY_MAX);
                if (!(*out = strndup(s, len)))
                    return rpl_error_oom();
                tidy(*out);
                if (**out)
                    return 0;
                free(*out);
                *out = NULL;
            }
        }
        p = *end ? end + 1 : end;
    }
    if (!(*out = strdup("")))
        return rpl_error_oom();
    return 0;
}
