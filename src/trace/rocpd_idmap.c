/* Id map of the rocpd reader (see rocpd_idmap.h). */
#include <stdlib.h>

#include "rocpd_idmap.h"
#include "rpl/error.h"

void rpl_idmap_free(rpl_idmap *map)
{
    free(map->slots);
    *map = (rpl_idmap){0};
}

static void insert_slot(rpl_idmap_slot *slots, size_t mask, uint64_t salt, int64_t key,
                        uint32_t value)
{
    size_t i = rpl_idmap_hash(key, salt) & mask;

    while (slots[i].value != RPL_IDMAP_EMPTY)
        i = (i + 1) & mask;
    slots[i].key = key;
    slots[i].value = value;
}

/* A table for `n` entries at a load factor of at most one half. */
static int rehash(rpl_idmap *map, size_t n)
{
    size_t nslots = 16, i;
    rpl_idmap_slot *slots;
    uint64_t salt;

    while (nslots < 2 * n) {
        if (nslots > SIZE_MAX / 4 / sizeof(*slots))
            return rpl_error_oom();
        nslots *= 2;
    }
    if (map->hashed && nslots <= map->mask + 1)
        return 0;
    if (!(slots = malloc(nslots * sizeof(*slots))))
        return rpl_error_oom();
    for (i = 0; i < nslots; i++)
        slots[i].value = RPL_IDMAP_EMPTY;
    salt = (uint64_t)(uintptr_t)slots * 0x9e3779b97f4a7c15ULL;
    if (map->hashed) {
        for (i = 0; i <= map->mask; i++)
            if (map->slots[i].value != RPL_IDMAP_EMPTY)
                insert_slot(slots, nslots - 1, salt, map->slots[i].key, map->slots[i].value);
    } else {
        for (i = 0; i < map->count; i++)
            insert_slot(slots, nslots - 1, salt, (int64_t)((uint64_t)map->key0 + i),
                        map->value0 + (uint32_t)i);
    }
    free(map->slots);
    map->slots = slots;
    map->mask = nslots - 1;
    map->salt = salt;
    map->hashed = true;
    return 0;
}

int rpl_idmap_reserve(rpl_idmap *map, size_t n)
{
    if (!map->hashed) {
        map->hint = n;
        return 0;
    }
    return rehash(map, n);
}

int rpl_idmap_put(rpl_idmap *map, int64_t key, uint32_t value, uint32_t *existing)
{
    size_t i;
    int rc;

    *existing = rpl_idmap_get(map, key);
    if (*existing != RPL_IDMAP_EMPTY)
        return 0;
    if (!map->hashed) {
        if (map->count == 0) {
            map->key0 = key;
            map->value0 = value;
        }
        if ((uint64_t)key - (uint64_t)map->key0 == map->count &&
            (uint64_t)value == (uint64_t)map->value0 + map->count) {
            map->count++;
            return 0;
        }
        if ((rc = rehash(map, map->hint > map->count + 1 ? map->hint : map->count + 1)) != 0)
            return rc;
    }
    if (2 * (map->count + 1) > map->mask + 1 && (rc = rehash(map, 2 * (map->count + 1))) != 0)
        return rc;
    for (i = rpl_idmap_hash(key, map->salt) & map->mask; map->slots[i].value != RPL_IDMAP_EMPTY;
         i = (i + 1) & map->mask)
        ;
    map->slots[i].key = key;
    map->slots[i].value = value;
    map->count++;
    return 0;
}
