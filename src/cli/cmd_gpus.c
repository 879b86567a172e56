/*
 * rocm-perf gpus: list this machine's GPUs as the drivers show them, and
 * write a CTest resource specification with one slot per GPU so that tests
 * with RESOURCE_GROUPS "gpus:1" never share a GPU.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

#define MAX_GPUS 64

typedef struct gpu_entry {
    const char *vendor; /* "amd" or "nvidia" */
    char arch[16];      /* "gfx90a", "sm_90" (from the model name), or "" when unknown */
    char model[96];     /* NVIDIA: the driver's model line, or "" */
    char source[160];   /* the driver file it was found through, below the root */
} gpu_entry;

typedef struct gpu_list {
    gpu_entry gpus[MAX_GPUS];
    size_t count;
} gpu_list;

typedef struct gpus_opts {
    const char *spec, *root;
} gpus_opts;

#define F(m) RPL_FIELD(gpus_opts, m)

static const rpl_option gpus_options[] = {
    OPT_STRING(0, "ctest-resource-spec", F(spec), "FILE",
               "write a CTest resource spec with one slot per GPU "
               "({\"version\":{\"major\":1,\"minor\":0},\"local\":[{\"gpus\": "
               "[{\"id\":\"0\",\"slots\":1},...]}]}); use it as ctest --resource-spec-file FILE, "
               "so that two tests with RESOURCE_GROUPS \"gpus:1\" never share a GPU.  No GPU: an "
               "empty list (and a note on stderr)"),
    OPT_STRING(0, "root", F(root), "DIR",
               "read dev/, sys/ and proc/ below DIR instead of / (tests)"),
    OPT_END(),
};

static const rpl_command gpus_command = {
    .name = "gpus",
    .usage = "rocm-perf gpus [--ctest-resource-spec FILE] [--root DIR] [-v|-q]",
    .description = "List the GPUs of this machine: AMD GPUs from the KFD topology (nodes with\n"
                   "SIMDs; needs /dev/kfd), then NVIDIA GPUs from /proc/driver/nvidia/gpus (or\n"
                   "/dev/nvidiaN).  Ids count from 0 in that order.",
    .options = gpus_options,
    .exit_codes = "0 ok (also with no GPU), 2 bad usage, 3 the file could not be\nwritten.",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static gpu_entry *add_gpu(gpu_list *list, const char *vendor)
{
    gpu_entry *g;

    if (list->count == MAX_GPUS) {
        rpl_log_warn("more than %d GPUs; the rest are not listed", MAX_GPUS);
        return NULL;
    }
    g = &list->gpus[list->count++];
    memset(g, 0, sizeof(*g));
    g->vendor = vendor;
    return g;
}

/* AMD: KFD topology nodes with SIMDs, by node number (the order HIP numbers them). */
static void find_amd(gpu_list *list, const char *root)
{
    char dir[4096], path[4400];
    long nodes[256];
    size_t n;

    snprintf(path, sizeof(path), "%s/dev/kfd", root);
    if (access(path, F_OK) != 0)
        return;
    snprintf(dir, sizeof(dir), "%s/sys/class/kfd/kfd/topology/nodes", root);
    n = rpl_kfd_node_list(nodes, sizeof(nodes) / sizeof(nodes[0]), dir);
    for (size_t i = 0; i < n; i++) {
        uint64_t simds, gfx;
        gpu_entry *g;

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
static void find_nvidia(gpu_list *list, const char *root)
{
    char dir[4096], path[4400];
    char *bus[MAX_GPUS];
    size_t n = 0;
    struct dirent *e;
    DIR *d;

    snprintf(dir, sizeof(dir), "%s/proc/driver/nvidia/gpus", root);
    if ((d = opendir(dir)) != NULL) {
        while ((e = readdir(d)) != NULL && n < MAX_GPUS)
            if (e->d_name[0] != '.' && (bus[n] = strdup(e->d_name)) != NULL)
                n++;
        closedir(d);
    }
    qsort(bus, n, sizeof(bus[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        gpu_entry *g = add_gpu(list, "nvidia");
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
    for (int i = 0; i < MAX_GPUS; i++) {
        gpu_entry *g;
        snprintf(path, sizeof(path), "%s/dev/nvidia%d", root, i);
        if (access(path, F_OK) != 0 || !(g = add_gpu(list, "nvidia")))
            break;
        snprintf(g->source, sizeof(g->source), "/dev/nvidia%d", i);
    }
}

static int write_spec(const char *file, const gpu_list *list)
{
    cJSON *doc = cJSON_CreateObject(), *version, *local, *res, *gpus;
    int rc = RPL_ENOMEM;

    if (!doc || !(version = cJSON_AddObjectToObject(doc, "version")) ||
        !cJSON_AddNumberToObject(version, "major", 1) ||
        !cJSON_AddNumberToObject(version, "minor", 0) ||
        !(local = cJSON_AddArrayToObject(doc, "local")) || !(res = cJSON_CreateObject()) ||
        !cJSON_AddItemToArray(local, res) || !(gpus = cJSON_AddArrayToObject(res, "gpus")))
        goto done;
    for (size_t i = 0; i < list->count; i++) {
        cJSON *g = cJSON_CreateObject();
        char id[24];

        snprintf(id, sizeof(id), "%zu", i);
        if (!g || !cJSON_AddItemToArray(gpus, g) || !cJSON_AddStringToObject(g, "id", id) ||
            !cJSON_AddNumberToObject(g, "slots", 1))
            goto done;
    }
    rc = rpl_json_write_file(file, doc);
done:
    cJSON_Delete(doc);
    return rc == RPL_ENOMEM ? rpl_error_oom() : rc;
}

static void print_table(const gpu_list *list)
{
    printf("%-3s %-7s %-8s %-28s %s\n", "ID", "VENDOR", "ARCH", "MODEL", "FOUND AT");
    for (size_t i = 0; i < list->count; i++) {
        const gpu_entry *g = &list->gpus[i];
        printf("%-3zu %-7s %-8s %-28s %s\n", i, g->vendor, g->arch[0] ? g->arch : "-",
               g->model[0] ? g->model : "-", g->source);
    }
}

int cmd_gpus(int argc, char **argv)
{
    gpus_opts o = {.root = ""};
    const char *spec, *root;
    gpu_list *list;
    int rc = rpl_parse_options(&gpus_command, &o, &argc, &argv);

    if (rc >= 0)
        return rc;
    if (argc > 0)
        return rpl_cli_usage_error("gpus takes no file arguments, not '%s'", argv[0]);
    spec = o.spec;
    root = o.root;
    rc = 0;
    if (!(list = calloc(1, sizeof(*list))))
        return rpl_cli_fail(rpl_error_oom());
    find_amd(list, root);
    find_nvidia(list, root);
    if (list->count == 0)
        rpl_log_warn("no GPU found (no KFD node with SIMDs under /dev/kfd, no NVIDIA GPU under "
                     "/proc/driver/nvidia/gpus or /dev/nvidia0)%s",
                     spec ? "; the resource spec lists no GPU, so GPU tests will not run" : "");
    if (spec) {
        rc = write_spec(spec, list);
        if (rc == 0)
            rpl_log_info("wrote %s: %zu GPU slot(s)", spec, list->count);
    } else if (list->count > 0) {
        print_table(list);
    }
    free(list);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
