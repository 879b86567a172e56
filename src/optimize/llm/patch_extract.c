/*
 * From a model's reply to a patch (see rpl/llm.h): drop <think> sections,
 * split into lines, then read SEARCH/REPLACE blocks (patch_sr.c) or fenced
 * code blocks.  The fences are read by a small state machine in the manner
 * of CommonMark: an opening line of at least three backticks or tildes
 * (indented by at most three spaces) and an info string; a closing line of
 * at least as many of the same character and nothing else.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch_int.h"
#include "rpl/error.h"
#include "rpl/free.h"

/* Languages whose blocks may hold the kernel; "" is a fence without one. */
static const char *const kernel_langs[] = {"", "cpp", "c++", "cxx", "hip", "cuda", "cu", "c"};

typedef struct fence {
    size_t open;  /* line index of the opening fence */
    size_t close; /* line index of the closing fence */
    bool kernel_lang;
    bool has_global;
    bool has_kernel;
    bool has_sr; /* holds a SEARCH/REPLACE delimiter */
} fence;

typedef struct reading {
    char *text; /* the reply without think sections */
    size_t len;
    rpl_line *lines;
    size_t n_lines;
    fence *fences;
    size_t n_fences;
    rpl_strbuf notes;
} reading;

static int note(reading *r, const char *text)
{
    if (r->notes.len && rpl_strbuf_puts(&r->notes, "; "))
        return RPL_ENOMEM;
    return rpl_strbuf_puts(&r->notes, text);
}

/* ---- think sections ---------------------------------------------------- */

static const char *find(const char *s, size_t len, const char *what)
{
    size_t n = strlen(what);

    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (s[i] == what[0] && memcmp(s + i, what, n) == 0)
            return s + i;
    return NULL;
}

/*
 * The earliest "<think>" or "<thinking>" (or "</think>", "</thinking>") in
 * s[0..len), its length in *tag_len; one pass over the text.
 */
static const char *find_tag(const char *s, size_t len, bool closing, size_t *tag_len)
{
    const char *stem = closing ? "</think" : "<think";
    size_t n = strlen(stem);

    for (const char *p = s, *end = s + len; (p = find(p, (size_t)(end - p), stem)) != NULL;
         p += n) {
        const char *rest = p + n;
        size_t left = (size_t)(end - rest);

        if (left >= 1 && rest[0] == '>') {
            *tag_len = n + 1;
            return p;
        }
        if (left >= 4 && memcmp(rest, "ing>", 4) == 0) {
            *tag_len = n + 4;
            return p;
        }
    }
    return NULL;
}

static int strip_think(reading *r, const char *reply, size_t len)
{
    rpl_strbuf out = RPL_STRBUF_INIT;
    const char *p = reply, *end = reply + len, *open, *close;
    size_t open_len, close_len;
    int rc = 0;

    /* Some servers drop the opening tag: a lone "</think>" ends the reasoning. */
    close = find_tag(p, len, true, &close_len);
    open = find_tag(p, len, false, &open_len);
    if (close && (!open || close < open)) {
        p = close + close_len;
        rc = note(r, "dropped the reasoning before a lone </think>");
    }
    while (!rc && p < end) {
        if (!(open = find_tag(p, (size_t)(end - p), false, &open_len))) {
            rc = rpl_strbuf_put(&out, p, (size_t)(end - p));
            break;
        }
        if ((rc = rpl_strbuf_put(&out, p, (size_t)(open - p))))
            break;
        close = find_tag(open + open_len, (size_t)(end - open - open_len), true, &close_len);
        if (!close) {
            rc = note(r, "an unterminated <think> section runs to the end of the reply");
            break;
        }
        p = close + close_len;
    }
    if (!rc)
        rc = rpl_strbuf_grow(&out, 0);
    if (rc) {
        rpl_strbuf_release(&out);
        return rpl_error_oom();
    }
    r->len = out.len;
    r->text = rpl_strbuf_detach(&out);
    return 0;
}

/* ---- lines -------------------------------------------------------------- */

