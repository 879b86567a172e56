/* Opening the user's repository and asking it about commits and files (rpl/optgit.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "git_internal.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status;

/* libgit2 stays initialised for the life of the process: no shutdown to race with. */
static void init_libgit2(void)
{
    init_status = git_libgit2_init() < 0 ? -1 : 0;
}

int rpl_git_init(void)
{
    pthread_once(&init_once, init_libgit2);
    if (init_status < 0)
        return rpl_error_set(RPL_EENV, "cannot initialise libgit2");
    return 0;
}

int rpl_git_status_code(int git_rc)
{
    switch (git_rc) {
    case GIT_ENOTFOUND:
        return RPL_ENOTFOUND;
    case GIT_EEXISTS:
    case GIT_EAMBIGUOUS:
    case GIT_EINVALIDSPEC:
    case GIT_EBAREREPO:
    case GIT_EUNBORNBRANCH:
    case GIT_EMODIFIED:
    case GIT_ENONFASTFORWARD:
    case GIT_ELOCKED:
        return RPL_EINPUT;
    case GIT_EAUTH:
    case GIT_ECERTIFICATE:
        return RPL_EENV;
    default:
        return RPL_ERROR;
    }
}

int rpl_git_fail(int git_rc, const char *fmt, ...)
{
    const git_error *e = git_error_last();
    char context[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(context, sizeof(context), fmt, ap);
    va_end(ap);
    return rpl_error_set(rpl_git_status_code(git_rc), "%s: %s", context,
                         e && e->message ? e->message : "libgit2 error");
}

int rpl_git_fill_id(git_repository *repo, const git_oid *id, rpl_git_commit_id *out)
{
    git_object *obj = NULL;
    git_buf buf = GIT_BUF_INIT;
    int rc;

    git_oid_tostr(out->hex, sizeof(out->hex), id);
    if ((rc = git_object_lookup(&obj, repo, id, GIT_OBJECT_ANY)) < 0 ||
        (rc = git_object_short_id(&buf, obj)) < 0) {
        git_object_free(obj);
        return rpl_git_fail(rc, "cannot abbreviate %s", out->hex);
    }
    snprintf(out->short_hex, sizeof(out->short_hex), "%s", buf.ptr);
    git_buf_dispose(&buf);
    git_object_free(obj);
    return 0;
}

int rpl_git_lookup_commit(git_commit **out, git_repository *repo, const char *rev)
{
    git_object *obj = NULL;
    char spec[512];
    int rc;

    *out = NULL;
    if (!rev)
        rev = "HEAD";
    if ((size_t)snprintf(spec, sizeof(spec), "%s^{commit}", rev) >= sizeof(spec))
        return rpl_error_set(RPL_EINPUT, "revision '%.40s...' is too long", rev);
    if ((rc = git_revparse_single(&obj, repo, spec)) < 0)
        return rpl_git_fail(rc, "cannot resolve revision '%s'", rev);
    *out = (git_commit *)obj;
    return 0;
}

int rpl_git_check_relpath(const char *path)
{
    const char *p = path;

    if (!path[0] || path[0] == '/')
        return rpl_error_set(RPL_EINPUT, "'%s' is not a repository-relative path", path);
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return rpl_error_set(RPL_EINPUT, "path '%s' has an empty, '.' or '..' component", path);
        if (p == path && n == 4 && strncmp(p, ".git", 4) == 0)
            return rpl_error_set(RPL_EINPUT, "path '%s' is inside .git", path);
        p += n;
        if (*p == '/' && !p[1])
            return rpl_error_set(RPL_EINPUT, "path '%s' ends with '/'", path);
        if (*p == '/')
            p++;
    }
    return 0;
}

/* The absolute, symlink-free directory to start from: `path` itself or its parent. */
static int start_dir(const char *path, char **out)
{
    char *real = realpath(path, NULL);
    struct stat st;

    *out = NULL;
    if (!real)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot open '%s': %s",
                             path, strerror(errno));
    if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(real, '/');
        if (slash == real)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    *out = real;
    return 0;
}

/* The working tree as an absolute, symlink-free path ending in '/'. */
static int resolve_workdir(rpl_git_repo *r, const char *path)
{
    const char *wd = git_repository_workdir(r->repo);
    char *real = wd ? realpath(wd, NULL) : NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    if (!real)
        return rpl_error_set(RPL_EIO, "cannot resolve the working tree of '%s'", path);
    rc = rpl_strbuf_puts(&sb, real);
    if (!rc && (sb.len == 0 || sb.ptr[sb.len - 1] != '/'))
        rc = rpl_strbuf_putc(&sb, '/');
    free(real);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    r->workdir = rpl_strbuf_detach(&sb);
    return 0;
}

static int open_checked(rpl_git_repo *r, const char *path, const char *dir)
{
    int rc = git_repository_open_ext(&r->repo, dir, 0, NULL);

    if (rc == GIT_ENOTFOUND)
        return rpl_error_set(RPL_ENOTFOUND, "'%s' is not inside a git repository", path);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot open the git repository of '%s'", path);
    if (git_repository_is_bare(r->repo))
        return rpl_error_set(RPL_EINPUT,
                             "the git repository of '%s' is bare: a working tree is needed", path);
    rc = git_repository_head_unborn(r->repo);
    if (rc == 1)
        return rpl_error_set(RPL_EINPUT,
                             "the git repository of '%s' has no commit yet (unborn HEAD): "
                             "commit the sources first",
                             path);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot read HEAD of the repository of '%s'", path);
    return resolve_workdir(r, path);
}

