/* When to retry and how long to wait (see llm_int.h). */
#include <math.h>

#include <curl/curl.h>

#include "llm_int.h"

/* Transfer failures that another attempt may not meet. */
static bool transient_transport(int curl_code)
{
    switch ((CURLcode)curl_code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return true;
    default:
        return false;
    }
}

rpl_llm_decision rpl_llm_retry_decide(int curl_code, long http_status, bool spend_limit)
{
    if (curl_code != CURLE_OK)
        return transient_transport(curl_code) ? RPL_LLM_RETRY : RPL_LLM_FINAL;
    if (http_status >= 200 && http_status < 300)
        return RPL_LLM_DONE;
    switch (http_status) {
    case 429:
        /* A spend limit or an empty quota stays so until a person acts. */
        return spend_limit ? RPL_LLM_FINAL : RPL_LLM_RETRY;
    case 408: /* request timeout */
    case 409: /* conflict (OpenAI: "lock timeout") */
    case 500:
    case 502:
    case 503:
    case 504:
    case 529: /* Anthropic: overloaded */
        return RPL_LLM_RETRY;
    default:
        return RPL_LLM_FINAL;
    }
}

double rpl_llm_retry_after_clamp(long seconds)
{
    if (seconds <= 0)
        return -1.0;
    if ((double)seconds < RPL_LLM_RETRY_AFTER_MIN_S)
        return RPL_LLM_RETRY_AFTER_MIN_S;
    if ((double)seconds > RPL_LLM_RETRY_AFTER_MAX_S)
        return RPL_LLM_RETRY_AFTER_MAX_S;
    return (double)seconds;
}

double rpl_llm_backoff_s(double base_s, int retry, double unit)
{
    double step;

    if (retry < 1)
        retry = 1;
    if (!(unit >= 0.0) || unit >= 1.0)
        unit = 0.0;
    /* 2^(retry-1) without overflow: the cap is reached long before 2^60. */
    step = base_s * ldexp(1.0, retry > 60 ? 59 : retry - 1);
    if (!(step <= RPL_LLM_BACKOFF_MAX_S))
        step = RPL_LLM_BACKOFF_MAX_S;
    /* "Equal jitter": never less than half the step, so retries stay spread out. */
    return step * (0.5 + 0.5 * unit);
}
