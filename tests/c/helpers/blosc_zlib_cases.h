/*
 * blosc_zlib_cases.h - hand-made Blosc chunks whose second block is a zlib
 * stream edited one field at a time, with the status both engines must
 * give (libblosc's verdict: OK or CORRUPT) and the reason the zlib core
 * (src/cuda/codecs/blosc/blosc_zlib_core.h) must find.  Shared by
 * test_blosc_core.c (the core on the host, the CPU engine and libblosc
 * itself) and test_cuda_blosc.c (the GPU kernel), so one list pins both.
 *
 * Each chunk, field by field (little-endian):
 *   header  02 01 70 01: version 2, versionlz 1, flags 0x70 = zlib (3 << 5)
 *           | not split (0x10), no shuffle; typesize 1
 *           nbytes 2 * BZC_BLOCK, blocksize BZC_BLOCK, cbytes the total
 *   table   block 0 at 24, block 1 at 28 + csize0
 *   block 0 csize0, compress2() of plain[0..BZC_BLOCK) (a good stream)
 *   block 1 csize1, the edited stream of plain[BZC_BLOCK..2 * BZC_BLOCK)
 * Header-only (static functions), like blosc_ref.h.
 */
#ifndef OC_TEST_BLOSC_ZLIB_CASES_H
#define OC_TEST_BLOSC_ZLIB_CASES_H

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "common/le.h"
#include "opencomp.h"

#define BZC_BLOCK 8192u
#define BZC_MAX 16

typedef struct bzc_case {
    const char *what;
    uint8_t *chunk;
    size_t cn;
    oc_status want;   /* both engines (libblosc refuses the chunk: CORRUPT) */
    oc_status reason; /* blz_zlib_decode on block 1's stream */
} bzc_case;

/* The plain bytes of every case: 2 * BZC_BLOCK, compressible. */
static void bzc_plain(uint8_t *p)
{
    uint32_t s = 12345;
    for (size_t i = 0; i < 2 * BZC_BLOCK; i++) {
        s = s * 1103515245u + 12345u;
        p[i] = (uint8_t)(i / 97 % 26 + 'a' + ((s >> 28) == 0 ? 1 : 0));
    }
}

/* compress2() of p[0..n) at level 6 into a fresh buffer with `extra` spare bytes. */
static uint8_t *bzc_zlib(const uint8_t *p, size_t n, size_t extra, size_t *len)
{
    uLongf cl = compressBound((uLong)n);
    uint8_t *c = (uint8_t *)malloc(cl + extra);
    if (!c || compress2(c, &cl, p, (uLong)n, 6) != Z_OK)
        abort();
    *len = cl;
    return c;
}

/* FCHECK for CMF and FLG's top 3 bits (RFC 1950: CMF * 256 + FLG a multiple of 31). */
static uint8_t bzc_flg(uint8_t cmf, uint8_t flg)
{
    flg &= 0xE0;
    return (uint8_t)(flg + (31 - ((uint32_t)cmf * 256 + flg) % 31) % 31);
}

static uint8_t *bzc_chunk(const uint8_t *s0, size_t l0, const uint8_t *s1, size_t l1, size_t *cn)
{
    size_t n = 16 + 8 + 4 + l0 + 4 + l1;
    uint8_t *c = (uint8_t *)malloc(n);
    if (!c)
        abort();
    c[0] = 2, c[1] = 1, c[2] = 0x70, c[3] = 1;
    oc_store_le32(c + 4, 2 * BZC_BLOCK);
    oc_store_le32(c + 8, BZC_BLOCK);
    oc_store_le32(c + 12, (uint32_t)n);
    oc_store_le32(c + 16, 24);
    oc_store_le32(c + 20, (uint32_t)(28 + l0));
    oc_store_le32(c + 24, (uint32_t)l0);
    memcpy(c + 28, s0, l0);
    oc_store_le32(c + 28 + l0, (uint32_t)l1);
    memcpy(c + 32 + l0, s1, l1);
    *cn = n;
    return c;
}

