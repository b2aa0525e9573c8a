/*
 * gdeflate_vectors.h - GDeflate pages written by nvCOMP 6.0.0
 * (tests/vectors/gdeflate/, README.md there), the one outside source of
 * GDeflate pages the tests have: each is listed with the size and CRC-32 of
 * the 64 KiB it decodes to, so a test checks the decoded bytes without the
 * raw data in the tree.  Used by test_codec_gdeflate.c (CPU engine),
 * test_gdeflate_gpu_core.c (the GPU core on the host) and
 * test_cuda_gdeflate.c (the GPU).
 */
#ifndef OC_TEST_GDEFLATE_VECTORS_H
#define OC_TEST_GDEFLATE_VECTORS_H

#include <stdint.h>
#include <stdio.h>

#include "helpers/test_util.h"

typedef struct gdv_vector {
    const char *file; /* under tests/vectors/gdeflate/ */
    size_t raw_size;
    uint32_t crc32; /* CRC-32 (ISO-HDLC, as zlib's crc32) of the decoded bytes */
    const char *what;
} gdv_vector;

static const gdv_vector gdv_vectors[] = {
    {"nvcomp600-sorted_partkey-p9.gdeflate", 65536, 0xde07d412u,
     "one dynamic block: 269 matches of 136-258 bytes through symbol 285 (3 + 16 extra bits), "
     "shorter ones through 259-280"},
    {"nvcomp600-tpch_l_orderkey-p11.gdeflate", 65536, 0xe7a01a70u,
     "one dynamic block, lengths 4-130 only (symbols 258-275)"},
};
#define GDV_COUNT (sizeof gdv_vectors / sizeof gdv_vectors[0])

/* Reads vector v's page into out (0), or -1 when the file is missing. */
static int gdv_load(const gdv_vector *v, tu_buf *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/vectors/gdeflate/%s", OC_SOURCE_DIR, v->file);
    return tu_read_file(path, 0, out);
}

/* CRC-32 bit by bit, written here so the check does not rest on the
 * library's own CRC. */
static uint32_t gdv_crc32(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

#endif /* OC_TEST_GDEFLATE_VECTORS_H */
