/*
 * Optimization branch sessions: commits built from trees only, on a branch
 * under refs/heads/rocm-perf/opt/ that appears with the first commit (rpl/optgit.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_internal.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/strbuf.h"

#define KERNEL_COMPONENT_MAX 64
#define SUFFIX_MAX           100
#define HEADS_LEN            (sizeof("refs/heads/") - 1)

struct rpl_optbranch {
    rpl_git_repo *repo;
    char *component; /* the kernel name made into one ref component */
    time_t stamp;
    rpl_git_commit_id base;
    git_oid base_oid;
    git_oid last;  /* the branch's tip: base until the first commit */
    char *refname; /* "refs/heads/rocm-perf/opt/...", NULL until the first commit */
    bool created;  /* this session created refname and has not deleted it */
    size_t count;
    rpl_cleanup_id cleanup;
};

static bool component_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/*
 * One ref component from any text: runs of other bytes become one '-', no
 * "..", no leading '.' or '-', no trailing '.', '-' or ".lock", at most
 * KERNEL_COMPONENT_MAX bytes; "kernel" when nothing is left.
 */
static char *kernel_component(const char *kernel)
{
    char *out = malloc(KERNEL_COMPONENT_MAX + 1);
    size_t n = 0;
    const unsigned char *p;

    if (!out)
        return NULL;
    for (p = (const unsigned char *)kernel; *p && n < KERNEL_COMPONENT_MAX; p++) {
        char c = component_char(*p) ? (char)*p : '-';
        if (n == 0 && (c == '.' || c == '-'))
            continue;
        if ((c == '-' || c == '.') && n > 0 && (out[n - 1] == '-' || out[n - 1] == '.')) {
            if (c == '-') /* "a.-b" -> "a-b", "a..b" -> "a.b" */
                out[n - 1] = '-';
            continue;
        }
        out[n++] = c;
    }
    while (n > 0 && (out[n - 1] == '.' || out[n - 1] == '-'))
        n--;
    out[n] = '\0';
    if (n >= 5 && strcmp(out + n - 5, ".lock") == 0)
        out[n - 5] = '-';
    if (n == 0)
        strcpy(out, "kernel");
    return out;
}

int rpl_optbranch_begin(rpl_optbranch **out, rpl_git_repo *repo, const char *kernel,
                        const rpl_optbranch_opts *opts)
{
    rpl_optbranch *b;
    git_commit *base = NULL;
    int rc;

    *out = NULL;
    if (!kernel)
        return rpl_error_set(RPL_EUSAGE, "no kernel name for the optimization branch");
    if (!(b = calloc(1, sizeof(*b))) || !(b->component = kernel_component(kernel))) {
        free(b);
        return rpl_error_oom();
    }
    b->repo = repo;
    b->stamp = opts ? opts->stamp : 0;
    if ((rc = rpl_git_lookup_commit(&base, repo->repo, opts ? opts->base : NULL)) < 0 ||
        (rc = rpl_git_fill_id(repo->repo, git_commit_id(base), &b->base)) < 0) {
        git_commit_free(base);
        free(b->component);
        free(b);
        return rc;
    }
    git_oid_cpy(&b->base_oid, git_commit_id(base));
    git_oid_cpy(&b->last, &b->base_oid);
    git_commit_free(base);
    *out = b;
    return 0;
}

static int signature(git_signature **out, git_repository *repo)
{
    int rc;

    /* git_signature_default fails when user.name or user.email is unset (CI runners). */
    if (git_signature_default(out, repo) == 0)
        return 0;
    if ((rc = git_signature_now(out, "rocm-perf", "rocm-perf@localhost")) < 0)
        return rpl_git_fail(rc, "cannot make a commit signature");
    return 0;
}

/* The mode a file keeps: its mode in `tree` when it is a file there, else a plain blob. */
static int file_mode(git_tree *tree, const char *path, git_filemode_t *mode)
{
    git_tree_entry *e = NULL;
    int rc = git_tree_entry_bypath(&e, tree, path);
    git_filemode_t m;

    *mode = GIT_FILEMODE_BLOB;
    if (rc == GIT_ENOTFOUND)
        return 0;
    if (rc < 0)
        return rpl_git_fail(rc, "cannot look up '%s'", path);
    m = git_tree_entry_filemode(e);
    git_tree_entry_free(e);
    if (m != GIT_FILEMODE_BLOB && m != GIT_FILEMODE_BLOB_EXECUTABLE)
        return rpl_error_set(RPL_EINPUT, "'%s' is not a regular file in the repository", path);
    *mode = m;
    return 0;
}

