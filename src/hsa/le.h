/* Little-endian field access for the fixed binary layouts of AQL packets and kernel descriptors. */
#ifndef RPL_HSA_LE_H
#define RPL_HSA_LE_H

#include <stdint.h>

static inline uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static inline uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void put32(unsigned char *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static inline void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

#endif
