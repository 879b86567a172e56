/* Child processes through posix_spawnp with captured output (see rpl/spawn.h). */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addchdir_np, environ */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

#define DEFAULT_CAPTURE_LIMIT ((size_t)16 << 20)
#define KILL_GRACE_MS         2000 /* SIGTERM to SIGKILL */
#define DRAIN_GRACE_MS        1000 /* after SIGKILL, before the pipes are abandoned */
#define MAX_TICK_MS           50   /* longest sleep between checks of a child without pipes */

/* One captured stream: the parent's read end and what was kept of it. */
typedef struct stream {
    int fd; /* -1 once closed */
    rpl_strbuf buf;
} stream;

/* Time-limit state machine: deadline -> SIGTERM -> SIGKILL -> abandon pipes. */
typedef struct limit {
    int64_t next_ms; /* monotonic time of the next step; INT64_MAX: none */
    int stage;       /* 0 waiting for the deadline, 1 SIGTERM sent, 2 SIGKILL sent, 3 done */
} limit;

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');

    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool same_name(const char *a, const char *b)
{
    size_t n = name_len(a);

    return n == name_len(b) && memcmp(a, b, n) == 0;
}

/* Is the name of `entry` set again by env_set[from...]? */
static bool set_later(const char *entry, const char *const *env_set, size_t from)
{
    for (size_t i = from; env_set && env_set[i]; i++)
        if (same_name(entry, env_set[i]))
            return true;
    return false;
}

/*
 * The child's environment: environ minus the names env_set replaces, then
 * env_set (the last of repeated names wins).  Only pointers are copied.
 */
static int build_env(char ***out, const char *const *env_set)
{
    size_t n_env = 0, n_set = 0, k = 0;
    char **envp;

    *out = NULL;
    for (; env_set && env_set[n_set]; n_set++) {
        const char *e = env_set[n_set];
        if (!strchr(e, '=') || e[0] == '=')
            return rpl_error_set(RPL_EUSAGE, "environment entry '%s' is not NAME=VALUE", e);
    }
    while (environ && environ[n_env])
        n_env++;
    envp = calloc(n_env + n_set + 1, sizeof(*envp));
    if (!envp)
        return rpl_error_oom();
    for (size_t i = 0; i < n_env; i++)
        if (!set_later(environ[i], env_set, 0))
            envp[k++] = environ[i];
    for (size_t i = 0; i < n_set; i++)
        if (!set_later(env_set[i], env_set, i + 1))
            envp[k++] = (char *)env_set[i];
    *out = envp;
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* A pipe whose ends are close-on-exec, the parent's (read) end non-blocking. */
static int open_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return rpl_error_set(RPL_ERROR, "cannot create a pipe: %s", strerror(errno));
    if (fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        int err = errno;
        close_fd(&fds[0]);
        close_fd(&fds[1]);
        return rpl_error_set(RPL_ERROR, "cannot set up a pipe: %s", strerror(err));
    }
    return 0;
}

/* Errors of posix_spawnp that mean "this program cannot be executed". */
static bool exec_failure(int err)
{
    return err == ENOENT || err == EACCES || err == ENOEXEC || err == ENOTDIR || err == ELOOP ||
           err == ENAMETOOLONG || err == EISDIR || err == EPERM || err == ETXTBSY;
}

static int spawn_error(const char *prog, int err)
{
    if (err == ENOENT && !strchr(prog, '/'))
        return rpl_error_set(RPL_ENOTFOUND, "program '%s' not found in PATH", prog);
    if (exec_failure(err))
        return rpl_error_set(RPL_ENOTFOUND, "cannot run '%s': %s", prog, strerror(err));
    return rpl_error_set(RPL_ERROR, "cannot start '%s': %s", prog, strerror(err));
}

/*
 * Start the child.  `out_w`/`err_w` are the child's ends (or -1 to inherit).
 * The child gets an empty signal mask and SIGPIPE at its default action, so a
 * parent that ignores SIGPIPE does not pass that on.
 */
static int start_child(pid_t *pid, const rpl_spawn_opts *opts, char **envp, int out_w, int err_w)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t mask, dfl;
    int err;

    if ((err = posix_spawn_file_actions_init(&fa)) != 0)
        return rpl_error_set(RPL_ENOMEM, "cannot start '%s': %s", opts->argv[0], strerror(err));
    if ((err = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rpl_error_set(RPL_ENOMEM, "cannot start '%s': %s", opts->argv[0], strerror(err));
    }
    sigemptyset(&mask);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!err)
        err = posix_spawnattr_setsigmask(&attr, &mask);
    if (!err)
        err = posix_spawnattr_setsigdefault(&attr, &dfl);
    if (!err && out_w >= 0)
        err = posix_spawn_file_actions_adddup2(&fa, out_w, STDOUT_FILENO);
    if (!err && err_w >= 0)
        err = posix_spawn_file_actions_adddup2(&fa, err_w, STDERR_FILENO);
    if (!err && opts->cwd)
        err = posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);
    if (err) {
        rpl_error_set(RPL_ERROR, "cannot set up '%s': %s", opts->argv[0], strerror(err));
        err = RPL_ERROR;
    } else {
        /* glibc reports exec and file-action failures here (CLONE_VFORK). */
        err = posix_spawnp(pid, opts->argv[0], &fa, &attr, (char *const *)opts->argv, envp);
        err = err ? spawn_error(opts->argv[0], err) : 0;
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return err;
}

