/* GPU detection: the GPUs of this machine, and the backend `--backend auto` picks. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rpl/arch.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

/* The names of rpl_backend, parsed and printed. */
static const char *const backend_names[] = {
    [RPL_BACKEND_AUTO] = "auto",
    [RPL_BACKEND_ROCPROFV3] = "rocprofv3",
    [RPL_BACKEND_CUPTI] = "cupti",
};

#define NBACKENDS (sizeof(backend_names) / sizeof(backend_names[0]))

int rpl_backend_parse(rpl_backend *out, const char *name)
{
    for (size_t i = 0; i < NBACKENDS; i++) {
        if (strcmp(name, backend_names[i]) == 0) {
            *out = (rpl_backend)i;
            return 0;
        }
    }
    return rpl_error_set(RPL_EUSAGE, "unknown backend '%s' (auto, rocprofv3 or cupti)", name);
}

const char *rpl_backend_name(rpl_backend backend)
{
    return (size_t)backend < NBACKENDS ? backend_names[backend] : "auto";
}

int rpl_gfx_name(char *buf, size_t size, uint32_t v)
{
    /* KFD encodes major*10000 + minor*100 + stepping; LLVM spells the stepping in hex. */
    unsigned major = v / 10000, minor = (v / 100) % 100, step = v % 100;
    int n;

    if (major == 0 || minor > 9 || step > 15)
        return rpl_error_set(RPL_EINPUT, "gfx_target_version %" PRIu32 " is not an AMD GPU", v);
    n = snprintf(buf, size, "gfx%u%u%x", major, minor, step);
    if (n < 0 || (size_t)n >= size)
        return rpl_error_set(RPL_EUSAGE, "buffer too small for an architecture name");
    return 0;
}

/*
 * Model-name families, most specific first ("A100" before "A10", "GH200"
 * before "H200"): [S] CUDA programming guide, compute capabilities table.
 */
static const struct {
    const char *pattern;
    const char *arch;
} nvidia_families[] = {
    {"GB200", "sm_100"}, {"B200", "sm_100"}, {"B100", "sm_100"},  {"GH200", "sm_90"},
    {"H200", "sm_90"},   {"H100", "sm_90"},  {"H800", "sm_90"},   {"H20", "sm_90"},
    {"L40", "sm_89"},    {"L4", "sm_89"},    {"RTX 40", "sm_89"}, {"Ada", "sm_89"},
    {"A100", "sm_80"},   {"A800", "sm_80"},  {"A30", "sm_80"},    {"A40", "sm_86"},
    {"A10", "sm_86"},    {"A16", "sm_86"},   {"A2", "sm_86"},     {"RTX A", "sm_86"},
    {"RTX 30", "sm_86"}, {"T4", "sm_75"},    {"RTX 20", "sm_75"}, {"V100", "sm_70"},
};

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

const char *rpl_nvidia_model_arch(const char *model)
{
    const rpl_product *p;

    if (!model || !*model)
        return NULL;
    if ((p = rpl_product_match(model)) != NULL && strncmp(p->arch, "sm_", 3) == 0)
        return p->arch;
    for (size_t i = 0; i < sizeof(nvidia_families) / sizeof(nvidia_families[0]); i++)
        if (contains_ci(model, nvidia_families[i].pattern))
            return nvidia_families[i].arch;
    return NULL;
}

static int path_of(char *buf, size_t size, const char *root, const char *rel)
{
    int n = snprintf(buf, size, "%s%s", root, rel);

    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static bool exists(const char *root, const char *rel)
{
    char p[4096];

    return path_of(p, sizeof(p), root, rel) == 0 && access(p, F_OK) == 0;
}

void rpl_kfd_node_read(const char *path, uint64_t *simd_count, uint64_t *gfx_version)
{
    char line[256], key[128];
    unsigned long long v;
    FILE *f = fopen(path, "r");

    *simd_count = *gfx_version = 0;
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%127s %llu", key, &v) != 2)
            continue;
        if (strcmp(key, "simd_count") == 0)
            *simd_count = v;
        else if (strcmp(key, "gfx_target_version") == 0)
            *gfx_version = v;
    }
    fclose(f);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return (x > y) - (x < y);
}

size_t rpl_kfd_node_list(long *nodes, size_t max, const char *nodes_dir)
{
    size_t n = 0;
    struct dirent *e;
    DIR *d = opendir(nodes_dir);

    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL && n < max) {
        char *end;
        long id = strtol(e->d_name, &end, 10);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end)
            nodes[n++] = id;
    }
    closedir(d);
    if (n > 1)
        qsort(nodes, n, sizeof(nodes[0]), cmp_long);
    return n;
}

void rpl_nvidia_model_read(const char *path, char *model, size_t size)
{
    char line[256];
    FILE *f = fopen(path, "r");

    if (size)
        model[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "Model:", 6) == 0) {
            const char *p = line + 6;
            p += strspn(p, " \t");
            snprintf(model, size, "%.*s", (int)strcspn(p, "\r\n"), p);
            break;
        }
    fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static rpl_gpu_entry *add_gpu(rpl_gpu_list *list, const char *vendor)
{
    rpl_gpu_entry *g;

    if (list->count == RPL_GPU_LIST_MAX) {
        rpl_log_warn("more than %d GPUs; the rest are not listed", RPL_GPU_LIST_MAX);
        return NULL;
    }
    g = &list->gpus[list->count++];
    memset(g, 0, sizeof(*g));
    g->vendor = vendor;
    return g;
}

