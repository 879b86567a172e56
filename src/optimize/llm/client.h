/* The client object shared by client.c, complete.c and transcript.c. */
#ifndef RPL_LLM_CLIENT_H
#define RPL_LLM_CLIENT_H

#include <stdint.h>

#include <curl/curl.h>

#include "rpl/llm.h"
#include "rpl/rng.h"

struct rpl_llm_client {
    rpl_llm_config cfg; /* numbers with defaults applied; strings point below */
    char *model;
    char *base_url; /* without a trailing '/' */
    char *endpoint;
    char *key; /* NULL: none (loopback OpenAI-compatible server) */
    CURL *curl;
    struct curl_slist *headers; /* holds the key: wiped before it is freed */
    rpl_rng rng;                /* for the backoff jitter */
};

#endif
