/*
 * The client against the stand-in server (tests/llm/standin_server.py, a
 * test double of the providers on 127.0.0.1): retries and their limits,
 * final errors, garbage, truncation, timeouts, interrupts, conversations,
 * transcripts.  Every scenario checks how many requests the server saw.
 * Last, no file this test wrote and nothing it printed on stderr (the
 * trace-level header log included) holds the sentinel API key.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm.h"
#include "rpl/log.h"

#define TMP        RPL_TEST_TMP "/llm_client"
#define STDERR_LOG TMP "/stderr.txt"
/* Not "sk-..." on purpose: the key itself must be redacted, not only key-like tokens. */
#define SENTINEL "rpl-SENTINEL-7f3a9c1e5b2d4680"

extern char **environ;

typedef struct server {
    pid_t pid;
    char dir[512];
    char log[600];
    char base_url[64];
} server;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void start_server(server *s, const char *scenario, const char *name)
{
    char scripts[512], port_file[600];
    const char *argv[] = {RPL_PYTHON3,
                          RPL_STANDIN_SERVER,
                          "--scripts",
                          scripts,
                          "--port-file",
                          port_file,
                          "--log",
                          s->log,
                          "--time-limit",
                          "60",
                          "--max-requests",
                          "20",
                          NULL};
    char *text = NULL;
    size_t len;
    double deadline;

    snprintf(scripts, sizeof(scripts), "%s/%s", RPL_LLM_SCRIPTS, scenario);
    snprintf(s->dir, sizeof(s->dir), "%s/%s", TMP, name);
    snprintf(port_file, sizeof(port_file), "%s/port", s->dir);
    snprintf(s->log, sizeof(s->log), "%s/requests.jsonl", s->dir);
    assert_int_equal(rpl_mkdir_p(s->dir), 0);
    unlink(port_file);
    unlink(s->log);
    assert_int_equal(posix_spawn(&s->pid, RPL_PYTHON3, NULL, NULL, (char *const *)argv, environ),
                     0);
    /* Long: python can take seconds to start on a loaded machine. */
    for (deadline = now_s() + 60; now_s() < deadline; usleep(20000))
        if (rpl_file_read_all(port_file, 64, &text, &len) == 0)
            break;
    if (!text)
        fail_msg("the stand-in server wrote no port file");
    snprintf(s->base_url, sizeof(s->base_url), "http://127.0.0.1:%d/v1", atoi(text));
    free(text);
}

static void stop_server(server *s)
{
    int status;

    kill(s->pid, SIGTERM);
    assert_int_equal(waitpid(s->pid, &status, 0), s->pid);
}

/* The server's request log, one cJSON object per request (an array). */
static cJSON *requests(const server *s)
{
    cJSON *all = cJSON_CreateArray();
    char *text = NULL, *line, *save = NULL;
    size_t len;

    if (rpl_file_read_all(s->log, 16 << 20, &text, &len) != 0)
        return all; /* no request at all */
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o);
        cJSON_AddItemToArray(all, o);
    }
    free(text);
    return all;
}

static int request_count(const server *s)
{
    cJSON *all = requests(s);
    int n = cJSON_GetArraySize(all);

    cJSON_Delete(all);
    return n;
}

/* Run `fn` with stderr appended to STDERR_LOG (warnings and the trace log land there). */
static int saved_stderr = -1;