static int split_lines(reading *r)
{
    size_t cap = 1, i = 0;

    for (size_t k = 0; k < r->len; k++)
        cap += r->text[k] == '\n';
    if (!(r->lines = calloc(cap, sizeof(*r->lines))))
        return rpl_error_oom();
    while (i < r->len) {
        const char *nl = memchr(r->text + i, '\n', r->len - i);
        size_t n = nl ? (size_t)(nl - (r->text + i)) : r->len - i;

        r->lines[r->n_lines].p = r->text + i;
        r->lines[r->n_lines].len = n && r->text[i + n - 1] == '\r' ? n - 1 : n;
        r->n_lines++;
        i += n + 1;
    }
    return 0;
}

/* ---- fences ------------------------------------------------------------- */

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* `name` appears in the line as a whole identifier. */
static bool has_ident(const rpl_line *l, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; n && i + n <= l->len; i++)
        if (memcmp(l->p + i, name, n) == 0 && (i == 0 || !ident_char(l->p[i - 1])) &&
            (i + n == l->len || !ident_char(l->p[i + n])))
            return true;
    return false;
}

/* A fence line: indent <= 3, then >= 3 of '`' or '~'.  Returns the run length, 0 if none. */
static size_t fence_run(const rpl_line *l, char *ch, size_t *after)
{
    size_t i = 0, run = 0;

    while (i < l->len && i < 4 && l->p[i] == ' ')
        i++;
    if (i == 4 || i >= l->len || (l->p[i] != '`' && l->p[i] != '~'))
        return 0;
    *ch = l->p[i];
    while (i + run < l->len && l->p[i + run] == *ch)
        run++;
    *after = i + run;
    return run >= 3 ? run : 0;
}

/* The first word of the info string, lowercase, matches a kernel language. */
static bool kernel_info(const rpl_line *l, size_t i)
{
    char word[16];
    size_t n = 0;

    while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
        i++;
    while (i < l->len && !strchr(" \t:{,", l->p[i])) {
        if (n + 1 >= sizeof(word))
            return false;
        word[n++] = (char)tolower((unsigned char)l->p[i++]);
    }
    word[n] = '\0';
    for (size_t k = 0; k < sizeof(kernel_langs) / sizeof(kernel_langs[0]); k++)
        if (strcmp(word, kernel_langs[k]) == 0)
            return true;
    return false;
}

static bool closes(const rpl_line *l, char ch, size_t open_run)
{
    char c;
    size_t after, run = fence_run(l, &c, &after);

    if (!run || c != ch || run < open_run)
        return false;
    for (; after < l->len; after++)
        if (l->p[after] != ' ' && l->p[after] != '\t')
            return false;
    return true;
}

static int find_fences(reading *r, const char *kernel)
{
    size_t i = 0;

    if (!(r->fences = calloc(r->n_lines / 2 + 1, sizeof(*r->fences))))
        return rpl_error_oom();
    while (i < r->n_lines) {
        char ch;
        size_t after, run = fence_run(&r->lines[i], &ch, &after);
        fence *f = &r->fences[r->n_fences];

        /* A backtick fence's info string holds no backtick (else it is inline code). */
        if (!run || (ch == '`' && memchr(r->lines[i].p + after, '`', r->lines[i].len - after))) {
            i++;
            continue;
        }
        memset(f, 0, sizeof(*f));
        f->open = i;
        f->kernel_lang = kernel_info(&r->lines[i], after);
        for (i++; i < r->n_lines && !closes(&r->lines[i], ch, run); i++) {
            f->has_global = f->has_global || has_ident(&r->lines[i], "__global__");
            f->has_kernel = f->has_kernel || !kernel || has_ident(&r->lines[i], kernel);
            f->has_sr = f->has_sr || rpl_sr_classify(&r->lines[i]) != RPL_SR_NONE;
        }
        if (i == r->n_lines)
            return rpl_error_set(RPL_EINPUT,
                                 "the reply ends inside the code block opened on line %zu "
                                 "(truncated?): close every block with %.*s",
                                 f->open + 1, (int)(run > 9 ? 9 : run),
                                 r->lines[f->open].p + after - run);
        f->close = i++;
        r->n_fences++;
    }
    return 0;
}

static bool is_candidate(const fence *f)
{
    return f->kernel_lang && f->has_global && f->has_kernel && !f->has_sr;
}

/* ---- decision ----------------------------------------------------------- */

static bool any_sr(const reading *r)
{
    for (size_t i = 0; i < r->n_lines; i++)
        if (rpl_sr_classify(&r->lines[i]) != RPL_SR_NONE &&
            rpl_sr_classify(&r->lines[i]) != RPL_SR_DIVIDER)
            return true;
    return false;
}

