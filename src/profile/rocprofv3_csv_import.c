/*
 * Import of rocprofv3 CSV output (ROCm 6.x has no rocpd) into the trace model.
 *
 * Column names as rocprofv3 writes them, read in source:
 *  - ROCm 6.2 (ROCm/rocprofiler-sdk tag rocm-6.2.0,
 *    source/lib/rocprofiler-sdk-tool/generateCSV.cpp): kernel_trace has
 *    Kind, Agent_Id, Queue_Id, Kernel_Id, Kernel_Name, Correlation_Id,
 *    Start_Timestamp, End_Timestamp, Private_Segment_Size,
 *    Group_Segment_Size, Workgroup_Size_X/Y/Z, Grid_Size_X/Y/Z; agents are
 *    plain node ids.
 *  - later 6.x (rocprofiler-sdk amd-mainline, then ROCm/rocm-systems
 *    projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp) add
 *    Stream_Id, Thread_Id and Dispatch_Id, replace the segment sizes by
 *    LDS_Block_Size (the symbol's static LDS rounded up to the allocation
 *    granule) and Scratch_Size, add VGPR_Count, Accum_VGPR_Count and
 *    SGPR_Count, and write agents as "Agent <node id>".
 *  - memory_copy_trace: Kind, Direction, [Stream_Id,] Source_Agent_Id,
 *    Destination_Agent_Id, Correlation_Id, Start_Timestamp, End_Timestamp
 *    (no byte count).
 *  - counter_collection: Correlation_Id, Dispatch_Id, Agent_Id, ...,
 *    Counter_Name, Counter_Value, one row per dispatch and counter.
 *  - agent_info: Node_Id, Logical_Node_Id, Agent_Type, then the
 *    rocprofiler_agent_v0_t fields (Simd_Count, Cu_Count, ...), Name,
 *    Vendor_Name, Product_Name, Model_Name.
 * Every column is looked up by name, so versions that add or reorder
 * columns import alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../trace/rocpd_idmap.h"
#include "csv.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"
#include "rpl/names.h"
#include "rpl/number.h"
#include "rpl/profile_backend.h"

#define NO_COL (-1)

typedef struct import_ctx {
    rpl_trace *t;
    const char *label; /* current file, for messages */
    rpl_csv_reader *csv;
    uint32_t source;
    int64_t pid;
    rpl_idmap agents;  /* node id -> agent index */
    rpl_idmap symbols; /* kernel id (or interned name pointer) -> symbol index */
    rpl_idmap queues;  /* queue handle -> queue index */
    rpl_idmap streams; /* stream handle -> stream index */
    rpl_idmap by_corr; /* correlation id -> dispatch index */
    uint32_t gpu_count, cpu_count;
    bool have_corr; /* the kernel trace has a Correlation_Id column */
} import_ctx;

/* ---- header and field helpers ------------------------------------------------------------ */

typedef struct header {
    char **names; /* copies of the header fields */
    size_t n;
} header;

static void header_free(header *h)
{
    rpl_free_strings(h->names, h->n);
    h->names = NULL;
    h->n = 0;
}

static int header_read(import_ctx *c, header *h)
{
    char **fields;
    size_t n;
    int rc = rpl_csv_next(c->csv, &fields, &n);

    if (rc < 0)
        return rc;
    if (rc == 0)
        return rpl_error_set(RPL_EINPUT, "%s: empty file (no header line)", c->label);
    h->names = calloc(n, sizeof(*h->names));
    if (!h->names)
        return rpl_error_oom();
    for (h->n = 0; h->n < n; h->n++) {
        h->names[h->n] = strdup(fields[h->n]);
        if (!h->names[h->n])
            return rpl_error_oom();
    }
    return 0;
}

/* Index of the first of `alts` (NULL-terminated) present in the header, or NO_COL. */
static int col_find(const header *h, const char *const *alts)
{
    for (; *alts; alts++)
        for (size_t i = 0; i < h->n; i++)
            if (strcasecmp(h->names[i], *alts) == 0)
                return (int)i;
    return NO_COL;
}

static int col_require(import_ctx *c, const header *h, const char *const *alts, int *col)
{
    *col = col_find(h, alts);
    if (*col == NO_COL)
        return rpl_error_set(RPL_EINPUT, "%s: required column '%s' missing", c->label, alts[0]);
    return 0;
}

