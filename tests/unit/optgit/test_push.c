/*
 * Pushing optimization branches: to a local bare repository, and against a
 * small HTTP server on 127.0.0.1 that only ever answers 401, to see which
 * credentials are offered and that none leaks into an error message.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "gitfix.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/optgit.h"

#define ROOT  RPL_TEST_TMP "/optgit_push"
#define REPO  ROOT "/repo"
#define BARE  ROOT "/remote.git"
#define STAMP ((time_t)1700000000)
#define NAME  "rocm-perf/opt/gemm/20231114-221320"

#define AUTH_MAX 8

static int setup(void **state)
{
    (void)state;
    gitfix_env(ROOT);
    unsetenv("GIT_TOKEN");
    unsetenv("GITHUB_TOKEN");
    unsetenv("CI_JOB_TOKEN");
    gitfix_repo(REPO);
    return 0;
}

static int fresh_bare(void **state)
{
    (void)state;
    free(gitfix_git(ROOT, "init", "-q", "--bare", BARE, NULL));
    return 0;
}

static int drop_bare(void **state)
{
    (void)state;
    return rpl_remove_tree(BARE);
}

static char *trimmed(char *s)
{
    s[strcspn(s, "\n")] = '\0';
    return s;
}

/* The commit `ref` names in the bare repository, or "" when it is missing. */
static char *remote_ref(const char *ref)
{
    char *out =
        gitfix_git(ROOT, "--git-dir=" BARE, "for-each-ref", "--format=%(objectname)", ref, NULL);
    return trimmed(out);
}

static rpl_optbranch *commit_on_branch(rpl_git_repo *repo, const char *text, rpl_git_commit_id *id)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_file f = {"src/kernel.hip", text, strlen(text)};
    rpl_optbranch *b;

    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &f, 1, "perf(gemm): test\n", id), 0);
    return b;
}

static void pushes_to_a_local_bare_repository(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(REPO), *after;
    rpl_git_file f = {"src/kernel.hip", "kernel v4\n", 10};
    rpl_git_commit_id id, id2;
    rpl_git_repo *repo;
    rpl_optbranch *b;
    char *there, *name;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    b = commit_on_branch(repo, "kernel v3\n", &id);
    there = remote_ref("refs/heads/" NAME);
    assert_string_equal(there, "");
    free(there);
    assert_int_equal(rpl_git_push(repo, BARE, rpl_optbranch_name(b)), 0);
    there = remote_ref("refs/heads/" NAME);
    assert_string_equal(there, id.hex);
    free(there);
    /* A later commit fast-forwards the remote branch. */
    assert_int_equal(rpl_optbranch_commit(b, &f, 1, "two\n", &id2), 0);
    assert_int_equal(rpl_git_push(repo, BARE, rpl_optbranch_name(b)), 0);
    there = remote_ref("refs/heads/" NAME);
    assert_string_equal(there, id2.hex);
    free(there);
    /* Only that branch went there. */
    there = gitfix_git(ROOT, "--git-dir=" BARE, "for-each-ref", "--format=%(refname)", NULL);
    assert_string_equal(there, "refs/heads/" NAME "\n");
    free(there);
    assert_int_equal(rpl_optbranch_finish(b, &name), 0);
    free(name);
    after = gitfix_snapshot_take(REPO);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
    free(gitfix_git(REPO, "branch", "-D", NAME, NULL));
    rpl_git_repo_free(repo);
}

static void pushes_to_a_configured_remote(void **state)
{
    rpl_git_commit_id id;
    rpl_git_repo *repo;
    rpl_optbranch *b;
    char *there;

    (void)state;
    free(gitfix_git(REPO, "remote", "add", "backup", BARE, NULL));
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    b = commit_on_branch(repo, "kernel v5\n", &id);
    assert_int_equal(rpl_git_push(repo, "backup", rpl_optbranch_name(b)), 0);
    there = remote_ref("refs/heads/" NAME);
    assert_string_equal(there, id.hex);
    free(there);
    /* A relative path to a repository, as a user types it. */
    {
        char cwd[4096];
        rpl_git_file f = {"src/kernel.hip", "kernel v5b\n", 11};

        assert_non_null(getcwd(cwd, sizeof(cwd)));
        assert_int_equal(chdir(ROOT), 0);
        assert_int_equal(rpl_optbranch_commit(b, &f, 1, "again\n", &id), 0);
        assert_int_equal(rpl_git_push(repo, "./remote.git", rpl_optbranch_name(b)), 0);
        assert_int_equal(chdir(cwd), 0);
        there = remote_ref("refs/heads/" NAME);
        assert_string_equal(there, id.hex);
        free(there);
    }
    assert_int_equal(rpl_git_push(repo, "nowhere", rpl_optbranch_name(b)), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "no remote named 'nowhere'"));
    assert_int_equal(rpl_optbranch_abort(b), 0);
    free(gitfix_git(REPO, "remote", "remove", "backup", NULL));
    rpl_git_repo_free(repo);
}

