/* Client settings: key from the environment or a file, base URLs, endpoints, bad settings. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm.h"

#define TMP        RPL_TEST_TMP "/llm_config"
#define STDERR_LOG TMP "/stderr.txt"
#define KEYFILE    TMP "/key"

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f;

    unlink(path);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* rpl_llm_client_new with stderr caught; *err gets what it printed. */
static int new_client(rpl_llm_client **c, const rpl_llm_config *cfg, char **err)
{
    int fd = open(STDERR_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644), saved, rc;
    size_t len;

    assert_true(fd >= 0);
    fflush(stderr);
    saved = dup(2);
    dup2(fd, 2);
    close(fd);
    rc = rpl_llm_client_new(c, cfg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(rpl_file_read_all(STDERR_LOG, 1 << 20, err, &len), 0);
    return rc;
}

/* The client holds exactly `key`: its redaction removes it. */
static void assert_holds_key(const rpl_llm_client *c, const char *key)
{
    char text[256], *out = NULL;

    snprintf(text, sizeof(text), "<%s>", key);
    assert_int_equal(rpl_llm_client_redact(&out, c, text), 0);
    assert_string_equal(out, "<[REDACTED]>");
    free(out);
}

static void key_from_a_file(void **state)
{
    rpl_llm_config cfg = {.provider = RPL_LLM_ANTHROPIC, .model = "m", .api_key_file = KEYFILE};
    rpl_llm_client *c = NULL;
    char *err = NULL;

    write_file(KEYFILE, "  file-key-123\t\r\nsecond line\n", 0600);
    assert_int_equal(new_client(&c, &cfg, &err), 0);
    assert_true(rpl_llm_client_has_key(c));
    assert_holds_key(c, "file-key-123");
    assert_string_equal(err, ""); /* 0600: no warning */
    free(err);
    rpl_llm_client_free(c);

    /* Readable by others: a warning, and the key is still used. */
    write_file(KEYFILE, "file-key-456", 0644);
    assert_int_equal(new_client(&c, &cfg, &err), 0);
    assert_holds_key(c, "file-key-456");
    assert_non_null(strstr(err, "can be read by others (mode 0644): chmod 600 it"));
    assert_null(strstr(err, "file-key-456"));
    free(err);
    rpl_llm_client_free(c);
}

static void bad_key_files(void **state)
{
    rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI, .model = "m", .api_key_file = KEYFILE};
    rpl_llm_client *c = (rpl_llm_client *)1;
    char *err = NULL;

    write_file(KEYFILE, "\n  \nkey-on-line-3\n", 0600);
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EENV);
    assert_null(c);
    assert_non_null(strstr(rpl_error_last()->message, "holds no API key"));
    free(err);

    write_file(KEYFILE, "two words-secret\n", 0600);
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EINPUT);
    assert_null(strstr(rpl_error_last()->message, "words-secret"));
    free(err);

    cfg.api_key_file = TMP "/missing";
    assert_int_equal(new_client(&c, &cfg, &err), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "cannot read the API key file"));
    free(err);

    cfg.api_key_file = TMP;
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "not a regular file"));
    free(err);
}

static void key_from_the_environment(void **state)
{
    rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI, .model = "gpt-4.1"};
    rpl_llm_client *c = NULL;
    char *err = NULL;

    setenv("OPENAI_API_KEY", "env-key-openai", 1);
    assert_int_equal(new_client(&c, &cfg, &err), 0);
    assert_holds_key(c, "env-key-openai");
    assert_string_equal(rpl_llm_client_endpoint(c), "https://api.openai.com/v1/chat/completions");
    free(err);
    rpl_llm_client_free(c);

    cfg.provider = RPL_LLM_ANTHROPIC;
    setenv("ANTHROPIC_API_KEY", "env-key-anthropic", 1);
    assert_int_equal(new_client(&c, &cfg, &err), 0);
    assert_holds_key(c, "env-key-anthropic");
    assert_string_equal(rpl_llm_client_endpoint(c), "https://api.anthropic.com/v1/messages");
    free(err);
    rpl_llm_client_free(c);
}

