/*
 * Git for the optimizer (libgit2): open the user's repository, export
 * scratch trees to build in, record accepted candidates as commits on an
 * optimization branch, format and read back commit trailers, push.
 *
 * What is guaranteed about the user's checkout: nothing here writes HEAD,
 * the index or the working tree.  Scratch trees are exported with
 * GIT_CHECKOUT_DONT_UPDATE_INDEX into a directory of their own; commits are
 * built from trees (blob -> git_tree_create_updated -> git_commit_create
 * with no ref to update) and only the branch ref under refs/heads/rocm-perf/
 * is created, moved or deleted.  Objects are added to the object database.
 *
 * One rpl_git_repo and what is made from it are used by one thread at a
 * time; different repositories may be used on different threads.
 */
#ifndef RPL_OPTGIT_H
#define RPL_OPTGIT_H

#include <stddef.h>
#include <time.h>

/* ---- repository ---------------------------------------------------------- */

typedef struct rpl_git_repo rpl_git_repo;

/*
 * Open the repository that contains `path` (a file or a directory, relative
 * to the current directory or absolute), searching upwards.  Fails with
 * RPL_ENOTFOUND when `path` does not exist or is in no repository, and with
 * RPL_EINPUT for a bare repository or one without a commit (unborn HEAD).
 */
int rpl_git_repo_open(rpl_git_repo **out, const char *path);
void rpl_git_repo_free(rpl_git_repo *repo);

/* The working tree: an absolute, symlink-free path ending in '/'. */
const char *rpl_git_repo_workdir(const rpl_git_repo *repo);

typedef struct rpl_git_commit_id {
    char hex[41];       /* full object id */
    char short_hex[41]; /* shortest unique abbreviation (core.abbrev, at least 7) */
} rpl_git_commit_id;

/* The commit that revision `rev` names ("HEAD", a branch, a sha); NULL means HEAD. */
int rpl_git_commit_resolve(rpl_git_repo *repo, const char *rev, rpl_git_commit_id *out);

/*
 * The path of `path` (relative to the current directory, or absolute) within
 * the working tree, '/'-separated (*out, free()).  RPL_EINPUT when it lies
 * outside the working tree or inside .git.  The file need not exist, its
 * directory must (RPL_ENOTFOUND).
 */
int rpl_git_relpath(rpl_git_repo *repo, const char *path, char **out);

/* How a file differs from HEAD: bits, 0 when clean. */
enum rpl_git_file_state {
    RPL_GIT_FILE_CLEAN = 0,
    RPL_GIT_FILE_STAGED = 1 << 0,     /* the index differs from HEAD */
    RPL_GIT_FILE_MODIFIED = 1 << 1,   /* the working tree differs from the index */
    RPL_GIT_FILE_UNTRACKED = 1 << 2,  /* not in HEAD nor in the index */
    RPL_GIT_FILE_IGNORED = 1 << 3,    /* untracked and ignored */
    RPL_GIT_FILE_CONFLICTED = 1 << 4, /* an unresolved merge */
};

/*
 * The state of repository-relative `relpath` (git_status_file; the index is
 * read, never refreshed or written).  RPL_ENOTFOUND when the file is neither
 * in the working tree nor in HEAD or the index.
 */
int rpl_git_file_status(rpl_git_repo *repo, const char *relpath, unsigned *out);

/* "clean", "staged", "modified", "staged and modified", "untracked", "ignored", "conflicted". */
const char *rpl_git_file_status_describe(unsigned state);

/* A file's new content: a repository-relative path ('/'-separated) and bytes. */
typedef struct rpl_git_file {
    const char *path;
    const void *data;
    size_t len;
} rpl_git_file;

/* ---- scratch trees ------------------------------------------------------- */

/* The directory name scratch trees go in, under a build directory or $TMPDIR. */
#define RPL_SCRATCH_DIRNAME "rocm-perf-scratch"

/*
 * The default parent of scratch trees (*out, free()): <build_dir>/rocm-perf-scratch
 * when build_dir is given, else ${TMPDIR:-/tmp}/rocm-perf-scratch.
 */
int rpl_scratch_default_parent(char **out, const char *build_dir);