static void refuses_to_overwrite_other_history(void **state)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_file other = {"src/kernel.hip", "other\n", 6};
    rpl_git_commit_id id, id_other;
    rpl_git_repo *repo;
    rpl_optbranch *b, *b2;
    char *there;
    int rc;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    b = commit_on_branch(repo, "kernel v6\n", &id);
    assert_int_equal(rpl_optbranch_begin(&b2, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b2, &other, 1, "other\n", &id_other), 0);
    /* Someone pushed different history under the same name. */
    free(gitfix_git(REPO, "push", "-q", BARE, "refs/heads/" NAME "-2:refs/heads/" NAME, NULL));
    rc = rpl_git_push(repo, BARE, rpl_optbranch_name(b));
    assert_int_equal(rc, RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "cannot push to '" BARE "'"));
    there = remote_ref("refs/heads/" NAME);
    assert_string_equal(there, id_other.hex);
    free(there);
    assert_int_equal(rpl_optbranch_abort(b2), 0);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

static void refuses_bad_branch_names(void **state)
{
    rpl_git_repo *repo;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_git_push(repo, BARE, "main:refs/heads/evil"), RPL_EINPUT);
    assert_int_equal(rpl_git_push(repo, BARE, "bad..name"), RPL_EINPUT);
    assert_int_equal(rpl_git_push(repo, BARE, ""), RPL_EUSAGE);
    assert_int_equal(rpl_git_push(repo, BARE, "rocm-perf/opt/none/1"), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "no branch"));
    rpl_git_repo_free(repo);
}

