/*
 * The transcript: one JSON object per turn, JSON Lines
 * (docs/schemas/llm-transcript.schema.json).  Every append rewrites the
 * whole file through a temporary sibling and a rename, so a reader (or a
 * crash) never sees half a line.  Every string goes through the client's
 * redaction first.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/strbuf.h"

struct rpl_llm_transcript {
    char *path;
    const rpl_llm_client *client;
    rpl_strbuf lines; /* everything written so far */
};

int rpl_llm_transcript_open(rpl_llm_transcript **out, const char *path,
                            const rpl_llm_client *client)
{
    rpl_llm_transcript *t;

    *out = NULL;
    if (!path || !path[0] || !client)
        return rpl_error_set(RPL_EUSAGE, "a transcript needs a path and a client");
    if (!(t = calloc(1, sizeof(*t))) || !(t->path = strdup(path))) {
        free(t);
        return rpl_error_oom();
    }
    t->client = client;
    *out = t;
    return 0;
}

void rpl_llm_transcript_free(rpl_llm_transcript *t)
{
    if (!t)
        return;
    free(t->path);
    rpl_strbuf_release(&t->lines);
    free(t);
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs or surrogates), else 0. */
static size_t utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        unsigned lo = s[0] == 0xE0 ? 0xA0 : 0x80, hi = s[0] == 0xED ? 0x9F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        unsigned lo = s[0] == 0xF0 ? 0x90 : 0x80, hi = s[0] == 0xF4 ? 0x8F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/*
 * Model output is not checked for UTF-8 on the way in; a JSON file must be
 * UTF-8, so every invalid byte becomes U+FFFD.
 */
static char *valid_utf8(const char *text)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)text;

    while (*p) {
        size_t n = utf8_len(p);
        if (n ? rpl_strbuf_put(&sb, p, n) : rpl_strbuf_puts(&sb, "\xEF\xBF\xBD")) {
            rpl_strbuf_release(&sb);
            return NULL;
        }
        p += n ? n : 1;
    }
    if (rpl_strbuf_grow(&sb, 0)) {
        rpl_strbuf_release(&sb);
        return NULL;
    }
    return rpl_strbuf_detach(&sb);
}

/* Add `key`: the redacted string in valid UTF-8, or null for NULL. */
static int add_text(cJSON *obj, const rpl_llm_client *c, const char *key, const char *text)
{
    char *redacted = NULL, *clean;
    cJSON *item;

    if (!text)
        return cJSON_AddNullToObject(obj, key) ? 0 : rpl_error_oom();
    if (rpl_llm_client_redact(&redacted, c, text))
        return RPL_ENOMEM;
    clean = valid_utf8(redacted);
    free(redacted);
    if (!clean)
        return rpl_error_oom();
    item = cJSON_AddStringToObject(obj, key, clean);
    free(clean);
    return item ? 0 : rpl_error_oom();
}

static int add_count(cJSON *obj, const char *key, int64_t n)
{
    cJSON *item =
        n >= 0 ? cJSON_AddNumberToObject(obj, key, (double)n) : cJSON_AddNullToObject(obj, key);
    return item ? 0 : rpl_error_oom();
}

static int add_number(cJSON *obj, const char *key, double v)
{
    return cJSON_AddNumberToObject(obj, key, v) ? 0 : rpl_error_oom();
}

static int utc_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;

    if (!gmtime_r(&now, &tm) || !strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return rpl_error_set(RPL_ERROR, "cannot format the time");
    return 0;
}

static int build_line(cJSON *o, const rpl_llm_client *c, int turn_no, const rpl_llm_request *req,
                      const rpl_llm_turn *turn, const char *note)
{
    const rpl_llm_message *last = req->n_messages ? &req->messages[req->n_messages - 1] : NULL;
    char when[32];
    cJSON *usage;
    int rc;

    if ((rc = utc_now(when, sizeof(when))))
        return rc;
    if ((rc = add_text(o, c, "schema_version", RPL_LLM_TRANSCRIPT_SCHEMA_VERSION)) ||
        (rc = add_number(o, "turn", turn_no)) || (rc = add_text(o, c, "time", when)) ||
        (rc = add_text(o, c, "provider", rpl_llm_provider_name(c->cfg.provider))) ||
        (rc = add_text(o, c, "model", c->model)) ||
        (rc = add_text(o, c, "base_url", c->base_url)) ||
        (rc = add_text(o, c, "system", req->system && req->system[0] ? req->system : NULL)) ||
        (rc = add_text(o, c, "role",
                       last && last->role == RPL_LLM_ASSISTANT ? "assistant" : "user")) ||
        (rc = add_text(o, c, "prompt", last ? last->content : "")) ||
        (rc = add_text(o, c, "response", turn->text)) ||
        (rc = add_text(o, c, "finish_reason", turn->finish_reason)) ||
        (rc = add_text(o, c, "outcome", rpl_llm_outcome_name(turn->outcome))) ||
        (rc = add_number(o, "http_status", (double)turn->http_status)) ||
        (rc = add_number(o, "attempts", turn->attempts)) ||
        (rc = add_number(o, "latency_s", turn->latency_s)) ||
        (rc = add_number(o, "wait_s", turn->wait_s)))
        return rc;
    if (!(usage = cJSON_AddObjectToObject(o, "usage")))
        return rpl_error_oom();
    if ((rc = add_count(usage, "input_tokens", turn->input_tokens)) ||
        (rc = add_count(usage, "output_tokens", turn->output_tokens)) ||
        (rc = add_text(o, c, "request_id", turn->request_id)) ||
        (rc = add_text(o, c, "error", turn->error)) || (rc = add_text(o, c, "note", note)))
        return rc;
    return 0;
}

int rpl_llm_transcript_append(rpl_llm_transcript *t, int turn_no, const rpl_llm_request *req,
                              const rpl_llm_turn *turn, const char *note)
{
    cJSON *o = cJSON_CreateObject();
    size_t old_len = t->lines.len;
    char *line = NULL;
    int rc;

    if (!o)
        return rpl_error_oom();
    if (turn_no < 1) {
        cJSON_Delete(o);
        return rpl_error_set(RPL_EUSAGE, "transcript turns count from 1");
    }
    rc = build_line(o, t->client, turn_no, req, turn, note);
    if (!rc && !(line = cJSON_PrintUnformatted(o)))
        rc = rpl_error_oom();
    cJSON_Delete(o);
    if (!rc && !(rc = rpl_strbuf_puts(&t->lines, line)) && !(rc = rpl_strbuf_putc(&t->lines, '\n')))
        rc = rpl_file_write_atomic(t->path, t->lines.ptr, t->lines.len);
    free(line);
    if (rc && t->lines.ptr) {
        /* Keep the file and the buffer in step: the failed line is not written. */
        t->lines.len = old_len;
        t->lines.ptr[old_len] = '\0';
    }
    if (rc)
        rpl_error_prefix("transcript '%s'", t->path);
    return rc;
}
