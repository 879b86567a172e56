/*
 * Counter sets and their packing into passes.
 *
 * Roofline counters per architecture from rocprofiler-compute's roofline
 * formulas (ROCm/rocm-systems@1b1610f, projects/rocprofiler-compute): VALU FLOPs from
 * SQ_INSTS_VALU_{ADD,MUL,FMA,TRANS}_F{16,32,64}, MFMA FLOPs from
 * SQ_INSTS_VALU_MFMA_MOPS_*, HBM bytes from the L2-fabric request counters
 * (summed over TCC instances).  Per-pass limits per block are
 * rocprofiler-compute's (§1.5).  The counters of one byte formula are kept
 * in one pass: taken from different replays they can disagree enough to make
 * a difference negative (§1.5, cross-pass hazards).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"

#define GROUP_MAX 6

typedef struct counter_group {
    const char *names[GROUP_MAX + 1]; /* NULL-terminated */
} counter_group;

#define VALU(p)                                                                                    \
    {                                                                                              \
        {                                                                                          \
            "SQ_INSTS_VALU_ADD_" p, "SQ_INSTS_VALU_MUL_" p, "SQ_INSTS_VALU_FMA_" p,                \
                "SQ_INSTS_VALU_TRANS_" p, NULL                                                     \
        }                                                                                          \
    }
#define MOPS                                                                                       \
    {                                                                                              \
        {                                                                                          \
            "SQ_INSTS_VALU_MFMA_MOPS_F16", "SQ_INSTS_VALU_MFMA_MOPS_BF16",                         \
                "SQ_INSTS_VALU_MFMA_MOPS_F32", "SQ_INSTS_VALU_MFMA_MOPS_F64", NULL                 \
        }                                                                                          \
    }

/* The FLOP counters every roofline set starts with: VALU at each precision, then MFMA. */
#define FLOP_GROUPS VALU("F16"), VALU("F32"), VALU("F64"), MOPS

/* MI200: read = 32*RDREQ_32B + 64*(RDREQ - RDREQ_32B); write = 64*WRREQ_64B + 32*(rest). */
static const counter_group gfx90a_roofline[] = {
    FLOP_GROUPS,
    {{"TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum", NULL}},
    {{"TCC_EA_WRREQ_sum", "TCC_EA_WRREQ_64B_sum", NULL}},
};

/* MI300: reads add 128-byte requests counted by TCC_BUBBLE; FP8 MFMA. */
static const counter_group gfx942_roofline[] = {
    FLOP_GROUPS,
    {{"SQ_INSTS_VALU_MFMA_MOPS_F8", NULL}},
    {{"TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_BUBBLE_sum", NULL}},
    {{"TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum", NULL}},
};

/* MI350: TCC_BUBBLE reads 0, so reads come from the per-size counters; FP6/FP4 MFMA. */
static const counter_group gfx950_roofline[] = {
    FLOP_GROUPS,
    {{"SQ_INSTS_VALU_MFMA_MOPS_F8", "SQ_INSTS_VALU_MFMA_MOPS_F6F4", NULL}},
    {{"TCC_EA0_RDREQ_128B_sum", "TCC_EA0_RDREQ_64B_sum", "TCC_EA0_RDREQ_32B_sum", NULL}},
    {{"TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum", NULL}},
};

typedef struct arch_set {
    const char *arch;
    const counter_group *groups;
    size_t ngroups;
} arch_set;

#define SET(a, g)                                                                                  \
    {                                                                                              \
        a, g, sizeof(g) / sizeof(g[0])                                                             \
    }

static const arch_set roofline_sets[] = {
    SET("gfx90a", gfx90a_roofline), SET("gfx940", gfx942_roofline), SET("gfx941", gfx942_roofline),
    SET("gfx942", gfx942_roofline), SET("gfx950", gfx950_roofline),
};

typedef struct block_limit {
    const char *block;
    unsigned limit;
} block_limit;