typedef struct rpl_scratch_opts {
    const char *parent;          /* created if missing; NULL: rpl_scratch_default_parent(NULL) */
    const char *rev;             /* the commit to export; NULL: HEAD */
    const rpl_git_file *overlay; /* files written over the exported tree, or NULL */
    size_t n_overlay;
} rpl_scratch_opts;

typedef struct rpl_scratch rpl_scratch;

/*
 * Export a commit's tree into a new directory <parent>/<short sha>-XXXXXX,
 * then write the overlay files (replacing or adding; parent directories are
 * created).  The directory is registered with rpl_cleanup (rpl/cleanup.h)
 * before anything is written into it, so it goes away on exit and on an
 * interrupt; on failure it is already removed.  Submodules come out as empty
 * directories.
 */
int rpl_scratch_export(rpl_scratch **out, rpl_git_repo *repo, const rpl_scratch_opts *opts);

/* Write more files over a scratch tree (a second candidate in the same tree). */
int rpl_scratch_overlay(rpl_scratch *s, const rpl_git_file *files, size_t n);

/* The scratch tree's absolute path. */
const char *rpl_scratch_path(const rpl_scratch *s);

/* The commit it was exported from. */
const rpl_git_commit_id *rpl_scratch_commit(const rpl_scratch *s);

/* Remove the tree, unregister it and free; returns the removal's status. NULL is fine. */
int rpl_scratch_free(rpl_scratch *s);

/* ---- optimization branches ----------------------------------------------- */

/* Every branch made here is refs/heads/<RPL_OPTBRANCH_PREFIX><kernel>/<YYYYMMDD-HHMMSS>[-N]. */
#define RPL_OPTBRANCH_PREFIX "rocm-perf/opt/"

typedef struct rpl_optbranch_opts {
    const char *base; /* the revision the branch starts from; NULL: HEAD */
    time_t stamp;     /* the UTC time in the name; 0: the time of the first commit */
} rpl_optbranch_opts;

typedef struct rpl_optbranch rpl_optbranch;

/*
 * Start a session for `kernel` (any text: it is made into a valid ref
 * component, e.g. "gemm<float, 4>" -> "gemm-float-4").  No ref is made yet.
 * `repo` must outlive the session.  opts may be NULL.
 */
int rpl_optbranch_begin(rpl_optbranch **out, rpl_git_repo *repo, const char *kernel,
                        const rpl_optbranch_opts *opts);

/*
 * Commit `files` (their whole new content) on top of the session's last
 * commit (the base at first) with `message` (rpl_commit_msg_format), author
 * and committer from git_signature_default or else
 * "rocm-perf <rocm-perf@localhost>".  The first call creates the branch (an
 * existing branch of the same name gets a suffix -2, -3 ..., never
 * overwritten) and registers a cleanup entry that deletes it if the process
 * ends or is interrupted before rpl_optbranch_finish; later calls move the
 * branch, failing with RPL_EINPUT if someone else moved it meanwhile.
 * RPL_EINPUT when no file changes.  *out (may be NULL) gets the new commit.
 */
int rpl_optbranch_commit(rpl_optbranch *b, const rpl_git_file *files, size_t n, const char *message,
                         rpl_git_commit_id *out);

/* The branch's short name ("rocm-perf/opt/..."), NULL before the first commit. */
const char *rpl_optbranch_name(const rpl_optbranch *b);

/* The commit the branch started from. */
const rpl_git_commit_id *rpl_optbranch_base(const rpl_optbranch *b);

/* Commits made so far. */
size_t rpl_optbranch_count(const rpl_optbranch *b);

/* Keep the branch and free the session; *name (free(); NULL when nothing was committed). */
int rpl_optbranch_finish(rpl_optbranch *b, char **name);

/*
 * Delete the branch if this session created it, then free the session
 * (also on failure).  A branch someone else moved in the meantime is left
 * alone (RPL_EINPUT).  NULL is fine.
 */
int rpl_optbranch_abort(rpl_optbranch *b);

/* ---- commit messages and trailers ---------------------------------------- */

typedef struct rpl_trailer {
    const char *key;
    const char *value;
} rpl_trailer;

