/*
 * The LLM client of the optimizer (docs/USER_GUIDE.md section 13).
 *
 * - A client posts one conversation to an OpenAI-compatible
 *   /chat/completions endpoint (OpenAI, vLLM, llama.cpp server, Ollama) or
 *   to Anthropic's /messages, with libcurl, and retries what is worth
 *   retrying (HTTP 408/409/429/500/502/503/504/529, timeouts, broken
 *   connections) with Retry-After or jittered exponential backoff, within a
 *   cap on attempts and on the total time slept.
 * - The reply text, finish reason, token usage and request id of each turn
 *   come back in an rpl_llm_turn; a truncated reply is a failed turn.
 * - rpl_llm_patch_extract() turns the reply text into a patch: one full
 *   kernel definition from a fenced block, or SEARCH/REPLACE pairs.
 * - The transcript writer keeps every turn, redacted, as JSON Lines
 *   (docs/schemas/llm-transcript.schema.json).
 *
 * The API key is read from OPENAI_API_KEY / ANTHROPIC_API_KEY or from a
 * file, held only inside the client and set on the curl handle.  It never
 * appears in an error message, a log line (the trace-level header log is
 * redacted), a turn record or a transcript.
 */
#ifndef RPL_LLM_H
#define RPL_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rpl_llm_provider {
    RPL_LLM_OPENAI = 0,   /* "openai": POST <base>/chat/completions */
    RPL_LLM_ANTHROPIC = 1 /* "anthropic": POST <base>/messages */
} rpl_llm_provider;

/* "openai" or "anthropic"; parse fails with RPL_EUSAGE for anything else. */
const char *rpl_llm_provider_name(rpl_llm_provider provider);
int rpl_llm_provider_parse(rpl_llm_provider *out, const char *name);

#define RPL_LLM_OPENAI_BASE_URL    "https://api.openai.com/v1"
#define RPL_LLM_ANTHROPIC_BASE_URL "https://api.anthropic.com/v1"

/* Anthropic requires max_tokens; this is sent when the caller gives none. */
#define RPL_LLM_ANTHROPIC_DEFAULT_MAX_TOKENS 8192

#define RPL_LLM_DEFAULT_CONNECT_TIMEOUT_S 10.0
#define RPL_LLM_DEFAULT_TIMEOUT_S         600.0
#define RPL_LLM_DEFAULT_MAX_ATTEMPTS      5
#define RPL_LLM_DEFAULT_MAX_WAIT_S        120.0
#define RPL_LLM_DEFAULT_BACKOFF_BASE_S    1.0
/* A reply body larger than this fails the attempt (not retried). */
#define RPL_LLM_MAX_REPLY_BYTES (16u << 20)

/* Polled between retries and during a transfer; true stops the call. */
typedef bool (*rpl_llm_interrupt_fn)(void *ctx);

/* Zero means "the default" for every number; strings are copied by the client. */
typedef struct rpl_llm_config {
    rpl_llm_provider provider;
    const char *model;        /* required */
    const char *base_url;     /* NULL: RPL_LLM_OPENAI_BASE_URL or RPL_LLM_ANTHROPIC_BASE_URL */
    bool has_temperature;     /* temperature is sent only when this is set */
    double temperature;       /* 0 to 2 */
    int64_t max_tokens;       /* > 0: sent (OpenAI: max_completion_tokens); 0: OpenAI gets
                                 none, Anthropic RPL_LLM_ANTHROPIC_DEFAULT_MAX_TOKENS */
    const char *api_key_file; /* NULL: the key comes from the provider's environment variable */
    double connect_timeout_s; /* per attempt; 0: 10 s */
    double timeout_s;         /* whole attempt, reply included; 0: 600 s */
    int max_attempts;         /* attempts per turn, first included; 0: 5; 1: no retry */
    double max_wait_s;        /* total sleep between attempts of a turn; 0: 120 s */
    double backoff_base_s;    /* first backoff step before jitter; 0: 1 s */
    rpl_llm_interrupt_fn interrupted; /* NULL: never interrupted */
    void *interrupt_ctx;
} rpl_llm_config;

/* A client holds one curl handle: use it from one thread at a time. */
typedef struct rpl_llm_client rpl_llm_client;

/*
 * Check the configuration, load the key and prepare a client.
 *
 * The key: the file `api_key_file` (its first line, trimmed; a file readable
 * by group or others draws a warning) or else OPENAI_API_KEY /
 * ANTHROPIC_API_KEY.  Without a key an OpenAI-compatible client is allowed
 * when the base URL's host is a loopback address (127.0.0.0/8, ::1,
 * localhost): it sends no Authorization header.  Anything else without a key
 * fails with RPL_EENV.  Bad settings fail with RPL_EUSAGE.
 */
