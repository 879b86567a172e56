/* What `rocm-perf gpus` writes: the table of this machine's GPUs, their CTest resource spec. */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/profile_backend.h"

void rpl_gpu_list_print(FILE *out, const rpl_gpu_list *list)
{
    fprintf(out, "%-3s %-7s %-8s %-28s %s\n", "ID", "VENDOR", "ARCH", "MODEL", "FOUND AT");
    for (size_t i = 0; i < list->count; i++) {
        const rpl_gpu_entry *g = &list->gpus[i];
        fprintf(out, "%-3zu %-7s %-8s %-28s %s\n", i, g->vendor, g->arch[0] ? g->arch : "-",
                g->model[0] ? g->model : "-", g->source);
    }
}

int rpl_gpu_resource_spec_write(const char *file, const rpl_gpu_list *list)
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