static void capture_stderr(void)
{
    int fd = open(STDERR_LOG, O_WRONLY | O_CREAT | O_APPEND, 0644);

    assert_true(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

static void restore_stderr(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
}

static rpl_llm_config config(rpl_llm_provider p, const server *s)
{
    rpl_llm_config cfg = {
        .provider = p,
        .model = "standin-model",
        .base_url = s->base_url,
        .connect_timeout_s = 2,
        .timeout_s = 5,
        .max_attempts = 3,
        .max_wait_s = 10,
        .backoff_base_s = 0.05,
    };
    return cfg;
}

static const rpl_llm_message one_prompt[] = {{RPL_LLM_USER, "Make saxpy faster."}};
static const rpl_llm_request simple_request = {"You optimize GPU kernels.", one_prompt, 1};

/* One turn against a fresh server for `scenario`; the server is stopped after. */
static int turn_against(const char *scenario, const char *name, rpl_llm_config *cfg_in,
                        rpl_llm_provider p, rpl_llm_turn *turn, int *n_requests)
{
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    int rc;

    start_server(&s, scenario, name);
    cfg = cfg_in ? *cfg_in : config(p, &s);
    cfg.base_url = s.base_url;
    capture_stderr();
    rc = rpl_llm_client_new(&c, &cfg);
    if (rc == 0)
        rc = rpl_llm_complete(c, &simple_request, turn);
    restore_stderr();
    assert_non_null(c);
    rpl_llm_client_free(c);
    *n_requests = request_count(&s);
    stop_server(&s);
    return rc;
}

static void assert_kernel_reply(const rpl_llm_turn *t)
{
    rpl_llm_patch *p = NULL;

    assert_int_equal(t->outcome, RPL_LLM_OK);
    assert_null(t->error);
    assert_non_null(t->text);
    assert_int_equal(rpl_llm_patch_extract(&p, t->text, strlen(t->text), "saxpy"), 0);
    assert_int_equal(p->kind, RPL_LLM_PATCH_FULL_KERNEL);
    rpl_llm_patch_free(p);
}

static void rate_limit_with_retry_after_then_success(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(turn_against("rate_limit_429", "rate_limit_429", NULL, RPL_LLM_OPENAI, &t, &n),
                     0);
    assert_int_equal(n, 2);
    assert_int_equal(t.attempts, 2);
    assert_int_equal(t.http_status, 200);
    assert_kernel_reply(&t);
    /* The server's Retry-After (1 s), not the 0.05 s backoff. */
    assert_true(t.wait_s >= 1.0 && t.wait_s < 1.5);
    assert_true(t.latency_s >= t.wait_s);
    assert_string_equal(t.finish_reason, "stop");
    assert_string_equal(t.request_id, "req-standin-2");
    assert_int_equal(t.input_tokens, 11);
    assert_int_equal(t.output_tokens, 7);
    rpl_llm_turn_release(&t);
}

static void server_error_then_success(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(
        turn_against("server_error_500", "server_error_500", NULL, RPL_LLM_OPENAI, &t, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(t.attempts, 2);
    assert_kernel_reply(&t);
    /* Jittered backoff of the first retry: in [base/2, base). */
    assert_true(t.wait_s >= 0.025 && t.wait_s < 0.05);
    assert_int_equal(t.input_tokens, 1200);
    assert_int_equal(t.output_tokens, 340);
    rpl_llm_turn_release(&t);
}

static void overloaded_then_success_anthropic(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(
        turn_against("overloaded_529", "overloaded_529", NULL, RPL_LLM_ANTHROPIC, &t, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(t.attempts, 2);
    assert_kernel_reply(&t);
    assert_string_equal(t.finish_reason, "end_turn");
    assert_string_equal(t.request_id, "req-standin-2"); /* Anthropic's request-id header */
    /* The thinking block is not part of the text. */
    assert_null(strstr(t.text, "first I look"));
    rpl_llm_turn_release(&t);
}

static void garbage_is_a_bad_reply(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(turn_against("garbage", "garbage", NULL, RPL_LLM_OPENAI, &t, &n), RPL_EINPUT);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_BAD_REPLY);
    assert_false(rpl_llm_outcome_ends_run(t.outcome));
    assert_non_null(strstr(t.error, "openai: HTTP 200: the reply: malformed JSON"));
    assert_string_equal(rpl_error_last()->message, t.error);
    rpl_llm_turn_release(&t);
}

static void truncated_is_a_failed_turn(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(turn_against("truncated", "truncated_openai", NULL, RPL_LLM_OPENAI, &t, &n),
                     RPL_EFAIL);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_TRUNCATED);
    assert_string_equal(t.finish_reason, "length");
    assert_non_null(strstr(t.error, "cut at the token limit (finish_reason length)"));
    assert_non_null(t.text); /* kept for the transcript */
    rpl_llm_turn_release(&t);

    assert_int_equal(
        turn_against("truncated", "truncated_anthropic", NULL, RPL_LLM_ANTHROPIC, &t, &n),
        RPL_EFAIL);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_TRUNCATED);
    assert_non_null(strstr(t.error, "(stop_reason max_tokens)"));
    rpl_llm_turn_release(&t);
}

static void hang_past_the_timeout(void **state)
{
    rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI,
                          .model = "m",
                          .connect_timeout_s = 3,
                          .timeout_s = 3,
                          .max_attempts = 2,
                          .backoff_base_s = 0.05};
    rpl_llm_turn t;
    double t0 = now_s();
    int n;

    assert_int_equal(turn_against("hang", "hang", &cfg, RPL_LLM_OPENAI, &t, &n), RPL_ETIMEOUT);
    assert_int_equal(n, 2);
    assert_int_equal(t.attempts, 2);
    assert_int_equal(t.outcome, RPL_LLM_UNAVAILABLE);
    assert_int_equal(t.http_status, 0);
    assert_non_null(strstr(t.error, "timed out"));
    assert_non_null(strstr(t.error, "gave up after 2 attempts"));
    /*
     * Two 3 s attempts, not the server's 60 s hang.  The margins are wide both ways so
     * that a loaded machine (a slow answer, a slow server start) changes nothing.
     */
    assert_true(now_s() - t0 < 30.0);
    rpl_llm_turn_release(&t);

    assert_int_equal(
        turn_against("hang_then_answer", "hang_then_answer", &cfg, RPL_LLM_OPENAI, &t, &n), 0);
    assert_int_equal(n, 2);
    assert_kernel_reply(&t);
    rpl_llm_turn_release(&t);
}

static void unauthorized_is_not_retried(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(turn_against("auth_401", "auth_401", NULL, RPL_LLM_OPENAI, &t, &n), RPL_EENV);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_AUTH);
    assert_true(rpl_llm_outcome_ends_run(t.outcome));
    assert_int_equal(t.http_status, 401);
    /* The server echoed the key: the message keeps the provider's words, not the key. */
    assert_non_null(
        strstr(t.error, "openai: HTTP 401 invalid_api_key: Incorrect API key provided"));
    assert_non_null(strstr(t.error, "[REDACTED]"));
    assert_null(strstr(t.error, SENTINEL));
    assert_null(strstr(rpl_error_last()->message, SENTINEL));
    rpl_llm_turn_release(&t);
}

static void spend_limits_are_not_retried(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(
        turn_against("quota_429_openai", "quota_429_openai", NULL, RPL_LLM_OPENAI, &t, &n),
        RPL_EENV);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_QUOTA);
    assert_non_null(
        strstr(t.error, "HTTP 429 insufficient_quota: You exceeded your current quota"));
    assert_true(t.wait_s == 0.0);
    rpl_llm_turn_release(&t);

    assert_int_equal(turn_against("spend_limit_429_anthropic", "spend_limit_429_anthropic", NULL,
                                  RPL_LLM_ANTHROPIC, &t, &n),
                     RPL_EENV);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_QUOTA);
    assert_non_null(strstr(t.error, "enforced_spend_limit_reached"));
    assert_string_equal(t.request_id, "req-standin-1");
    rpl_llm_turn_release(&t);
}

