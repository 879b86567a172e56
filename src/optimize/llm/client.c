/* Creating a client: settings, key, endpoint and the curl handle (see rpl/llm.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "key.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_status;

static void curl_init(void)
{
    curl_init_status = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void apply_defaults(rpl_llm_config *cfg)
{
    if (cfg->connect_timeout_s <= 0)
        cfg->connect_timeout_s = RPL_LLM_DEFAULT_CONNECT_TIMEOUT_S;
    if (cfg->timeout_s <= 0)
        cfg->timeout_s = RPL_LLM_DEFAULT_TIMEOUT_S;
    if (cfg->max_attempts <= 0)
        cfg->max_attempts = RPL_LLM_DEFAULT_MAX_ATTEMPTS;
    if (cfg->max_wait_s <= 0)
        cfg->max_wait_s = RPL_LLM_DEFAULT_MAX_WAIT_S;
    if (cfg->backoff_base_s <= 0)
        cfg->backoff_base_s = RPL_LLM_DEFAULT_BACKOFF_BASE_S;
}

static int check_config(const rpl_llm_config *cfg)
{
    if (cfg->provider != RPL_LLM_OPENAI && cfg->provider != RPL_LLM_ANTHROPIC)
        return rpl_error_set(RPL_EUSAGE, "unknown LLM provider %d", (int)cfg->provider);
    if (!cfg->model || !cfg->model[0])
        return rpl_error_set(RPL_EUSAGE, "%s: no model given",
                             rpl_llm_provider_name(cfg->provider));
    if (cfg->has_temperature && !(cfg->temperature >= 0.0 && cfg->temperature <= 2.0))
        return rpl_error_set(RPL_EUSAGE, "temperature %g is outside 0 to 2", cfg->temperature);
    if (cfg->max_tokens < 0)
        return rpl_error_set(RPL_EUSAGE, "max tokens must be positive");
    if (cfg->max_attempts > 100)
        return rpl_error_set(RPL_EUSAGE, "at most 100 attempts per turn");
    if (cfg->timeout_s < cfg->connect_timeout_s)
        return rpl_error_set(RPL_EUSAGE,
                             "the total timeout (%g s) is shorter than the connect timeout (%g s)",
                             cfg->timeout_s, cfg->connect_timeout_s);
    return 0;
}

static bool loopback_host(const char *host)
{
    return strcasecmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
           strcmp(host, "[::1]") == 0 || strcmp(host, "::1") == 0;
}

/*
 * Check the base URL with libcurl's parser: http or https, a host, no
 * credentials, query or fragment.  *loopback tells whether it stays on this
 * machine, *plain whether it is http.
 */
static int check_base_url(const char *url, bool *loopback, bool *plain)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *user = NULL, *query = NULL, *fragment = NULL;
    int rc = 0;

    if (!u)
        return rpl_error_oom();
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        rc = rpl_error_set(RPL_EUSAGE, "base URL '%s' is not a URL", url);
    } else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
        rc = rpl_error_set(RPL_EUSAGE, "base URL '%s' is not http or https", url);
    } else if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK) {
        /* Credentials in a URL would end up in logs and transcripts. */
        rc = rpl_error_set(RPL_EUSAGE, "the base URL must not hold a user name or password");
    } else if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
               curl_url_get(u, CURLUPART_FRAGMENT, &fragment, 0) == CURLUE_OK) {
        rc = rpl_error_set(RPL_EUSAGE, "base URL '%s' must not have a query or fragment", url);
    } else {
        *loopback = loopback_host(host);
        *plain = strcmp(scheme, "http") == 0;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(user);
    curl_free(query);
    curl_free(fragment);
    curl_url_cleanup(u);
    return rc;
}