#define ALTS(...)                                                                                  \
    (const char *const[])                                                                          \
    {                                                                                              \
        __VA_ARGS__, NULL                                                                          \
    }

/* The field of column `col` in a record, "" when the record is short or col is NO_COL. */
static const char *field(char **fields, size_t n, int col)
{
    return col >= 0 && (size_t)col < n ? fields[col] : "";
}

static int bad_value(import_ctx *c, const header *h, int col, const char *value, const char *want)
{
    return rpl_error_set(RPL_EINPUT, "%s:%zu: column '%s': '%.40s' is not %s", c->label,
                         rpl_csv_line(c->csv), h->names[col], value, want);
}

/* Column col as a whole number up to max (0 when the column is absent); `want` names the range. */
static int get_uint(import_ctx *c, const header *h, char **f, size_t n, int col, uint64_t max,
                    const char *want, uint64_t *out)
{
    const char *s = field(f, n, col);

    *out = 0;
    if (col == NO_COL)
        return 0;
    if (!rpl_parse_u64(s, out) || *out > max)
        return bad_value(c, h, col, s, want);
    return 0;
}

static int get_i64(import_ctx *c, const header *h, char **f, size_t n, int col, int64_t *out)
{
    uint64_t v;
    int rc = get_uint(c, h, f, n, col, INT64_MAX, "a non-negative integer", &v);

    *out = (int64_t)v;
    return rc;
}

static int get_u32(import_ctx *c, const header *h, char **f, size_t n, int col, uint32_t *out)
{
    uint64_t v;
    int rc = get_uint(c, h, f, n, col, UINT32_MAX, "a 32-bit unsigned integer", &v);

    *out = (uint32_t)v;
    return rc;
}

/* One dimension of a dispatch: its workgroup size (16-bit, as in the AQL packet) and grid. */
static int get_dim(import_ctx *c, const header *h, char **f, size_t n, int wg_col, int grid_col,
                   uint16_t *wg, uint32_t *grid)
{
    uint32_t v;
    int rc = get_u32(c, h, f, n, wg_col, &v);

    if (rc == 0 && v > RPL_WORKGROUP_MAX)
        rc = bad_value(c, h, wg_col, field(f, n, wg_col), "a workgroup size up to 65535");
    *wg = (uint16_t)v;
    return rc ? rc : get_u32(c, h, f, n, grid_col, grid);
}

/* An agent reference: "Agent 3" (ROCm 6.3+) or "3" (ROCm 6.2). */
static int get_agent_id(import_ctx *c, const header *h, char **f, size_t n, int col, int64_t *out)
{
    const char *s = field(f, n, col);
    uint64_t v;

    if (strncmp(s, "Agent ", 6) == 0)
        s += 6;
    if (!rpl_parse_u64(s, &v) || v > INT64_MAX)
        return bad_value(c, h, col, field(f, n, col),
                         "an agent id ('Agent N' or N; --agent-index absolute)");
    *out = (int64_t)v;
    return 0;
}

/* ---- records ------------------------------------------------------------------------------ */

static int add_agent(import_ctx *c, const rpl_agent *a, uint32_t *index)
{
    uint32_t existing;
    int rc;

    if (rpl_idmap_get(&c->agents, a->id) != RPL_IDMAP_EMPTY) {
        cJSON_Delete(a->extdata);
        return rpl_error_set(RPL_EINPUT, "%s:%zu: agent %" PRId64 " listed twice", c->label,
                             rpl_csv_line(c->csv), a->id);
    }
    rc = rpl_trace_add_agent(c->t, a, index);
    if (rc) {
        cJSON_Delete(a->extdata);
        return rc;
    }
    return rpl_idmap_put(&c->agents, a->id, *index, &existing);
}

/* The agent of a dispatch; agents missing from agent_info get a bare GPU entry. */
static int dispatch_agent(import_ctx *c, int64_t id, uint32_t *index)
{
    rpl_agent a = {0};

    *index = rpl_idmap_get(&c->agents, id);
    if (*index != RPL_IDMAP_EMPTY)
        return 0;
    a.source = c->source;
    a.id = id;
    a.type = RPL_AGENT_GPU;
    a.absolute_index = (int32_t)id;
    a.logical_index = (int32_t)id;
    a.type_index = (int32_t)c->gpu_count++;
    return add_agent(c, &a, index);
}