static void bad_request_is_final(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(
        turn_against("bad_request_html", "bad_request_html", NULL, RPL_LLM_OPENAI, &t, &n),
        RPL_EUSAGE);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_REJECTED);
    assert_true(rpl_llm_outcome_ends_run(t.outcome));
    /* A body that is not JSON is quoted, on one line. */
    assert_string_equal(t.error, "openai: HTTP 400: <html> <body>400 Bad Request</body> </html>");
    rpl_llm_turn_release(&t);
}

static void retries_are_capped(void **state)
{
    rpl_llm_turn t;
    int n;

    assert_int_equal(
        turn_against("unavailable_503", "unavailable_503", NULL, RPL_LLM_OPENAI, &t, &n), RPL_EIO);
    assert_int_equal(n, 3);
    assert_int_equal(t.attempts, 3);
    assert_int_equal(t.outcome, RPL_LLM_UNAVAILABLE);
    assert_non_null(strstr(t.error, "HTTP 503"));
    assert_non_null(strstr(t.error, "gave up after 3 attempts"));
    rpl_llm_turn_release(&t);
}

static void retry_after_beyond_the_wait_cap_gives_up(void **state)
{
    rpl_llm_turn t;
    double t0 = now_s();
    int n;

    assert_int_equal(
        turn_against("long_retry_after", "long_retry_after", NULL, RPL_LLM_OPENAI, &t, &n),
        RPL_EIO);
    assert_int_equal(n, 1);
    assert_int_equal(t.outcome, RPL_LLM_UNAVAILABLE);
    assert_non_null(strstr(t.error, "the next wait of 30.0 s would pass the 10 s retry limit"));
    /* Gave up at once, not after the 30 s wait (wide margin for a loaded machine). */
    assert_true(now_s() - t0 < 20.0);
    rpl_llm_turn_release(&t);
}

