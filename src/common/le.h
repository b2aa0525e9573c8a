/*
 * le.h - little-endian loads and stores, byte by byte (any alignment, any
 * host byte order), for host C and CUDA device code alike.  The one copy:
 * containers, checksums, the zstd cores and the container kernels use it.
 */
#ifndef OC_LE_H
#define OC_LE_H

#include <stdint.h>

#include "portable.h"

OC_INLINE uint32_t oc_load_le16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}
OC_INLINE uint32_t oc_load_le24(const uint8_t *p)
{
    return oc_load_le16(p) | ((uint32_t)p[2] << 16);
}
OC_INLINE uint32_t oc_load_le32(const uint8_t *p)
{
    return oc_load_le24(p) | ((uint32_t)p[3] << 24);
}
OC_INLINE uint64_t oc_load_le64(const uint8_t *p)
{
    return (uint64_t)oc_load_le32(p) | ((uint64_t)oc_load_le32(p + 4) << 32);
}
OC_INLINE void oc_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
OC_INLINE void oc_store_le64(uint8_t *p, uint64_t v)
{
    oc_store_le32(p, (uint32_t)v);
    oc_store_le32(p + 4, (uint32_t)(v >> 32));
}
OC_INLINE uint32_t oc_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

#endif /* OC_LE_H */
