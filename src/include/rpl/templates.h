/* The templates shipped with rocm-perf (templates/ of the source tree). */
#ifndef RPL_TEMPLATES_H
#define RPL_TEMPLATES_H

#include <stddef.h>

/*
 * The templates folder into `out`: `given` (--templates), else
 * $ROCM_PERF_TEMPLATES, which must hold the file `probe`
 * ("kernel-test/kernel.in"); else <prefix>/share/rocm-perf-lab/templates
 * beside the running program once installed, else the source tree it was
 * built from, the first that holds `probe`.  RPL_EENV when none does.
 */
int rpl_templates_dir(char *out, size_t size, const char *given, const char *probe);

#endif