static int set_urls(rpl_llm_client *c, const char *base)
{
    size_t n = strlen(base);
    rpl_strbuf sb = RPL_STRBUF_INIT;

    while (n > 0 && base[n - 1] == '/')
        n--;
    if (!(c->base_url = strndup(base, n)))
        return rpl_error_oom();
    if (rpl_strbuf_puts(&sb, c->base_url) ||
        rpl_strbuf_puts(&sb,
                        c->cfg.provider == RPL_LLM_ANTHROPIC ? "/messages" : "/chat/completions")) {
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    c->endpoint = rpl_strbuf_detach(&sb);
    return 0;
}

/* Append "name: value"; the temporary line is wiped, as it may hold the key. */
static int add_header(rpl_llm_client *c, const char *name, const char *value)
{
    size_t n = strlen(name) + 2 + strlen(value) + 1;
    char *line = malloc(n);
    struct curl_slist *l;

    if (!line)
        return rpl_error_oom();
    snprintf(line, n, "%s: %s", name, value);
    l = curl_slist_append(c->headers, line);
    explicit_bzero(line, n);
    free(line);
    if (!l)
        return rpl_error_oom();
    c->headers = l;
    return 0;
}

static int build_headers(rpl_llm_client *c)
{
    int rc;

    if ((rc = add_header(c, "Content-Type", "application/json")) ||
        (rc = add_header(c, "Accept", "application/json")))
        return rc;
    /* No "Expect: 100-continue" round trip for large prompts. */
    if (!(c->headers = curl_slist_append(c->headers, "Expect:")))
        return rpl_error_oom();
    if (c->cfg.provider == RPL_LLM_ANTHROPIC) {
        if ((rc = add_header(c, "anthropic-version", "2023-06-01")) ||
            (rc = add_header(c, "x-api-key", c->key)))
            return rc;
    } else if (c->key) {
        size_t n = strlen(c->key) + 8;
        char *value = malloc(n);

        if (!value)
            return rpl_error_oom();
        snprintf(value, n, "Bearer %s", c->key);
        rc = add_header(c, "Authorization", value);
        explicit_bzero(value, n);
        free(value);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_key_needed(rpl_llm_client *c, bool loopback, bool plain)
{
    if (!c->key) {
        if (c->cfg.provider == RPL_LLM_OPENAI && loopback)
            return 0;
        return rpl_error_set(
            RPL_EENV, "%s: no API key: set %s or name a key file%s",
            rpl_llm_provider_name(c->cfg.provider), rpl_llm_key_env_name(c->cfg.provider),
            c->cfg.provider == RPL_LLM_OPENAI ? " (a server on 127.0.0.1 or localhost needs none)"
                                              : "");
    }
    if (plain && !loopback)
        rpl_log_warn("%s: the API key goes to %s over plain http, unencrypted",
                     rpl_llm_provider_name(c->cfg.provider), c->base_url);
    return 0;
}

int rpl_llm_client_new(rpl_llm_client **out, const rpl_llm_config *cfg)
{
    rpl_llm_client *c;
    bool loopback = false, plain = false;
    const char *base;
    int rc;

    *out = NULL;
    if (!(c = calloc(1, sizeof(*c))))
        return rpl_error_oom();
    c->cfg = *cfg;
    apply_defaults(&c->cfg);
    base = cfg->base_url && cfg->base_url[0]    ? cfg->base_url
           : cfg->provider == RPL_LLM_ANTHROPIC ? RPL_LLM_ANTHROPIC_BASE_URL
                                                : RPL_LLM_OPENAI_BASE_URL;
    if ((rc = check_config(&c->cfg)) || (rc = check_base_url(base, &loopback, &plain)) ||
        (rc = set_urls(c, base)))
        goto fail;
    if (!(c->model = strdup(cfg->model))) {
        rc = rpl_error_oom();
        goto fail;
    }
    c->cfg.model = c->model;
    c->cfg.base_url = c->base_url;
    c->cfg.api_key_file = NULL;
    if ((rc = rpl_llm_key_load(&c->key, cfg->provider, cfg->api_key_file)) ||
        (rc = check_key_needed(c, loopback, plain)))
        goto fail;
    pthread_once(&curl_once, curl_init);
    if (curl_init_status != CURLE_OK) {
        rc = rpl_error_set(RPL_EENV, "libcurl: %s", curl_easy_strerror(curl_init_status));
        goto fail;
    }
    if (!(c->curl = curl_easy_init())) {
        rc = rpl_error_set(RPL_EENV, "libcurl: cannot create a handle");
        goto fail;
    }
    if ((rc = build_headers(c)))
        goto fail;
    rpl_rng_seed(&c->rng, rpl_rng_entropy(c));
    *out = c;
    return 0;
fail:
    rpl_llm_client_free(c);
    return rc;
}

void rpl_llm_client_free(rpl_llm_client *c)
{
    if (!c)
        return;
    for (struct curl_slist *l = c->headers; l; l = l->next)
        explicit_bzero(l->data, strlen(l->data));
    curl_slist_free_all(c->headers);
    if (c->curl)
        curl_easy_cleanup(c->curl);
    rpl_llm_key_free(c->key);
    RPL_FREE_EACH(c->model, c->base_url, c->endpoint, c);
}

const char *rpl_llm_client_endpoint(const rpl_llm_client *c)
{
    return c->endpoint;
}

bool rpl_llm_client_has_key(const rpl_llm_client *c)
{
    return c->key != NULL;
}

int rpl_llm_client_redact(char **out, const rpl_llm_client *c, const char *text)
{
    return rpl_llm_redact(out, text, c ? c->key : NULL);
}
