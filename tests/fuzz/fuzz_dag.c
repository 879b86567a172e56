/*
 * libFuzzer target for the critical-path DAG: the input bytes are an SQLite
 * database image, read like fuzz_rocpd_reader does; when the read succeeds
 * the DAG is built from the trace, once with the default options and once
 * inferring edges everywhere.  API regions (names, arguments, threads,
 * times) come from the input, so the event, host and default-stream rules
 * (src/analysis/dag_deps.c, dag_host.c) all see hostile values.  A build
 * may fail only with a clear input error or out of memory.
 */
#include <sqlite3.h>
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

static void build(const rpl_trace *t, rpl_dag_infer infer)
{
    rpl_dag_opts o;
    rpl_dag *dag = NULL;
    int rc;

    rpl_dag_opts_init(&o);
    o.infer = infer;
    rc = rpl_dag_build(&dag, t, &o);
    if (rc != 0 && rc != RPL_EINPUT && rc != RPL_ENOMEM)
        abort();
    if (rc == 0 && (dag->critical_path_ns < 0 || dag->path_len > dag->node_count))
        abort();
    rpl_dag_free(dag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const rpl_rocpd_read_opts read = {rpl_dag_arg_names}; /* as analyze reads */
    rpl_trace *t = NULL;
    sqlite3 *db;

    if (size > MAX_INPUT || !(db = fuzz_sqlite_image_open(data, size)))
        return 0;
    if (rpl_trace_new(&t) == 0 && rpl_rocpd_read_db(t, db, "fuzz", &read) == 0) {
        build(t, RPL_DAG_INFER_AUTO);
        build(t, RPL_DAG_INFER_ALWAYS);
    }
    rpl_trace_free(t);
    sqlite3_close(db);
    return 0;
}
