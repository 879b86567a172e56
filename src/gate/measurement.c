/* What a gate measured (rpl_gate_measurement, rpl/gate.h). */
#include <stdlib.h>
#include <string.h>

#include "rpl/free.h"
#include "rpl/gate.h"

void rpl_gate_measurement_release(rpl_gate_measurement *m)
{
    RPL_FREE_EACH(m->arch, m->device, m->driver, m->toolkit);
    rpl_static_kernels_free(m->statics, m->nstatics);
    rpl_runtime_kernels_free(m->kernels, m->nkernels);
    memset(m, 0, sizeof(*m));
}
