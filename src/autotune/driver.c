/*
 * Driver versions as the tools print them, reduced to the version alone so
 * that the cache key does not depend on where it was read:
 *   /proc/driver/nvidia/version  "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ..."
 *                                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64
 * 580.159.04 ..." nvidia-smi                   "| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05
 * CUDA Version: 13.0 |" nvidia-smi --query-gpu=driver_version --format=csv,noheader   "580.95.05"
 *   cuDriverGetVersion           13000 (1000 x major + 10 x minor): "13.0"
 *   rocm-smi --showdriverversion "Driver version: 6.10.5"
 *   /sys/module/amdgpu/version   "6.10.5"
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

/* Where the version follows a label, the label (case-insensitive); else the first version. */
static const char *const labels[] = {"driver version", "kernel module"};

static const char *find_label(const char *text, const char *label)
{
    size_t n = strlen(label);

    for (const char *p = text; *p; p++)
        if (strncasecmp(p, label, n) == 0)
            return p + n;
    return NULL;
}

static bool token_start(const char *text, const char *p)
{
    return p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '_');
}

static bool suffix_mark(char c)
{
    return c == '-' || c == '+' || c == '~' || c == '_' || c == '.';
}

/*
 * Length of the version at p: digits, then at least one ".digits", then a
 * suffix such as "-91-generic"; 0 when p starts none.
 */
static size_t version_at(const char *p)
{
    size_t i = 0, groups = 0;

    while (isdigit((unsigned char)p[i]))
        i++;
    if (i == 0)
        return 0;
    while (p[i] == '.' && isdigit((unsigned char)p[i + 1])) {
        i++;
        while (isdigit((unsigned char)p[i]))
            i++;
        groups++;
    }
    if (groups == 0)
        return 0;
    while (isalnum((unsigned char)p[i]) || suffix_mark(p[i]))
        i++;
    while (suffix_mark(p[i - 1]))
        i--;
    return i;
}

static const char *first_version(const char *text, const char *from, size_t *len)
{
    for (const char *p = from; *p; p++)
        if (token_start(text, p) && (*len = version_at(p)) > 0)
            return p;
    return NULL;
}

/* The CUDA driver API's integer: 13000 is 13.0, 12080 is 12.8. */
static bool cuda_integer(char *out, size_t size, const char *text)
{
    char *end;
    long v;

    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text))
        return false;
    v = strtol(text, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || v < 1000 || v > 1000000)
        return false;
    snprintf(out, size, "%ld.%ld", v / 1000, (v % 1000) / 10);
    return true;
}

int rpl_tune_driver_version(char *out, size_t size, const char *text)
{
    const char *hit = NULL;
    size_t len = 0;

    if (size)
        out[0] = '\0';
    if (!text)
        return rpl_error_set(RPL_EINPUT, "no driver version text");
    if (cuda_integer(out, size, text))
        return 0;
    for (size_t i = 0; !hit && i < sizeof(labels) / sizeof(labels[0]); i++) {
        const char *after = find_label(text, labels[i]);
        if (after)
            hit = first_version(text, after, &len);
    }
    if (!hit)
        hit = first_version(text, text, &len);
    if (!hit)
        return rpl_error_set(RPL_EINPUT, "no driver version in '%.60s'", text);
    snprintf(out, size, "%.*s", (int)len, hit);
    return 0;
}
