/*
 * The LLM loop against the stand-in server (tests/llm/standin_server.py)
 * with a stand-in backend that decides by markers in the candidate's text.
 * The six-answer script: a kernel that does not compile and its repair, a
 * signature change, a wrong result, a cheat, a slower and a faster kernel;
 * each verdict and each feedback in the next request.  Then a dominance
 * shift between two kernels.
 */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_source.h"
#include "rpl/llm_loop.h"

#define TMP RPL_TEST_TMP "/loop_run"

extern char **environ;

/* ---- the stand-in server ------------------------------------------------ */

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

static void start_server(server *s, const char *scenario)
{
    char scripts[512], port_file[600];
    const char *argv[] = {
        RPL_PYTHON3, RPL_STANDIN_SERVER, "--scripts", scripts, "--port-file", port_file, "--log",
        s->log,      "--time-limit",     "60",        NULL};
    char *text = NULL;
    size_t len;

    snprintf(scripts, sizeof(scripts), "%s/%s", RPL_LOOP_SCRIPTS, scenario);
    snprintf(s->dir, sizeof(s->dir), "%s/%s", TMP, scenario);
    snprintf(port_file, sizeof(port_file), "%s/port", s->dir);
    snprintf(s->log, sizeof(s->log), "%s/requests.jsonl", s->dir);
    assert_int_equal(rpl_remove_tree(s->dir), 0);
    assert_int_equal(rpl_mkdir_p(s->dir), 0);
    assert_int_equal(posix_spawn(&s->pid, RPL_PYTHON3, NULL, NULL, (char *const *)argv, environ),
                     0);
    for (double deadline = now_s() + 15; now_s() < deadline; usleep(20000))
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

/* The last user message of request n (from 1) in the server's log (free()). */
static char *prompt_of(const server *s, int n, char **system)
{
    char *text = NULL, *line, *save = NULL, *out = NULL;
    size_t len;
    int i = 0;

    assert_int_equal(rpl_file_read_all(s->log, 16 << 20, &text, &len), 0);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cJSON *o, *msgs, *last;
        if (++i != n)
            continue;
        o = cJSON_Parse(line);
        msgs = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "body"), "messages");
        last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
        out = strdup(cJSON_GetObjectItem(last, "content")->valuestring);
        if (system)
            *system =
                strdup(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")->valuestring);
        cJSON_Delete(o);
    }
    free(text);
    if (!out)
        fail_msg("the server saw no request %d", n);
    return out;
}

