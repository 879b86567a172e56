/*
 * What the cache key says about the hardware: the GPU models and the driver
 * version of this machine, read where the drivers publish them, without
 * starting a GPU runtime: NVIDIA /proc/driver/nvidia/{version,gpus/<bus>/
 * information}; AMD the KFD topology (gfx target of each GPU node) and the
 * amdgpu module version (or the kernel release for the in-tree driver).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"

#define NV_GPUS    "/proc/driver/nvidia/gpus"
#define NV_VERSION "/proc/driver/nvidia/version"
#define KFD_NODES  "/sys/class/kfd/kfd/topology/nodes"
#define MAX_GPUS   64

void rpl_tune_device_release(rpl_tune_device *d)
{
    free(d->device);
    free(d->driver);
    memset(d, 0, sizeof(*d));
}

/* The value after "key:" on a line of a small text file, trimmed; "" when absent. */
static void read_field(char *buf, size_t size, const char *path, const char *key)
{
    char line[512];
    size_t klen = strlen(key);
    FILE *f = fopen(path, "r");

    buf[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *v, *end;
        if (strncmp(line, key, klen) != 0 || line[klen] != ':')
            continue;
        for (v = line + klen + 1; *v == ' ' || *v == '\t'; v++)
            ;
        end = v + strlen(v);
        while (end > v && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        snprintf(buf, size, "%s", v);
        break;
    }
    fclose(f);
}

/* "580.159.04" from the first line of /proc/driver/nvidia/version (rpl_tune_driver_version). */
static void nvidia_driver(char *buf, size_t size)
{
    char line[512];
    FILE *f = fopen(NV_VERSION, "r");

    buf[0] = '\0';
    if (!f)
        return;
    if (fgets(line, sizeof(line), f) && rpl_tune_driver_version(buf, size, line) != 0)
        rpl_error_clear();
    fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append `name` to the ", "-separated list unless it holds it already. */
static int add_model(rpl_strbuf *sb, const char *name)
{
    const char *p = rpl_strbuf_cstr(sb);
    size_t n = strlen(name);

    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return 0;
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return rpl_strbuf_printf(sb, "%s%s", sb->len ? ", " : "", name);
}

static int probe_nvidia(rpl_tune_device *out, rpl_strbuf *models, rpl_strbuf *drivers)
{
    char *bus[MAX_GPUS], path[512], model[256], ver[64];
    size_t n = 0;
    struct dirent *e;
    DIR *d = opendir(NV_GPUS);
    int rc = 0;

    if (!d)
        return 0;
    while (n < MAX_GPUS && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && !(bus[n++] = strdup(e->d_name)))
            rc = rpl_error_oom();
    closedir(d);
    qsort(bus, n, sizeof(*bus), cmp_str);
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(path, sizeof(path), "%s/%s/information", NV_GPUS, bus[i]);
        read_field(model, sizeof(model), path, "Model");
        rc = add_model(models, model[0] ? model : "NVIDIA GPU");
        out->count++;
    }
    for (size_t i = 0; i < n; i++)
        free(bus[i]);
    nvidia_driver(ver, sizeof(ver));
    if (rc == 0 && n && ver[0])
        rc = rpl_strbuf_printf(drivers, "%snvidia %s", drivers->len ? ", " : "", ver);
    return rc;
}

static int probe_amd(rpl_tune_device *out, rpl_strbuf *models, rpl_strbuf *drivers)
{
    long nodes[MAX_GPUS];
    size_t n = rpl_kfd_node_list(nodes, MAX_GPUS, KFD_NODES);
    char path[512], ver[128];
    unsigned found = 0;
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++) {
        uint64_t simds = 0, gfx = 0;
        char name[16];
        snprintf(path, sizeof(path), "%s/%ld/properties", KFD_NODES, nodes[i]);
        rpl_kfd_node_read(path, &simds, &gfx);
        if (simds == 0)
            continue;
        if (rpl_gfx_name(name, sizeof(name), (uint32_t)gfx) != 0) {
            rpl_error_clear();
            snprintf(name, sizeof(name), "AMD GPU");
        }
        rc = add_model(models, name);
        found++;
    }
    out->count += found;
    if (rc != 0 || !found)
        return rc;
    ver[0] = '\0';
    {
        /* Present for the packaged (DKMS) driver; the in-tree one goes with the kernel. */
        FILE *f = fopen("/sys/module/amdgpu/version", "r");
        char line[128];
        if (f) {
            if (fgets(line, sizeof(line), f) &&
                rpl_tune_driver_version(ver, sizeof(ver), line) != 0)
                rpl_error_clear();
            fclose(f);
        }
    }
    if (!ver[0]) {
        struct utsname u;
        if (uname(&u) == 0)
            snprintf(ver, sizeof(ver), "kernel %s", u.release);
    }
    return rpl_strbuf_printf(drivers, "%samdgpu %s", drivers->len ? ", " : "", ver);
}

int rpl_tune_device_probe(rpl_tune_device *out)
{
    rpl_strbuf models = RPL_STRBUF_INIT, drivers = RPL_STRBUF_INIT;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = probe_nvidia(out, &models, &drivers);
    if (rc == 0)
        rc = probe_amd(out, &models, &drivers);
    if (rc == 0 && (rpl_strbuf_grow(&models, 1) != 0 || rpl_strbuf_grow(&drivers, 1) != 0))
        rc = rpl_error_oom();
    if (rc == 0) {
        out->device = rpl_strbuf_detach(&models);
        out->driver = rpl_strbuf_detach(&drivers);
    }
    rpl_strbuf_release(&models);
    rpl_strbuf_release(&drivers);
    return rc;
}
