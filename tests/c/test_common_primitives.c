/*
 * test_common_primitives.c - the host/device primitives of src/common,
 * compiled here as host C (the same source nvcc compiles into the kernels),
 * against independent implementations:
 *   - XXH32 and XXH64 (xxh.h): one-shot, lane by lane + finish (how the GPU
 *     kernels split them), streaming XXH32 and XXH64 in uneven pieces, all
 *     against libxxhash at every length 0..300 and at large sizes, with
 *     seeds;
 *   - CRC-32 and CRC-32C (crc.h): the portable table form and the host fast
 *     paths against zlib's crc32 (CRC-32) and a bit-by-bit model (CRC-32C),
 *     continued across pieces;
 *   - Adler-32 (adler32.h) against zlib's adler32 across NMAX boundaries;
 *   - the backward and forward bit readers (bitreader.h) against a bit-by-bit
 *     model on random streams, including reads past the start (zeros);
 *   - little-endian loads and stores (le.h) at odd addresses.
 */
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "common/adler32.h"
#include "common/bitreader.h"
#include "common/crc.h"
#include "common/le.h"
#include "common/xxh.h"
#include "helpers/test_util.h"

static uint32_t table32[256], table32c[256];

static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

static void hash_at(const uint8_t *p, size_t n)
{
    uint32_t seed32 = (uint32_t)n * 2654435761u;
    uint64_t seed64 = (uint64_t)n * 0x9E3779B185EBCA87ull;
    CHECK_MSG(oc_xxh32(p, n, 0) == XXH32(p, n, 0), "XXH32 of %zu bytes", n);
    CHECK_MSG(oc_xxh32(p, n, seed32) == XXH32(p, n, seed32), "XXH32 of %zu bytes, seeded", n);
    CHECK_MSG(oc_xxh64(p, n, 0) == XXH64(p, n, 0), "XXH64 of %zu bytes", n);
    CHECK_MSG(oc_xxh64(p, n, seed64) == XXH64(p, n, seed64), "XXH64 of %zu bytes, seeded", n);
    /* lane by lane, then finish: the split the GPU kernels use */
    uint32_t v32[4];
    uint64_t v64[4];
    for (unsigned k = 0; k < 4; k++) {
        v32[k] = oc_xxh32_lane(p, n / 16, k, seed32);
        v64[k] = oc_xxh64_lane(p, n / 32, k, seed64);
    }
    CHECK(oc_xxh32_finish(v32, p + n / 16 * 16, n, seed32) == XXH32(p, n, seed32));
    CHECK(oc_xxh64_finish(v64, p + n / 32 * 32, n, seed64) == XXH64(p, n, seed64));
    /* streaming in uneven pieces */
    oc_xxh32_state s;
    oc_xxh32_init(&s, seed32);
    for (size_t off = 0, piece = 1; off < n; off += piece, piece = piece * 3 % 41 + 1)
        oc_xxh32_update(&s, p + off, off + piece <= n ? piece : n - off);
    CHECK_MSG(oc_xxh32_digest(&s) == XXH32(p, n, seed32), "streaming XXH32 of %zu bytes", n);
    oc_xxh64_state s64;
    oc_xxh64_init(&s64, seed64);
    for (size_t off = 0, piece = 1; off < n; off += piece, piece = piece * 5 % 77 + 1)
        oc_xxh64_update(&s64, p + off, off + piece <= n ? piece : n - off);
    CHECK_MSG(oc_xxh64_digest(&s64) == XXH64(p, n, seed64), "streaming XXH64 of %zu bytes", n);
    /* CRCs and Adler-32, whole and continued in two pieces */
    uint32_t z = (uint32_t)crc32(0, p, (uInt)n);
    CHECK_MSG(oc_crc32(0, p, n) == z, "CRC-32 of %zu bytes", n);
    CHECK(oc_crc_update(table32, 0, p, n) == z);
    CHECK(oc_crc_update(table32, oc_crc_update(table32, 0, p, n / 3), p + n / 3, n - n / 3) == z);
    uint32_t c = crc32c_bitwise(0, p, n);
    CHECK_MSG(oc_crc32c(0, p, n) == c, "CRC-32C of %zu bytes", n);
    CHECK(oc_crc_update(table32c, 0, p, n) == c);
    CHECK(oc_crc32c(oc_crc32c(0, p, n / 3), p + n / 3, n - n / 3) == c);
    uint32_t a = (uint32_t)adler32(1, p, (uInt)n);
    CHECK_MSG(oc_adler32(1, p, n) == a, "Adler-32 of %zu bytes", n);
    CHECK(oc_adler32(oc_adler32(1, p, n / 3), p + n / 3, n - n / 3) == a);
}

