/*
 * crc.c - the host's fast CRCs (crc.h): CRC-32C (snappy framing) with the
 * SSE4.2 crc32 instruction when the CPU has it (checked once at run time,
 * ~10 GB/s), else a slice-by-8 table (~1.5 GB/s) built from crc.h's
 * portable entries on first use (thread-safe through pthread_once); CRC-32
 * (gzip) through libdeflate's.
 */
#include "crc.h"

#include <libdeflate.h>
#include <pthread.h>

#include "le.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int have_sse42;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++)
        crc_table[0][i] = oc_crc_table_entry(OC_CRC32C_POLY, i);
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc32c_table(uint32_t c, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = oc_load_le32(p) ^ c, hi = oc_load_le32(p + 4);
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
            crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t len)
{
    uint64_t c64 = c;
    while (len >= 8) {
        c64 = __builtin_ia32_crc32di(c64, oc_load_le64(p));
        p += 8;
        len -= 8;
    }
    c = (uint32_t)c64;
    while (len--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}
#endif

uint32_t oc_crc32c(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&crc_once, crc_init);
    uint32_t c = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_sse42)
        return ~crc32c_hw(c, (const uint8_t *)data, len);
#endif
    return ~crc32c_table(c, (const uint8_t *)data, len);
}

uint32_t oc_crc32(uint32_t crc, const void *data, size_t len)
{
    return libdeflate_crc32(crc, data, len);
}