/* The tree of `parent` with `files` replaced or added. */
static int updated_tree(git_oid *out, git_repository *repo, git_tree *parent,
                        const rpl_git_file *files, size_t n)
{
    git_tree_update *updates = calloc(n, sizeof(*updates));
    size_t i;
    int rc = 0;

    if (!updates)
        return rpl_error_oom();
    for (i = 0; i < n && !rc; i++) {
        updates[i].action = GIT_TREE_UPDATE_UPSERT;
        updates[i].path = files[i].path;
        if ((rc = rpl_git_check_relpath(files[i].path)) < 0 ||
            (rc = file_mode(parent, files[i].path, &updates[i].filemode)) < 0)
            break;
        rc = git_blob_create_from_buffer(&updates[i].id, repo, files[i].data, files[i].len);
        if (rc < 0)
            rc = rpl_git_fail(rc, "cannot store '%s'", files[i].path);
    }
    if (!rc && (rc = git_tree_create_updated(out, repo, parent, n, updates)) < 0)
        rc = rpl_git_fail(rc, "cannot build the new tree");
    free(updates);
    return rc;
}

static int make_commit(rpl_optbranch *b, const rpl_git_file *files, size_t n, const char *message,
                       git_oid *out)
{
    git_repository *repo = b->repo->repo;
    git_commit *parent = NULL;
    git_tree *parent_tree = NULL, *tree = NULL;
    git_signature *sig = NULL;
    git_oid tree_id;
    int rc;

    if ((rc = git_commit_lookup(&parent, repo, &b->last)) < 0 ||
        (rc = git_commit_tree(&parent_tree, parent)) < 0) {
        rc = rpl_git_fail(rc, "cannot read commit %s", git_oid_tostr_s(&b->last));
        goto out;
    }
    if ((rc = updated_tree(&tree_id, repo, parent_tree, files, n)) < 0)
        goto out;
    if (git_oid_equal(&tree_id, git_tree_id(parent_tree))) {
        rc = rpl_error_set(RPL_EINPUT, "nothing to commit: the files are identical to %s",
                           git_oid_tostr_s(&b->last));
        goto out;
    }
    if ((rc = git_tree_lookup(&tree, repo, &tree_id)) < 0) {
        rc = rpl_git_fail(rc, "cannot read the new tree");
        goto out;
    }
    if ((rc = signature(&sig, repo)) < 0)
        goto out;
    /* update_ref NULL: HEAD and every ref stay where they are. */
    rc = git_commit_create(out, repo, NULL, sig, sig, NULL, message, tree, 1,
                           (const git_commit **)&parent);
    if (rc < 0)
        rc = rpl_git_fail(rc, "cannot create the commit");
out:
    git_signature_free(sig);
    git_tree_free(tree);
    git_tree_free(parent_tree);
    git_commit_free(parent);
    return rc;
}

/*
 * Delete the branch this session created, unless someone else moved it
 * meanwhile (then it is left alone: RPL_EINPUT).  A branch already gone is fine.
 */
static int delete_branch(rpl_optbranch *b)
{
    git_reference *ref = NULL;
    int rc;

    if (!b->created)
        return 0;
    rc = git_reference_lookup(&ref, b->repo->repo, b->refname);
    if (rc == GIT_ENOTFOUND) {
        b->created = false;
        return 0;
    }
    if (rc < 0)
        return rpl_git_fail(rc, "cannot read branch %s", b->refname + HEADS_LEN);
    if (git_reference_type(ref) != GIT_REFERENCE_DIRECT ||
        !git_oid_equal(git_reference_target(ref), &b->last)) {
        git_reference_free(ref);
        return rpl_error_set(RPL_EINPUT, "branch %s was changed outside this run: left as is",
                             b->refname + HEADS_LEN);
    }
    /* git_branch_delete refuses a branch that is checked out somewhere. */
    rc = git_branch_delete(ref);
    git_reference_free(ref);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot delete branch %s", b->refname + HEADS_LEN);
    b->created = false;
    return 0;
}

static void delete_at_cleanup(void *arg)
{
    rpl_optbranch *b = arg;

    b->cleanup = 0; /* this entry is running: nothing left to unregister */
    if (delete_branch(b) < 0)
        rpl_log_warn("unfinished optimization branch: %s", rpl_error_last()->message);
}