static const block_limit limits[] = {
    {"SQ", 8},  {"TA", 2},  {"TD", 2},  {"TCP", 4},  {"TCC", 4},
    {"CPC", 2}, {"CPF", 2}, {"SPI", 2}, {"GRBM", 2}, {"GDS", 4},
};

/* Limit of the block a counter belongs to; blocks not in the table (derived counters
 * among them, whose hardware cost is unknown here) get one counter per pass. */
static unsigned block_of(const char *name, char *block, size_t size)
{
    size_t n = strcspn(name, "_");

    if (n >= size)
        n = size - 1;
    memcpy(block, name, n);
    block[n] = '\0';
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
        if (strcmp(limits[i].block, block) == 0)
            return limits[i].limit;
    return 1;
}

/* Counters of `names` per block, added to `use` (parallel arrays of at most `max` blocks). */
typedef struct pass_use {
    char blocks[GROUP_MAX * 8][16];
    unsigned used[GROUP_MAX * 8];
    unsigned nblocks;
} pass_use;

static bool group_fits(const pass_use *u, const char *const *names, bool commit, pass_use *out)
{
    pass_use tmp = *u;

    for (; *names; names++) {
        char block[16];
        unsigned limit = block_of(*names, block, sizeof(block)), i;
        for (i = 0; i < tmp.nblocks && strcmp(tmp.blocks[i], block) != 0; i++)
            ;
        if (i == tmp.nblocks) {
            if (tmp.nblocks == sizeof(tmp.used) / sizeof(tmp.used[0]))
                return false;
            strcpy(tmp.blocks[i], block);
            tmp.used[i] = 0;
            tmp.nblocks++;
        }
        if (tmp.used[i] + 1 > limit)
            return false;
        tmp.used[i]++;
    }
    if (commit)
        *out = tmp;
    return true;
}

void rpl_counter_plan_free(rpl_counter_plan *plan)
{
    if (!plan)
        return;
    for (uint32_t i = 0; i < plan->npasses; i++) {
        for (uint32_t j = 0; j < plan->passes[i].count; j++)
            free(plan->passes[i].names[j]);
        free(plan->passes[i].names);
    }
    free(plan->passes);
    free(plan);
}

/* First-fit packing of groups into passes. */
static int pack(rpl_counter_plan *plan, const counter_group *groups, size_t ngroups)
{
    pass_use *use = calloc(ngroups ? ngroups : 1, sizeof(*use));
    int rc = 0;

    plan->passes = calloc(ngroups ? ngroups : 1, sizeof(*plan->passes));
    if (!use || !plan->passes) {
        free(use);
        return rpl_error_oom();
    }
    for (size_t g = 0; g < ngroups && rc == 0; g++) {
        const char *const *names = groups[g].names;
        uint32_t p, n = 0;
        rpl_counter_pass *pass;
        char **grown;

        for (p = 0; p < plan->npasses && !group_fits(&use[p], names, false, NULL); p++)
            ;
        if (!group_fits(&use[p], names, true, &use[p])) {
            rc = rpl_error_set(RPL_EUSAGE, "counter group of '%s' does not fit in one pass",
                               names[0]);
            break;
        }
        if (p == plan->npasses)
            plan->npasses++;
        pass = &plan->passes[p];
        while (names[n])
            n++;
        grown = realloc(pass->names, (pass->count + n) * sizeof(*grown));
        if (!grown) {
            rc = rpl_error_oom();
            break;
        }
        pass->names = grown;
        for (uint32_t i = 0; i < n && rc == 0; i++) {
            pass->names[pass->count] = strdup(names[i]);
            if (!pass->names[pass->count])
                rc = rpl_error_oom();
            else
                pass->count++;
        }
    }
    free(use);
    return rc;
}

static bool valid_name_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '.' || ch == ':' || ch == '[' || ch == ']';
}