/* AMD: KFD topology nodes with SIMDs, by node number (the order HIP numbers them). */
static void find_amd(rpl_gpu_list *list, const char *root)
{
    char dir[4096], path[4400];
    long nodes[256];
    size_t n;

    list->kfd = exists(root, "/dev/kfd");
    if (!list->kfd || path_of(dir, sizeof(dir), root, "/sys/class/kfd/kfd/topology/nodes") != 0)
        return;
    n = rpl_kfd_node_list(nodes, sizeof(nodes) / sizeof(nodes[0]), dir);
    for (size_t i = 0; i < n; i++) {
        uint64_t simds, gfx;
        rpl_gpu_entry *g;

        snprintf(path, sizeof(path), "%s/%ld/properties", dir, nodes[i]);
        rpl_kfd_node_read(path, &simds, &gfx);
        if (simds == 0 || !(g = add_gpu(list, "amd")))
            continue;
        if (gfx > UINT32_MAX || rpl_gfx_name(g->arch, sizeof(g->arch), (uint32_t)gfx) != 0) {
            rpl_error_clear();
            g->arch[0] = '\0';
        }
        snprintf(g->source, sizeof(g->source), "/sys/class/kfd/kfd/topology/nodes/%ld", nodes[i]);
    }
}

/* NVIDIA: one entry per bus id, sorted (the CUDA order with CUDA_DEVICE_ORDER=PCI_BUS_ID). */
static void find_nvidia(rpl_gpu_list *list, const char *root)
{
    char dir[4096], path[4400];
    char *bus[RPL_GPU_LIST_MAX];
    size_t n = 0;
    struct dirent *e;
    DIR *d;

    if (path_of(dir, sizeof(dir), root, "/proc/driver/nvidia/gpus") == 0 &&
        (d = opendir(dir)) != NULL) {
        while ((e = readdir(d)) != NULL && n < RPL_GPU_LIST_MAX)
            if (e->d_name[0] != '.' && (bus[n] = strdup(e->d_name)) != NULL)
                n++;
        closedir(d);
    }
    qsort(bus, n, sizeof(bus[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        rpl_gpu_entry *g = add_gpu(list, "nvidia");
        const char *arch;

        if (g) {
            snprintf(path, sizeof(path), "%s/%s/information", dir, bus[i]);
            rpl_nvidia_model_read(path, g->model, sizeof(g->model));
            arch = rpl_nvidia_model_arch(g->model);
            snprintf(g->arch, sizeof(g->arch), "%s", arch ? arch : "");
            snprintf(g->source, sizeof(g->source), "/proc/driver/nvidia/gpus/%s", bus[i]);
        }
        free(bus[i]);
    }
    if (n > 0)
        return;
    /* Sandboxes without /proc/driver/nvidia still have the device nodes. */
    for (int i = 0; i < RPL_GPU_LIST_MAX; i++) {
        rpl_gpu_entry *g;
        snprintf(path, sizeof(path), "%s/dev/nvidia%d", root, i);
        if (access(path, F_OK) != 0 || !(g = add_gpu(list, "nvidia")))
            break;
        snprintf(g->source, sizeof(g->source), "/dev/nvidia%d", i);
    }
}

void rpl_gpu_list_scan(rpl_gpu_list *list, const char *root)
{
    memset(list, 0, sizeof(*list));
    if (!root)
        root = "";
    find_amd(list, root);
    find_nvidia(list, root);
}

/* The first GPU of `vendor` in the list, or NULL. */
static const rpl_gpu_entry *first_of(const rpl_gpu_list *list, const char *vendor)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->gpus[i].vendor, vendor) == 0)
            return &list->gpus[i];
    return NULL;
}

int rpl_gpu_probe_run(rpl_gpu_probe *out, const char *root)
{
    const char *amd_why = NULL, *nv_why = NULL;
    rpl_gpu_list *list = malloc(sizeof(*list));
    const rpl_gpu_entry *amd, *nvidia;

    memset(out, 0, sizeof(*out));
    if (!list)
        return rpl_error_oom();
    rpl_gpu_list_scan(list, root);
    amd = first_of(list, "amd");
    nvidia = first_of(list, "nvidia");
    if (!list->kfd)
        amd_why = "/dev/kfd not found";
    else if (!amd)
        amd_why = "no KFD topology node with SIMDs";
    if (amd) {
        out->amd = true;
        snprintf(out->amd_arch, sizeof(out->amd_arch), "%s", amd->arch);
    }
    if (nvidia) {
        out->nvidia = true;
        snprintf(out->nvidia_arch, sizeof(out->nvidia_arch), "%s", nvidia->arch);
    } else {
        nv_why = "no /dev/nvidia0 or /proc/driver/nvidia/gpus";
    }
    snprintf(out->detail, sizeof(out->detail), "%s%s%s", amd_why ? amd_why : "",
             amd_why && nv_why ? "; " : "", nv_why ? nv_why : "");
    free(list);
    return 0;
}

int rpl_backend_select(rpl_backend *out, rpl_backend requested, const rpl_gpu_probe *probe)
{
    *out = requested;
    if (requested != RPL_BACKEND_AUTO)
        return 0;
    if (probe->amd)
        *out = RPL_BACKEND_ROCPROFV3;
    else if (probe->nvidia)
        *out = RPL_BACKEND_CUPTI;
    else
        return rpl_error_set(RPL_ENODEV, "no AMD or NVIDIA GPU found (%s)", probe->detail);
    return 0;
}