/* Create refs/heads/<prefix><kernel>/<stamp>[-N] at `id`; never replaces a ref. */
static int create_branch(rpl_optbranch *b, const git_oid *id)
{
    time_t when = b->stamp ? b->stamp : time(NULL);
    rpl_strbuf name = RPL_STRBUF_INIT;
    git_reference *ref = NULL;
    char stamp[32];
    struct tm tm;
    int rc = 0, git_rc = GIT_EEXISTS, valid = 0, suffix;

    if (!gmtime_r(&when, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
        return rpl_error_set(RPL_ERROR, "cannot format the branch time stamp");
    for (suffix = 1; suffix <= SUFFIX_MAX && git_rc == GIT_EEXISTS; suffix++) {
        rpl_strbuf_reset(&name);
        if ((rc = rpl_strbuf_printf(&name, "refs/heads/" RPL_OPTBRANCH_PREFIX "%s/%s", b->component,
                                    stamp)) < 0 ||
            (suffix > 1 && (rc = rpl_strbuf_printf(&name, "-%d", suffix)) < 0))
            break;
        if (git_branch_name_is_valid(&valid, name.ptr + HEADS_LEN) < 0 || !valid) {
            rc = rpl_error_set(RPL_EINPUT, "'%s' is not a valid branch name", name.ptr + HEADS_LEN);
            break;
        }
        git_rc = git_reference_create(&ref, b->repo->repo, name.ptr, id, 0,
                                      "rocm-perf: optimization branch");
    }
    git_reference_free(ref);
    if (!rc && git_rc == GIT_EEXISTS)
        rc =
            rpl_error_set(RPL_EINPUT, "branches " RPL_OPTBRANCH_PREFIX "%s/%s to -%d exist already",
                          b->component, stamp, SUFFIX_MAX);
    else if (!rc && git_rc < 0)
        rc = rpl_git_fail(git_rc, "cannot create branch %s", name.ptr + HEADS_LEN);
    if (rc < 0) {
        rpl_strbuf_release(&name);
        return rc;
    }
    b->refname = rpl_strbuf_detach(&name);
    b->created = true;
    git_oid_cpy(&b->last, id);
    /* From here until finish or abort, an exit or an interrupt deletes the branch. */
    return rpl_cleanup_register_fn(delete_at_cleanup, b, &b->cleanup);
}

/* Move the branch from b->last to `id`, failing if it no longer points at b->last. */
static int move_branch(rpl_optbranch *b, const git_oid *id)
{
    git_reference *ref = NULL;
    int rc = git_reference_create_matching(&ref, b->repo->repo, b->refname, id, 1, &b->last,
                                           "rocm-perf: accepted change");

    git_reference_free(ref);
    if (rc == GIT_EMODIFIED || rc == GIT_ENOTFOUND)
        return rpl_error_set(RPL_EINPUT, "branch %s was changed outside this run",
                             b->refname + HEADS_LEN);
    if (rc < 0)
        return rpl_git_fail(rc, "cannot move branch %s", b->refname + HEADS_LEN);
    return 0;
}

int rpl_optbranch_commit(rpl_optbranch *b, const rpl_git_file *files, size_t n, const char *message,
                         rpl_git_commit_id *out)
{
    git_oid id;
    int rc;

    if (n == 0 || !message || !message[0])
        return rpl_error_set(RPL_EUSAGE, "a commit needs files and a message");
    if ((rc = make_commit(b, files, n, message, &id)) < 0)
        return rc;
    if (!b->refname)
        rc = create_branch(b, &id);
    else
        rc = move_branch(b, &id);
    if (rc < 0)
        return rc;
    git_oid_cpy(&b->last, &id);
    b->count++;
    return out ? rpl_git_fill_id(b->repo->repo, &id, out) : 0;
}

const char *rpl_optbranch_name(const rpl_optbranch *b)
{
    return b->refname ? b->refname + HEADS_LEN : NULL;
}

const rpl_git_commit_id *rpl_optbranch_base(const rpl_optbranch *b)
{
    return &b->base;
}

size_t rpl_optbranch_count(const rpl_optbranch *b)
{
    return b->count;
}

static void session_free(rpl_optbranch *b)
{
    rpl_cleanup_unregister(b->cleanup);
    free(b->component);
    free(b->refname);
    free(b);
}

int rpl_optbranch_finish(rpl_optbranch *b, char **name)
{
    int rc = 0;

    *name = NULL;
    if (b->created && !(*name = strdup(b->refname + HEADS_LEN)))
        rc = rpl_error_oom();
    session_free(b);
    return rc;
}

int rpl_optbranch_abort(rpl_optbranch *b)
{
    int rc;

    if (!b)
        return 0;
    rc = delete_branch(b);
    session_free(b);
    return rc;
}
