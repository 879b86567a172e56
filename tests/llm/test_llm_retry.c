/* The retry decision table, Retry-After clamping, backoff bounds, the token budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "llm_int.h"
#include "rpl/error.h"

static void http_statuses(void **state)
{
    static const long retried[] = {408, 409, 429, 500, 502, 503, 504, 529};
    static const long final[] = {400, 401, 403, 404, 413, 422, 301, 307, 501, 505, 100};

    for (size_t i = 0; i < sizeof(retried) / sizeof(retried[0]); i++)
        if (rpl_llm_retry_decide(CURLE_OK, retried[i], false) != RPL_LLM_RETRY)
            fail_msg("HTTP %ld is not retried", retried[i]);
    for (size_t i = 0; i < sizeof(final) / sizeof(final[0]); i++)
        if (rpl_llm_retry_decide(CURLE_OK, final[i], false) != RPL_LLM_FINAL)
            fail_msg("HTTP %ld is retried", final[i]);
    assert_int_equal(rpl_llm_retry_decide(CURLE_OK, 200, false), RPL_LLM_DONE);
    assert_int_equal(rpl_llm_retry_decide(CURLE_OK, 201, false), RPL_LLM_DONE);
    /* A spend limit or empty quota: never retried. */
    assert_int_equal(rpl_llm_retry_decide(CURLE_OK, 429, true), RPL_LLM_FINAL);
}

static void transport_errors(void **state)
{
    static const CURLcode retried[] = {CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT,
                                       CURLE_RECV_ERROR,         CURLE_SEND_ERROR,
                                       CURLE_GOT_NOTHING,        CURLE_PARTIAL_FILE};
    static const CURLcode final[] = {
        CURLE_COULDNT_RESOLVE_HOST, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION,
        CURLE_URL_MALFORMAT,        CURLE_WRITE_ERROR,       CURLE_ABORTED_BY_CALLBACK};

    for (size_t i = 0; i < sizeof(retried) / sizeof(retried[0]); i++)
        if (rpl_llm_retry_decide(retried[i], 0, false) != RPL_LLM_RETRY)
            fail_msg("curl code %d is not retried", retried[i]);
    for (size_t i = 0; i < sizeof(final) / sizeof(final[0]); i++)
        if (rpl_llm_retry_decide(final[i], 0, false) != RPL_LLM_FINAL)
            fail_msg("curl code %d is retried", final[i]);
}

static void retry_after_is_clamped(void **state)
{
    assert_true(rpl_llm_retry_after_clamp(0) < 0);  /* absent */
    assert_true(rpl_llm_retry_after_clamp(-5) < 0); /* curl before 8.12 may pass these */
    assert_true(rpl_llm_retry_after_clamp(1) == 1.0);
    assert_true(rpl_llm_retry_after_clamp(37) == 37.0);
    assert_true(rpl_llm_retry_after_clamp(600) == RPL_LLM_RETRY_AFTER_MAX_S);
    assert_true(rpl_llm_retry_after_clamp(86400 * 365) == RPL_LLM_RETRY_AFTER_MAX_S);
}

static void backoff_bounds(void **state)
{
    for (int retry = 1; retry <= 70; retry++) {
        double step = 1.0 * (retry > 7 ? RPL_LLM_BACKOFF_MAX_S : (double)(1 << (retry - 1)));
        double lo = rpl_llm_backoff_s(1.0, retry, 0.0);
        double hi = rpl_llm_backoff_s(1.0, retry, 0.999999);

        if (step > RPL_LLM_BACKOFF_MAX_S)
            step = RPL_LLM_BACKOFF_MAX_S;
        /* Equal jitter: in [step/2, step). */
        if (!(lo >= step / 2 - 1e-9 && lo <= step / 2 + 1e-9))
            fail_msg("retry %d: low %g, step %g", retry, lo, step);
        if (!(hi < step && hi > step * 0.99))
            fail_msg("retry %d: high %g, step %g", retry, hi, step);
    }
    /* Grows: 1, 2, 4 ... for unit 0. */
    assert_true(rpl_llm_backoff_s(1.0, 1, 0.0) == 0.5);
    assert_true(rpl_llm_backoff_s(1.0, 2, 0.0) == 1.0);
    assert_true(rpl_llm_backoff_s(1.0, 3, 0.0) == 2.0);
    assert_true(rpl_llm_backoff_s(0.1, 1, 0.0) == 0.05);
    /* Bad inputs stay in bounds. */
    assert_true(rpl_llm_backoff_s(1.0, 0, 0.5) <= 1.0);
    assert_true(rpl_llm_backoff_s(1.0, 2, 7.0) == 1.0);
    assert_true(rpl_llm_backoff_s(1e300, 3, 0.5) <= RPL_LLM_BACKOFF_MAX_S);
}

static void token_budget(void **state)
{
    rpl_llm_turn t = {.input_tokens = 100, .output_tokens = 23};

    assert_int_equal(rpl_llm_turn_tokens(&t), 123);
    t.output_tokens = -1;
    assert_int_equal(rpl_llm_turn_tokens(&t), 100);
    assert_int_equal(rpl_llm_budget_check(999, 1000), 0);
    assert_int_equal(rpl_llm_budget_check(5000000, 0), 0); /* no budget */
    assert_int_equal(rpl_llm_budget_check(1000, 1000), RPL_EFAIL);
    assert_string_equal(rpl_error_last()->message, "token budget spent: 1000 of 1000 tokens used");
    assert_int_equal(rpl_llm_budget_check(1500, 1000), RPL_EFAIL);
}

static void outcomes(void **state)
{
    assert_false(rpl_llm_outcome_ends_run(RPL_LLM_OK));
    assert_false(rpl_llm_outcome_ends_run(RPL_LLM_TRUNCATED));
    assert_false(rpl_llm_outcome_ends_run(RPL_LLM_BAD_REPLY));
    assert_true(rpl_llm_outcome_ends_run(RPL_LLM_AUTH));
    assert_true(rpl_llm_outcome_ends_run(RPL_LLM_QUOTA));
    assert_true(rpl_llm_outcome_ends_run(RPL_LLM_REJECTED));
    assert_true(rpl_llm_outcome_ends_run(RPL_LLM_UNAVAILABLE));
    assert_true(rpl_llm_outcome_ends_run(RPL_LLM_INTERRUPTED));
    assert_string_equal(rpl_llm_outcome_name(RPL_LLM_QUOTA), "quota");
    assert_string_equal(rpl_llm_outcome_name(RPL_LLM_TRUNCATED), "truncated");
}

static void providers(void **state)
{
    rpl_llm_provider p = RPL_LLM_OPENAI;

    assert_int_equal(rpl_llm_provider_parse(&p, "anthropic"), 0);
    assert_int_equal(p, RPL_LLM_ANTHROPIC);
    assert_int_equal(rpl_llm_provider_parse(&p, "openai"), 0);
    assert_int_equal(p, RPL_LLM_OPENAI);
    assert_int_equal(rpl_llm_provider_parse(&p, "gemini"), RPL_EUSAGE);
    assert_string_equal(rpl_llm_provider_name(RPL_LLM_ANTHROPIC), "anthropic");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(http_statuses),
        cmocka_unit_test(transport_errors),
        cmocka_unit_test(retry_after_is_clamped),
        cmocka_unit_test(backoff_bounds),
        cmocka_unit_test(token_budget),
        cmocka_unit_test(outcomes),
        cmocka_unit_test(providers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
