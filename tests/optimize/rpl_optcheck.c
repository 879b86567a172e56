/*
 * Test helper: read a commit back through libgit2 (rpl/optgit.h) and print
 * its subject and trailers as JSON, so the optimize tests check what
 * `git_message_trailers` sees rather than what git's CLI prints.
 *
 * usage: rpl_optcheck REPO REV
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/optgit.h"

int main(int argc, char **argv)
{
    rpl_git_repo *repo = NULL;
    rpl_trailers *t = NULL;
    char *msg = NULL, *text = NULL;
    cJSON *doc, *tr;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: rpl_optcheck REPO REV\n");
        return 2;
    }
    if ((rc = rpl_git_repo_open(&repo, argv[1])) != 0 ||
        (rc = rpl_git_commit_message(repo, argv[2], &msg)) != 0 ||
        (rc = rpl_trailers_parse(&t, msg)) != 0) {
        fprintf(stderr, "rpl_optcheck: %s\n", rpl_error_last()->message);
        rpl_git_repo_free(repo);
        free(msg);
        return 1;
    }
    doc = cJSON_CreateObject();
    msg[strcspn(msg, "\n")] = '\0';
    cJSON_AddStringToObject(doc, "subject", msg);
    tr = cJSON_AddObjectToObject(doc, "trailers");
    for (size_t i = 0; i < t->count; i++)
        cJSON_AddStringToObject(tr, t->items[i].key, t->items[i].value);
    text = cJSON_Print(doc);
    puts(text ? text : "{}");
    free(text);
    cJSON_Delete(doc);
    rpl_trailers_free(t);
    rpl_git_repo_free(repo);
    free(msg);
    return 0;
}
