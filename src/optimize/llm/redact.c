/* Removing keys and authorization header values from text (see rpl/llm.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/error.h"
#include "rpl/llm.h"
#include "rpl/strbuf.h"

#define REDACTED "[REDACTED]"
/* "sk-" counts as a key only with at least this many key characters after it. */
#define SK_MIN_TAIL 8

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Characters of a header value or key: up to white space, a quote or a backslash. */
static size_t value_len(const char *s)
{
    size_t n = 0;

    while (s[n] && !isspace((unsigned char)s[n]) && s[n] != '"' && s[n] != '\'' && s[n] != '\\' &&
           s[n] != ',' && s[n] != ';')
        n++;
    return n;
}

static size_t skip_blanks(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

/*
 * At text+i: "Bearer <value>" → length of the prefix kept ("Bearer ") in
 * *keep and of the whole match in the result; 0 when no match.
 */
static size_t match_bearer(const char *text, size_t i, size_t *keep)
{
    size_t j;

    if (i > 0 && word_char(text[i - 1]))
        return 0;
    if (strncasecmp(text + i, "bearer", 6) != 0 || (text[i + 6] != ' ' && text[i + 6] != '\t'))
        return 0;
    j = skip_blanks(text, i + 6);
    if (!value_len(text + j))
        return 0;
    *keep = j - i;
    return j - i + value_len(text + j);
}

/* "x-api-key: v", "x-api-key=v", "\"x-api-key\": \"v\"" (any case). */
static size_t match_api_key(const char *text, size_t i, size_t *keep)
{
    size_t j = i + 9;

    if (i > 0 && word_char(text[i - 1]))
        return 0;
    if (strncasecmp(text + i, "x-api-key", 9) != 0)
        return 0;
    if (text[j] == '"' || text[j] == '\'')
        j++;
    j = skip_blanks(text, j);
    if (text[j] != ':' && text[j] != '=')
        return 0;
    j = skip_blanks(text, j + 1);
    if (text[j] == '"' || text[j] == '\'')
        j++;
    if (!value_len(text + j))
        return 0;
    *keep = j - i;
    return j - i + value_len(text + j);
}

static bool sk_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '*' || c == '.';
}

/* "sk-" and at least SK_MIN_TAIL key characters. */
static size_t match_sk(const char *text, size_t i)
{
    size_t n = 0;

    if ((i > 0 && word_char(text[i - 1])) || strncmp(text + i, "sk-", 3) != 0)
        return 0;
    while (sk_char(text[i + 3 + n]))
        n++;
    return n >= SK_MIN_TAIL ? 3 + n : 0;
}

int rpl_llm_redact(char **out, const char *text, const char *secret)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t secret_len = secret ? strlen(secret) : 0;
    size_t i = 0, start = 0, keep = 0, n;
    int rc = 0;

    *out = NULL;
    if (!text)
        text = "";
    while (text[i] && !rc) {
        if (secret_len && strncmp(text + i, secret, secret_len) == 0) {
            keep = 0;
            n = secret_len;
        } else if ((n = match_bearer(text, i, &keep)) == 0 &&
                   (n = match_api_key(text, i, &keep)) == 0) {
            keep = 0;
            n = match_sk(text, i);
        }
        if (!n) {
            i++;
            continue;
        }
        if ((rc = rpl_strbuf_put(&sb, text + start, i + keep - start)) == 0)
            rc = rpl_strbuf_puts(&sb, REDACTED);
        i += n;
        start = i;
    }
    if (!rc)
        rc = rpl_strbuf_put(&sb, text + start, i - start);
    if (!rc && !sb.ptr)
        rc = rpl_strbuf_grow(&sb, 0);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}