static int full_kernel(rpl_llm_patch *patch, reading *r, const char *kernel)
{
    const fence *last = NULL;
    size_t count = 0, code_blocks = 0, with_global = 0;
    rpl_strbuf code = RPL_STRBUF_INIT;
    char text[200];

    for (size_t i = 0; i < r->n_fences; i++) {
        const fence *f = &r->fences[i];

        code_blocks += f->kernel_lang;
        with_global += f->kernel_lang && f->has_global;
        if (is_candidate(f)) {
            last = f;
            count++;
        }
    }
    if (!last) {
        patch->kind = RPL_LLM_PATCH_NONE;
        if (!r->n_fences)
            snprintf(text, sizeof(text), "the reply has no fenced code block");
        else if (!code_blocks)
            snprintf(text, sizeof(text),
                     "the reply has no code block marked cpp, c++, hip, cuda, cu, c or unmarked");
        else if (!with_global || !kernel)
            snprintf(text, sizeof(text), "no code block of the reply holds a __global__ kernel");
        else
            snprintf(text, sizeof(text),
                     "no code block of the reply holds the __global__ kernel '%.100s'", kernel);
        return note(r, text);
    }
    if (count > 1) {
        snprintf(text, sizeof(text), "%zu code blocks hold the kernel; took the last (line %zu)",
                 count, last->open + 1);
        if (note(r, text))
            return RPL_ENOMEM;
    }
    if (rpl_lines_join(&code, r->lines, last->open + 1, last->close)) {
        rpl_strbuf_release(&code);
        return rpl_error_oom();
    }
    patch->kind = RPL_LLM_PATCH_FULL_KERNEL;
    patch->code = rpl_strbuf_detach(&code);
    return 0;
}

static int search_replace(rpl_llm_patch *patch, reading *r)
{
    for (size_t i = 0; i < r->n_fences; i++)
        if (is_candidate(&r->fences[i]))
            return rpl_error_set(RPL_EINPUT,
                                 "the reply has SEARCH/REPLACE blocks and a full kernel in the "
                                 "code block on line %zu: send one or the other",
                                 r->fences[i].open + 1);
    return rpl_sr_parse(patch, r->lines, r->n_lines);
}

int rpl_llm_patch_extract(rpl_llm_patch **out, const char *reply, size_t len, const char *kernel)
{
    reading r;
    rpl_llm_patch *patch;
    int rc;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    if (!(patch = calloc(1, sizeof(*patch))))
        return rpl_error_oom();
    if (kernel && !kernel[0])
        kernel = NULL;
    if (reply && memchr(reply, '\0', len)) {
        free(patch);
        return rpl_error_set(RPL_EINPUT, "the reply holds a NUL byte (offset %zu)",
                             (size_t)((const char *)memchr(reply, '\0', len) - reply));
    }
    if (!(rc = strip_think(&r, reply ? reply : "", reply ? len : 0)) && !(rc = split_lines(&r)) &&
        !(rc = find_fences(&r, kernel)))
        rc = any_sr(&r) ? search_replace(patch, &r) : full_kernel(patch, &r, kernel);
    if (!rc && r.notes.len && !(patch->notes = rpl_strbuf_detach(&r.notes)))
        rc = rpl_error_oom();
    free(r.text);
    free(r.lines);
    free(r.fences);
    rpl_strbuf_release(&r.notes);
    if (rc) {
        rpl_llm_patch_free(patch);
        return rc;
    }
    *out = patch;
    return 0;
}

void rpl_llm_patch_free(rpl_llm_patch *patch)
{
    if (!patch)
        return;
    for (size_t i = 0; i < patch->n_edits; i++) {
        free(patch->edits[i].search);
        free(patch->edits[i].replace);
    }
    RPL_FREE_EACH(patch->edits, patch->code, patch->notes, patch);
}

const char *rpl_llm_patch_kind_name(rpl_llm_patch_kind kind)
{
    switch (kind) {
    case RPL_LLM_PATCH_FULL_KERNEL:
        return "full_kernel";
    case RPL_LLM_PATCH_SEARCH_REPLACE:
        return "search_replace";
    case RPL_LLM_PATCH_NONE:
        break;
    }
    return "none";
}