static double interrupt_at;

static bool interrupt_after_deadline(void *ctx)
{
    return now_s() >= interrupt_at;
}

static void interrupt_stops_the_wait(void **state)
{
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    rpl_llm_turn t;
    double t0;

    start_server(&s, "interrupt", "interrupt");
    cfg = config(RPL_LLM_OPENAI, &s);
    cfg.max_wait_s = 60;
    cfg.interrupted = interrupt_after_deadline;
    t0 = now_s();
    interrupt_at = t0 + 0.5;
    capture_stderr();
    assert_int_equal(rpl_llm_client_new(&c, &cfg), 0);
    assert_int_equal(rpl_llm_complete(c, &simple_request, &t), RPL_EFAIL);
    restore_stderr();
    assert_int_equal(t.outcome, RPL_LLM_INTERRUPTED);
    assert_true(rpl_llm_outcome_ends_run(t.outcome));
    assert_int_equal(t.attempts, 1);
    /* Retry-After was 20 s: the sleep ended at the interrupt (wide margin for load). */
    assert_true(now_s() - t0 < 10.0);
    rpl_llm_turn_release(&t);

    /* Interrupted before the first request: nothing is sent. */
    capture_stderr();
    assert_int_equal(rpl_llm_complete(c, &simple_request, &t), RPL_EFAIL);
    restore_stderr();
    assert_int_equal(t.attempts, 0);
    rpl_llm_turn_release(&t);
    rpl_llm_client_free(c);
    assert_int_equal(request_count(&s), 1);
    stop_server(&s);
}

/*
 * Two turns of one conversation: the second request carries the first reply
 * and the feedback; the transcript records both.
 */
static void conversation(rpl_llm_provider p, const char *scenario, const char *transcript)
{
    static const char feedback[] =
        "The kernel did not compile:\nsaxpy.hip:3:5: error: expected ';'";
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    rpl_llm_transcript *tr = NULL;
    rpl_llm_message msgs[3] = {{RPL_LLM_USER, "Make saxpy faster."}};
    rpl_llm_request req = {"You optimize GPU kernels.", msgs, 1};
    rpl_llm_turn t1, t2;
    cJSON *log;
    const cJSON *second, *body, *messages, *last;
    char path[600];

    start_server(&s, scenario, scenario);
    cfg = config(p, &s);
    cfg.temperature = 0.2;
    cfg.has_temperature = true;
    snprintf(path, sizeof(path), "%s/%s", TMP, transcript);
    unlink(path);
    capture_stderr();
    assert_int_equal(rpl_llm_client_new(&c, &cfg), 0);
    assert_true(rpl_llm_client_has_key(c));
    assert_int_equal(rpl_llm_transcript_open(&tr, path, c), 0);
    assert_int_equal(rpl_llm_complete(c, &req, &t1), 0);
    assert_int_equal(rpl_llm_transcript_append(tr, 1, &req, &t1, "did not compile"), 0);
    msgs[1].role = RPL_LLM_ASSISTANT;
    msgs[1].content = t1.text;
    msgs[2].role = RPL_LLM_USER;
    msgs[2].content = feedback;
    req.n_messages = 3;
    assert_int_equal(rpl_llm_complete(c, &req, &t2), 0);
    assert_int_equal(rpl_llm_transcript_append(tr, 2, &req, &t2, NULL), 0);
    restore_stderr();

    log = requests(&s);
    assert_int_equal(cJSON_GetArraySize(log), 2);
    second = cJSON_GetArrayItem(log, 1);
    assert_string_equal(cJSON_GetObjectItem(second, "auth")->valuestring, "match");
    body = cJSON_GetObjectItem(second, "body");
    messages = cJSON_GetObjectItem(body, "messages");
    last = cJSON_GetArrayItem(messages, cJSON_GetArraySize(messages) - 1);
    /* The feedback reached the next prompt, word for word. */
    assert_string_equal(cJSON_GetObjectItem(last, "content")->valuestring, feedback);
    assert_true(cJSON_GetObjectItem(body, "temperature")->valuedouble == 0.2);
    if (p == RPL_LLM_ANTHROPIC) {
        assert_string_equal(cJSON_GetObjectItem(second, "anthropic_version")->valuestring,
                            "2023-06-01");
        assert_string_equal(cJSON_GetObjectItem(body, "system")->valuestring,
                            "You optimize GPU kernels.");
        assert_int_equal(cJSON_GetArraySize(messages), 3);
    } else {
        assert_int_equal(cJSON_GetArraySize(messages), 4); /* system first */
        assert_null(cJSON_GetObjectItem(body, "max_completion_tokens"));
    }
    cJSON_Delete(log);
    rpl_llm_turn_release(&t1);
    rpl_llm_turn_release(&t2);
    rpl_llm_transcript_free(tr);
    rpl_llm_client_free(c);
    stop_server(&s);
}