static int get_queue(import_ctx *c, rpl_idmap *map, bool stream, int64_t id, uint32_t *index)
{
    rpl_queue q = {0};
    char name[48];
    uint32_t existing;
    int rc;

    *index = rpl_idmap_get(map, id);
    if (*index != RPL_IDMAP_EMPTY)
        return 0;
    if (id == 0)
        snprintf(name, sizeof(name), stream ? "Default Stream" : "Default Queue");
    else
        snprintf(name, sizeof(name), "%s %" PRId64, stream ? "Stream" : "Queue", id);
    q.source = c->source;
    q.id = id;
    q.pid = c->pid;
    q.name = name;
    rc = stream ? rpl_trace_add_stream(c->t, &q, index) : rpl_trace_add_queue(c->t, &q, index);
    if (rc)
        return rc;
    return rpl_idmap_put(map, id, *index, &existing);
}

/* agent_info.csv: one agent per row; every column also goes into extdata, lower-cased,
 * which gives the key names of rocpd's agent extdata (cu_count, simd_per_cu, ...). */
static int import_agents(import_ctx *c)
{
    header h = {0};
    int c_node, c_type, c_name, c_logical, c_vendor, c_product, c_model;
    char **f;
    size_t n;
    int rc;

    if ((rc = header_read(c, &h)) != 0 ||
        (rc = col_require(c, &h, ALTS("Node_Id"), &c_node)) != 0 ||
        (rc = col_require(c, &h, ALTS("Agent_Type"), &c_type)) != 0 ||
        (rc = col_require(c, &h, ALTS("Name"), &c_name)) != 0)
        goto out;
    c_logical = col_find(&h, ALTS("Logical_Node_Id"));
    c_vendor = col_find(&h, ALTS("Vendor_Name"));
    c_product = col_find(&h, ALTS("Product_Name"));
    c_model = col_find(&h, ALTS("Model_Name"));
    while ((rc = rpl_csv_next(c->csv, &f, &n)) == 1) {
        rpl_agent a = {0};
        const char *type = field(f, n, c_type);
        int64_t logical;
        uint32_t index;

        if ((rc = get_i64(c, &h, f, n, c_node, &a.id)) != 0 ||
            (rc = get_i64(c, &h, f, n, c_logical, &logical)) != 0)
            goto out;
        if (strcmp(type, "GPU") == 0)
            a.type = RPL_AGENT_GPU;
        else if (strcmp(type, "CPU") == 0)
            a.type = RPL_AGENT_CPU;
        else {
            rc = bad_value(c, &h, c_type, type, "'CPU' or 'GPU'");
            goto out;
        }
        if (a.id > INT32_MAX || logical > INT32_MAX) {
            rc = bad_value(c, &h, c_node, field(f, n, c_node), "a node id");
            goto out;
        }
        a.source = c->source;
        a.absolute_index = (int32_t)a.id;
        a.logical_index = c_logical == NO_COL ? (int32_t)a.id : (int32_t)logical;
        a.type_index = (int32_t)(a.type == RPL_AGENT_GPU ? c->gpu_count++ : c->cpu_count++);
        a.name = field(f, n, c_name);
        a.vendor_name = field(f, n, c_vendor);
        a.product_name = field(f, n, c_product);
        a.model_name = field(f, n, c_model);
        a.extdata = cJSON_CreateObject();
        if (!a.extdata) {
            rc = rpl_error_oom();
            goto out;
        }
        for (size_t i = 0; i < h.n && i < n; i++) {
            char key[64];
            uint64_t v;
            size_t k;
            for (k = 0; h.names[i][k] && k + 1 < sizeof(key); k++)
                key[k] = (char)((h.names[i][k] >= 'A' && h.names[i][k] <= 'Z')
                                    ? h.names[i][k] - 'A' + 'a'
                                    : h.names[i][k]);
            key[k] = '\0';
            if (cJSON_GetObjectItemCaseSensitive(a.extdata, key))
                continue;
            if (rpl_parse_u64(f[i], &v) ? !cJSON_AddNumberToObject(a.extdata, key, (double)v)
                                        : !cJSON_AddStringToObject(a.extdata, key, f[i])) {
                cJSON_Delete(a.extdata);
                rc = rpl_error_oom();
                goto out;
            }
        }
        rpl_agent_refresh_facts(&a);
        if ((rc = add_agent(c, &a, &index)) != 0)
            goto out;
    }
out:
    header_free(&h);
    return rc < 0 ? rc : 0;
}

