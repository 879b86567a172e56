/*
 * Command templates: split into argv words first, with shell-like quoting
 * and nothing else of a shell, then {NAME} placeholders are replaced inside
 * each word.  Splitting before substitution means a value can never add,
 * remove or re-quote words.
 *
 *  - words are separated by unquoted blanks (space, tab, newline);
 *  - '...' keeps everything literally up to the next single quote;
 *  - "..." keeps everything literally except \" and \\;
 *  - outside quotes a backslash makes the next character literal;
 *  - $, *, ~, |, ;, < and > are ordinary characters: no variables, globs,
 *    pipes or redirections;
 *  - {NAME} is replaced wherever it stands (quoted or not); {{ and }} are
 *    literal braces.
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/strbuf.h"

#define MAX_TEMPLATE 65536 /* characters */

void rpl_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

static int push_word(char ***words, size_t *n, size_t *cap, rpl_strbuf *w)
{
    int rc = RPL_ARRAY_GROW(*words, *cap, *n + 2);

    if (rc != 0)
        return rc;
    /* An empty buffer from '' is an empty argument, not a missing one. */
    if (!w->ptr && rpl_strbuf_grow(w, 1) != 0)
        return rpl_error_oom();
    (*words)[(*n)++] = rpl_strbuf_detach(w);
    (*words)[*n] = NULL;
    return 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int rpl_words_split(char ***out, size_t *count, const char *text, const char *what)
{
    rpl_strbuf w = RPL_STRBUF_INIT;
    char **words = NULL;
    size_t n = 0, cap = 0, i = 0;
    bool in_word = false;
    int rc = 0;

    *out = NULL;
    *count = 0;
    if (strlen(text) > MAX_TEMPLATE)
        return rpl_error_set(RPL_EUSAGE, "%s is longer than %d characters", what, MAX_TEMPLATE);
    while (rc == 0 && text[i]) {
        char c = text[i];
        if (is_blank(c)) {
            if (in_word)
                rc = push_word(&words, &n, &cap, &w);
            in_word = false;
            i++;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            size_t start = ++i;
            while (text[i] && text[i] != '\'')
                i++;
            if (!text[i])
                rc = rpl_error_set(RPL_EUSAGE, "%s: the single quote at position %zu is not closed",
                                   what, start);
            else
                rc = rpl_strbuf_put(&w, text + start, i - start);
            if (rc == 0 && rpl_strbuf_grow(&w, 1) != 0)
                rc = rpl_error_oom();
            i++;
        } else if (c == '"') {
            size_t start = i++;
            while (rc == 0 && text[i] && text[i] != '"') {
                if (text[i] == '\\' && (text[i + 1] == '"' || text[i + 1] == '\\'))
                    i++;
                rc = rpl_strbuf_putc(&w, text[i++]);
            }
            if (rc == 0 && !text[i])
                rc = rpl_error_set(RPL_EUSAGE, "%s: the double quote at position %zu is not closed",
                                   what, start + 1);
            if (rc == 0 && rpl_strbuf_grow(&w, 1) != 0)
                rc = rpl_error_oom();
            i++;
        } else if (c == '\\') {
            if (!text[i + 1])
                rc = rpl_error_set(RPL_EUSAGE, "%s: a backslash at position %zu ends the text",
                                   what, i + 1);
            else
                rc = rpl_strbuf_putc(&w, text[i + 1]);
            i += 2;
        } else {
            rc = rpl_strbuf_putc(&w, c);
            i++;
        }
    }
    if (rc == 0 && in_word)
        rc = push_word(&words, &n, &cap, &w);
    rpl_strbuf_release(&w);
    if (rc == 0 && n == 0)
        rc = rpl_error_set(RPL_EUSAGE, "%s holds no command", what);
    if (rc != 0) {
        rpl_argv_free(words);
        return rc;
    }
    *out = words;
    *count = n;
    return 0;
}

static long find_name(const char *name, size_t len, const char *const *names, size_t nnames)
{
    for (size_t i = 0; i < nnames; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return (long)i;
    return -1;
}

/* The list of names for a message: "BM, BN, OUT". */
static void list_names(rpl_strbuf *sb, const char *const *names, size_t nnames)
{
    for (size_t i = 0; i < nnames; i++)
        rpl_strbuf_printf(sb, "%s%s", i ? ", " : "", names[i]);
}

/*
 * Walk the placeholders of `word`: with `values` NULL only check them, else
 * append the substituted word to `sb`.  *used gets a bit per name used.
 */
static int substitute(rpl_strbuf *sb, const char *word, const char *what, const char *const *names,
                      const char *const *values, size_t nnames, uint64_t *used)
{
    for (size_t i = 0; word[i];) {
        if ((word[i] == '{' && word[i + 1] == '{') || (word[i] == '}' && word[i + 1] == '}')) {
            if (values && rpl_strbuf_putc(sb, word[i]) != 0)
                return rpl_error_oom();
            i += 2;
        } else if (word[i] == '{') {
            const char *end = strchr(word + i, '}');
            long k;
            if (!end)
                return rpl_error_set(
                    RPL_EUSAGE, "%s: '{' without '}' in '%s' (write {{ for a brace)", what, word);
            k = find_name(word + i + 1, (size_t)(end - word - i - 1), names, nnames);
            if (k < 0) {
                rpl_strbuf known = RPL_STRBUF_INIT;
                list_names(&known, names, nnames);
                rpl_error_set(RPL_EUSAGE, "%s: unknown placeholder '%.*s' (known: %s)", what,
                              (int)(end - word - i + 1), word + i, rpl_strbuf_cstr(&known));
                rpl_strbuf_release(&known);
                return RPL_EUSAGE;
            }
            if (k < 64)
                *used |= (uint64_t)1 << k;
            if (values && rpl_strbuf_puts(sb, values[k]) != 0)
                return rpl_error_oom();
            i = (size_t)(end - word) + 1;
        } else if (word[i] == '}') {
            return rpl_error_set(RPL_EUSAGE, "%s: '}' without '{' in '%s' (write }} for a brace)",
                                 what, word);
        } else {
            if (values && rpl_strbuf_putc(sb, word[i]) != 0)
                return rpl_error_oom();
            i++;
        }
    }
    return 0;
}

int rpl_template_check_words(const char *const *words, const char *what, const char *const *names,
                             size_t nnames, uint64_t *used)
{
    int rc = 0;

    *used = 0;
    for (size_t i = 0; rc == 0 && words[i]; i++)
        rc = substitute(NULL, words[i], what, names, NULL, nnames, used);
    return rc;
}

int rpl_template_parse(rpl_template **out, const char *text, const char *what,
                       const char *const *names, size_t nnames)
{
    rpl_template *t = calloc(1, sizeof(*t));
    int rc;

    *out = NULL;
    if (!t || !(t->text = strdup(text)) || !(t->what = strdup(what))) {
        rpl_template_free(t);
        return rpl_error_oom();
    }
    rc = rpl_words_split(&t->words, &t->nwords, text, what);
    if (rc == 0)
        rc = rpl_template_check_words((const char *const *)t->words, what, names, nnames, &t->used);
    if (rc != 0) {
        rpl_template_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

void rpl_template_free(rpl_template *t)
{
    if (!t)
        return;
    rpl_argv_free(t->words);
    RPL_FREE_EACH(t->text, t->what, t);
}

int rpl_template_expand(char ***out, const rpl_template *t, const char *const *names,
                        const char *const *values, size_t nnames)
{
    char **argv = calloc(t->nwords + 1, sizeof(*argv));
    rpl_strbuf sb = RPL_STRBUF_INIT;
    uint64_t used = 0;
    int rc = 0;

    *out = NULL;
    if (!argv)
        return rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < t->nwords; i++) {
        rc = substitute(&sb, t->words[i], t->what, names, values, nnames, &used);
        if (rc == 0 && rpl_strbuf_grow(&sb, 1) != 0)
            rc = rpl_error_oom();
        if (rc == 0)
            argv[i] = rpl_strbuf_detach(&sb);
    }
    rpl_strbuf_release(&sb);
    if (rc != 0) {
        rpl_argv_free(argv);
        return rc;
    }
    *out = argv;
    return 0;
}