static int request_count(const server *s)
{
    char *text = NULL;
    size_t len;
    int n = 0;

    if (rpl_file_read_all(s->log, 16 << 20, &text, &len) != 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    free(text);
    return n;
}

static void expect_in(const char *text, const char *needle, const char *what)
{
    if (!strstr(text, needle))
        fail_msg("%s lacks '%s':\n%s", what, needle, text);
}

/* ---- the stand-in backend ------------------------------------------------- */

typedef struct fake {
    rpl_pipe_outcome *outcomes[16];
    size_t n;
    int accepted;
    const char *scenario;
    char build_log[600];
} fake;

static rpl_pipe_outcome *new_outcome(fake *f, const rpl_pipe_candidate *c, rpl_pipe_decision d,
                                     const char *message)
{
    rpl_pipe_outcome *o = calloc(1, sizeof(*o));

    assert_non_null(o);
    assert_true(f->n < 16);
    f->outcomes[f->n++] = o;
    o->kernel = strdup(c->kernel);
    o->strategy = strdup(c->strategy);
    o->origin = c->origin;
    o->decision = d;
    o->message = message ? strdup(message) : NULL;
    o->speedup = o->speedup_lo = o->speedup_hi = NAN;
    o->median_orig_ns = o->median_cand_ns = o->app_orig_ns = o->app_cand_ns = NAN;
    o->time_change_pct = o->ci_half_pct = NAN;
    return o;
}

static void measured(rpl_pipe_outcome *o, double s)
{
    o->speedup = s;
    o->speedup_lo = s - 0.02;
    o->speedup_hi = s + 0.02;
    o->median_orig_ns = 1000;
    o->median_cand_ns = 1000 / s;
    o->steps[RPL_PIPE_STEP_REPLAY].ran = o->steps[RPL_PIPE_STEP_REPLAY].passed = true;
    o->steps[RPL_PIPE_STEP_REPLAY].evidence = strdup("1/1 regions equal (f32 rtol 1e-05)");
}

static int fake_run(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_outcome **out)
{
    fake *f = ctx;
    const char *t = c->text;
    rpl_pipe_outcome *o;

    assert_int_equal(c->origin, RPL_PIPE_ORIGIN_LLM);
    assert_non_null(strstr(t, "int main()")); /* the whole file, not only the kernel */
    if (strstr(t, "BROKEN")) {
        static const char log[] = "scale.hip:7:38: error: expected ';' after expression\n"
                                  "1 error generated when compiling for gfx90a.\n";
        o = new_outcome(f, c, RPL_PIPE_REJECT_BUILD, "scale.hip:7:38: error: expected ';'");
        snprintf(f->build_log, sizeof(f->build_log), "%s/build.log", TMP);
        assert_int_equal(rpl_file_write_atomic(f->build_log, log, strlen(log)), 0);
        o->build_log_path = strdup(f->build_log);
    } else if (strstr(t, "WRONG")) {
        o = new_outcome(f, c, RPL_PIPE_REJECT_WRONG_RESULT,
                        "replay: region 0 (out) differs first at 0x7f0000001000 (element 0): "
                        "5.5 != 6 (f32 rtol 1e-05)");
    } else if (strstr(t, "CHEAT")) {
        o = new_outcome(f, c, RPL_PIPE_REJECT_WRONG_RESULT,
                        "replay: region 0 (out) was not written: the poison is still there");
    } else if (strstr(t, "SLOWER")) {
        o = new_outcome(f, c, RPL_PIPE_REJECT_SLOWER, "0.800x (95% CI 0.780-0.820)");
        measured(o, 0.8);
    } else if (strstr(t, "FASTER") &&
               (f->accepted == 0 || strstr(strstr(t, "FASTER") + 1, "FASTER"))) {
        o = new_outcome(f, c, RPL_PIPE_ACCEPTED, "1.500x (95% CI 1.480-1.520)");
        measured(o, 1.5);
    } else {
        o = new_outcome(f, c, RPL_PIPE_REJECT_NOT_SIGNIFICANT, "1.010x (95% CI 0.990-1.030)");
        measured(o, 1.01);
    }
    *out = o;
    return 0;
}

static int fake_reject(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_decision d,
                       const char *message, rpl_pipe_outcome **out)
{
    *out = new_outcome(ctx, c, d, message);
    return 0;
}

static int fake_accept(void *ctx, const rpl_pipe_outcome *o, const rpl_pipe_candidate *c,
                       char **where)
{
    fake *f = ctx;

    assert_int_equal(o->decision, RPL_PIPE_ACCEPTED);
    assert_non_null(strstr(c->text, "FASTER"));
    f->accepted++;
    *where = strdup("not committed: test");
    return 0;
}

static int fake_ranking(void *ctx, rpl_path_kernel **kernels, size_t *n, bool *by_gpu_time)
{
    fake *f = ctx;
    rpl_path_kernel *k = calloc(2, sizeof(*k));

    assert_non_null(k);
    /* In the shift scenario, the first acceptance makes `shift` dominant; in the
       instantiation one the ranking names what the program launched, as the pipeline
       does for template kernels, and `scale` stays dominant. */
    bool shifted = strcmp(f->scenario, "shift") == 0 && f->accepted >= 1;
    bool launched = strcmp(f->scenario, "instantiation") == 0;
    k[0] = (rpl_path_kernel){launched ? "scale<float>" : "scale", shifted ? 0.3 : 0.8, true};
    k[1] = (rpl_path_kernel){launched ? "shift<float>" : "shift", shifted ? 0.7 : 0.2, true};
    *kernels = k;
    *n = 2;
    *by_gpu_time = false;
    return 0;
}

static int fake_facts(void *ctx, const char *kernel, rpl_llm_facts *out)
{
    (void)ctx;
    memset(out, 0, sizeof(*out));
    out->geometry = strdup(strcmp(kernel, "scale") == 0 ? "grid 4096x1x1, block 256x1x1"
                                                        : "grid 1024x1x1, block 256x1x1");
    return 0;
}

static void fake_release(fake *f)
{
    for (size_t i = 0; i < f->n; i++) {
        rpl_pipe_outcome *o = f->outcomes[i];
        free(o->kernel);
        free(o->strategy);
        free(o->message);
        free(o->build_log_path);
        for (int s = 0; s < RPL_PIPE_STEPS; s++)
            free(o->steps[s].evidence);
        free(o);
    }
}

/* ---- running the loop ---------------------------------------------------- */

static char *read_text(const char *path, size_t *len)
{
    char *text = NULL;

    assert_int_equal(rpl_file_read_all(path, 1 << 20, &text, len), 0);
    return text;
}

static void run_loop(server *s, fake *f, const char *scenario, unsigned max_iters,
                     rpl_llm_loop_result *r, char transcript[700])
{
    rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI,
                          .model = "standin-model",
                          .base_url = s->base_url,
                          .timeout_s = 10,
                          .max_attempts = 2,
                          .backoff_base_s = 0.05};
    rpl_ks_options ks = {.no_vendor_headers = true};
    rpl_llm_loop_backend be = {f,           fake_ranking, fake_facts, fake_run,
                               fake_reject, fake_accept,  NULL};
    rpl_prompt_set *prompts = NULL;
    rpl_llm_client *client = NULL;
    char source_path[600];
    char *source;
    size_t len;

    f->scenario = scenario;
    snprintf(source_path, sizeof(source_path), "%s/scale.hip", RPL_LOOP_DIR);
    snprintf(transcript, 700, "%s/transcript.jsonl", s->dir);
    source = read_text(source_path, &len);
    assert_int_equal(rpl_prompt_set_load(&prompts, RPL_LLM_TEMPLATES, NULL), 0);
    assert_int_equal(rpl_llm_client_new(&client, &cfg), 0);
    rpl_llm_loop_opts opts = {.source_name = source_path,
                              .source = source,
                              .source_len = len,
                              .model = "standin-model",
                              .max_iters = max_iters,
                              .transcript = transcript,
                              .prompts = prompts,
                              .parse = &ks};
    if (rpl_llm_loop_run(client, &be, &opts, r) != 0)
        fail_msg("the loop failed: %s", rpl_error_last()->message);
    rpl_llm_client_free(client);
    rpl_prompt_set_free(prompts);
    free(source);
}