typedef struct kernel_cols {
    int agent, queue, stream, thread, dispatch, kernel_id, name, corr, start, end;
    int private_seg, group_seg, lds_block, vgpr, agpr, sgpr, wg[3], grid[3];
} kernel_cols;

static int kernel_header(import_ctx *c, const header *h, kernel_cols *k)
{
    int rc;

    if ((rc = col_require(c, h, ALTS("Agent_Id"), &k->agent)) != 0 ||
        (rc = col_require(c, h, ALTS("Queue_Id"), &k->queue)) != 0 ||
        (rc = col_require(c, h, ALTS("Kernel_Name"), &k->name)) != 0 ||
        (rc = col_require(c, h, ALTS("Start_Timestamp"), &k->start)) != 0 ||
        (rc = col_require(c, h, ALTS("End_Timestamp"), &k->end)) != 0 ||
        (rc = col_require(c, h, ALTS("Workgroup_Size_X"), &k->wg[0])) != 0 ||
        (rc = col_require(c, h, ALTS("Workgroup_Size_Y"), &k->wg[1])) != 0 ||
        (rc = col_require(c, h, ALTS("Workgroup_Size_Z"), &k->wg[2])) != 0 ||
        (rc = col_require(c, h, ALTS("Grid_Size_X"), &k->grid[0])) != 0 ||
        (rc = col_require(c, h, ALTS("Grid_Size_Y"), &k->grid[1])) != 0 ||
        (rc = col_require(c, h, ALTS("Grid_Size_Z"), &k->grid[2])) != 0)
        return rc;
    k->stream = col_find(h, ALTS("Stream_Id"));
    k->thread = col_find(h, ALTS("Thread_Id"));
    k->dispatch = col_find(h, ALTS("Dispatch_Id"));
    k->kernel_id = col_find(h, ALTS("Kernel_Id"));
    k->corr = col_find(h, ALTS("Correlation_Id"));
    k->private_seg = col_find(h, ALTS("Private_Segment_Size", "Scratch_Size"));
    k->group_seg = col_find(h, ALTS("Group_Segment_Size"));
    k->lds_block = col_find(h, ALTS("LDS_Block_Size"));
    k->vgpr = col_find(h, ALTS("Arch_VGPR_Count", "VGPR_Count"));
    k->agpr = col_find(h, ALTS("Accum_VGPR_Count"));
    k->sgpr = col_find(h, ALTS("SGPR_Count"));
    return 0;
}

/* The symbol of a kernel-trace row, added on first sight. */
static int row_symbol(import_ctx *c, const header *h, const kernel_cols *k, char **f, size_t n,
                      uint32_t *index)
{
    rpl_kernel_symbol s = {0};
    const char *name = rpl_trace_intern(c->t, field(f, n, k->name));
    uint32_t existing;
    int64_t key;
    int rc;

    if (!name)
        return rpl_error_oom();
    if (k->kernel_id != NO_COL) {
        if ((rc = get_i64(c, h, f, n, k->kernel_id, &key)) != 0)
            return rc;
    } else {
        key = (int64_t)(uintptr_t)name; /* interned: one pointer per name */
    }
    *index = rpl_idmap_get(&c->symbols, key);
    if (*index != RPL_IDMAP_EMPTY) {
        if (c->t->symbols.items[*index].name != name)
            return rpl_error_set(RPL_EINPUT, "%s:%zu: kernel id %" PRId64 " has two names",
                                 c->label, rpl_csv_line(c->csv), key);
        return 0;
    }
    s.source = c->source;
    s.id = k->kernel_id != NO_COL ? key : (int64_t)c->t->symbols.count + 1;
    s.name = name;
    s.display_name = name;
    if ((rc = get_u32(c, h, f, n, k->lds_block, &s.group_segment_size)) != 0 ||
        (rc = get_u32(c, h, f, n, k->vgpr, &s.arch_vgpr_count)) != 0 ||
        (rc = get_u32(c, h, f, n, k->agpr, &s.accum_vgpr_count)) != 0 ||
        (rc = get_u32(c, h, f, n, k->sgpr, &s.sgpr_count)) != 0)
        return rc;
    if ((rc = rpl_trace_add_symbol(c->t, &s, index)) != 0)
        return rc;
    return rpl_idmap_put(&c->symbols, key, *index, &existing);
}

