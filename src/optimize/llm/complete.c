/* One turn: the request, its retries and the reply (see rpl/llm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client.h"
#include "llm_int.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"
#include "rpl/version.h"

#define REQUEST_ID_MAX 200
/* Bytes of a non-JSON error body quoted in a message. */
#define BODY_QUOTE_MAX 200
/* Longest debug log line. */
#define TRACE_LINE_MAX 2048

typedef struct attempt {
    rpl_strbuf body;
    bool too_big;
    char request_id[REQUEST_ID_MAX + 1];
    CURLcode curl_code;
    long http_status;
    long retry_after;
    char errbuf[CURL_ERROR_SIZE];
} attempt;

static bool interrupted(const rpl_llm_client *c)
{
    return c->cfg.interrupted && c->cfg.interrupted(c->cfg.interrupt_ctx);
}

/* Sleep in short slices so that an interrupt is seen at once; false when interrupted. */
static bool sleep_interruptible(const rpl_llm_client *c, double seconds)
{
    double end = rpl_clock_mono_s() + seconds, left;

    while ((left = end - rpl_clock_mono_s()) > 0) {
        struct timespec ts;

        if (interrupted(c))
            return false;
        if (left > 0.05)
            left = 0.05;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)(left * 1e9);
        nanosleep(&ts, NULL);
    }
    return !interrupted(c);
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    attempt *a = ud;
    size_t len = size * n;

    if (a->body.len + len > RPL_LLM_MAX_REPLY_BYTES) {
        a->too_big = true;
        return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
    }
    return rpl_strbuf_put(&a->body, data, len) == 0 ? len : 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    attempt *a = ud;
    size_t len = size * n, skip, v = 0;

    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        a->request_id[0] = '\0'; /* a new response (after 100 Continue) */
        return len;
    }
    if (len > 13 && strncasecmp(data, "x-request-id:", 13) == 0)
        skip = 13;
    else if (len > 11 && strncasecmp(data, "request-id:", 11) == 0)
        skip = 11;
    else
        return len;
    while (skip < len && (data[skip] == ' ' || data[skip] == '\t'))
        skip++;
    while (skip < len && v < REQUEST_ID_MAX && (unsigned char)data[skip] > 0x20 &&
           (unsigned char)data[skip] < 0x7f)
        a->request_id[v++] = data[skip++];
    a->request_id[v] = '\0';
    return len;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    return interrupted(ud) ? 1 : 0;
}

/* Trace-level log of the exchange: headers only, every line redacted. */
static int on_debug(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
    const rpl_llm_client *c = ud;
    const char *tag;
    size_t i = 0;

    if (type == CURLINFO_TEXT)
        tag = "*";
    else if (type == CURLINFO_HEADER_OUT)
        tag = ">";
    else if (type == CURLINFO_HEADER_IN)
        tag = "<";
    else
        return 0;
    while (i < size) {
        char line[TRACE_LINE_MAX + 1], *clean = NULL;
        size_t n = 0;

        while (i < size && data[i] != '\n' && n < TRACE_LINE_MAX)
            line[n++] = data[i++];
        while (i < size && data[i] != '\n')
            i++; /* the rest of an over-long line */
        i++;
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
            n--;
        line[n] = '\0';
        if (n && rpl_llm_client_redact(&clean, c, line) == 0)
            rpl_log(RPL_LOG_TRACE, "llm http %s %s", tag, clean);
        free(clean);
    }
    return 0;
}

static void set_options(rpl_llm_client *c, const char *body, attempt *a)
{
    CURL *h = c->curl;

    curl_easy_setopt(h, CURLOPT_URL, c->endpoint);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    /* A redirect could carry the key to another host: never follow one. */
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->cfg.connect_timeout_s * 1000.0));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->cfg.timeout_s * 1000.0));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "rocm-perf-lab/" RPL_VERSION_STRING);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, a->errbuf);
    if (rpl_log_get_level() >= RPL_LOG_TRACE) {
        curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
        curl_easy_setopt(h, CURLOPT_DEBUGDATA, c);
        curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
    } else {
        curl_easy_setopt(h, CURLOPT_VERBOSE, 0L);
    }
}