int rpl_git_repo_open(rpl_git_repo **out, const char *path)
{
    rpl_git_repo *r;
    char *dir;
    int rc;

    *out = NULL;
    if ((rc = rpl_git_init()) < 0 || (rc = start_dir(path, &dir)) < 0)
        return rc;
    r = calloc(1, sizeof(*r));
    if (!r) {
        free(dir);
        return rpl_error_oom();
    }
    rc = open_checked(r, path, dir);
    free(dir);
    if (rc < 0) {
        rpl_git_repo_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void rpl_git_repo_free(rpl_git_repo *repo)
{
    if (!repo)
        return;
    git_repository_free(repo->repo);
    free(repo->workdir);
    free(repo);
}

const char *rpl_git_repo_workdir(const rpl_git_repo *repo)
{
    return repo->workdir;
}

int rpl_git_commit_resolve(rpl_git_repo *repo, const char *rev, rpl_git_commit_id *out)
{
    git_commit *c;
    int rc;

    if ((rc = rpl_git_lookup_commit(&c, repo->repo, rev)) < 0)
        return rc;
    rc = rpl_git_fill_id(repo->repo, git_commit_id(c), out);
    git_commit_free(c);
    return rc;
}

int rpl_git_relpath(rpl_git_repo *repo, const char *path, char **out)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const char *base = strrchr(path, '/');
    size_t wd_len = strlen(repo->workdir);
    char *dir, *parent;
    int rc;

    *out = NULL;
    base = base ? base + 1 : path;
    if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return rpl_error_set(RPL_EINPUT, "'%s' does not name a file", path);
    /* Resolve the directory only: the file itself may be missing or a symbolic link. */
    parent = base == path ? strdup(".") : strndup(path, (size_t)(base - path));
    if (!parent)
        return rpl_error_oom();
    dir = realpath(parent[0] ? parent : "/", NULL);
    free(parent);
    if (!dir)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO,
                             "cannot resolve the directory of '%s': %s", path, strerror(errno));
    rc = rpl_strbuf_printf(&sb, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, base);
    free(dir);
    if (rc)
        return rc;
    if (sb.len <= wd_len || strncmp(sb.ptr, repo->workdir, wd_len) != 0) {
        rc = rpl_error_set(RPL_EINPUT, "'%s' is outside the repository at '%s'", path,
                           repo->workdir);
    } else if ((rc = rpl_git_check_relpath(sb.ptr + wd_len)) == 0) {
        *out = strdup(sb.ptr + wd_len);
        rc = *out ? 0 : rpl_error_oom();
    }
    rpl_strbuf_release(&sb);
    return rc;
}

int rpl_git_file_status(rpl_git_repo *repo, const char *relpath, unsigned *out)
{
    unsigned flags = 0, state = RPL_GIT_FILE_CLEAN;
    int rc;

    *out = RPL_GIT_FILE_CLEAN;
    if ((rc = rpl_git_check_relpath(relpath)) < 0)
        return rc;
    rc = git_status_file(&flags, repo->repo, relpath);
    if (rc == GIT_ENOTFOUND)
        return rpl_error_set(RPL_ENOTFOUND, "'%s' is neither in the working tree nor in HEAD",
                             relpath);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot get the git status of '%s'", relpath);
    if (flags & (GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED | GIT_STATUS_INDEX_DELETED |
                 GIT_STATUS_INDEX_RENAMED | GIT_STATUS_INDEX_TYPECHANGE))
        state |= RPL_GIT_FILE_STAGED;
    if (flags & (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_DELETED | GIT_STATUS_WT_RENAMED |
                 GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_WT_UNREADABLE))
        state |= RPL_GIT_FILE_MODIFIED;
    if (flags & GIT_STATUS_WT_NEW)
        state |= RPL_GIT_FILE_UNTRACKED;
    if (flags & GIT_STATUS_IGNORED)
        state |= RPL_GIT_FILE_IGNORED;
    if (flags & GIT_STATUS_CONFLICTED)
        state |= RPL_GIT_FILE_CONFLICTED;
    *out = state;
    return 0;
}

const char *rpl_git_file_status_describe(unsigned state)
{
    if (state & RPL_GIT_FILE_CONFLICTED)
        return "conflicted";
    if (state & RPL_GIT_FILE_IGNORED)
        return "ignored";
    if (state & RPL_GIT_FILE_UNTRACKED)
        return "untracked";
    if ((state & RPL_GIT_FILE_STAGED) && (state & RPL_GIT_FILE_MODIFIED))
        return "staged and modified";
    if (state & RPL_GIT_FILE_STAGED)
        return "staged";
    if (state & RPL_GIT_FILE_MODIFIED)
        return "modified";
    return "clean";
}

int rpl_git_commit_message(rpl_git_repo *repo, const char *rev, char **out)
{
    git_commit *c;
    int rc;

    *out = NULL;
    if ((rc = rpl_git_lookup_commit(&c, repo->repo, rev)) < 0)
        return rc;
    *out = strdup(git_commit_message(c));
    git_commit_free(c);
    return *out ? 0 : rpl_error_oom();
}