static void conversation_openai(void **state)
{
    conversation(RPL_LLM_OPENAI, "conversation", "transcript_openai.jsonl");
}

static void conversation_anthropic(void **state)
{
    conversation(RPL_LLM_ANTHROPIC, "conversation_anthropic", "transcript_anthropic.jsonl");
}

/*
 * A failed turn in the transcript (the server echoed the key in its 401
 * message), then a turn whose prompt and reply hold the key: all redacted.
 */
static void transcript_redacts_every_field(void **state)
{
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    rpl_llm_transcript *tr = NULL;
    rpl_llm_turn t;
    static const rpl_llm_message m[] = {{RPL_LLM_USER, "my key is " SENTINEL}};
    rpl_llm_request leaky = {"system " SENTINEL, m, 1};
    rpl_llm_turn made_up = {.outcome = RPL_LLM_OK,
                            .input_tokens = 5,
                            .output_tokens = -1,
                            .text = (char *)"you said " SENTINEL "\n\xff\xc3(",
                            .request_id = (char *)"id-" SENTINEL};
    char *text = NULL;
    size_t len;

    start_server(&s, "auth_401", "transcript_auth");
    cfg = config(RPL_LLM_OPENAI, &s);
    capture_stderr();
    assert_int_equal(rpl_llm_client_new(&c, &cfg), 0);
    assert_int_equal(rpl_llm_transcript_open(&tr, TMP "/transcript_failed.jsonl", c), 0);
    assert_int_equal(rpl_llm_complete(c, &simple_request, &t), RPL_EENV);
    assert_int_equal(rpl_llm_transcript_append(tr, 1, &simple_request, &t, NULL), 0);
    assert_int_equal(rpl_llm_transcript_append(tr, 2, &leaky, &made_up, "note " SENTINEL), 0);
    restore_stderr();
    assert_int_equal(rpl_file_read_all(TMP "/transcript_failed.jsonl", 1 << 20, &text, &len), 0);
    assert_non_null(strstr(text, "\"outcome\":\"auth\""));
    assert_non_null(strstr(text, "\"response\":null"));
    assert_non_null(strstr(text, "Incorrect API key provided: [REDACTED]"));
    assert_non_null(strstr(text, "\"prompt\":\"my key is [REDACTED]\""));
    assert_non_null(strstr(text, "\"system\":\"system [REDACTED]\""));
    /* Bytes that are not UTF-8 become U+FFFD: the line stays valid JSON. */
    assert_non_null(
        strstr(text, "\"response\":\"you said [REDACTED]\\n\xEF\xBF\xBD\xEF\xBF\xBD(\""));
    assert_non_null(strstr(text, "\"note\":\"note [REDACTED]\""));
    assert_null(strstr(text, SENTINEL));
    free(text);
    rpl_llm_turn_release(&t);
    rpl_llm_transcript_free(tr);
    rpl_llm_client_free(c);
    stop_server(&s);
}

static void loopback_server_without_a_key(void **state)
{
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    rpl_llm_turn t;
    cJSON *log;

    start_server(&s, "conversation", "no_key");
    cfg = config(RPL_LLM_OPENAI, &s);
    unsetenv("OPENAI_API_KEY");
    capture_stderr();
    assert_int_equal(rpl_llm_client_new(&c, &cfg), 0);
    setenv("OPENAI_API_KEY", SENTINEL, 1);
    assert_false(rpl_llm_client_has_key(c));
    assert_int_equal(rpl_llm_complete(c, &simple_request, &t), 0);
    restore_stderr();
    log = requests(&s);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "auth")->valuestring,
                        "absent");
    cJSON_Delete(log);
    rpl_llm_turn_release(&t);
    rpl_llm_client_free(c);
    stop_server(&s);
}

