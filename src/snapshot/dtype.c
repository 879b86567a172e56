/* Element types of snapshot regions (see rpl/snapshot.h). */
#include <string.h>

#include "rpl/snapshot.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [RPL_DTYPE_BYTES] = {"bytes", 1}, [RPL_DTYPE_I8] = {"i8", 1},     [RPL_DTYPE_U8] = {"u8", 1},
    [RPL_DTYPE_I16] = {"i16", 2},     [RPL_DTYPE_U16] = {"u16", 2},   [RPL_DTYPE_I32] = {"i32", 4},
    [RPL_DTYPE_U32] = {"u32", 4},     [RPL_DTYPE_I64] = {"i64", 8},   [RPL_DTYPE_U64] = {"u64", 8},
    [RPL_DTYPE_F16] = {"f16", 2},     [RPL_DTYPE_BF16] = {"bf16", 2}, [RPL_DTYPE_F32] = {"f32", 4},
    [RPL_DTYPE_F64] = {"f64", 8},
};

#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

const char *rpl_dtype_name(rpl_dtype t)
{
    return (size_t)t < NDTYPES ? dtypes[t].name : "bytes";
}

int rpl_dtype_parse(const char *name)
{
    for (size_t i = 0; i < NDTYPES; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return (int)i;
    return -1;
}

size_t rpl_dtype_size(rpl_dtype t)
{
    return (size_t)t < NDTYPES ? dtypes[t].size : 1;
}
