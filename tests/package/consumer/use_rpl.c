/* Links librpl through RocmPerfLab::rpl (or pkg-config) and uses it. */
#include <stdio.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/strbuf.h"
#include "rpl/version.h"

int main(void)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int ok;

    if (rpl_strbuf_printf(&sb, "rocm-perf-lab %s", RPL_VERSION_STRING) != 0)
        return 1;
    ok = strcmp(rpl_strbuf_cstr(&sb), "rocm-perf-lab " RPL_VERSION_STRING) == 0 &&
         rpl_error_set(RPL_EINPUT, "x") == RPL_EINPUT && rpl_exit_code(RPL_EINPUT) == 2;
    printf("%s: %s\n", rpl_strbuf_cstr(&sb), ok ? "ok" : "wrong");
    rpl_strbuf_release(&sb);
    return ok ? 0 : 1;
}