/* Fills cases[] (BZC_MAX room) from plain (bzc_plain); returns the count. */
static size_t bzc_make(const uint8_t *plain, bzc_case *cases)
{
    size_t l0 = 0, m = 0;
    uint8_t *s0 = bzc_zlib(plain, BZC_BLOCK, 0, &l0);
    uint8_t p1[BZC_BLOCK + 1]; /* block 1, and one byte more */
    memcpy(p1, plain + BZC_BLOCK, BZC_BLOCK);
    p1[BZC_BLOCK] = '!';
    for (int k = 0;; k++) {
        size_t l = 0;
        /* the stream of block 1, or of one byte more or less (k 9, 10) */
        size_t dn = k == 9 ? BZC_BLOCK + 1 : k == 10 ? BZC_BLOCK - 1 : BZC_BLOCK;
        uint8_t *s = bzc_zlib(p1, dn, 8, &l);
        bzc_case *x = &cases[m];
        x->want = OC_ERR_CORRUPT;
        switch (k) {
        case 0:
            x->what = "the stream as compress2 wrote it";
            x->want = x->reason = OC_OK;
            break;
        case 1:
            x->what = "3 bytes after the Adler-32 (uncompress ignores them)";
            memcpy(s + l, "xyz", 3);
            l += 3;
            x->want = x->reason = OC_OK;
            break;
        case 2:
            x->what = "Adler-32 damaged";
            s[l - 1] ^= 1;
            x->reason = OC_ERR_CHECKSUM_MISMATCH;
            break;
        case 3:
            x->what = "Adler-32 cut by one byte";
            l -= 1;
            x->reason = OC_ERR_TRUNCATED;
            break;
        case 4:
            x->what = "no Adler-32";
            l -= 4;
            x->reason = OC_ERR_TRUNCATED;
            break;
        case 5:
            x->what = "method 7 (FCHECK kept valid)";
            s[0] = (uint8_t)((s[0] & 0xF0) | 7);
            s[1] = bzc_flg(s[0], s[1]);
            x->reason = OC_ERR_CORRUPT;
            break;
        case 6:
            x->what = "window 64 KiB, CINFO 8 (FCHECK kept valid)";
            s[0] = (uint8_t)(0x80 | 8);
            s[1] = bzc_flg(s[0], s[1]);
            x->reason = OC_ERR_CORRUPT;
            break;
        case 7:
            x->what = "FCHECK wrong";
            s[1] ^= 1;
            x->reason = OC_ERR_CORRUPT;
            break;
        case 8:
            x->what = "FDICT set (a preset dictionary uncompress lacks)";
            s[1] = bzc_flg(s[0], (uint8_t)(s[1] | 0x20));
            x->reason = OC_ERR_NEEDS_DICTIONARY;
            break;
        case 9:
            x->what = "decodes to one byte more than the block";
            x->reason = OC_ERR_OUTPUT_TOO_SMALL;
            break;
        case 10:
            x->what = "decodes to one byte less than the block";
            x->reason = OC_ERR_SIZE_MISMATCH;
            break;
        case 11:
            x->what = "first block of type 3 (reserved)";
            s[2] |= 0x06;
            x->reason = OC_ERR_CORRUPT;
            break;
        case 12:
            x->what = "only the CMF byte";
            l = 1;
            x->reason = OC_ERR_TRUNCATED;
            break;
        case 13:
            x->what = "Deflate data cut in the middle";
            l = l / 2;
            x->reason = OC_ERR_TRUNCATED;
            break;
        default:
            free(s);
            free(s0);
            return m;
        }
        x->chunk = bzc_chunk(s0, l0, s, l, &x->cn);
        free(s);
        m++;
    }
}

static void bzc_free(bzc_case *cases, size_t m)
{
    for (size_t i = 0; i < m; i++)
        free(cases[i].chunk);
}

#endif /* OC_TEST_BLOSC_ZLIB_CASES_H */