static void perform(rpl_llm_client *c, const char *body, attempt *a)
{
    curl_off_t retry_after = 0;

    set_options(c, body, a);
    a->curl_code = curl_easy_perform(c->curl);
    if (a->curl_code == CURLE_OK) {
        curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &a->http_status);
        curl_easy_getinfo(c->curl, CURLINFO_RETRY_AFTER, &retry_after);
        a->retry_after = retry_after > 0 && retry_after < 1000000 ? (long)retry_after : 0;
    }
    curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, NULL);
}

/* ---- messages --------------------------------------------------------- */

static const char *provider(const rpl_llm_client *c)
{
    return rpl_llm_provider_name(c->cfg.provider);
}

/* "openai: HTTP 429 rate_limit_exceeded: <message>" or "openai: <endpoint>: <curl error>". */
static int describe_failure(rpl_strbuf *msg, const rpl_llm_client *c, const attempt *a,
                            const rpl_llm_api_error *e)
{
    if (a->curl_code != CURLE_OK)
        return rpl_strbuf_printf(msg, "%s: %s: %s", provider(c), c->endpoint,
                                 a->errbuf[0] ? a->errbuf : curl_easy_strerror(a->curl_code));
    if (rpl_strbuf_printf(msg, "%s: HTTP %ld", provider(c), a->http_status))
        return RPL_ENOMEM;
    if ((e->code || e->type) && rpl_strbuf_printf(msg, " %s", e->code ? e->code : e->type))
        return RPL_ENOMEM;
    if (e->message)
        return rpl_strbuf_printf(msg, ": %s", e->message);
    if (a->body.len) {
        size_t n = a->body.len < BODY_QUOTE_MAX ? a->body.len : BODY_QUOTE_MAX;
        return rpl_strbuf_printf(msg, ": %.*s", (int)n, a->body.ptr);
    }
    return rpl_strbuf_puts(msg, " with an empty body");
}

