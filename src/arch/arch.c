/* Lookups in the architecture and product tables. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/arch.h"

const char *rpl_vendor_name(rpl_vendor vendor)
{
    return vendor == RPL_VENDOR_NVIDIA ? "nvidia" : "amd";
}

/* The first architecture of `vendor` whose number at byte `field` of rpl_arch is v. */
static const rpl_arch *find_by(rpl_vendor vendor, size_t field, unsigned v)
{
    size_t n;
    const rpl_arch *all = rpl_arch_all(&n);

    for (size_t i = 0; i < n; i++)
        if (all[i].vendor == vendor && *(const unsigned *)((const char *)&all[i] + field) == v)
            return &all[i];
    return NULL;
}

const rpl_arch *rpl_arch_find_gfx_version(unsigned gfx_target_version)
{
    return find_by(RPL_VENDOR_AMD, offsetof(rpl_arch, gfx_target_version), gfx_target_version);
}

const rpl_arch *rpl_arch_find_cc(unsigned compute_capability)
{
    return find_by(RPL_VENDOR_NVIDIA, offsetof(rpl_arch, compute_capability), compute_capability);
}

/* Parse "90", "9.0", "90a" (digits, optional ".minor", one optional suffix letter). */
static int parse_cc(const char *s, unsigned *cc)
{
    unsigned v = 0, digits = 0;

    for (; isdigit((unsigned char)*s) && digits < 4; s++, digits++)
        v = v * 10 + (unsigned)(*s - '0');
    if (digits == 0)
        return -1;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s) || digits > 2)
            return -1;
        v = v * 10 + (unsigned)(*s++ - '0');
    }
    if (*s && isalpha((unsigned char)*s))
        s++; /* sm_90a, sm_100f: arch-specific variants share the base rules */
    if (*s)
        return -1;
    *cc = v;
    return 0;
}

const rpl_arch *rpl_arch_find(const char *name)
{
    char buf[64];
    const char *p, *dash;
    size_t n, len;
    unsigned cc;
    const rpl_arch *all;

    if (!name)
        return NULL;
    /* Drop a target triple ("amdgcn-amd-amdhsa--gfx90a") and feature suffixes (":xnack-"). */
    p = name;
    dash = strstr(p, "--");
    if (dash)
        p = dash + 2;
    len = strcspn(p, ":");
    if (len == 0 || len >= sizeof(buf))
        return NULL;
    memcpy(buf, p, len);
    buf[len] = '\0';

    all = rpl_arch_all(&n);
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(all[i].name, buf) == 0)
            return &all[i];
    if (strncasecmp(buf, "sm_", 3) == 0 && parse_cc(buf + 3, &cc) == 0)
        return rpl_arch_find_cc(cc);
    if (strncasecmp(buf, "compute_", 8) == 0 && parse_cc(buf + 8, &cc) == 0)
        return rpl_arch_find_cc(cc);
    if (parse_cc(buf, &cc) == 0)
        return rpl_arch_find_cc(cc);
    return NULL;
}

const rpl_vgpr_file *rpl_arch_vgpr_file(const rpl_arch *arch, unsigned wave_size)
{
    if (!arch || arch->vendor != RPL_VENDOR_AMD)
        return NULL;
    if (wave_size == 64 && arch->vgpr_w64.total)
        return &arch->vgpr_w64;
    if (wave_size == 32 && arch->vgpr_w32.total)
        return &arch->vgpr_w32;
    return NULL;
}

const rpl_product *rpl_product_find(const char *name)
{
    size_t n;
    const rpl_product *all = rpl_product_all(&n);

    if (!name)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

/* Case-insensitive substring search. */
static int contains_ci(const char *hay, const char *needle, size_t nlen)
{
    size_t hlen = strlen(hay);

    if (nlen == 0 || nlen > hlen)
        return 0;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (strncasecmp(hay + i, needle, nlen) == 0)
            return 1;
    return 0;
}

/* Does `hay` contain one of the '|'-separated `patterns`? */
static int matches_any(const char *hay, const char *patterns)
{
    const char *p = patterns;

    while (p && *p) {
        size_t len = strcspn(p, "|");

        if (contains_ci(hay, p, len))
            return 1;
        p += len;
        if (*p == '|')
            p++;
    }
    return 0;
}

const rpl_product *rpl_product_match(const char *agent_product_name)
{
    size_t n;
    const rpl_product *all = rpl_product_all(&n);

    if (!agent_product_name)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!matches_any(agent_product_name, all[i].match))
            continue;
        if (all[i].exclude && matches_any(agent_product_name, all[i].exclude))
            continue;
        return &all[i];
    }
    return NULL;
}