static int import_kernels(import_ctx *c)
{
    header h = {0};
    kernel_cols k;
    char **f;
    size_t n;
    int64_t row = 0;
    int rc;

    if ((rc = header_read(c, &h)) != 0 || (rc = kernel_header(c, &h, &k)) != 0)
        goto out;
    c->have_corr = k.corr != NO_COL;
    while ((rc = rpl_csv_next(c->csv, &f, &n)) == 1) {
        rpl_dispatch d = {0};
        int64_t agent_id, queue_id, stream_id, tid;
        uint32_t index, existing;

        row++;
        d.source = c->source;
        if ((rc = get_agent_id(c, &h, f, n, k.agent, &agent_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.queue, &queue_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.stream, &stream_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.thread, &tid)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.dispatch, &d.dispatch_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.corr, &d.correlation_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.start, &d.start)) != 0 ||
            (rc = get_i64(c, &h, f, n, k.end, &d.end)) != 0 ||
            (rc = get_u32(c, &h, f, n, k.private_seg, &d.private_segment_size)) != 0 ||
            (rc = get_u32(c, &h, f, n, k.group_seg, &d.group_segment_size)) != 0)
            goto out;
        for (int i = 0; i < 3 && rc == 0; i++)
            rc = get_dim(c, &h, f, n, k.wg[i], k.grid[i], &d.workgroup[i], &d.grid[i]);
        if (rc)
            goto out;
        if (d.end < d.start) {
            rc = rpl_error_set(RPL_EINPUT, "%s:%zu: dispatch ends before it starts", c->label,
                               rpl_csv_line(c->csv));
            goto out;
        }
        if (k.dispatch == NO_COL)
            d.dispatch_id = row;
        d.id = d.dispatch_id;
        d.stream = RPL_NONE;
        d.thread = rpl_trace_thread(c->t, c->pid, tid);
        if ((rc = row_symbol(c, &h, &k, f, n, &d.kernel)) != 0 ||
            (rc = dispatch_agent(c, agent_id, &d.agent)) != 0 ||
            (rc = get_queue(c, &c->queues, false, queue_id, &d.queue)) != 0 ||
            (k.stream != NO_COL &&
             (rc = get_queue(c, &c->streams, true, stream_id, &d.stream)) != 0) ||
            (rc = rpl_trace_add_dispatch(c->t, &d, &index)) != 0)
            goto out;
        if (k.corr != NO_COL &&
            (rc = rpl_idmap_put(&c->by_corr, d.correlation_id, index, &existing)) != 0)
            goto out;
    }
out:
    header_free(&h);
    return rc < 0 ? rc : 0;
}

static int import_copies(import_ctx *c)
{
    header h = {0};
    int c_dir, c_src, c_dst, c_start, c_end, c_stream, c_corr;
    char **f;
    size_t n;
    int64_t row = 0;
    int rc;

    if ((rc = header_read(c, &h)) != 0 ||
        (rc = col_require(c, &h, ALTS("Direction"), &c_dir)) != 0 ||
        (rc = col_require(c, &h, ALTS("Source_Agent_Id"), &c_src)) != 0 ||
        (rc = col_require(c, &h, ALTS("Destination_Agent_Id"), &c_dst)) != 0 ||
        (rc = col_require(c, &h, ALTS("Start_Timestamp"), &c_start)) != 0 ||
        (rc = col_require(c, &h, ALTS("End_Timestamp"), &c_end)) != 0)
        goto out;
    c_stream = col_find(&h, ALTS("Stream_Id"));
    c_corr = col_find(&h, ALTS("Correlation_Id"));
    while ((rc = rpl_csv_next(c->csv, &f, &n)) == 1) {
        rpl_memcpy m = {0};
        int64_t src, dst, stream_id;

        m.source = c->source;
        m.id = ++row;
        m.thread = rpl_trace_thread(c->t, c->pid, 0);
        m.name = field(f, n, c_dir);
        m.kind = rpl_copy_kind_from_name(m.name);
        m.queue = RPL_NONE;
        m.stream = RPL_NONE;
        if ((rc = get_agent_id(c, &h, f, n, c_src, &src)) != 0 ||
            (rc = get_agent_id(c, &h, f, n, c_dst, &dst)) != 0 ||
            (rc = get_i64(c, &h, f, n, c_start, &m.start)) != 0 ||
            (rc = get_i64(c, &h, f, n, c_end, &m.end)) != 0 ||
            (rc = get_i64(c, &h, f, n, c_stream, &stream_id)) != 0 ||
            (rc = get_i64(c, &h, f, n, c_corr, &m.correlation_id)) != 0)
            goto out;
        if (m.end < m.start) {
            rc = rpl_error_set(RPL_EINPUT, "%s:%zu: copy ends before it starts", c->label,
                               rpl_csv_line(c->csv));
            goto out;
        }
        /* An agent absent from agent_info stays unknown: its type cannot be guessed. */
        m.src_agent = rpl_idmap_get(&c->agents, src);
        m.dst_agent = rpl_idmap_get(&c->agents, dst);
        if ((c_stream != NO_COL &&
             (rc = get_queue(c, &c->streams, true, stream_id, &m.stream)) != 0) ||
            (rc = rpl_trace_add_memcpy(c->t, &m, NULL)) != 0)
            goto out;
    }
out:
    header_free(&h);
    return rc < 0 ? rc : 0;
}

