/*
 * The steps of `rocm-perf replay` on a snapshot folder: open it, reserve or
 * replay, and write the report.
 */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/replay.h"

int rpl_replay_reserve_check_dir(const char *dir, bool *relocation, FILE *out)
{
    rpl_reserve_report rep;
    rpl_snapshot *snap = NULL;
    int rc = rpl_snapshot_open(&snap, dir);

    *relocation = false;
    if (rc != 0)
        return rc;
    rc = rpl_replay_reserve_check(&rep, snap);
    rpl_snapshot_free(snap);
    if (rc != 0 && rc != RPL_EFAIL)
        return rc;
    fprintf(out, "Reserved %zu of %zu span%s at the captured addresses.\n", rep.reserved,
            rep.nspans, rep.nspans == 1 ? "" : "s");
    if (rc == 0)
        return 0;
    *relocation = rep.relocation;
    return rpl_error_set(RPL_EFAIL, "%s: %s%s",
                         rep.relocation ? "relocation" : "reservation failed", rep.detail,
                         rpl_replay_aslr_disabled() ? "" : " (ASLR is on in this process)");
}

int rpl_replay_run_dir(rpl_replay_result **out, const char *dir, const rpl_replay_opts *opts)
{
    rpl_snapshot *snap = NULL;
    int rc = rpl_snapshot_open(&snap, dir);

    *out = NULL;
    if (rc != 0)
        return rc;
    rc = rpl_replay_run(out, snap, opts);
    rpl_snapshot_free(snap);
    return rc;
}

int rpl_replay_result_write(FILE *out, const rpl_replay_result *r, bool json)
{
    cJSON *doc = NULL;
    char *text = NULL;
    int rc;

    if (!json)
        return rpl_replay_result_print(out, r);
    if ((rc = rpl_replay_result_json(&doc, r)) == 0 && (rc = rpl_json_print(&text, doc)) == 0)
        fputs(text, out);
    free(text);
    cJSON_Delete(doc);
    return rc;
}
