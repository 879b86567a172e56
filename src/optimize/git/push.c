/* Pushing an optimization branch, with credentials from the usual places (rpl/optgit.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git_internal.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

#define SECRETS_MAX 4

typedef struct push_ctx {
    const char *secrets[SECRETS_MAX]; /* never to appear in a message */
    size_t n_secrets;
    const char *token_from; /* the variable whose token was offered, or NULL */
    bool url_password, tried_agent;
    char *rejected; /* the remote's reason for refusing the ref, or NULL */
} push_ctx;

int rpl_git_url_redact(char **out, const char *url)
{
    const char *scheme = strstr(url, "://");
    const char *host, *at, *slash;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    *out = NULL;
    if (!scheme) {
        /* scp-like "user@host:path" keeps its user (no password can be there); paths as is. */
        *out = strdup(url);
        return *out ? 0 : rpl_error_oom();
    }
    host = scheme + 3;
    slash = host + strcspn(host, "/");
    /* The user-info ends at the last '@' before the path: a password may hold '@'. */
    at = NULL;
    for (const char *p = host; p < slash; p++)
        if (*p == '@')
            at = p;
    rc = rpl_strbuf_put(&sb, url, (size_t)(host - url));
    if (!rc)
        rc = rpl_strbuf_puts(&sb, at ? at + 1 : host);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

/* The password of "scheme://user:password@host/..." (a view into url, length *n), or NULL. */
static const char *url_password(const char *url, size_t *n)
{
    const char *scheme = strstr(url, "://"), *host, *slash, *at = NULL, *colon;

    if (!scheme)
        return NULL;
    host = scheme + 3;
    slash = host + strcspn(host, "/");
    for (const char *p = host; p < slash; p++)
        if (*p == '@')
            at = p;
    if (!at || !(colon = memchr(host, ':', (size_t)(at - host))))
        return NULL;
    *n = (size_t)(at - colon - 1);
    return *n ? colon + 1 : NULL;
}

/* Replace every secret in `text` with "***". */
static void scrub(rpl_strbuf *text, const char *const *secrets, size_t n_secrets)
{
    for (size_t i = 0; i < n_secrets; i++) {
        size_t len = strlen(secrets[i]);
        char *hit;

        if (len == 0)
            continue;
        while ((hit = strstr(text->ptr, secrets[i])) != NULL) {
            memset(hit, '*', 3 < len ? 3 : len);
            memmove(hit + (3 < len ? 3 : len), hit + len, strlen(hit + len) + 1);
            text->len = strlen(text->ptr);
        }
    }
}

/* The token for https, its environment variable's name in *from. */
static const char *env_token(const char **from)
{
    static const char *const names[] = {"GIT_TOKEN", "GITHUB_TOKEN", "CI_JOB_TOKEN"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v && v[0]) {
            *from = names[i];
            return v;
        }
    }
    return NULL;
}

/*
 * libgit2 asks again after each refused credential: offer each kind once,
 * then give up (GIT_PASSTHROUGH lets libgit2 report the failure).  A user
 * and password in the URL are used by libgit2 before this is called.
 */
static int acquire_credential(git_credential **out, const char *url, const char *user_from_url,
                              unsigned int allowed, void *payload)
{
    push_ctx *ctx = payload;
    const char *from = NULL, *token;

    (void)url;
    if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && !ctx->token_from &&
        (token = env_token(&from)) != NULL) {
        const char *user = user_from_url && user_from_url[0]   ? user_from_url
                           : strcmp(from, "CI_JOB_TOKEN") == 0 ? "gitlab-ci-token"
                                                               : "x-access-token";
        ctx->token_from = from;
        return git_credential_userpass_plaintext_new(out, user, token);
    }
    if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !ctx->tried_agent) {
        ctx->tried_agent = true;
        return git_credential_ssh_key_from_agent(out, user_from_url ? user_from_url : "git");
    }
    return GIT_PASSTHROUGH;
}

static int on_ref_update(const char *refname, const char *status, void *payload)
{
    push_ctx *ctx = payload;

    (void)refname;
    if (status && !ctx->rejected)
        ctx->rejected = strdup(status);
    return 0;
}

/* The failure as one line, with the redacted URL and no secret. */
static int push_error(int code, const push_ctx *ctx, const char *remote, const char *what)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *shown = NULL;

    if (rpl_git_url_redact(&shown, remote) < 0 ||
        rpl_strbuf_printf(&sb, "cannot push to '%s': %s", shown, what) < 0) {
        free(shown);
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    scrub(&sb, ctx->secrets, ctx->n_secrets);
    rpl_error_set(code, "%s", rpl_strbuf_cstr(&sb));
    free(shown);
    rpl_strbuf_release(&sb);
    return code;
}

/* libgit2 says "no callback set" when ours declined: say what was tried instead. */
static void describe_auth_failure(char *out, size_t n, const push_ctx *ctx)
{
    if (!ctx->url_password && !ctx->token_from && !ctx->tried_agent) {
        snprintf(out, n,
                 "authentication required, and no credentials were found (a password "
                 "in the URL, GIT_TOKEN, GITHUB_TOKEN, CI_JOB_TOKEN, an ssh agent)");
        return;
    }
    snprintf(out, n, "authentication failed with %s%s%s%s%s",
             ctx->url_password ? "the URL's user and password" : "",
             ctx->url_password && (ctx->token_from || ctx->tried_agent) ? ", " : "",
             ctx->token_from ? "the token from " : "", ctx->token_from ? ctx->token_from : "",
             ctx->tried_agent ? (ctx->token_from ? ", the ssh agent" : "the ssh agent") : "");
}