/* Settle the turn: outcome, redacted message on the turn and as the thread's error. */
static int finish(rpl_llm_client *c, rpl_llm_turn *turn, double t0, rpl_llm_outcome outcome,
                  int code, const rpl_strbuf *msg)
{
    turn->outcome = outcome;
    turn->latency_s = rpl_clock_mono_s() - t0;
    if (outcome == RPL_LLM_OK)
        return 0;
    if (rpl_llm_client_redact(&turn->error, c, rpl_strbuf_cstr(msg)) != 0)
        return RPL_ENOMEM;
    /* One line: a quoted body may hold line breaks. */
    for (char *p = turn->error; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    for (size_t n = strlen(turn->error); n > 0 && turn->error[n - 1] == ' '; n--)
        turn->error[n - 1] = '\0';
    return rpl_error_set(code, "%s", turn->error);
}

static int keep_string(char **dst, const char *src)
{
    free(*dst);
    *dst = NULL;
    if (!src || !src[0])
        return 0;
    return (*dst = strdup(src)) ? 0 : rpl_error_oom();
}

/* A 2xx reply: parse it and judge the text. */
static int take_reply(rpl_llm_client *c, rpl_llm_turn *turn, double t0, const attempt *a,
                      rpl_strbuf *msg)
{
    rpl_llm_reply r;
    rpl_llm_api_error e;
    bool truncated, filtered;
    int rc;

    if (rpl_llm_reply_parse(&r, c->cfg.provider, a->body.ptr ? a->body.ptr : "", a->body.len)) {
        if (rpl_strbuf_printf(msg, "%s: HTTP %ld: %s", provider(c), a->http_status,
                              rpl_error_last()->message))
            return rpl_error_oom();
        if (rpl_llm_error_parse(&e, a->body.ptr, a->body.len) == 0 && e.message &&
            rpl_strbuf_printf(msg, ": %s", e.message)) {
            rpl_llm_api_error_release(&e);
            return rpl_error_oom();
        }
        rpl_llm_api_error_release(&e);
        return finish(c, turn, t0, RPL_LLM_BAD_REPLY, RPL_EINPUT, msg);
    }
    turn->input_tokens = r.input_tokens;
    turn->output_tokens = r.output_tokens;
    turn->text = r.text;
    turn->finish_reason = r.finish_reason;
    r.text = r.finish_reason = NULL;
    truncated = r.truncated;
    filtered = r.filtered;
    if (!turn->request_id && (rc = keep_string(&turn->request_id, r.id))) {
        rpl_llm_reply_release(&r);
        return rc;
    }
    rpl_llm_reply_release(&r);
    if (truncated) {
        rpl_strbuf_printf(msg,
                          "%s: the reply was cut at the token limit (%s %s); it is not used "
                          "(raise the max tokens or ask for a shorter answer)",
                          provider(c),
                          c->cfg.provider == RPL_LLM_ANTHROPIC ? "stop_reason" : "finish_reason",
                          turn->finish_reason);
        return finish(c, turn, t0, RPL_LLM_TRUNCATED, RPL_EFAIL, msg);
    }
    if (filtered) {
        rpl_strbuf_printf(msg, "%s: the provider stopped the reply (%s)", provider(c),
                          turn->finish_reason ? turn->finish_reason : "refusal");
        return finish(c, turn, t0, RPL_LLM_BAD_REPLY, RPL_EINPUT, msg);
    }
    if (!turn->text || !turn->text[0]) {
        rpl_strbuf_printf(msg, "%s: the reply has no text", provider(c));
        return finish(c, turn, t0, RPL_LLM_BAD_REPLY, RPL_EINPUT, msg);
    }
    return finish(c, turn, t0, RPL_LLM_OK, 0, msg);
}

/* A failure that another attempt would repeat. */
static int take_final(rpl_llm_client *c, rpl_llm_turn *turn, double t0, const attempt *a,
                      const rpl_llm_api_error *e, rpl_strbuf *msg)
{
    long s = a->http_status;

    if (describe_failure(msg, c, a, e))
        return rpl_error_oom();
    if (a->curl_code != CURLE_OK)
        return finish(c, turn, t0, RPL_LLM_UNAVAILABLE, RPL_EIO, msg);
    if (s == 401 || s == 403) {
        rpl_strbuf_puts(msg, " (check the API key and its access to the model)");
        return finish(c, turn, t0, RPL_LLM_AUTH, RPL_EENV, msg);
    }
    if (s == 429) {
        rpl_strbuf_puts(msg, " (a spend limit or quota: not retried)");
        return finish(c, turn, t0, RPL_LLM_QUOTA, RPL_EENV, msg);
    }
    if (s >= 300 && s < 400) {
        rpl_strbuf_puts(msg, " (redirects are not followed: give the final base URL)");
        return finish(c, turn, t0, RPL_LLM_REJECTED, RPL_EUSAGE, msg);
    }
    if (s >= 500)
        return finish(c, turn, t0, RPL_LLM_UNAVAILABLE, RPL_EIO, msg);
    return finish(c, turn, t0, RPL_LLM_REJECTED, RPL_EUSAGE, msg);
}

static int interrupted_turn(rpl_llm_client *c, rpl_llm_turn *turn, double t0, rpl_strbuf *msg)
{
    rpl_strbuf_reset(msg);
    rpl_strbuf_printf(msg, "%s: interrupted", provider(c));
    return finish(c, turn, t0, RPL_LLM_INTERRUPTED, RPL_EFAIL, msg);
}

/* The wait before the next attempt, or -1 to give up (*msg then says why). */
static double next_wait(rpl_llm_client *c, const rpl_llm_turn *turn, long retry_after,
                        rpl_strbuf *msg)
{
    double wait = rpl_llm_retry_after_clamp(retry_after);
    double left = c->cfg.max_wait_s - turn->wait_s;

    if (turn->attempts >= c->cfg.max_attempts) {
        rpl_strbuf_printf(msg, " (gave up after %d attempts, %.1f s of waiting)", turn->attempts,
                          turn->wait_s);
        return -1;
    }
    if (wait < 0)
        wait = rpl_llm_backoff_s(c->cfg.backoff_base_s, turn->attempts, rpl_rng_unit(&c->rng));
    if (wait > left) {
        rpl_strbuf_printf(msg,
                          " (gave up after %d attempts: the next wait of %.1f s would pass the "
                          "%.0f s retry limit)",
                          turn->attempts, wait, c->cfg.max_wait_s);
        return -1;
    }
    return wait;
}

static void log_retry(const rpl_llm_client *c, const rpl_llm_turn *turn, const rpl_strbuf *msg,
                      double wait)
{
    char *line = NULL;

    if (rpl_llm_client_redact(&line, c, rpl_strbuf_cstr(msg)) == 0)
        rpl_log_warn("%s; attempt %d of %d in %.1f s", line, turn->attempts + 1,
                     c->cfg.max_attempts, wait);
    free(line);
}

/*
 * One attempt.  Returns RPL_LLM_RETRY with *msg describing the failure, or
 * else the turn is settled and *rc holds its status.
 */
static rpl_llm_decision one_attempt(rpl_llm_client *c, rpl_llm_turn *turn, double t0,
                                    const char *body, attempt *a, rpl_strbuf *msg, int *rc)
{
    rpl_llm_api_error e;
    rpl_llm_decision d;

    memset(&e, 0, sizeof(e));
    perform(c, body, a);
    turn->attempts++;
    turn->http_status = a->http_status;
    if ((*rc = keep_string(&turn->request_id, a->request_id)))
        return RPL_LLM_FINAL;
    if (a->curl_code == CURLE_ABORTED_BY_CALLBACK) {
        *rc = interrupted_turn(c, turn, t0, msg);
        return RPL_LLM_FINAL;
    }
    if (a->too_big) {
        rpl_strbuf_printf(msg, "%s: the reply is larger than %u MiB", provider(c),
                          RPL_LLM_MAX_REPLY_BYTES >> 20);
        *rc = finish(c, turn, t0, RPL_LLM_BAD_REPLY, RPL_EINPUT, msg);
        return RPL_LLM_FINAL;
    }
    if (a->curl_code == CURLE_OK && (a->http_status < 200 || a->http_status >= 300) &&
        (*rc = rpl_llm_error_parse(&e, a->body.ptr, a->body.len)))
        return RPL_LLM_FINAL;
    if (!turn->request_id && (*rc = keep_string(&turn->request_id, e.request_id))) {
        rpl_llm_api_error_release(&e);
        return RPL_LLM_FINAL;
    }
    d = rpl_llm_retry_decide(a->curl_code, a->http_status, e.spend_limit);
    if (d == RPL_LLM_DONE) {
        *rc = take_reply(c, turn, t0, a, msg);
        d = RPL_LLM_FINAL;
    } else if (d == RPL_LLM_FINAL) {
        *rc = take_final(c, turn, t0, a, &e, msg);
    } else if ((*rc = describe_failure(msg, c, a, &e))) {
        d = RPL_LLM_FINAL;
    }
    rpl_llm_api_error_release(&e);
    return d;
}

int rpl_llm_complete(rpl_llm_client *c, const rpl_llm_request *req, rpl_llm_turn *turn)
{
    rpl_llm_body_opts opts = {c->cfg.provider, c->cfg.model, c->cfg.has_temperature,
                              c->cfg.temperature, c->cfg.max_tokens};
    rpl_strbuf msg = RPL_STRBUF_INIT;
    char *body = NULL;
    double t0 = rpl_clock_mono_s();
    int rc = 0;

    memset(turn, 0, sizeof(*turn));
    turn->input_tokens = turn->output_tokens = -1;
    if (rpl_llm_request_body(&body, &opts, req) != 0) {
        rpl_strbuf_printf(&msg, "%s: %s", provider(c), rpl_error_last()->message);
        rc = finish(c, turn, t0, RPL_LLM_REJECTED, rpl_error_last()->code, &msg);
    }
    while (body) {
        attempt a;
        rpl_llm_decision d;
        double wait;

        if (interrupted(c)) {
            rc = interrupted_turn(c, turn, t0, &msg);
            break;
        }
        memset(&a, 0, sizeof(a));
        rpl_strbuf_reset(&msg);
        d = one_attempt(c, turn, t0, body, &a, &msg, &rc);
        rpl_strbuf_release(&a.body);
        if (d != RPL_LLM_RETRY)
            break;
        if ((wait = next_wait(c, turn, a.retry_after, &msg)) < 0) {
            rc = finish(c, turn, t0, RPL_LLM_UNAVAILABLE,
                        a.curl_code == CURLE_OPERATION_TIMEDOUT ? RPL_ETIMEOUT : RPL_EIO, &msg);
            break;
        }
        log_retry(c, turn, &msg, wait);
        if (!sleep_interruptible(c, wait)) {
            rc = interrupted_turn(c, turn, t0, &msg);
            break;
        }
        turn->wait_s += wait;
    }
    /* Out of memory on the way: still a settled turn with a message. */
    if (rc && !turn->error) {
        turn->outcome = turn->outcome == RPL_LLM_OK ? RPL_LLM_UNAVAILABLE : turn->outcome;
        turn->error = strdup(rpl_error_last()->message);
    }
    free(body);
    rpl_strbuf_release(&msg);
    return rc;
}