static void six_answers(void **state)
{
    static const rpl_pipe_decision want[] = {RPL_PIPE_REJECT_BUILD,
                                             RPL_PIPE_REJECT_NOT_SIGNIFICANT,
                                             RPL_PIPE_REJECT_SIGNATURE,
                                             RPL_PIPE_REJECT_WRONG_RESULT,
                                             RPL_PIPE_REJECT_WRONG_RESULT,
                                             RPL_PIPE_REJECT_SLOWER,
                                             RPL_PIPE_ACCEPTED};
    server s;
    fake f = {0};
    rpl_llm_loop_result r;
    char transcript[700], *p, *system = NULL, *text;
    size_t len, lines = 0;

    (void)state;
    start_server(&s, "six");
    run_loop(&s, &f, "six", 5, &r, transcript);
    stop_server(&s);

    assert_int_equal(r.stop, RPL_LLM_LOOP_DONE);
    assert_int_equal(r.turns, 7);
    assert_int_equal(r.candidates, 7);
    assert_int_equal(r.accepted, 1);
    assert_int_equal(r.tokens, 7 * 1200);
    assert_int_equal(f.n, 7);
    for (size_t i = 0; i < 7; i++)
        if (f.outcomes[i]->decision != want[i])
            fail_msg("candidate %zu: decision %d, want %d (%s)", i + 1,
                     (int)f.outcomes[i]->decision, (int)want[i],
                     f.outcomes[i]->message ? f.outcomes[i]->message : "");
    assert_non_null(strstr(f.outcomes[0]->strategy, "grid-stride loop"));
    assert_non_null(strstr(f.outcomes[6]->strategy, "restrict-qualified pointers"));
    assert_non_null(strstr(r.best_source, "/* FASTER */"));
    assert_non_null(strstr(r.best_source, "int main()"));
    assert_string_equal(r.target, "scale");

    /* The first prompt: facts, the kernel, the contract with the signature. */
    p = prompt_of(&s, 1, &system);
    expect_in(p, "Make the kernel `scale` of `scale.hip` faster.", "prompt 1");
    expect_in(p, "grid 4096x1x1, block 256x1x1", "prompt 1");
    expect_in(p, "out[i] = a * in[i];", "prompt 1");
    expect_in(p, "This is the first proposal.", "prompt 1");
    expect_in(system, "expert GPU performance engineer", "the system prompt");
    expect_in(p,
              "Keep the signature exactly: __global__ void scale(float *out, const float *in, "
              "float a, int n)",
              "prompt 1");
    free(p);
    free(system);
    /* Each failure's feedback is in the next request. */
    p = prompt_of(&s, 2, NULL); /* repair, same conversation */
    expect_in(p, "Your last answer for `scale` was rejected", "prompt 2");
    expect_in(p, "verdict `build`", "prompt 2");
    expect_in(p, "error: expected ';' after expression", "prompt 2");
    free(p);
    p = prompt_of(&s, 3, NULL); /* a new proposal */
    expect_in(p, "verdict `not-significant`", "prompt 3");
    expect_in(p, "turn 2 (scale): not-significant, speedup 1.010x", "prompt 3");
    free(p);
    p = prompt_of(&s, 4, NULL);
    expect_in(p, "verdict `signature`", "prompt 4");
    expect_in(p, "changes the signature of scale", "prompt 4");
    free(p);
    p = prompt_of(&s, 5, NULL);
    expect_in(p, "verdict `wrong-result`", "prompt 5");
    expect_in(p, "first at 0x7f0000001000 (element 0): 5.5 != 6", "prompt 5");
    free(p);
    p = prompt_of(&s, 6, NULL);
    expect_in(p, "was not written: the poison is still there", "prompt 6");
    free(p);
    p = prompt_of(&s, 7, NULL);
    expect_in(p, "verdict `slower`", "prompt 7");
    expect_in(p, "Measured speedup over the current best: 0.800x (95% CI 0.780-0.820)", "prompt 7");
    expect_in(p, "- turn 2 (scale): not-significant, speedup 1.010x", "prompt 7");
    expect_in(p, "- turn 6 (scale): slower, speedup 0.800x", "prompt 7");
    free(p);

    /* One transcript line per turn. */
    text = read_text(transcript, &len);
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 7);
    free(text);
    rpl_llm_loop_result_release(&r);
    fake_release(&f);
}