/* Reap without blocking; true once the child is gone (status in *status). */
static bool try_reap(pid_t pid, int *status)
{
    pid_t r;

    do
        r = waitpid(pid, status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        /* ECHILD: reaped elsewhere (SIGCHLD ignored); the status is lost. */
        *status = -1;
        return true;
    }
    return r == pid;
}

static void reap_blocking(pid_t pid, int *status)
{
    pid_t r;

    do
        r = waitpid(pid, status, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        *status = -1;
}

/*
 * Take the next step of the time limit when it is due.  Sets *abandon when
 * the pipes should no longer be waited for; *reaped and *status when the child
 * turned out to have exited already.
 */
static void limit_step(limit *lim, pid_t pid, bool *reaped, int *status, rpl_spawn_result *res,
                       bool *abandon)
{
    int64_t now = rpl_clock_mono_ms();

    if (now < lim->next_ms)
        return;
    if (!*reaped)
        *reaped = try_reap(pid, status);
    if (*reaped) {
        /* The child is gone; only descendants can still hold the pipes. */
        lim->stage = 3;
        lim->next_ms = INT64_MAX;
        *abandon = true;
        return;
    }
    switch (lim->stage) {
    case 0:
        kill(pid, SIGTERM);
        res->timed_out = true;
        lim->stage = 1;
        lim->next_ms = now + KILL_GRACE_MS;
        break;
    case 1:
        kill(pid, SIGKILL);
        lim->stage = 2;
        lim->next_ms = now + DRAIN_GRACE_MS;
        break;
    default:
        lim->stage = 3;
        lim->next_ms = INT64_MAX;
        *abandon = true;
        break;
    }
}

static int wait_ms_until(const limit *lim, int cap)
{
    int64_t left;

    if (lim->next_ms == INT64_MAX)
        return cap;
    left = lim->next_ms - rpl_clock_mono_ms();
    if (left < 0)
        left = 0;
    if (cap >= 0 && left > cap)
        left = cap;
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

/*
 * Read what one ready stream has; keeps at most `cap` bytes, drops the rest.
 * Returns false when nothing more is there now (would block, or closed).
 */
static bool read_stream(stream *s, size_t cap, bool *oom)
{
    char chunk[65536];
    ssize_t n = read(s->fd, chunk, sizeof(chunk));

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return errno == EINTR;
    if (n <= 0) {
        close_fd(&s->fd);
        return false;
    }
    if (s->buf.len < cap && !*oom) {
        size_t keep = (size_t)n < cap - s->buf.len ? (size_t)n : cap - s->buf.len;
        if (rpl_strbuf_put(&s->buf, chunk, keep) != 0)
            *oom = true;
    }
    return true;
}

/* Before giving up on a pipe, take what is already in it (a pipe holds 64 KiB). */
static void drain_now(stream *s, size_t cap, bool *oom)
{
    for (int k = 0; k < 16 && s->fd >= 0; k++)
        if (!read_stream(s, cap, oom))
            break;
}

/* Pump both pipes until EOF (or until the time limit gives up on them). */
static int pump(stream st[2], size_t cap, limit *lim, pid_t pid, const char *prog, bool *reaped,
                int *status, rpl_spawn_result *res, bool *oom)
{
    bool abandon = false;

    while ((st[0].fd >= 0 || st[1].fd >= 0) && !abandon) {
        struct pollfd pfd[2];
        int n = 0, rc;

        for (int i = 0; i < 2; i++)
            if (st[i].fd >= 0)
                pfd[n++] = (struct pollfd){.fd = st[i].fd, .events = POLLIN};
        rc = poll(pfd, (nfds_t)n, wait_ms_until(lim, -1));
        if (rc < 0 && errno != EINTR)
            return rpl_error_set(RPL_ERROR, "cannot read the output of '%s': %s", prog,
                                 strerror(errno));
        for (int i = 0, j = 0; rc > 0 && i < 2; i++) {
            if (st[i].fd < 0)
                continue;
            if (pfd[j++].revents)
                read_stream(&st[i], cap, oom);
        }
        limit_step(lim, pid, reaped, status, res, &abandon);
    }
    for (int i = 0; i < 2; i++) {
        drain_now(&st[i], cap, oom);
        close_fd(&st[i].fd);
    }
    return 0;
}

/* Wait for the child to end, still keeping the time limit. */
static void await_child(limit *lim, pid_t pid, bool *reaped, int *status, rpl_spawn_result *res)
{
    int tick = 1;
    bool abandon = false;

    if (lim->next_ms == INT64_MAX) {
        if (!*reaped)
            reap_blocking(pid, status);
        *reaped = true;
        return;
    }
    while (!*reaped) {
        *reaped = try_reap(pid, status);
        if (*reaped)
            break;
        limit_step(lim, pid, reaped, status, res, &abandon);
        if (lim->stage == 3 && !*reaped) {
            /* SIGKILL was sent long ago; it can only be stuck in the kernel. */
            reap_blocking(pid, status);
            *reaped = true;
            break;
        }
        poll(NULL, 0, wait_ms_until(lim, tick));
        tick = tick * 2 > MAX_TICK_MS ? MAX_TICK_MS : tick * 2;
    }
}

static void fill_status(rpl_spawn_result *res, int status)
{
    if (status == -1) {
        res->exited = false;
    } else if (WIFEXITED(status)) {
        res->exited = true;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->term_signal = WTERMSIG(status);
    }
}

static int check_opts(const rpl_spawn_opts *opts)
{
    struct stat st;

    if (!opts || !opts->argv || !opts->argv[0])
        return rpl_error_set(RPL_EUSAGE, "spawn: no program given");
    if (opts->timeout_ms < 0)
        return rpl_error_set(RPL_EUSAGE, "spawn: negative time limit for '%s'", opts->argv[0]);
    /* Checked here: a failed chdir would otherwise read as "program not found". */
    if (opts->cwd && (stat(opts->cwd, &st) != 0 || !S_ISDIR(st.st_mode)))
        return rpl_error_set(RPL_ENOTFOUND, "working directory '%s' for '%s' does not exist",
                             opts->cwd, opts->argv[0]);
    return 0;
}

int rpl_spawn_run(rpl_spawn_result *res, const rpl_spawn_opts *opts)
{
    stream st[2] = {{-1, RPL_STRBUF_INIT}, {-1, RPL_STRBUF_INIT}};
    int child_end[2] = {-1, -1};
    limit lim = {INT64_MAX, 0};
    size_t cap;
    char **envp = NULL;
    bool reaped = false, oom = false;
    int status = 0, rc;
    pid_t pid;

    memset(res, 0, sizeof(*res));
    if ((rc = check_opts(opts)) != 0)
        return rc;
    cap = opts->capture_limit ? opts->capture_limit : DEFAULT_CAPTURE_LIMIT;
    if ((rc = build_env(&envp, opts->env_set)) != 0)
        return rc;
    for (int i = 0; i < 2 && !rc; i++) {
        int fds[2];
        if (!(i == 0 ? opts->capture_stdout : opts->capture_stderr))
            continue;
        if ((rc = open_pipe(fds)) == 0) {
            st[i].fd = fds[0];
            child_end[i] = fds[1];
        }
    }
    if (!rc)
        rc = start_child(&pid, opts, envp, child_end[0], child_end[1]);
    free(envp);
    close_fd(&child_end[0]);
    close_fd(&child_end[1]);
    if (rc) {
        close_fd(&st[0].fd);
        close_fd(&st[1].fd);
        return rc;
    }

    if (opts->timeout_ms > 0)
        lim.next_ms = rpl_clock_mono_ms() + opts->timeout_ms;
    rc = pump(st, cap, &lim, pid, opts->argv[0], &reaped, &status, res, &oom);
    if (rc) {
        /* Never leave a child behind. */
        close_fd(&st[0].fd);
        close_fd(&st[1].fd);
        if (!reaped) {
            kill(pid, SIGKILL);
            reap_blocking(pid, &status);
        }
    } else {
        await_child(&lim, pid, &reaped, &status, res);
    }
    fill_status(res, status);
    if (opts->capture_stdout) {
        res->out_len = st[0].buf.len;
        res->out = rpl_strbuf_detach(&st[0].buf);
    }
    if (opts->capture_stderr) {
        res->err_len = st[1].buf.len;
        res->err = rpl_strbuf_detach(&st[1].buf);
    }
    if (rc)
        return rc;
    if (oom || (opts->capture_stdout && !res->out) || (opts->capture_stderr && !res->err))
        return rpl_error_oom();
    if (status == -1)
        return rpl_error_set(RPL_ERROR, "lost the exit status of '%s' (is SIGCHLD ignored?)",
                             opts->argv[0]);
    if (res->timed_out)
        return rpl_error_set(RPL_ETIMEOUT, "'%s' ran longer than %d ms and was stopped",
                             opts->argv[0], opts->timeout_ms);
    return 0;
}

void rpl_spawn_result_release(rpl_spawn_result *res)
{
    if (!res)
        return;
    free(res->out);
    free(res->err);
    memset(res, 0, sizeof(*res));
}

const char *rpl_spawn_last_line(char *buf, size_t size, const char *text)
{
    const char *end = text ? text + strlen(text) : NULL, *start;
    size_t len;

    buf[0] = '\0';
    if (!end)
        return buf;
    while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
        end--;
    for (start = end; start > text && start[-1] != '\n'; start--)
        ;
    len = (size_t)(end - start) < size - 1 ? (size_t)(end - start) : size - 1;
    memcpy(buf, start, len);
    buf[len] = '\0';
    return buf;
}
