/* cJSON adders that remember an allocation failure (see json_doc.h). */
#include <math.h>

#include "json_doc.h"

cJSON *rpl_json_doc_check(rpl_json_doc *d, cJSON *item)
{
    if (!item)
        d->oom = true;
    return item;
}

void rpl_json_doc_number(rpl_json_doc *d, cJSON *o, const char *key, double v, bool known)
{
    rpl_json_doc_check(d, known && isfinite(v) ? cJSON_AddNumberToObject(o, key, v)
                                               : cJSON_AddNullToObject(o, key));
}

void rpl_json_doc_string(rpl_json_doc *d, cJSON *o, const char *key, const char *s)
{
    rpl_json_doc_check(d, s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key));
}
