/*
 * libFuzzer target for the bytes and strings the HSA capture and replay
 * take from outside: an AQL packet from an application's queue, a kernel
 * descriptor, and the names the runtime hands out (ISA names, symbol
 * names, demangled names, code object URIs).  Input: 64 packet bytes, 64
 * descriptor bytes, then NUL-separated strings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/hsa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void strings(const char *s, size_t len)
{
    while (len > 0) {
        size_t n = strnlen(s, len);
        char *str = malloc(n + 1);
        char **types = NULL, *name = NULL;
        size_t ntypes = 0, i;
        rpl_amd_isa isa, other;
        uint64_t off, sz;
        bool ptr;
        rpl_dtype t;

        if (!str)
            return;
        memcpy(str, s, n);
        str[n] = '\0';
        if (rpl_amd_isa_parse(&isa, str) == 0 &&
            rpl_amd_isa_parse(&other, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-") == 0)
            (void)rpl_amd_isa_compatible(&isa, &other);
        if (rpl_amd_kernel_name(&name, str) == 0)
            free(name);
        (void)rpl_amd_is_kd_symbol(str);
        if (rpl_param_types(&types, &ntypes, str) == 0) {
            for (i = 0; i < ntypes; i++)
                rpl_param_type_classify(types[i], &ptr, &t);
            rpl_strv_free(types, ntypes);
        }
        rpl_param_type_classify(str, &ptr, &t);
        (void)ch_uri_range(str, &off, &sz);
        free(str);
        s += n + (n < len);
        len -= n + (n < len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rpl_aql_dispatch d;
    rpl_amd_kd kd;
    unsigned char pkt[RPL_AQL_PACKET_BYTES];

    if (size >= RPL_AQL_PACKET_BYTES && rpl_aql_dispatch_decode(&d, data, size) == 0) {
        /* What decodes must encode back to the same fields. */
        if (rpl_aql_dispatch_encode(pkt, &d) != 0 ||
            rpl_aql_dispatch_decode(&d, pkt, sizeof(pkt)) != 0)
            abort();
    }
    if (size >= 2 * RPL_AQL_PACKET_BYTES)
        (void)rpl_amd_kd_parse(&kd, data + RPL_AQL_PACKET_BYTES, RPL_AMD_KD_BYTES);
    if (size > 2 * RPL_AQL_PACKET_BYTES)
        strings((const char *)data + 2 * RPL_AQL_PACKET_BYTES, size - 2 * RPL_AQL_PACKET_BYTES);
    return 0;
}
