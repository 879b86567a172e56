/*
 * String interning: strings live in large arena blocks and an open-addressing
 * hash table (FNV-1a, linear probing) finds existing copies.  Traces repeat a
 * few hundred names over millions of records, so this keeps them small.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

#define BLOCK_SIZE (64 * 1024)

struct block {
    struct block *next;
    size_t used, size;
    char data[];
};

struct rpl_strpool {
    struct block *blocks;
    const char **slots; /* hash table of interned strings */
    size_t nslots, count;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

struct rpl_strpool *rpl_strpool_new(void)
{
    struct rpl_strpool *pool = calloc(1, sizeof(*pool));

    if (!pool)
        return NULL;
    pool->nslots = 256;
    pool->slots = calloc(pool->nslots, sizeof(*pool->slots));
    if (!pool->slots) {
        free(pool);
        return NULL;
    }
    return pool;
}

void rpl_strpool_free(struct rpl_strpool *pool)
{
    struct block *b, *next;

    if (!pool)
        return;
    for (b = pool->blocks; b; b = next) {
        next = b->next;
        free(b);
    }
    free(pool->slots);
    free(pool);
}

static char *arena_alloc(struct rpl_strpool *pool, size_t n)
{
    struct block *b = pool->blocks;

    if (!b || b->size - b->used < n) {
        size_t size = n > BLOCK_SIZE ? n : BLOCK_SIZE;
        b = malloc(sizeof(*b) + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        b->next = pool->blocks;
        pool->blocks = b;
    }
    b->used += n;
    return b->data + b->used - n;
}

static int grow(struct rpl_strpool *pool)
{
    size_t nslots = pool->nslots * 2;
    const char **slots = calloc(nslots, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < pool->nslots; i++) {
        const char *s = pool->slots[i];
        if (!s)
            continue;
        size_t j = hash_bytes(s, strlen(s)) & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = s;
    }
    free(pool->slots);
    pool->slots = slots;
    pool->nslots = nslots;
    return 0;
}

const char *rpl_strpool_intern(struct rpl_strpool *pool, const char *s, size_t len)
{
    size_t i;
    char *copy;

    if (pool->count * 2 >= pool->nslots && grow(pool) != 0)
        return NULL;
    i = hash_bytes(s, len) & (pool->nslots - 1);
    while (pool->slots[i]) {
        const char *t = pool->slots[i];
        if (strncmp(t, s, len) == 0 && t[len] == '\0')
            return t;
        i = (i + 1) & (pool->nslots - 1);
    }
    copy = arena_alloc(pool, len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    pool->slots[i] = copy;
    pool->count++;
    return copy;
}
