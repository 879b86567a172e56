/*
 * The inspect report (`rocm-perf inspect`): per kernel of compiled GPU code
 * its registers, LDS/shared memory, scratch, spills and theoretical
 * occupancy, with no GPU needed.
 */
#ifndef RPL_INSPECT_H
#define RPL_INSPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "rpl/arch.h"
#include "rpl/codeobj.h"
#include "rpl/strbuf.h"

typedef struct rpl_inspect_opts {
    const char *const *files; /* code objects, bundles, executables */
    size_t nfiles;
    const rpl_arch *const *archs; /* only kernels of these architectures; none: all */
    size_t narchs;
    unsigned block;    /* 0: each kernel's own maximum workgroup size */
    unsigned dyn_smem; /* dynamic LDS / shared memory per block */
    bool json;         /* docs/schemas/inspect.schema.json instead of the table */
} rpl_inspect_opts;

/*
 * Read o->files into `set` and append the report to `out`: the table (kernel
 * names demangled; at log level info each row's origin below it) or the JSON
 * document.  The reader's warnings are logged (info) and listed in the JSON.
 * No kernel selected is RPL_EINPUT.
 */
int rpl_inspect_render(rpl_strbuf *out, const rpl_inspect_opts *o, rpl_codeobj_set *set);

#endif
