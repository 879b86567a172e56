/*
 * SEARCH/REPLACE blocks in a reply, as a state machine over lines:
 *
 *   outside --"<<<<<<< SEARCH"--> search --"======="--> replace --">>>>>>> REPLACE"--> outside
 *
 * Any other delimiter in a state where it does not belong, a line that
 * starts like a delimiter but is not one, an empty SEARCH part or a block
 * left open at the end is an error naming the block and its line.
 */
#include <stdlib.h>
#include <string.h>

#include "patch_int.h"
#include "rpl/error.h"

/* Delimiters are 5 to 9 of the same character (7 is the usual). */
#define MARK_MIN 5
#define MARK_MAX 9

static size_t skip_space(const rpl_line *l, size_t i)
{
    while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
        i++;
    return i;
}

static size_t trim_end(const rpl_line *l)
{
    size_t n = l->len;

    while (n > 0 && (l->p[n - 1] == ' ' || l->p[n - 1] == '\t'))
        n--;
    return n;
}

/* `c` repeated MARK_MIN..MARK_MAX times, optional blanks, then exactly `word`. */
static rpl_sr_marker arrow(const rpl_line *l, size_t i, char c, const char *word,
                           rpl_sr_marker kind)
{
    size_t run = 0, end = trim_end(l), wlen = strlen(word);

    while (i + run < end && l->p[i + run] == c)
        run++;
    if (run < MARK_MIN)
        return RPL_SR_NONE;
    i = skip_space(l, i + run);
    if (run > MARK_MAX || end - i != wlen || memcmp(l->p + i, word, wlen) != 0)
        return RPL_SR_BAD;
    return kind;
}

rpl_sr_marker rpl_sr_classify(const rpl_line *l)
{
    size_t i = skip_space(l, 0), end = trim_end(l), run = 0;

    if (i >= end)
        return RPL_SR_NONE;
    if (l->p[i] == '<')
        return arrow(l, i, '<', "SEARCH", RPL_SR_SEARCH);
    if (l->p[i] == '>')
        return arrow(l, i, '>', "REPLACE", RPL_SR_REPLACE);
    while (i + run < end && l->p[i + run] == '=')
        run++;
    /* Only a bare run of '=' divides; longer ones are rules in prose or comments. */
    return i + run == end && run >= MARK_MIN && run <= MARK_MAX ? RPL_SR_DIVIDER : RPL_SR_NONE;
}

int rpl_lines_join(rpl_strbuf *sb, const rpl_line *lines, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (rpl_strbuf_put(sb, lines[i].p, lines[i].len) || rpl_strbuf_putc(sb, '\n'))
            return RPL_ENOMEM;
    return rpl_strbuf_grow(sb, 0);
}

static int add_edit(rpl_llm_patch *patch, const rpl_line *lines, size_t open, size_t divider,
                    size_t close)
{
    rpl_strbuf search = RPL_STRBUF_INIT, replace = RPL_STRBUF_INIT;
    rpl_llm_edit *edits = realloc(patch->edits, (patch->n_edits + 1) * sizeof(*edits));

    if (!edits)
        return rpl_error_oom();
    patch->edits = edits;
    if (rpl_lines_join(&search, lines, open + 1, divider) ||
        rpl_lines_join(&replace, lines, divider + 1, close)) {
        rpl_strbuf_release(&search);
        rpl_strbuf_release(&replace);
        return rpl_error_oom();
    }
    edits[patch->n_edits].search = rpl_strbuf_detach(&search);
    edits[patch->n_edits].replace = rpl_strbuf_detach(&replace);
    edits[patch->n_edits].line = (int)open + 1;
    patch->n_edits++;
    return 0;
}

static bool blank_range(const rpl_line *lines, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        for (size_t k = 0; k < lines[i].len; k++)
            if (lines[i].p[k] != ' ' && lines[i].p[k] != '\t')
                return false;
    return true;
}

/* The line as text for a message, shortened. */
#define QUOTE(l) (int)((l)->len > 40 ? 40 : (l)->len), (l)->p

int rpl_sr_parse(rpl_llm_patch *patch, const rpl_line *lines, size_t n)
{
    enum { OUTSIDE, SEARCH, REPLACE } state = OUTSIDE;
    size_t open = 0, divider = 0;
    int block = 0, rc;

    patch->kind = RPL_LLM_PATCH_SEARCH_REPLACE;
    for (size_t i = 0; i < n; i++) {
        rpl_sr_marker m = rpl_sr_classify(&lines[i]);
        int line = (int)i + 1;

        if (m == RPL_SR_BAD)
            return rpl_error_set(RPL_EINPUT,
                                 "SEARCH/REPLACE block %d: line %d '%.*s' is not a delimiter "
                                 "(use '<<<<<<< SEARCH', '=======', '>>>>>>> REPLACE')",
                                 block + (state == OUTSIDE), line, QUOTE(&lines[i]));
        switch (state) {
        case OUTSIDE:
            if (m == RPL_SR_SEARCH) {
                state = SEARCH;
                open = i;
                block++;
            } else if (m == RPL_SR_REPLACE) {
                return rpl_error_set(RPL_EINPUT,
                                     "SEARCH/REPLACE block %d: '>>>>>>> REPLACE' on line %d "
                                     "without '<<<<<<< SEARCH' and '=======' before it",
                                     block + 1, line);
            }
            break; /* prose, fences and '=' rules between blocks */
        case SEARCH:
            if (m == RPL_SR_DIVIDER) {
                if (blank_range(lines, open + 1, i))
                    return rpl_error_set(RPL_EINPUT,
                                         "SEARCH/REPLACE block %d (line %d): the SEARCH part is "
                                         "empty; it must hold the lines to replace",
                                         block, (int)open + 1);
                state = REPLACE;
                divider = i;
            } else if (m != RPL_SR_NONE) {
                return rpl_error_set(RPL_EINPUT,
                                     "SEARCH/REPLACE block %d (line %d): '%.*s' on line %d "
                                     "before '======='",
                                     block, (int)open + 1, QUOTE(&lines[i]), line);
            }
            break;
        case REPLACE:
            if (m == RPL_SR_REPLACE) {
                if ((rc = add_edit(patch, lines, open, divider, i)))
                    return rc;
                state = OUTSIDE;
            } else if (m != RPL_SR_NONE) {
                return rpl_error_set(RPL_EINPUT,
                                     "SEARCH/REPLACE block %d (line %d): '%.*s' on line %d "
                                     "before '>>>>>>> REPLACE'",
                                     block, (int)open + 1, QUOTE(&lines[i]), line);
            }
            break;
        }
    }
    if (state != OUTSIDE)
        return rpl_error_set(RPL_EINPUT,
                             "SEARCH/REPLACE block %d (line %d): the reply ends before '%s' "
                             "(truncated?)",
                             block, (int)open + 1, state == SEARCH ? "=======" : ">>>>>>> REPLACE");
    return 0;
}
