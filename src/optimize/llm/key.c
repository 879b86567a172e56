/*
 * The API key: from a file named by the caller (first line, trimmed) or
 * from the provider's environment variable.  Messages name the file or the
 * variable, never the key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "key.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"

/* A key file is a line, not a document. */
#define KEY_FILE_MAX (64u << 10)

const char *rpl_llm_key_env_name(rpl_llm_provider provider)
{
    return provider == RPL_LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A copy of s[0..n) with blanks trimmed at both ends; "" stays "". */
static char *trimmed_copy(const char *s, size_t n)
{
    char *key;

    while (n && blank(*s))
        s++, n--;
    while (n && blank(s[n - 1]))
        n--;
    if (!(key = malloc(n + 1)))
        return NULL;
    memcpy(key, s, n);
    key[n] = '\0';
    return key;
}

/* Keys go into an HTTP header: printable ASCII only (no header injection). */
static int check_key(const char *key, const char *origin)
{
    if (!key[0])
        return rpl_error_set(RPL_EENV, "%s holds no API key", origin);
    for (const char *p = key; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
            return rpl_error_set(RPL_EINPUT,
                                 "the API key in %s has a space or a character that is not "
                                 "printable ASCII",
                                 origin);
    return 0;
}

static int key_from_file(char **out, const char *path)
{
    struct stat st;
    char *text = NULL, *nl, *key;
    size_t len = 0;
    char origin[512];
    int rc;

    snprintf(origin, sizeof(origin), "'%s'", path);
    if (stat(path, &st) != 0)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO,
                             "cannot read the API key file '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "the API key file '%s' is not a regular file", path);
    if (st.st_mode & 077)
        rpl_log_warn("the API key file '%s' can be read by others (mode %04o): chmod 600 it", path,
                     (unsigned)(st.st_mode & 07777));
    if ((rc = rpl_file_read_all(path, KEY_FILE_MAX, &text, &len)) != 0)
        return rc;
    nl = memchr(text, '\n', len);
    key = trimmed_copy(text, nl ? (size_t)(nl - text) : len);
    explicit_bzero(text, len);
    free(text);
    if (!key)
        return rpl_error_oom();
    if ((rc = check_key(key, origin)) != 0) {
        explicit_bzero(key, strlen(key));
        free(key);
        return rc;
    }
    *out = key;
    return 0;
}

int rpl_llm_key_load(char **out, rpl_llm_provider provider, const char *path)
{
    const char *env;
    char origin[64];
    char *key;
    int rc;

    *out = NULL;
    if (path)
        return key_from_file(out, path);
    env = getenv(rpl_llm_key_env_name(provider));
    if (!env || !env[0])
        return 0;
    if (!(key = trimmed_copy(env, strlen(env))))
        return rpl_error_oom();
    snprintf(origin, sizeof(origin), "%s", rpl_llm_key_env_name(provider));
    if ((rc = check_key(key, origin)) != 0) {
        explicit_bzero(key, strlen(key));
        free(key);
        return rc;
    }
    *out = key;
    return 0;
}

void rpl_llm_key_free(char *key)
{
    if (!key)
        return;
    explicit_bzero(key, strlen(key));
    free(key);
}
