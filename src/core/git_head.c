/* The commit a baseline's history records (rpl/git_head.h). */
#include <git2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/git_head.h"

int rpl_git_head_commit(char **out, const char *dir)
{
    git_repository *repo = NULL;
    git_oid id;
    char hex[GIT_OID_HEXSZ + 1];
    bool found;

    *out = NULL;
    if (git_libgit2_init() < 0)
        return 0;
    found = git_repository_open_ext(&repo, dir, 0, NULL) == 0 && !git_repository_is_bare(repo) &&
            git_reference_name_to_id(&id, repo, "HEAD") == 0;
    if (found)
        git_oid_tostr(hex, sizeof(hex), &id);
    git_repository_free(repo);
    git_libgit2_shutdown();
    if (!found)
        return 0;
    return (*out = strdup(hex)) ? 0 : rpl_error_oom();
}
