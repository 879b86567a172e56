/*
 * Private to the rocpd reader: a map from a 64-bit key (a database id, or a
 * pointer) to a 32-bit value (an array index).  While keys and values both
 * count up by one from their first insertion (ids 1..N read in order, the
 * common case) it stores nothing but the start and the count; the first key
 * out of that pattern moves it to an open-addressing hash table (linear
 * probing, one allocation, no per-entry malloc).  Keys are mixed with a
 * salt taken from the table's address, so ids chosen by a hostile file
 * cannot all land in one run of slots.
 */
#ifndef RPL_TRACE_ROCPD_IDMAP_H
#define RPL_TRACE_ROCPD_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of an empty slot and of "not found"; never stored. */
#define RPL_IDMAP_EMPTY UINT32_MAX

typedef struct rpl_idmap_slot {
    int64_t key;
    uint32_t value;
} rpl_idmap_slot;

typedef struct rpl_idmap {
    size_t count;
    /* Sequential mode (!hashed): entry i is key0 + i -> value0 + i. */
    bool hashed;
    int64_t key0;
    uint32_t value0;
    size_t hint; /* expected entries, for the table's first size */
    /* Hash mode. */
    rpl_idmap_slot *slots;
    size_t mask;   /* slot count - 1 (a power of two) */
    uint64_t salt; /* mixed into every key of this table */
} rpl_idmap;

void rpl_idmap_free(rpl_idmap *map);

/* Expect about `n` entries (sizes the hash table if one is needed). */
int rpl_idmap_reserve(rpl_idmap *map, size_t n);

/*
 * Insert key -> value (value < RPL_IDMAP_EMPTY).  When the key is already
 * present nothing changes and *existing gets its value; otherwise *existing
 * is RPL_IDMAP_EMPTY.  Returns 0 or RPL_ENOMEM.
 */
int rpl_idmap_put(rpl_idmap *map, int64_t key, uint32_t value, uint32_t *existing);

static inline uint64_t rpl_idmap_hash(int64_t key, uint64_t salt)
{
    /* splitmix64 finaliser: database ids are dense, pointers aligned. */
    uint64_t x = (uint64_t)key ^ salt;

    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The value of `key`, or RPL_IDMAP_EMPTY. */
static inline uint32_t rpl_idmap_get(const rpl_idmap *map, int64_t key)
{
    size_t i;

    if (!map->hashed) {
        uint64_t off = (uint64_t)key - (uint64_t)map->key0;
        return off < map->count ? map->value0 + (uint32_t)off : RPL_IDMAP_EMPTY;
    }
    for (i = rpl_idmap_hash(key, map->salt) & map->mask;; i = (i + 1) & map->mask) {
        const rpl_idmap_slot *s = &map->slots[i];
        if (s->value == RPL_IDMAP_EMPTY || s->key == key)
            return s->value;
    }
}

#endif
