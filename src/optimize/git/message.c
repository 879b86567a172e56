/* Commit messages of accepted changes, and their trailers read back (rpl/optgit.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "git_internal.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

/* One line of text: no control characters but tab; not empty; no edge blanks when `trim`. */
static int check_line(const char *what, const char *s, bool trim)
{
    const unsigned char *p;
    size_t n;

    if (!s || !s[0])
        return rpl_error_set(RPL_EINPUT, "commit message: %s is empty", what);
    for (p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            return rpl_error_set(
                RPL_EINPUT, "commit message: %s contains a line break or control character", what);
    n = (size_t)(p - (const unsigned char *)s);
    if (trim && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        return rpl_error_set(RPL_EINPUT, "commit message: %s starts or ends with a blank", what);
    return 0;
}

static int check_key(const char *key)
{
    const char *p;

    if (!key || !key[0] || key[0] == '-')
        return rpl_error_set(RPL_EINPUT, "commit message: empty or bad trailer key");
    for (p = key; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-'))
            return rpl_error_set(
                RPL_EINPUT, "commit message: trailer key '%s' is not letters, digits and '-'", key);
    return 0;
}

/* Append the body without blank lines around it, refusing a line git takes for a patch start. */
static int put_body(rpl_strbuf *sb, const char *body)
{
    size_t len, line = 1;
    const char *p;

    body += strspn(body, "\n");
    len = strlen(body);
    while (len > 0 && (body[len - 1] == '\n' || body[len - 1] == ' ' || body[len - 1] == '\t' ||
                       body[len - 1] == '\r'))
        len--;
    if (len == 0)
        return 0;
    for (p = body; p < body + len; line++) {
        const char *nl = memchr(p, '\n', (size_t)(body + len - p));
        if (strncmp(p, "---", 3) == 0)
            return rpl_error_set(RPL_EINPUT,
                                 "commit message: body line %zu starts with '---', which git "
                                 "reads as the start of a patch",
                                 line);
        if (!nl)
            break;
        p = nl + 1;
    }
    if (rpl_strbuf_puts(sb, "\n") || rpl_strbuf_put(sb, body, len) || rpl_strbuf_puts(sb, "\n"))
        return RPL_ENOMEM;
    return 0;
}

/*
 * git decides what a trailer is (the last paragraph, patch separators,
 * continuation lines): read the message back and insist on exactly the
 * trailers given, so that no body text is ever taken for one.
 */
static int check_reads_back(const char *msg, const rpl_commit_msg *m)
{
    rpl_trailers *t;
    size_t i;
    int rc;

    if ((rc = rpl_trailers_parse(&t, msg)) < 0)
        return rc;
    for (i = 0; i < t->count && i < m->n_trailers; i++)
        if (strcmp(t->items[i].key, m->trailers[i].key) != 0 ||
            strcmp(t->items[i].value, m->trailers[i].value) != 0)
            break;
    if (i != t->count || i != m->n_trailers)
        rc = rpl_error_set(RPL_EINPUT,
                           "commit message: git would not read the trailers back as given (the "
                           "body's last paragraph looks like trailers)");
    rpl_trailers_free(t);
    return rc;
}

/* Characters of a UTF-8 text (bytes that do not continue a sequence). */
static size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xc0) != 0x80;
    return n;
}

/*
 * The bytes of `s` to keep in at most `room` characters: all of it when it
 * fits, else up to the last blank that leaves room for "...", without the
 * punctuation before it (a word longer than the room is cut at a character).
 */
static size_t fit_words(const char *s, size_t room, bool *cut)
{
    size_t len = strlen(s), end = 0, keep = 0;

    *cut = utf8_chars(s, len) > room;
    if (!*cut)
        return len;
    room = room > 3 ? room - 3 : 0;
    while (end < len && utf8_chars(s, end + 1) <= room) {
        end++;
        if (s[end] == ' ')
            keep = end;
    }
    while (end < len && ((unsigned char)s[end] & 0xc0) == 0x80)
        end--; /* never half a character */
    if (keep == 0)
        keep = end;
    while (keep > 0 && strchr(" ,;:.-", s[keep - 1]))
        keep--;
    return keep;
}

int rpl_commit_msg_format(const rpl_commit_msg *m, char **out)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    double change = m->time_change_pct;
    char result[64], prefix[RPL_COMMIT_SUBJECT_MAX + 1];
    size_t i, keep, room;
    bool cut, short_prefix;
    int rc;

    *out = NULL;
    if ((rc = check_line("the kernel name", m->kernel, false)) < 0 ||
        (rc = check_line("the strategy", m->strategy, false)) < 0)
        return rc;
    if (!isfinite(change))
        return rpl_error_set(RPL_EINPUT, "commit message: the time change is not a number");
    for (i = 0; i < m->n_trailers; i++)
        if ((rc = check_key(m->trailers[i].key)) < 0 ||
            (rc = check_line(m->trailers[i].key, m->trailers[i].value, true)) < 0)
            return rc;
    /* perf(KERNEL): STRATEGY (-12.3% ±0.4%) in at most 72 characters: the strategy is cut at
       a word (and a long kernel name left out) with the whole of both in the body. */
    if (isfinite(m->ci_half_pct) && m->ci_half_pct >= 0)
        snprintf(result, sizeof(result), " (%c%.1f%% \u00b1%.1f%%)", change < 0 ? '-' : '+',
                 fabs(change), m->ci_half_pct);
    else
        snprintf(result, sizeof(result), " (%c%.1f%%)", change < 0 ? '-' : '+', fabs(change));
    short_prefix =
        snprintf(prefix, sizeof(prefix), "perf(%s): ", m->kernel) >= (int)sizeof(prefix) ||
        utf8_chars(prefix, strlen(prefix)) + utf8_chars(result, strlen(result)) + 16 >
            RPL_COMMIT_SUBJECT_MAX;
    if (short_prefix)
        snprintf(prefix, sizeof(prefix), "perf: ");
    room = RPL_COMMIT_SUBJECT_MAX - utf8_chars(prefix, strlen(prefix)) -
           utf8_chars(result, strlen(result));
    keep = fit_words(m->strategy, room, &cut);
    rc = rpl_strbuf_printf(&sb, "%s%.*s%s%s\n", prefix, (int)keep, m->strategy, cut ? "..." : "",
                           result);
    if (!rc && (cut || short_prefix))
        rc =
            rpl_strbuf_printf(&sb, "\n%s%s%s%s\n", short_prefix ? "Kernel " : "",
                              short_prefix ? m->kernel : "", short_prefix ? ": " : "", m->strategy);
    if (!rc && m->body)
        rc = put_body(&sb, m->body);
    if (!rc && m->n_trailers)
        rc = rpl_strbuf_puts(&sb, "\n");
    for (i = 0; i < m->n_trailers && !rc; i++)
        rc = rpl_strbuf_printf(&sb, "%s: %s\n", m->trailers[i].key, m->trailers[i].value);
    if (!rc)
        rc = check_reads_back(sb.ptr, m);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

void rpl_trailers_free(rpl_trailers *t)
{
    size_t i;

    if (!t)
        return;
    for (i = 0; i < t->count; i++) {
        free((char *)t->items[i].key);
        free((char *)t->items[i].value);
    }
    free(t->items);
    free(t);
}

int rpl_trailers_parse(rpl_trailers **out, const char *message)
{
    git_message_trailer_array arr = {0};
    rpl_trailers *t;
    size_t i;
    int rc;

    *out = NULL;
    if ((rc = rpl_git_init()) < 0)
        return rc;
    if (!(t = calloc(1, sizeof(*t))))
        return rpl_error_oom();
    if ((rc = git_message_trailers(&arr, message)) < 0) {
        free(t);
        return rpl_git_fail(rc, "cannot parse the commit message's trailers");
    }
    if (arr.count && !(t->items = calloc(arr.count, sizeof(*t->items))))
        goto oom;
    for (i = 0; i < arr.count; i++) {
        t->items[i].key = strdup(arr.trailers[i].key);
        t->items[i].value = strdup(arr.trailers[i].value);
        t->count = i + 1;
        if (!t->items[i].key || !t->items[i].value)
            goto oom;
    }
    git_message_trailer_array_free(&arr);
    *out = t;
    return 0;
oom:
    git_message_trailer_array_free(&arr);
    rpl_trailers_free(t);
    return rpl_error_oom();
}

const char *rpl_trailers_get(const rpl_trailers *t, const char *key)
{
    size_t i;

    for (i = 0; i < t->count; i++)
        if (strcasecmp(t->items[i].key, key) == 0)
            return t->items[i].value;
    return NULL;
}
