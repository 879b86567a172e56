/*
 * Kernel symbols by kernel_object and the loaded code objects that hold
 * them (capture_pure.h), filled when an executable is frozen and emptied
 * when it is destroyed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture_pure.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"

void ch_kernel_release(ch_kernel *k)
{
    RPL_FREE_EACH(k->symbol, k->name, k->demangled);
    memset(k, 0, sizeof(*k));
}

static bool object_below(const void *kernel, const void *ko)
{
    return ((const ch_kernel *)kernel)->kernel_object < *(const uint64_t *)ko;
}

/* Index of the first entry with kernel_object >= ko. */
static size_t lower_bound(const ch_kernels *t, uint64_t ko)
{
    return rpl_lower_bound(t->items, t->count, sizeof(*t->items), &ko, object_below);
}

int ch_kernels_add(ch_kernels *t, ch_kernel *k)
{
    size_t i = lower_bound(t, k->kernel_object);
    ch_kernel *slot;

    if (i < t->count && t->items[i].kernel_object == k->kernel_object) {
        /* The address was reused by a later load: the new symbol wins. */
        ch_kernel_release(&t->items[i]);
        t->items[i] = *k;
        memset(k, 0, sizeof(*k));
        return 0;
    }
    if (!(slot = RPL_ARRAY_INSERT(t->items, t->count, t->cap, i)))
        return RPL_ENOMEM;
    *slot = *k;
    memset(k, 0, sizeof(*k));
    return 0;
}

const ch_kernel *ch_kernels_find(const ch_kernels *t, uint64_t kernel_object)
{
    size_t i = lower_bound(t, kernel_object);

    return i < t->count && t->items[i].kernel_object == kernel_object ? &t->items[i] : NULL;
}

int ch_kernels_add_code(ch_kernels *t, uint64_t executable, uint64_t load_base, uint64_t load_size,
                        unsigned char *bytes, size_t len)
{
    ch_code_object *c;

    if (!(c = RPL_ARRAY_PUSH(t->code, t->ncode, t->cap_code)))
        return RPL_ENOMEM;
    c->executable = executable;
    c->load_base = load_base;
    c->load_size = load_size;
    c->bytes = bytes;
    c->len = bytes ? len : 0;
    return 0;
}

const ch_code_object *ch_kernels_code_at(const ch_kernels *t, uint64_t executable, uint64_t address)
{
    size_t i;

    for (i = 0; i < t->ncode; i++) {
        const ch_code_object *c = &t->code[i];

        if (c->executable == executable && address >= c->load_base &&
            address - c->load_base < c->load_size)
            return c;
    }
    return NULL;
}

void ch_kernels_drop_executable(ch_kernels *t, uint64_t executable)
{
    size_t i, j = 0;

    for (i = 0; i < t->count; i++) {
        if (t->items[i].executable == executable)
            ch_kernel_release(&t->items[i]);
        else
            t->items[j++] = t->items[i];
    }
    t->count = j;
    for (i = 0, j = 0; i < t->ncode; i++) {
        if (t->code[i].executable == executable)
            free(t->code[i].bytes);
        else
            t->code[j++] = t->code[i];
    }
    t->ncode = j;
}

void ch_kernels_release(ch_kernels *t)
{
    size_t i;

    for (i = 0; i < t->count; i++)
        ch_kernel_release(&t->items[i]);
    for (i = 0; i < t->ncode; i++)
        free(t->code[i].bytes);
    free(t->items);
    free(t->code);
    memset(t, 0, sizeof(*t));
}

/* The number after "<key>=" in the fragment, up to '&' or the end. */
static bool fragment_number(const char *fragment, const char *key, uint64_t *out)
{
    size_t klen = strlen(key);
    const char *p = fragment;
    char *end;

    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            p += klen + 1;
            if (*p < '0' || *p > '9')
                return false;
            errno = 0;
            *out = strtoull(p, &end, 0);
            return errno == 0 && (*end == '\0' || *end == '&');
        }
        p = strchr(p, '&');
        if (p)
            p++;
    }
    return false;
}

bool ch_uri_range(const char *uri, uint64_t *offset, uint64_t *size)
{
    const char *fragment = strchr(uri, '#');
    uint64_t o, s;

    if (!fragment || !fragment_number(fragment + 1, "offset", &o) ||
        !fragment_number(fragment + 1, "size", &s))
        return false;
    *offset = o;
    *size = s;
    return true;
}
