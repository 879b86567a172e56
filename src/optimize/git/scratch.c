/* Scratch trees: a commit exported into a directory of its own (rpl/optgit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_internal.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/strbuf.h"

struct rpl_scratch {
    char *path;
    rpl_cleanup_id cleanup;
    rpl_git_commit_id commit;
};

int rpl_scratch_default_parent(char **out, const char *build_dir)
{
    const char *base = build_dir;
    rpl_strbuf sb = RPL_STRBUF_INIT;

    *out = NULL;
    if (!base || !base[0])
        base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    if (rpl_strbuf_printf(&sb, "%s/%s", base, RPL_SCRATCH_DIRNAME)) {
        rpl_strbuf_release(&sb);
        return RPL_ENOMEM;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

/* Create <parent>/<short sha>-XXXXXX and register it for cleanup at once. */
static int make_dir(rpl_scratch *s, const char *parent)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *real;
    int rc;

    if ((rc = rpl_mkdir_p(parent)) < 0)
        return rc;
    if (!(real = realpath(parent, NULL)))
        return rpl_error_set(RPL_EIO, "cannot resolve '%s': %s", parent, strerror(errno));
    rc = rpl_strbuf_printf(&sb, "%s/%s-XXXXXX", real, s->commit.short_hex);
    free(real);
    if (rc)
        return rc;
    if (!mkdtemp(sb.ptr)) {
        rc = rpl_error_set(RPL_EIO, "cannot create a scratch directory in '%s': %s", parent,
                           strerror(errno));
        rpl_strbuf_release(&sb);
        return rc;
    }
    s->path = rpl_strbuf_detach(&sb);
    return rpl_cleanup_register_path(s->path, &s->cleanup);
}

static int checkout_into(git_repository *repo, git_commit *commit, const char *dir)
{
    git_checkout_options co;
    git_tree *tree = NULL;
    int rc;

    if ((rc = git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION)) < 0 ||
        (rc = git_commit_tree(&tree, commit)) < 0)
        return rpl_git_fail(rc, "cannot read the tree of %s",
                            git_oid_tostr_s(git_commit_id(commit)));
    /* Without DONT_UPDATE_INDEX libgit2 rewrites the user's index to the exported tree. */
    co.checkout_strategy =
        GIT_CHECKOUT_FORCE | GIT_CHECKOUT_RECREATE_MISSING | GIT_CHECKOUT_DONT_UPDATE_INDEX;
    co.target_directory = dir;
    rc = git_checkout_tree(repo, (const git_object *)tree, &co);
    git_tree_free(tree);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot export the tree into '%s'", dir);
    return 0;
}

/* A tracked symbolic link must not lead an overlay file out of the scratch tree. */
static int check_inside(const char *root, const char *dir)
{
    char *real = realpath(dir, NULL);
    size_t n = strlen(root);
    int inside = real && strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');

    free(real);
    return inside ? 0 : rpl_error_set(RPL_EINPUT, "'%s' leads outside the scratch tree", dir);
}

int rpl_scratch_overlay(rpl_scratch *s, const rpl_git_file *files, size_t n)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < n; i++) {
        char *dest = NULL, *slash;

        if ((rc = rpl_git_check_relpath(files[i].path)) < 0 ||
            (rc = rpl_path_join(&dest, s->path, files[i].path)) < 0)
            break;
        slash = strrchr(dest, '/');
        *slash = '\0';
        rc = rpl_mkdir_p(dest);
        if (!rc)
            rc = check_inside(s->path, dest);
        *slash = '/';
        if (!rc)
            rc = rpl_file_write_atomic(dest, files[i].data, files[i].len);
        free(dest);
        if (rc)
            break;
    }
    if (rc)
        rpl_error_prefix("cannot write '%s' into the scratch tree", files[i].path);
    return rc;
}

int rpl_scratch_export(rpl_scratch **out, rpl_git_repo *repo, const rpl_scratch_opts *opts)
{
    rpl_scratch_opts none = {0};
    git_commit *commit = NULL;
    char *default_parent = NULL;
    rpl_scratch *s;
    int rc;

    *out = NULL;
    if (!opts)
        opts = &none;
    if (!(s = calloc(1, sizeof(*s))))
        return rpl_error_oom();
    if ((rc = rpl_git_lookup_commit(&commit, repo->repo, opts->rev)) < 0 ||
        (rc = rpl_git_fill_id(repo->repo, git_commit_id(commit), &s->commit)) < 0)
        goto out;
    if (!opts->parent && (rc = rpl_scratch_default_parent(&default_parent, NULL)) < 0)
        goto out;
    if ((rc = make_dir(s, opts->parent ? opts->parent : default_parent)) < 0 ||
        (rc = checkout_into(repo->repo, commit, s->path)) < 0 ||
        (rc = rpl_scratch_overlay(s, opts->overlay, opts->n_overlay)) < 0)
        goto out;
    *out = s;
out:
    git_commit_free(commit);
    free(default_parent);
    if (rc < 0) {
        /* Keep the first error: the removal's own status does not matter here. */
        int keep = rpl_error_last()->code;
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s", rpl_error_last()->message);
        rpl_scratch_free(s);
        rpl_error_set(keep, "%s", msg);
    }
    return rc;
}

const char *rpl_scratch_path(const rpl_scratch *s)
{
    return s->path;
}

const rpl_git_commit_id *rpl_scratch_commit(const rpl_scratch *s)
{
    return &s->commit;
}

int rpl_scratch_free(rpl_scratch *s)
{
    int rc = 0;

    if (!s)
        return 0;
    if (s->cleanup)
        rc = rpl_cleanup_run(s->cleanup);
    else if (s->path)
        rc = rpl_remove_tree(s->path);
    free(s->path);
    free(s);
    return rc;
}