/* A user list: each counter its own group, duplicates dropped. */
static int plan_list(rpl_counter_plan *plan, const char *spec)
{
    counter_group *groups = NULL;
    size_t ngroups = 0, len = strlen(spec);
    char *copy = strdup(spec), *save = NULL, *tok;
    int rc = 0;

    groups = calloc(len / 2 + 1, sizeof(*groups));
    if (!copy || !groups) {
        free(copy);
        free(groups);
        return rpl_error_oom();
    }
    for (tok = strtok_r(copy, ", \t", &save); tok && rc == 0; tok = strtok_r(NULL, ", \t", &save)) {
        bool dup = false;
        for (const char *p = tok; *p && rc == 0; p++)
            if (!valid_name_char(*p))
                rc = rpl_error_set(RPL_EUSAGE, "bad counter name '%s' in --counters", tok);
        for (size_t i = 0; i < ngroups && !dup; i++)
            dup = strcmp(groups[i].names[0], tok) == 0;
        if (rc == 0 && !dup)
            groups[ngroups++].names[0] = tok;
    }
    if (rc == 0 && ngroups == 0)
        rc = rpl_error_set(RPL_EUSAGE, "--counters lists no counters");
    if (rc == 0)
        rc = pack(plan, groups, ngroups);
    free(groups);
    free(copy);
    return rc;
}

int rpl_counter_plan_make(rpl_counter_plan **out, const char *spec, const char *arch)
{
    rpl_counter_plan *plan = calloc(1, sizeof(*plan));
    int rc = 0;

    *out = NULL;
    if (!plan)
        return rpl_error_oom();
    if (strcmp(spec, "none") == 0) {
        rc = 0;
    } else if (strcmp(spec, "roofline") == 0) {
        const arch_set *set = NULL;
        for (size_t i = 0; i < sizeof(roofline_sets) / sizeof(roofline_sets[0]); i++)
            if (arch && strcmp(roofline_sets[i].arch, arch) == 0)
                set = &roofline_sets[i];
        if (set)
            rc = pack(plan, set->groups, set->ngroups);
        else
            rc = rpl_error_set(RPL_ENOTFOUND,
                               "no roofline counter set for '%s' (known: gfx90a, gfx940, "
                               "gfx941, gfx942, gfx950)",
                               arch && arch[0] ? arch : "unknown architecture");
    } else {
        rc = plan_list(plan, spec);
    }
    if (rc) {
        rpl_counter_plan_free(plan);
        return rc;
    }
    *out = plan;
    return 0;
}

int rpl_rocprofv3_passes_json(char **out, const rpl_counter_plan *plan)
{
    cJSON *doc = cJSON_CreateObject(), *jobs = NULL;
    int rc = 0;

    *out = NULL;
    if (!doc || !(jobs = cJSON_AddArrayToObject(doc, "jobs")))
        rc = rpl_error_oom();
    for (uint32_t p = 0; rc == 0 && p < plan->npasses; p++) {
        cJSON *job = cJSON_CreateObject(), *pmc = NULL;
        if (!job || !cJSON_AddItemToArray(jobs, job) || !(pmc = cJSON_AddArrayToObject(job, "pmc")))
            rc = rpl_error_oom();
        for (uint32_t i = 0; rc == 0 && i < plan->passes[p].count; i++) {
            cJSON *s = cJSON_CreateString(plan->passes[p].names[i]);
            if (!s || !cJSON_AddItemToArray(pmc, s))
                rc = rpl_error_oom();
        }
    }
    if (rc == 0 && !(*out = cJSON_Print(doc)))
        rc = rpl_error_oom();
    cJSON_Delete(doc);
    return rc;
}

int rpl_rocprofv3_passes_text(char **out, const rpl_counter_plan *plan)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    *out = NULL;
    for (uint32_t p = 0; rc == 0 && p < plan->npasses; p++) {
        rc = rpl_strbuf_puts(&sb, "pmc:");
        for (uint32_t i = 0; rc == 0 && i < plan->passes[p].count; i++)
            rc = rpl_strbuf_printf(&sb, " %s", plan->passes[p].names[i]);
        if (rc == 0)
            rc = rpl_strbuf_putc(&sb, '\n');
    }
    if (rc == 0 && !(*out = sb.len ? rpl_strbuf_detach(&sb) : strdup("")))
        rc = rpl_error_oom();
    rpl_strbuf_release(&sb);
    return rc;
}