static void hashes(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        table32[i] = oc_crc_table_entry(OC_CRC32_POLY, i);
        table32c[i] = oc_crc_table_entry(OC_CRC32C_POLY, i);
    }
    CHECK(oc_crc_update(table32c, 0, (const uint8_t *)"123456789", 9) == 0xE3069283u); /* check values */
    CHECK(oc_crc_update(table32, 0, (const uint8_t *)"123456789", 9) == 0xCBF43926u);
    CHECK(oc_crc32c_mask(0) == 0xa282ead8u);
    tu_buf real;
    tu_big_real((size_t)1 << 20, &real);
    for (size_t n = 0; n <= 300; n++)
        hash_at(real.data + 7, n); /* odd address */
    static const size_t big[] = {5551, 5552, 5553, 11104, 65536, 65537, 1000003, ((size_t)1 << 20) - 7};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
        hash_at(real.data + 7 * (big[i] < ((size_t)1 << 20) - 7), big[i]);
    /* Adler-32's worst case for the sums: all 0xff across NMAX runs */
    uint8_t *ff = tu_xmalloc(100000);
    memset(ff, 0xff, 100000);
    CHECK(oc_adler32(1, ff, 100000) == (uint32_t)adler32(1, ff, 100000));
    free(ff);
    tu_buf_free(&real);
}

/* Bit i of the stream, numbered from bit 0 of byte 0; 0 outside it. */
static unsigned bit_at(const uint8_t *p, size_t n, long long i)
{
    if (i < 0 || (size_t)(i >> 3) >= n)
        return 0;
    return (p[i >> 3] >> (i & 7)) & 1;
}

static void bit_readers(void)
{
    tu_rng rng;
    tu_rng_seed(&rng, 12);
    uint32_t words[17]; /* 4-aligned: the stream starts 0-3 bytes in, for the reader's aligned-word path */
    for (int round = 0; round < 4000; round++) {
        uint8_t *buf = (uint8_t *)words + round % 4;
        size_t last = (size_t)tu_rng_below(&rng, 64), n = last + 1;
        for (size_t i = 0; i <= last; i++)
            buf[i] = (uint8_t)tu_rng_next(&rng);
        if (buf[last] == 0)
            buf[last] = 1; /* the end marker */
        /* backward: reads downwards from below the end marker, past the start as zeros */
        oc_bitrd r;
        CHECK(oc_bitrd_init(&r, buf, n) == 0);
        long long pos = (long long)(n - 1) * 8 + oc_highbit32(buf[n - 1]);
        CHECK(oc_bitrd_pos(&r) == pos);
        while (pos > -40) {
            int k = (int)tu_rng_below(&rng, 25) + 1;
            oc_bitrd_refill(&r);
            uint32_t want = 0;
            for (int j = 0; j < k; j++)
                want = (want << 1) | bit_at(buf, n, pos - 1 - j);
            CHECK(oc_bitrd_peek(&r, k) == want);
            CHECK(oc_bitrd_read(&r, k) == want);
            pos -= k;
            CHECK(oc_bitrd_pos(&r) == pos);
        }
        /* forward, least significant bit first, zeros past the end */
        for (int t = 0; t < 20; t++) {
            size_t at = (size_t)tu_rng_below(&rng, 8 * n + 16);
            int k = (int)tu_rng_below(&rng, 26);
            uint32_t want = 0;
            for (int j = 0; j < k; j++)
                want |= bit_at(buf, n, (long long)(at + (size_t)j)) << j;
            CHECK(oc_bits_forward(buf, n, at, k) == want);
        }
    }
    uint8_t zero = 0;
    CHECK(oc_bitrd_init(&(oc_bitrd){0}, &zero, 1) == -1); /* no end marker */
    CHECK(oc_bitrd_init(&(oc_bitrd){0}, &zero, 0) == -1); /* empty */
}

static void little_endian(void)
{
    uint8_t b[16];
    for (int i = 0; i < 16; i++)
        b[i] = (uint8_t)(0x10 + i);
    CHECK(oc_load_le16(b + 1) == 0x1211u);
    CHECK(oc_load_le24(b + 1) == 0x131211u);
    CHECK(oc_load_le32(b + 3) == 0x16151413u);
    CHECK(oc_load_le64(b + 5) == 0x1c1b1a1918171615ull);
    CHECK(oc_load_be32(b) == 0x10111213u);
    oc_store_le32(b + 1, 0xa1b2c3d4u);
    CHECK(b[1] == 0xd4 && b[4] == 0xa1 && b[5] == 0x15);
    oc_store_le64(b + 7, 0x0102030405060708ull);
    CHECK(oc_load_le64(b + 7) == 0x0102030405060708ull && b[7] == 8 && b[14] == 1 && b[15] == 0x1f);
}

int main(void)
{
    hashes();
    bit_readers();
    little_endian();
    printf("test_common_primitives: ok\n");
    return 0;
}