/* A configured remote by name (no '/' or ':' in it), else an anonymous remote for a URL or path. */
static int open_remote(git_remote **out, git_repository *repo, const char *remote,
                       const push_ctx *ctx)
{
    const git_error *e;
    char *local = NULL;
    int rc;

    if (strpbrk(remote, "/:") == NULL) {
        rc = git_remote_lookup(out, repo, remote);
        if (rc == GIT_ENOTFOUND)
            return rpl_error_set(RPL_EINPUT, "no remote named '%s' in the repository", remote);
    } else {
        /* libgit2 takes a local repository by absolute path only. */
        if (!strstr(remote, "://") && remote[0] != '/' && access(remote, F_OK) == 0 &&
            !(local = realpath(remote, NULL)))
            return rpl_error_set(RPL_EIO, "cannot resolve '%s'", remote);
        rc = git_remote_create_anonymous(out, repo, local ? local : remote);
        free(local);
    }
    if (rc >= 0)
        return 0;
    e = git_error_last();
    return push_error(RPL_EINPUT, ctx, remote, e && e->message ? e->message : "bad remote");
}

/* Push one refspec; the remote's answer per ref comes back through on_ref_update. */
static int push_refspec(git_remote *r, char *refspec, push_ctx *ctx, const char *remote,
                        const char *branch)
{
    git_strarray refspecs = {&refspec, 1};
    git_push_options opts;
    char what[512];
    int rc;

    if ((rc = git_push_options_init(&opts, GIT_PUSH_OPTIONS_VERSION)) < 0)
        return rpl_git_fail(rc, "cannot set up the push");
    opts.callbacks.credentials = acquire_credential;
    opts.callbacks.push_update_reference = on_ref_update;
    opts.callbacks.payload = ctx;
    rc = git_remote_push(r, &refspecs, &opts);
    if (rc == GIT_EAUTH) {
        describe_auth_failure(what, sizeof(what), ctx);
        return push_error(RPL_EENV, ctx, remote, what);
    }
    if (rc < 0) {
        const git_error *e = git_error_last();
        return push_error(rpl_git_status_code(rc), ctx, remote,
                          e && e->message ? e->message : "libgit2 error");
    }
    if (ctx->rejected) {
        snprintf(what, sizeof(what), "the remote refused %s: %s", branch, ctx->rejected);
        return push_error(RPL_EINPUT, ctx, remote, what);
    }
    return 0;
}

/* Everything that must not appear in a message: the URL's password, every token variable. */
static int collect_secrets(push_ctx *ctx, const char *remote, char **pw_copy)
{
    static const char *const names[] = {"GIT_TOKEN", "GITHUB_TOKEN", "CI_JOB_TOKEN"};
    size_t pw_len = 0;
    const char *pw = url_password(remote, &pw_len);

    *pw_copy = NULL;
    if (pw) {
        if (!(*pw_copy = strndup(pw, pw_len)))
            return rpl_error_oom();
        ctx->secrets[ctx->n_secrets++] = *pw_copy;
        ctx->url_password = true;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v && v[0] && ctx->n_secrets < SECRETS_MAX)
            ctx->secrets[ctx->n_secrets++] = v;
    }
    return 0;
}

int rpl_git_push(rpl_git_repo *repo, const char *remote, const char *branch)
{
    push_ctx ctx = {0};
    git_remote *r = NULL;
    git_reference *ref = NULL;
    rpl_strbuf refspec = RPL_STRBUF_INIT;
    char *pw_copy = NULL;
    int rc, valid = 0;

    if (!remote || !remote[0] || !branch || !branch[0])
        return rpl_error_set(RPL_EUSAGE, "push needs a remote and a branch");
    /* A valid branch name cannot smuggle a second refspec (':') into the push. */
    if (git_branch_name_is_valid(&valid, branch) < 0 || !valid)
        return rpl_error_set(RPL_EINPUT, "'%s' is not a valid branch name", branch);
    if ((rc = git_branch_lookup(&ref, repo->repo, branch, GIT_BRANCH_LOCAL)) < 0)
        return rc == GIT_ENOTFOUND
                   ? rpl_error_set(RPL_ENOTFOUND, "no branch '%s' in the repository", branch)
                   : rpl_git_fail(rc, "cannot read branch '%s'", branch);
    git_reference_free(ref);
    if ((rc = collect_secrets(&ctx, remote, &pw_copy)) < 0 ||
        (rc = open_remote(&r, repo->repo, remote, &ctx)) < 0 ||
        (rc = rpl_strbuf_printf(&refspec, "refs/heads/%s:refs/heads/%s", branch, branch)) < 0)
        goto out;
    rc = push_refspec(r, refspec.ptr, &ctx, remote, branch);
out:
    git_remote_free(r);
    rpl_strbuf_release(&refspec);
    free(ctx.rejected);
    free(pw_copy);
    return rc;
}