static void connection_refused_is_retried(void **state)
{
    server s;
    rpl_llm_config cfg;
    rpl_llm_client *c = NULL;
    rpl_llm_turn t;

    /* A port that was just in use and is closed now. */
    start_server(&s, "conversation", "refused");
    stop_server(&s);
    cfg = config(RPL_LLM_OPENAI, &s);
    capture_stderr();
    assert_int_equal(rpl_llm_client_new(&c, &cfg), 0);
    assert_int_equal(rpl_llm_complete(c, &simple_request, &t), RPL_EIO);
    restore_stderr();
    assert_int_equal(t.attempts, 3);
    assert_int_equal(t.outcome, RPL_LLM_UNAVAILABLE);
    assert_non_null(strstr(t.error, s.base_url));
    rpl_llm_turn_release(&t);
    rpl_llm_client_free(c);
}

/* Whether `path` (a file, or a directory searched recursively) holds `needle`. */
static bool holds(const char *path, const char *needle)
{
    struct stat st;
    bool found = false;

    if (lstat(path, &st) != 0)
        return false;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;

        assert_non_null(d);
        while (!found && (e = readdir(d)) != NULL) {
            char sub[1024];

            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
            found = holds(sub, needle);
        }
        closedir(d);
    } else if (S_ISREG(st.st_mode)) {
        char *text = NULL;
        size_t len;

        assert_int_equal(rpl_file_read_all(path, 64 << 20, &text, &len), 0);
        for (size_t i = 0, n = strlen(needle); !found && i + n <= len; i++)
            found = memcmp(text + i, needle, n) == 0;
        free(text);
    }
    return found;
}

static void no_file_and_no_log_line_holds_the_key(void **state)
{
    char *err = NULL;
    size_t len;

    /* The header log ran (trace level): the key was there to leak and was redacted. */
    assert_int_equal(rpl_file_read_all(STDERR_LOG, 64 << 20, &err, &len), 0);
    assert_non_null(strstr(err, "llm http > Authorization: Bearer [REDACTED]"));
    assert_non_null(strstr(err, "llm http > x-api-key: [REDACTED]"));
    free(err);
    if (holds(TMP, SENTINEL))
        fail_msg("the API key appears in a file under %s", TMP);
}

static int setup(void **state)
{
    /* Start clean: the final scan must see only this run's files. */
    char *argv[] = {"rm", "-rf", TMP, NULL};
    pid_t pid;
    int status;

    if (posix_spawnp(&pid, "rm", NULL, NULL, argv, environ) != 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    if (rpl_mkdir_p(TMP) != 0)
        return -1;
    setenv("OPENAI_API_KEY", SENTINEL, 1);
    setenv("ANTHROPIC_API_KEY", SENTINEL, 1);
    setenv("STANDIN_EXPECTED_KEY", SENTINEL, 1);
    /* Proxies from the environment must not catch 127.0.0.1. */
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    rpl_log_set_level(RPL_LOG_TRACE);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rate_limit_with_retry_after_then_success),
        cmocka_unit_test(server_error_then_success),
        cmocka_unit_test(overloaded_then_success_anthropic),
        cmocka_unit_test(garbage_is_a_bad_reply),
        cmocka_unit_test(truncated_is_a_failed_turn),
        cmocka_unit_test(hang_past_the_timeout),
        cmocka_unit_test(unauthorized_is_not_retried),
        cmocka_unit_test(spend_limits_are_not_retried),
        cmocka_unit_test(bad_request_is_final),
        cmocka_unit_test(retries_are_capped),
        cmocka_unit_test(retry_after_beyond_the_wait_cap_gives_up),
        cmocka_unit_test(interrupt_stops_the_wait),
        cmocka_unit_test(conversation_openai),
        cmocka_unit_test(conversation_anthropic),
        cmocka_unit_test(transcript_redacts_every_field),
        cmocka_unit_test(loopback_server_without_a_key),
        cmocka_unit_test(connection_refused_is_retried),
        cmocka_unit_test(no_file_and_no_log_line_holds_the_key),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