static void redacts_urls(void **state)
{
    const char *cases[][2] = {
        {"https://user:p%40ss@github.com/o/r.git", "https://github.com/o/r.git"},
        {"https://x-access-token:abc@host:8443/r.git", "https://host:8443/r.git"},
        {"https://tok@gitlab.example/g/r", "https://gitlab.example/g/r"},
        {"https://a:b@c@host/r", "https://host/r"},
        {"https://host/path@with-at", "https://host/path@with-at"},
        {"git@github.com:o/r.git", "git@github.com:o/r.git"},
        {"/srv/git/r.git", "/srv/git/r.git"},
        {"ssh://git@host/r", "ssh://host/r"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out;
        assert_int_equal(rpl_git_url_redact(&out, cases[i][0]), 0);
        assert_string_equal(out, cases[i][1]);
        free(out);
    }
}

/* ---- a 127.0.0.1 HTTP server that says 401 to everything ---- */

typedef struct probe {
    int fd;
    int port;
    pthread_t thread;
    atomic_bool stop;
    atomic_int requests;
    char auth[AUTH_MAX][256]; /* the Authorization headers seen */
    atomic_int n_auth;
} probe;

static void serve_one(probe *p, int c)
{
    static const char reply[] = "HTTP/1.1 401 Unauthorized\r\n"
                                "WWW-Authenticate: Basic realm=\"test\"\r\n"
                                "Content-Length: 0\r\n"
                                "Connection: close\r\n\r\n";
    char buf[8192];
    size_t len = 0;
    char *line;

    while (len < sizeof(buf) - 1) {
        struct pollfd pfd = {.fd = c, .events = POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 2000) <= 0 || (n = read(c, buf + len, sizeof(buf) - 1 - len)) <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n"))
            break;
    }
    buf[len] = '\0';
    atomic_fetch_add(&p->requests, 1);
    for (line = buf; line && *line; line = strstr(line, "\r\n") ? strstr(line, "\r\n") + 2 : NULL) {
        if (strncasecmp(line, "Authorization: ", 15) == 0) {
            int i = atomic_fetch_add(&p->n_auth, 1);
            if (i < AUTH_MAX)
                snprintf(p->auth[i], sizeof(p->auth[i]), "%.*s", (int)strcspn(line + 15, "\r"),
                         line + 15);
        }
    }
    if (write(c, reply, sizeof(reply) - 1) < 0)
        return;
}

static void *serve(void *arg)
{
    probe *p = arg;

    while (!atomic_load(&p->stop)) {
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        int c;

        if (poll(&pfd, 1, 50) <= 0)
            continue;
        if ((c = accept(p->fd, NULL, NULL)) < 0)
            continue;
        serve_one(p, c);
        close(c);
    }
    return NULL;
}

static void probe_start(probe *p)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t alen = sizeof(a);

    memset(p, 0, sizeof(*p));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    p->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(p->fd >= 0);
    assert_int_equal(bind(p->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(p->fd, 8), 0);
    assert_int_equal(getsockname(p->fd, (struct sockaddr *)&a, &alen), 0);
    p->port = ntohs(a.sin_port);
    assert_int_equal(pthread_create(&p->thread, NULL, serve, p), 0);
}

static void probe_stop(probe *p)
{
    atomic_store(&p->stop, true);
    pthread_join(p->thread, NULL);
    close(p->fd);
}

static void base64(char *out, const char *in)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), i;

    for (i = 0; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16 |
                     (uint32_t)(unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
        *out++ = tab[v >> 18];
        *out++ = tab[(v >> 12) & 63];
        *out++ = tab[(v >> 6) & 63];
        *out++ = tab[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        *out++ = tab[v >> 18];
        *out++ = tab[(v >> 12) & 63];
        *out++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        *out++ = '=';
    }
    *out = '\0';
}

/*
 * Push to the probe with `userinfo` ("alice:pw@" or "") in the URL; expect
 * `want_user_pass` ("user:secret") among the offered credentials and
 * `secret` nowhere in the error, which names what was `tried`.
 */
static void push_to_probe(const char *userinfo, const char *want_user_pass, const char *secret,
                          const char *tried)
{
    char url[256], shown[256], want[512];
    rpl_git_commit_id id;
    rpl_git_repo *repo;
    rpl_optbranch *b;
    probe p;
    int rc, found = 0;

    probe_start(&p);
    snprintf(url, sizeof(url), "http://%s127.0.0.1:%d/repo.git", userinfo, p.port);
    snprintf(shown, sizeof(shown), "'http://127.0.0.1:%d/repo.git'", p.port);
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    b = commit_on_branch(repo, "kernel http\n", &id);
    rc = rpl_git_push(repo, url, rpl_optbranch_name(b));
    probe_stop(&p);
    assert_int_equal(rc, RPL_EENV);
    if (!strstr(rpl_error_last()->message, tried))
        fail_msg("error '%s' does not say it tried %s", rpl_error_last()->message, tried);
    if (!strstr(rpl_error_last()->message, shown))
        fail_msg("error '%s' does not show the redacted URL", rpl_error_last()->message);
    if (strstr(rpl_error_last()->message, secret))
        fail_msg("error '%s' shows the secret", rpl_error_last()->message);
    assert_null(strchr(rpl_error_last()->message, '\n'));
    strcpy(want, "Basic ");
    base64(want + 6, want_user_pass);
    for (int i = 0; i < atomic_load(&p.n_auth) && i < AUTH_MAX; i++)
        found |= strcmp(p.auth[i], want) == 0;
    if (!found)
        fail_msg("the server never saw credentials %s (%d offered)", want_user_pass,
                 atomic_load(&p.n_auth));
    /* Each kind of credential is offered once: no retry loop against the server. */
    assert_true(atomic_load(&p.requests) <= 4);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

static void http_uses_url_credentials_and_hides_them(void **state)
{
    (void)state;
    push_to_probe("alice:pw-secret-1@", "alice:pw-secret-1", "pw-secret-1",
                  "with the URL's user and password");
}

static void http_uses_token_from_the_environment(void **state)
{
    (void)state;
    setenv("GIT_TOKEN", "tok-secret-2", 1);
    push_to_probe("", "x-access-token:tok-secret-2", "tok-secret-2", "the token from GIT_TOKEN");
    unsetenv("GIT_TOKEN");
    setenv("CI_JOB_TOKEN", "job-secret-3", 1);
    push_to_probe("", "gitlab-ci-token:job-secret-3", "job-secret-3",
                  "the token from CI_JOB_TOKEN");
    unsetenv("CI_JOB_TOKEN");
    setenv("GITHUB_TOKEN", "gh-secret-4", 1);
    push_to_probe("bob@", "bob:gh-secret-4", "gh-secret-4", "the token from GITHUB_TOKEN");
    unsetenv("GITHUB_TOKEN");
}

static void http_without_credentials_fails_cleanly(void **state)
{
    char url[128];
    rpl_git_commit_id id;
    rpl_git_repo *repo;
    rpl_optbranch *b;
    probe p;

    (void)state;
    probe_start(&p);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/repo.git", p.port);
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    b = commit_on_branch(repo, "kernel none\n", &id);
    assert_true(rpl_git_push(repo, url, rpl_optbranch_name(b)) < 0);
    probe_stop(&p);
    assert_int_equal(rpl_error_last()->code, RPL_EENV);
    assert_non_null(strstr(rpl_error_last()->message, "no credentials were found"));
    assert_int_equal(atomic_load(&p.n_auth), 0);
    assert_non_null(strstr(rpl_error_last()->message, "cannot push to"));
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fresh_bare, drop_bare)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(pushes_to_a_local_bare_repository),
        T(pushes_to_a_configured_remote),
        T(refuses_to_overwrite_other_history),
        T(refuses_bad_branch_names),
        cmocka_unit_test(redacts_urls),
        cmocka_unit_test(http_uses_url_credentials_and_hides_them),
        cmocka_unit_test(http_uses_token_from_the_environment),
        cmocka_unit_test(http_without_credentials_fails_cleanly),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