/* The trailer keys the optimizer writes (docs/USER_GUIDE.md section 12). */
#define RPL_TRAILER_SPEEDUP     "Rocm-Perf-Speedup"     /* 1.14: original time / candidate time */
#define RPL_TRAILER_CI95        "Rocm-Perf-CI95"        /* 1.12-1.16: 95% CI of the speedup */
#define RPL_TRAILER_CORRECTNESS "Rocm-Perf-Correctness" /* replay 3/3 regions equal, ... */
#define RPL_TRAILER_BASELINE    "Rocm-Perf-Baseline"    /* the commit measured against */
#define RPL_TRAILER_SNAPSHOT    "Rocm-Perf-Snapshot"    /* sha256:<hex> of the snapshot manifest */
#define RPL_TRAILER_TOOL        "Rocm-Perf-Tool"        /* rocm-perf <version> */
#define RPL_TRAILER_MODEL       "Rocm-Perf-Model"       /* the LLM, when one wrote the change */
#define RPL_TRAILER_ITERATION   "Rocm-Perf-Iteration"   /* the candidate's number in the run */

typedef struct rpl_commit_msg {
    const char *kernel;     /* in the subject, as given (one line) */
    const char *strategy;   /* "unroll x4", "LLM: tiled shared memory" (one line) */
    double time_change_pct; /* candidate time vs the original, %: -12.3 is 12.3% faster */
    double ci_half_pct;     /* half-width of its 95% CI in %; negative or NaN: not shown */
    const char *body;       /* free text (the metrics table), or NULL */
    const rpl_trailer *trailers;
    size_t n_trailers;
} rpl_commit_msg;

/*
 * The commit message (*out, free()):
 *
 *     perf(<kernel>): <strategy> (-12.3% ±0.8%)
 *
 *     [<strategy>, whole, when the subject had to cut it]
 *
 *     <body>
 *
 *     Key: value
 *     ...
 *
 * The subject holds at most RPL_COMMIT_SUBJECT_MAX characters: a longer
 * strategy is cut at a word and ends in "...", and a kernel name too long
 * to leave room for it gives "perf: <strategy>", with "Kernel <kernel>:
 * <strategy>" opening the body.  The sign is an ASCII '-' or '+', "±" is
 * UTF-8.  RPL_EINPUT for a subject
 * part or a trailer value with a line break, an empty value, a key that is
 * not letters, digits and '-', or a body line starting with "---" (git reads
 * it as the start of a patch and would lose the trailers).
 */
#define RPL_COMMIT_SUBJECT_MAX 72
int rpl_commit_msg_format(const rpl_commit_msg *m, char **out);

typedef struct rpl_trailers {
    size_t count;
    rpl_trailer *items; /* in message order */
} rpl_trailers;

/* Parse the trailers of a message (git_message_trailers). *out has count 0 when there are none. */
int rpl_trailers_parse(rpl_trailers **out, const char *message);

/* The first value for `key` (compared without case), or NULL. */
const char *rpl_trailers_get(const rpl_trailers *t, const char *key);

void rpl_trailers_free(rpl_trailers *t);

/* The full message of the commit `rev` names (*out, free()). */
int rpl_git_commit_message(rpl_git_repo *repo, const char *rev, char **out);

/* ---- push ---------------------------------------------------------------- */

/*
 * Push refs/heads/<branch> to `remote`, a configured remote's name or a URL
 * (or a path to a repository), without force: a branch that exists there
 * with other history is refused (RPL_EINPUT).  Credentials, tried in this
 * order: user and password in the URL; for https, a token from GIT_TOKEN,
 * GITHUB_TOKEN or CI_JOB_TOKEN with the URL's user name or else
 * "x-access-token" ("gitlab-ci-token" for CI_JOB_TOKEN); for ssh, the ssh
 * agent.  Credentials are never logged, and error messages carry the URL
 * without its user-info and never a password or token.  Authentication
 * failures are RPL_EENV.
 */
int rpl_git_push(rpl_git_repo *repo, const char *remote, const char *branch);

/* `url` without user name and password ("https://host/x.git"), for messages (*out, free()). */
int rpl_git_url_redact(char **out, const char *url);

#endif