static void missing_key(void **state)
{
    rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI, .model = "m"};
    rpl_llm_client *c = NULL;
    char *err = NULL;

    unsetenv("OPENAI_API_KEY");
    setenv("ANTHROPIC_API_KEY", "", 1); /* empty is unset */
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EENV);
    assert_string_equal(rpl_error_last()->message,
                        "openai: no API key: set OPENAI_API_KEY or name a key file (a server on "
                        "127.0.0.1 or localhost needs none)");
    free(err);
    cfg.base_url = "http://10.1.2.3:8000/v1";
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EENV);
    free(err);
    /* Anthropic always needs one. */
    cfg.provider = RPL_LLM_ANTHROPIC;
    cfg.base_url = "http://127.0.0.1:9/v1";
    assert_int_equal(new_client(&c, &cfg, &err), RPL_EENV);
    assert_non_null(strstr(rpl_error_last()->message, "ANTHROPIC_API_KEY"));
    free(err);
}

static void loopback_servers_need_no_key(void **state)
{
    static const char *const urls[] = {"http://127.0.0.1:8080/v1", "http://localhost:11434/v1/",
                                       "http://127.0.0.2:8000/v1", "http://[::1]:8080/v1",
                                       "https://LOCALHOST/v1"};
    static const char *const endpoints[] = {
        "http://127.0.0.1:8080/v1/chat/completions", "http://localhost:11434/v1/chat/completions",
        "http://127.0.0.2:8000/v1/chat/completions", "http://[::1]:8080/v1/chat/completions",
        "https://LOCALHOST/v1/chat/completions"};

    unsetenv("OPENAI_API_KEY");
    for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
        rpl_llm_config cfg = {.provider = RPL_LLM_OPENAI, .model = "m", .base_url = urls[i]};
        rpl_llm_client *c = NULL;
        char *err = NULL;

        if (new_client(&c, &cfg, &err) != 0)
            fail_msg("%s: %s", urls[i], rpl_error_last()->message);
        assert_false(rpl_llm_client_has_key(c));
        assert_string_equal(rpl_llm_client_endpoint(c), endpoints[i]);
        free(err);
        rpl_llm_client_free(c);
    }
}

static void plain_http_with_a_key_warns(void **state)
{
    rpl_llm_config cfg = {
        .provider = RPL_LLM_OPENAI, .model = "m", .base_url = "http://gpu-box.lan:8000/v1"};
    rpl_llm_client *c = NULL;
    char *err = NULL;

    setenv("OPENAI_API_KEY", "env-key-openai", 1);
    assert_int_equal(new_client(&c, &cfg, &err), 0);
    assert_non_null(strstr(err, "over plain http, unencrypted"));
    assert_null(strstr(err, "env-key-openai"));
    free(err);
    rpl_llm_client_free(c);
}

static void bad_settings(void **state)
{
    static const struct {
        rpl_llm_config cfg;
        const char *words;
    } cases[] = {
        {{.provider = RPL_LLM_OPENAI, .model = ""}, "no model"},
        {{.provider = (rpl_llm_provider)7, .model = "m"}, "unknown LLM provider"},
        {{.model = "m", .has_temperature = true, .temperature = 2.5}, "outside 0 to 2"},
        {{.model = "m", .has_temperature = true, .temperature = -0.1}, "outside 0 to 2"},
        {{.model = "m", .max_tokens = -5}, "max tokens"},
        {{.model = "m", .max_attempts = 1000}, "at most 100 attempts"},
        {{.model = "m", .timeout_s = 5, .connect_timeout_s = 30}, "shorter than the connect"},
        {{.model = "m", .base_url = "ftp://127.0.0.1/v1"}, "not http or https"},
        {{.model = "m", .base_url = "127.0.0.1:8080/v1"}, "is not a URL"},
        {{.model = "m", .base_url = "http://user:pw@127.0.0.1/v1"}, "user name or password"},
        {{.model = "m", .base_url = "http://127.0.0.1/v1?x=1"}, "query or fragment"},
    };

    setenv("OPENAI_API_KEY", "env-key-openai", 1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_llm_client *c = NULL;
        char *err = NULL;

        if (new_client(&c, &cases[i].cfg, &err) != RPL_EUSAGE)
            fail_msg("case %zu was accepted", i);
        if (!strstr(rpl_error_last()->message, cases[i].words))
            fail_msg("case %zu: '%s' lacks '%s'", i, rpl_error_last()->message, cases[i].words);
        assert_null(c);
        free(err);
    }
}

static int setup(void **state)
{
    return rpl_mkdir_p(TMP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(key_from_a_file),
        cmocka_unit_test(bad_key_files),
        cmocka_unit_test(key_from_the_environment),
        cmocka_unit_test(missing_key),
        cmocka_unit_test(loopback_servers_need_no_key),
        cmocka_unit_test(plain_http_with_a_key_warns),
        cmocka_unit_test(bad_settings),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
