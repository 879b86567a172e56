/*
 * Classes of AMDGPU ISA mnemonics (GCN/CDNA/RDNA assembler syntax), as ATT's
 * code.json prints them.  Order matters: MFMA/WMMA and LDS before the
 * generic v_ prefix, branches and waits before the generic s_ prefix.
 */
#include <ctype.h>
#include <string.h>

#include "rpl/att.h"

static const char *const class_names[RPL_ISA_CLASSES] = {"valu", "salu",   "vmem",    "smem", "lds",
                                                         "mfma", "branch", "waitcnt", "other"};

const char *rpl_isa_class_name(rpl_isa_class c)
{
    return (unsigned)c < RPL_ISA_CLASSES ? class_names[c] : "?";
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The mnemonic: leading blanks skipped, up to the first blank (at most n-1 chars). */
static void mnemonic(char *out, size_t n, const char *isa)
{
    size_t i = 0;

    while (*isa && isspace((unsigned char)*isa))
        isa++;
    while (isa[i] && !isspace((unsigned char)isa[i]) && i + 1 < n) {
        out[i] = (char)tolower((unsigned char)isa[i]);
        i++;
    }
    out[i] = '\0';
}

rpl_isa_class rpl_isa_classify(const char *isa)
{
    char m[64];

    mnemonic(m, sizeof(m), isa ? isa : "");
    if (starts(m, "v_mfma") || starts(m, "v_smfmac") || starts(m, "v_wmma") ||
        starts(m, "v_swmmac"))
        return RPL_ISA_MFMA;
    if (starts(m, "ds_") || starts(m, "lds_"))
        return RPL_ISA_LDS;
    if (starts(m, "buffer_") || starts(m, "global_") || starts(m, "flat_") ||
        starts(m, "scratch_") || starts(m, "image_") || starts(m, "tbuffer_"))
        return RPL_ISA_VMEM;
    if (starts(m, "s_load") || starts(m, "s_buffer_load") || starts(m, "s_store") ||
        starts(m, "s_buffer_store") || starts(m, "s_scratch_") || starts(m, "s_dcache") ||
        starts(m, "s_memtime") || starts(m, "s_memrealtime"))
        return RPL_ISA_SMEM;
    if (starts(m, "s_branch") || starts(m, "s_cbranch") || starts(m, "s_setpc") ||
        starts(m, "s_swappc") || starts(m, "s_getpc") || starts(m, "s_call"))
        return RPL_ISA_BRANCH;
    if (starts(m, "s_waitcnt") || starts(m, "s_wait_") || starts(m, "s_barrier"))
        return RPL_ISA_WAITCNT;
    if (starts(m, "v_"))
        return RPL_ISA_VALU;
    if (starts(m, "s_"))
        return RPL_ISA_SALU;
    return RPL_ISA_OTHER;
}

bool rpl_isa_sets_exec(const char *isa)
{
    char m[64];

    mnemonic(m, sizeof(m), isa ? isa : "");
    if (starts(m, "v_cmpx_"))
        return true;
    return starts(m, "s_") && strstr(m, "_saveexec_") != NULL;
}
