/*
 * libFuzzer target: any bytes as an ATT code.json.  The parser must accept
 * or reject (RPL_EINPUT; RPL_EUSAGE for PC-sampling output, which it names)
 * without crashing, leaking or reading out of bounds, and accepted features
 * must be finite ratios in range.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rpl/att.h"
#include "rpl/error.h"
#include "rpl/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_att_features f;
    int rc;

    rpl_log_set_level(RPL_LOG_ERROR);
    rc = rpl_att_parse_code_json(&f, (const char *)data, size);
    if (rc != 0 && rc != RPL_EINPUT && rc != RPL_EUSAGE)
        abort();
    if (rc == 0) {
        double sum = 0;
        for (int c = 0; c < RPL_ISA_CLASSES; c++)
            sum += f.mix[c];
        if (!(fabs(sum - 1.0) < 1e-6) || !(f.stall_fraction >= 0 && f.stall_fraction <= 1) ||
            !(f.idle_fraction >= 0 && f.idle_fraction <= 1) || !isfinite(f.ipc))
            abort();
    }
    return 0;
}
