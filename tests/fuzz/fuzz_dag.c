/*
 * libFuzzer target for the critical-path DAG: the input bytes are an SQLite
 * database image, read like fuzz_rocpd_reader does; when the read succeeds
 * the DAG is built from the trace, inferring edges everywhere, then with the
 * default options twice: from the trace as it is, and releasing its API
 * regions as analyze does (rpl_dag_build_release_api), which must give the
 * same answer.  API regions (names, arguments, threads, times) come from the
 * input, so the launch, event, host and default-stream rules
 * (src/analysis/dag_launch_info.c, dag_deps.c, dag_host.c) all see hostile
 * values.  A build may fail only with a clear input error or out of memory.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"
#include "sqlite_image.h"

#define MAX_INPUT (32u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rpl_log_set_level(RPL_LOG_ERROR);
    fuzz_sqlite_limit_heap();
    return 0;
}

/* Build the DAG (releasing the trace's API regions when `release`); its status, *dag kept. */
static int build(rpl_dag **dag, rpl_trace *t, rpl_dag_infer infer, bool release)
{
    rpl_dag_opts o;
    int rc;

    rpl_dag_opts_init(&o);
    o.infer = infer;
    rc = release ? rpl_dag_build_release_api(dag, t, &o) : rpl_dag_build(dag, t, &o);
    if (rc != 0 && rc != RPL_EINPUT && rc != RPL_ENOMEM)
        abort();
    if (rc == 0 && ((*dag)->critical_path_ns < 0 || (*dag)->path_len > (*dag)->node_count))
        abort();
    return rc;
}

static void build_all(rpl_trace *t)
{
    rpl_dag *always = NULL, *kept = NULL, *released = NULL;
    int rc_kept, rc_released;

    build(&always, t, RPL_DAG_INFER_ALWAYS, false);
    rc_kept = build(&kept, t, RPL_DAG_INFER_AUTO, false);
    rc_released = build(&released, t, RPL_DAG_INFER_AUTO, true);
    /* Out of memory may strike one build and not the other; anything else must agree. */
    if (rc_kept != RPL_ENOMEM && rc_released != RPL_ENOMEM &&
        (rc_kept != rc_released ||
         (rc_kept == 0 && (kept->edge_count != released->edge_count ||
                           kept->critical_path_ns != released->critical_path_ns ||
                           kept->path_len != released->path_len))))
        abort();
    if (t->regions.count != 0)
        abort();
    rpl_dag_free(always);
    rpl_dag_free(kept);
    rpl_dag_free(released);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const rpl_rocpd_read_opts read = {rpl_dag_arg_names}; /* as analyze reads */
    rpl_trace *t = NULL;
    sqlite3 *db;

    if (size > MAX_INPUT || !(db = fuzz_sqlite_image_open(data, size)))
        return 0;
    if (rpl_trace_new(&t) == 0 && rpl_rocpd_read_db(t, db, "fuzz", &read) == 0) {
        build_all(t);
    }
    rpl_trace_free(t);
    sqlite3_close(db);
    return 0;
}
