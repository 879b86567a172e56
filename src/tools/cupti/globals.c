/* The recorder's global state (cr_g) and CUPTI's failure report, shared by the CUPTI-side files. */
#include "cupti_int.h"
#include "rpl/log.h"

cr_state cr_g;

int cr_cupti_failed(CUptiResult res, const char *what)
{
    const char *msg = NULL;

    if (res == CUPTI_SUCCESS)
        return 0;
    cuptiGetResultString(res, &msg);
    rpl_log_warn("cupti: %s: %s", what, msg ? msg : "unknown error");
    return 1;
}