typedef struct pending_counter {
    uint32_t dispatch;
    rpl_counter_value v;
} pending_counter;

static int cmp_pending(const void *a, const void *b)
{
    const pending_counter *x = a, *y = b;

    return (x->dispatch > y->dispatch) - (x->dispatch < y->dispatch);
}

/* Group counter rows by dispatch (rows of one dispatch need not be adjacent). */
static int set_counters(import_ctx *c, pending_counter *p, size_t np)
{
    rpl_counter_value *vals;
    size_t i = 0;
    int rc = 0;

    if (np > 1)
        qsort(p, np, sizeof(*p), cmp_pending);
    vals = malloc((np ? np : 1) * sizeof(*vals));
    if (!vals)
        return rpl_error_oom();
    while (i < np && rc == 0) {
        size_t j = i;
        for (; j < np && p[j].dispatch == p[i].dispatch; j++)
            vals[j - i] = p[j].v;
        rc = rpl_trace_set_dispatch_counters(c->t, p[i].dispatch, vals, (uint32_t)(j - i));
        i = j;
    }
    free(vals);
    return rc;
}

static int import_counters(import_ctx *c)
{
    header h = {0};
    int c_corr, c_name, c_value;
    pending_counter *p = NULL;
    size_t np = 0, cap = 0, unmatched = 0;
    int64_t first_unmatched = 0;
    char **f;
    size_t n;
    int rc;

    if ((rc = header_read(c, &h)) != 0 ||
        (rc = col_require(c, &h, ALTS("Correlation_Id"), &c_corr)) != 0 ||
        (rc = col_require(c, &h, ALTS("Counter_Name"), &c_name)) != 0 ||
        (rc = col_require(c, &h, ALTS("Counter_Value"), &c_value)) != 0)
        goto out;
    if (!c->have_corr) {
        rc = rpl_error_set(RPL_EINPUT,
                           "%s: the kernel trace has no 'Correlation_Id' column to match "
                           "counters to dispatches",
                           c->label);
        goto out;
    }
    while ((rc = rpl_csv_next(c->csv, &f, &n)) == 1) {
        const char *value = field(f, n, c_value);
        int64_t corr;
        char *end;
        double v;

        if ((rc = get_i64(c, &h, f, n, c_corr, &corr)) != 0)
            goto out;
        errno = 0;
        v = strtod(value, &end);
        if (!*value || *end || errno == ERANGE || v != v) {
            rc = bad_value(c, &h, c_value, value, "a number");
            goto out;
        }
        if ((rc = RPL_ARRAY_GROW(p, cap, np + 1)) != 0)
            goto out;
        p[np].dispatch = rpl_idmap_get(&c->by_corr, corr);
        if (p[np].dispatch == RPL_IDMAP_EMPTY) {
            /* A dispatch the kernel trace lacks (rocprofv3 writes the files apart, and an
             * application may end mid-dispatch): keep the rest. */
            if (unmatched++ == 0)
                first_unmatched = corr;
            continue;
        }
        p[np].v.value = v;
        if ((rc = rpl_trace_counter_index(c->t, field(f, n, c_name), &p[np].v.counter)) != 0)
            goto out;
        np++;
    }
    if (rc == 0 && unmatched)
        rpl_log_warn("%s: %zu counter row%s left out: correlation id%s such as %" PRId64
                     " match%s no dispatch of the kernel trace",
                     c->label, unmatched, unmatched == 1 ? "" : "s", unmatched == 1 ? "" : "s",
                     first_unmatched, unmatched == 1 ? "es" : "");
    if (rc == 0)
        rc = set_counters(c, p, np);
out:
    free(p);
    header_free(&h);
    return rc < 0 ? rc : 0;
}