int rpl_llm_client_new(rpl_llm_client **out, const rpl_llm_config *cfg);
void rpl_llm_client_free(rpl_llm_client *client);

/* The URL the client posts to, e.g. "https://api.openai.com/v1/chat/completions". */
const char *rpl_llm_client_endpoint(const rpl_llm_client *client);
bool rpl_llm_client_has_key(const rpl_llm_client *client);

typedef enum rpl_llm_role { RPL_LLM_USER = 0, RPL_LLM_ASSISTANT = 1 } rpl_llm_role;

typedef struct rpl_llm_message {
    rpl_llm_role role;
    const char *content;
} rpl_llm_message;

/*
 * One request: an optional system prompt and the conversation so far, the
 * earlier turns first and the new user message last.  OpenAI gets the system
 * prompt as the first message; Anthropic gets it as the top-level "system"
 * and consecutive messages of the same role merged (blank line between).
 */
typedef struct rpl_llm_request {
    const char *system; /* NULL or "": none */
    const rpl_llm_message *messages;
    size_t n_messages; /* at least one; the first must be a user message for Anthropic */
} rpl_llm_request;

typedef enum rpl_llm_outcome {
    RPL_LLM_OK = 0,      /* a complete reply */
    RPL_LLM_TRUNCATED,   /* finish_reason "length" / stop_reason "max_tokens": failed turn */
    RPL_LLM_BAD_REPLY,   /* 2xx with garbage JSON, a missing field, no text, or a
                            content filter stop: failed turn */
    RPL_LLM_UNAVAILABLE, /* retryable failures (429/5xx/529, timeouts, connections) that
                            outlasted the retry cap, or a transport error not worth
                            retrying (host not found, TLS) */
    RPL_LLM_REJECTED,    /* 400, 404 and other 4xx: the request itself is wrong
                            (unknown model, unsupported parameter) */
    RPL_LLM_AUTH,        /* 401, 403: key missing, wrong or without access */
    RPL_LLM_QUOTA,       /* 429 for a spend limit or an exhausted quota: not retried */
    RPL_LLM_INTERRUPTED  /* the interrupt hook asked to stop */
} rpl_llm_outcome;

/* "ok", "truncated", "bad_reply", "unavailable", "rejected", "auth", "quota", "interrupted". */
const char *rpl_llm_outcome_name(rpl_llm_outcome outcome);
/*
 * Whether the run should end: true for every outcome but OK, TRUNCATED and
 * BAD_REPLY (the loop may feed those back and go on with the next turn).
 */
bool rpl_llm_outcome_ends_run(rpl_llm_outcome outcome);

/* The record of one turn (all attempts of one request). */
typedef struct rpl_llm_turn {
    rpl_llm_outcome outcome;
    long http_status;      /* of the last attempt; 0 when no HTTP reply came */
    int attempts;          /* requests sent */
    double latency_s;      /* from the first request to the end, sleeps included */
    double wait_s;         /* time slept between attempts */
    int64_t input_tokens;  /* prompt_tokens / input_tokens; -1 when the reply has none */
    int64_t output_tokens; /* completion_tokens / output_tokens; -1 likewise */
    char *text;            /* the reply text (also kept for a truncated reply), or NULL */
    char *finish_reason;   /* the provider's word ("stop", "end_turn", "length"...), or NULL */
    char *request_id;      /* x-request-id / request-id header, else the body's id; or NULL */
    char *error;           /* one line, redacted; NULL when the outcome is OK */
} rpl_llm_turn;

/*
 * Send `req` and wait for the reply, retrying as described above.  *turn is
 * filled in every case (release it with rpl_llm_turn_release).  Returns 0
 * for RPL_LLM_OK; otherwise turn->error is also the thread's error message
 * and the status is RPL_EFAIL (truncated, interrupted), RPL_EINPUT (bad
 * reply), RPL_ETIMEOUT or RPL_EIO (unavailable), RPL_EUSAGE (rejected) or
 * RPL_EENV (auth, quota).  Messages name the HTTP status and carry the
 * provider's own message, e.g. "anthropic: HTTP 529 overloaded_error:
 * Overloaded (gave up after 5 attempts, 31.0 s of waiting)".
 */
int rpl_llm_complete(rpl_llm_client *client, const rpl_llm_request *req, rpl_llm_turn *turn);
void rpl_llm_turn_release(rpl_llm_turn *turn);

