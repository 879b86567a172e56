/*
 * Internals of the LLM client shared by its files, its unit tests and its
 * fuzz targets: request bodies, reply and error parsing, the retry rules.
 * All pure functions; the transport is in client.c.
 */
#ifndef RPL_LLM_INT_H
#define RPL_LLM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/llm.h"

/* The settings a request body depends on. */
typedef struct rpl_llm_body_opts {
    rpl_llm_provider provider;
    const char *model;
    bool has_temperature;
    double temperature;
    int64_t max_tokens; /* > 0 or 0 (see rpl_llm_config) */
} rpl_llm_body_opts;

/* The JSON body of a request (*out, free()). */
int rpl_llm_request_body(char **out, const rpl_llm_body_opts *opts, const rpl_llm_request *req);

/* What a 2xx reply says. */
typedef struct rpl_llm_reply {
    char *text;          /* OpenAI: choices[0].message.content; Anthropic: the text blocks */
    char *finish_reason; /* or NULL */
    char *id;            /* the body's "id", or NULL */
    bool truncated;      /* finish_reason "length" / stop_reason "max_tokens" */
    bool filtered;       /* finish_reason "content_filter" / stop_reason "refusal" */
    int64_t input_tokens;
    int64_t output_tokens; /* -1 when absent */
} rpl_llm_reply;

/*
 * Parse a 2xx reply body.  RPL_EINPUT with a one-line reason for anything
 * that is not a usable reply of the provider (garbage, missing fields, an
 * error object).  *out is filled (text may be set) also when the reply is
 * truncated or filtered: those are the caller's decision.
 */
int rpl_llm_reply_parse(rpl_llm_reply *out, rpl_llm_provider provider, const char *body,
                        size_t len);
void rpl_llm_reply_release(rpl_llm_reply *reply);

/* What an error body says (both providers' shapes, and vLLM's and Ollama's). */
typedef struct rpl_llm_api_error {
    char *type;       /* "rate_limit_error", "invalid_request_error"... or NULL */
    char *code;       /* "insufficient_quota"... or NULL */
    char *message;    /* the provider's message, one line, at most 400 bytes, or NULL */
    char *request_id; /* Anthropic's body "request_id", or NULL */
    bool spend_limit; /* a quota or spend limit: never retried */
} rpl_llm_api_error;

/* Fill *out from any body (all NULL when it says nothing usable); RPL_ENOMEM only. */
int rpl_llm_error_parse(rpl_llm_api_error *out, const char *body, size_t len);
void rpl_llm_api_error_release(rpl_llm_api_error *err);

typedef enum rpl_llm_decision {
    RPL_LLM_DONE = 0, /* a 2xx reply: parse it */
    RPL_LLM_RETRY,    /* worth another attempt */
    RPL_LLM_FINAL     /* a failure another attempt would repeat */
} rpl_llm_decision;

/*
 * The retry table: `curl_code` is the transfer's CURLcode (0 when an HTTP
 * reply came), `http_status` its status, `spend_limit` from the error body.
 */
rpl_llm_decision rpl_llm_retry_decide(int curl_code, long http_status, bool spend_limit);

/* Bounds of an honoured Retry-After, in seconds. */
#define RPL_LLM_RETRY_AFTER_MIN_S 1.0
#define RPL_LLM_RETRY_AFTER_MAX_S 600.0
/* Longest single backoff step. */
#define RPL_LLM_BACKOFF_MAX_S 60.0

/* A server's Retry-After in seconds, clamped; -1 when absent (<= 0). */
double rpl_llm_retry_after_clamp(long seconds);
/*
 * The sleep before retry number `retry` (1 for the first retry): base *
 * 2^(retry-1), capped at RPL_LLM_BACKOFF_MAX_S, times a jitter factor in
 * [0.5, 1) taken from `unit` in [0, 1).
 */
double rpl_llm_backoff_s(double base_s, int retry, double unit);

#endif