/* Run one file's importer with its own reader and label. */
static int import_one(import_ctx *c, FILE *f, const char *label, const char *what,
                      int (*fn)(import_ctx *))
{
    char buf[512];
    int rc;

    snprintf(buf, sizeof(buf), "%s%s%s", label, what[0] ? " " : "", what);
    c->label = buf;
    if ((rc = rpl_csv_open(&c->csv, f, buf)) != 0)
        return rc;
    rc = fn(c);
    rpl_csv_close(c->csv);
    c->csv = NULL;
    c->label = NULL;
    return rc;
}

int rpl_rocprofv3_csv_import_files(rpl_trace *t, const rpl_rocprofv3_csv_files *files)
{
    import_ctx c = {0};
    rpl_trace_mark mark;
    rpl_source src = {0};
    rpl_process proc = {0};
    const char *label = files->label ? files->label : "csv";
    int rc;

    if (!files->kernel_trace)
        return rpl_error_set(RPL_EUSAGE, "csv import needs a kernel trace");
    rpl_trace_mark_take(t, &mark);
    c.t = t;
    c.pid = files->pid;
    src.path = label;
    src.schema_version = "rocprofv3-csv";
    proc.pid = files->pid;
    if ((rc = rpl_trace_add_source(t, &src, &c.source)) != 0)
        goto out;
    proc.source = c.source;
    if ((rc = rpl_trace_add_process(t, &proc, NULL)) != 0)
        goto out;
    if (files->agent_info &&
        (rc = import_one(&c, files->agent_info, label, "(agent_info)", import_agents)) != 0)
        goto out;
    if ((rc = import_one(&c, files->kernel_trace, label, "", import_kernels)) != 0)
        goto out;
    if (files->memory_copy &&
        (rc = import_one(&c, files->memory_copy, label, "(memory_copy_trace)", import_copies)) != 0)
        goto out;
    if (files->counters &&
        (rc = import_one(&c, files->counters, label, "(counter_collection)", import_counters)) != 0)
        goto out;
out:
    if (rc)
        rpl_trace_rollback(t, &mark);
    rpl_idmap_free(&c.agents);
    rpl_idmap_free(&c.symbols);
    rpl_idmap_free(&c.queues);
    rpl_idmap_free(&c.streams);
    rpl_idmap_free(&c.by_corr);
    return rc;
}