/* Tokens a turn used (input + output; an unknown count adds 0). */
int64_t rpl_llm_turn_tokens(const rpl_llm_turn *turn);
/*
 * The token budget: 0 when `used_tokens` (the running total of the run) is
 * below `budget_tokens` or there is no budget (<= 0); RPL_EFAIL with "token
 * budget spent: N of B tokens used" otherwise.
 */
int rpl_llm_budget_check(int64_t used_tokens, int64_t budget_tokens);

/*
 * Remove secrets from a text: every occurrence of `secret` (when not NULL
 * or empty), the value after "Bearer ", after an "x-api-key" header or JSON
 * key, and tokens that start with "sk-" (OpenAI keys, also echoed in part in
 * its 401 messages) become "[REDACTED]".  *out is free()d by the caller.
 */
int rpl_llm_redact(char **out, const char *text, const char *secret);
/* The same with the client's own key. */
int rpl_llm_client_redact(char **out, const rpl_llm_client *client, const char *text);

/* ---- patch extraction ---------------------------------------------- */

typedef enum rpl_llm_patch_kind {
    RPL_LLM_PATCH_NONE = 0,      /* no usable code: `notes` says why */
    RPL_LLM_PATCH_FULL_KERNEL,   /* `code` holds one full kernel definition */
    RPL_LLM_PATCH_SEARCH_REPLACE /* `edits` holds (search, replace) pairs, in order */
} rpl_llm_patch_kind;

/* One SEARCH/REPLACE pair; each line of both texts ends with '\n'. */
typedef struct rpl_llm_edit {
    char *search;  /* never empty */
    char *replace; /* may be "" (delete) */
    int line;      /* line of the reply (think tags removed) where the block starts */
} rpl_llm_edit;

typedef struct rpl_llm_patch {
    rpl_llm_patch_kind kind;
    char *code;          /* FULL_KERNEL: the block's contents, '\n' line ends */
    rpl_llm_edit *edits; /* SEARCH_REPLACE */
    size_t n_edits;
    char *notes; /* one line for the log or the model, or NULL */
} rpl_llm_patch;

/*
 * Read a model's reply (pure text; no parsing of C++): <think>...</think>
 * sections are dropped (an unterminated one runs to the end, a lone
 * "</think>" drops everything before it); then
 *   - SEARCH/REPLACE blocks ("<<<<<<< SEARCH" / "=======" / ">>>>>>> REPLACE"
 *     lines, in or out of a fence) give a SEARCH_REPLACE patch;
 *   - else the fenced blocks (``` or ~~~, info string cpp, c++, cxx, hip,
 *     cuda, cu, c or none) that contain "__global__" and `kernel` as a whole
 *     identifier (any kernel when `kernel` is NULL) give a FULL_KERNEL patch:
 *     the last of them, and `notes` says so when there were several;
 *   - else a NONE patch with `notes` saying what was missing.
 * A reply that ends inside a fence (truncated), a malformed SEARCH/REPLACE
 * block or a mix of SEARCH/REPLACE blocks and a full kernel block fails with
 * RPL_EINPUT and a one-line message meant to be fed back to the model.
 */
int rpl_llm_patch_extract(rpl_llm_patch **out, const char *reply, size_t len, const char *kernel);
void rpl_llm_patch_free(rpl_llm_patch *patch);
/* "none", "full_kernel", "search_replace". */
const char *rpl_llm_patch_kind_name(rpl_llm_patch_kind kind);

/* ---- transcript ---------------------------------------------------- */

#define RPL_LLM_TRANSCRIPT_SCHEMA_VERSION "1.0"

typedef struct rpl_llm_transcript rpl_llm_transcript;

/*
 * Start a transcript at `path` (an existing file is replaced at the first
 * append).  Every string written goes through rpl_llm_client_redact with
 * `client`'s key, and the provider and model come from it.
 *
 * Each append writes the whole file again, one JSON object per line, to a
 * temporary sibling and renames it over `path`: the file on disk is always
 * a complete transcript of the turns so far, never a half line.
 */
int rpl_llm_transcript_open(rpl_llm_transcript **out, const char *path,
                            const rpl_llm_client *client);
/*
 * Record turn number `turn_no` (from 1): the system prompt and the last
 * message of `req` (the new prompt), the reply and the record of `turn`,
 * and an optional one-line `note` (e.g. the loop's verdict), NULL for none.
 */
int rpl_llm_transcript_append(rpl_llm_transcript *t, int turn_no, const rpl_llm_request *req,
                              const rpl_llm_turn *turn, const char *note);
void rpl_llm_transcript_free(rpl_llm_transcript *t);

#ifdef __cplusplus
}
#endif
#endif