static void dominance_shift(void **state)
{
    server s;
    fake f = {0};
    rpl_llm_loop_result r;
    char transcript[700], *p;

    (void)state;
    start_server(&s, "shift");
    run_loop(&s, &f, "shift", 2, &r, transcript);
    stop_server(&s);

    assert_int_equal(request_count(&s), 2);
    assert_int_equal(f.n, 2);
    if (f.outcomes[1]->decision != RPL_PIPE_ACCEPTED)
        fail_msg("the second candidate: %d %s", (int)f.outcomes[1]->decision,
                 f.outcomes[1]->message);
    assert_int_equal(r.accepted, 2);
    assert_int_equal(r.retargets, 1);
    assert_string_equal(r.target, "shift");
    p = prompt_of(&s, 2, NULL);
    expect_in(p, "Make the kernel `shift` of `scale.hip` faster.", "prompt 2");
    expect_in(p, "out[i] += b;", "prompt 2");
    expect_in(p, "grid 1024x1x1", "prompt 2");
    free(p);
    assert_non_null(strstr(r.best_source, "out[i] = a * in[i]; /* FASTER */"));
    assert_non_null(strstr(r.best_source, "out[i] += b; /* FASTER */"));
    rpl_llm_loop_result_release(&r);
    fake_release(&f);
}

/*
 * The ranking names the instantiation ("scale<float>") of the kernel the loop
 * knows by its name in the source: after an acceptance that leaves it dominant,
 * the loop stays on it (no shift, no retarget, as the corpus's reduce1<int> and
 * sgemm2DBlocktiling<128, ...> were "shifted" to themselves).
 */
static void instantiation_names(void **state)
{
    server s;
    fake f = {0};
    rpl_llm_loop_result r;
    char transcript[700], *p;

    (void)state;
    start_server(&s, "instantiation"); /* a faster scale, then scale again */
    run_loop(&s, &f, "instantiation", 2, &r, transcript);
    stop_server(&s);

    assert_int_equal(request_count(&s), 2);
    assert_int_equal(f.outcomes[0]->decision, RPL_PIPE_ACCEPTED);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.outcomes[1]->kernel, "scale");
    assert_int_equal(r.accepted, 1);
    assert_int_equal(r.retargets, 0);
    assert_string_equal(r.target, "scale");
    p = prompt_of(&s, 2, NULL);
    expect_in(p, "Make the kernel `scale` of `scale.hip` faster.", "prompt 2");
    free(p);
    rpl_llm_loop_result_release(&r);
    fake_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(six_answers),
        cmocka_unit_test(dominance_shift),
        cmocka_unit_test(instantiation_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