/* "<dir>/<pid>_kernel_trace.csv" -> pid, or 0 when the prefix is not a number. */
static int64_t pid_of(const char *path, size_t prefix_len)
{
    const char *base = path + prefix_len;
    int64_t pid = 0;

    while (base > path && base[-1] != '/')
        base--;
    if (base == path + prefix_len)
        return 0;
    for (const char *p = base; p < path + prefix_len - 1; p++) {
        if (*p < '0' || *p > '9' || pid > INT64_MAX / 10)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    return path[prefix_len - 1] == '_' ? pid : 0;
}

/* Every one of `names` (NULL-terminated) is in the header. */
static bool has_all(const header *h, const char *const *names)
{
    for (; *names; names++)
        if (col_find(h, (const char *const[]){*names, NULL}) == NO_COL)
            return false;
    return true;
}

rpl_rocprofv3_csv_kind rpl_rocprofv3_csv_kind_of(const char *path)
{
    rpl_rocprofv3_csv_kind kind = RPL_CSV_NOT_ROCPROFV3;
    import_ctx c = {.label = path};
    header h = {0};
    FILE *f = fopen(path, "r");

    if (!f)
        return kind;
    if (rpl_csv_open(&c.csv, f, path) == 0 && header_read(&c, &h) == 0) {
        if (has_all(&h, ALTS("Counter_Name", "Counter_Value", "Correlation_Id")))
            kind = RPL_CSV_COUNTERS;
        else if (has_all(&h, ALTS("Kernel_Name", "Start_Timestamp")))
            kind = RPL_CSV_KERNEL_TRACE;
        else if (has_all(&h, ALTS("Node_Id", "Agent_Type")))
            kind = RPL_CSV_AGENT_INFO;
        else if (has_all(&h, ALTS("Direction", "Source_Agent_Id", "Destination_Agent_Id")))
            kind = RPL_CSV_MEMORY_COPY;
    }
    rpl_error_clear(); /* an unreadable header only means "not ours" here */
    header_free(&h);
    rpl_csv_close(c.csv);
    fclose(f);
    return kind;
}

const char *rpl_rocprofv3_csv_kind_name(rpl_rocprofv3_csv_kind kind)
{
    static const char *const names[] = {[RPL_CSV_KERNEL_TRACE] = "kernel trace",
                                        [RPL_CSV_AGENT_INFO] = "agent_info",
                                        [RPL_CSV_MEMORY_COPY] = "memory_copy_trace",
                                        [RPL_CSV_COUNTERS] = "counter_collection"};

    return RPL_NAME_OF(names, kind, "unknown");
}

/* prefix + suffix when that file's header is of `kind`, else NULL (not an error). */
static FILE *open_sibling(const char *prefix, size_t len, const char *suffix,
                          rpl_rocprofv3_csv_kind kind)
{
    char path[4096];

    if (len + strlen(suffix) >= sizeof(path))
        return NULL;
    memcpy(path, prefix, len);
    strcpy(path + len, suffix);
    if (access(path, F_OK) != 0)
        return NULL;
    if (rpl_rocprofv3_csv_kind_of(path) != kind) {
        rpl_log_warn("'%s' is no rocprofv3 %s CSV (by its header row); not read", path,
                     rpl_rocprofv3_csv_kind_name(kind));
        return NULL;
    }
    return fopen(path, "r");
}

int rpl_rocprofv3_csv_import(rpl_trace *t, const char *kernel_trace_csv)
{
    rpl_rocprofv3_csv_files files = {0};
    rpl_rocprofv3_csv_kind kind;
    struct stat st;
    const char *base = strrchr(kernel_trace_csv, '/'), *word;
    size_t len;
    int rc;

    base = base ? base + 1 : kernel_trace_csv;
    if (access(kernel_trace_csv, R_OK) != 0)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot open '%s': %s",
                             kernel_trace_csv, strerror(errno));
    kind = rpl_rocprofv3_csv_kind_of(kernel_trace_csv);
    if (kind == RPL_CSV_NOT_ROCPROFV3 && stat(kernel_trace_csv, &st) == 0 && st.st_size == 0)
        return rpl_error_set(RPL_EINPUT, "%s: empty file (no header line)", kernel_trace_csv);
    if (kind != RPL_CSV_KERNEL_TRACE)
        return kind == RPL_CSV_NOT_ROCPROFV3
                   ? rpl_error_set(RPL_EINPUT,
                                   "'%s' is not a rocprofv3 kernel trace: its header row lacks "
                                   "Kernel_Name or Start_Timestamp",
                                   kernel_trace_csv)
                   : rpl_error_set(RPL_EINPUT,
                                   "'%s' is a rocprofv3 %s CSV, not a kernel trace; give the "
                                   "kernel trace (its siblings are read with it)",
                                   kernel_trace_csv, rpl_rocprofv3_csv_kind_name(kind));
    files.kernel_trace = fopen(kernel_trace_csv, "r");
    if (!files.kernel_trace)
        return rpl_error_set(errno == ENOENT ? RPL_ENOTFOUND : RPL_EIO, "cannot open '%s': %s",
                             kernel_trace_csv, strerror(errno));
    /* Siblings share the part of the name before "kernel_trace". */
    word = strstr(base, "kernel_trace");
    if (word) {
        len = (size_t)(word - kernel_trace_csv);
        files.agent_info =
            open_sibling(kernel_trace_csv, len, "agent_info.csv", RPL_CSV_AGENT_INFO);
        files.memory_copy =
            open_sibling(kernel_trace_csv, len, "memory_copy_trace.csv", RPL_CSV_MEMORY_COPY);
        files.counters =
            open_sibling(kernel_trace_csv, len, "counter_collection.csv", RPL_CSV_COUNTERS);
        files.pid = len ? pid_of(kernel_trace_csv, len) : 0;
    }
    if (!files.agent_info)
        rpl_log_info("%s: no agent_info CSV beside it: the device is unknown", kernel_trace_csv);
    files.label = kernel_trace_csv;
    rc = rpl_rocprofv3_csv_import_files(t, &files);
    fclose(files.kernel_trace);
    if (files.agent_info)
        fclose(files.agent_info);
    if (files.memory_copy)
        fclose(files.memory_copy);
    if (files.counters)
        fclose(files.counters);
    return rc;
}
