/*
 * test_container_checksums.c - XXH32, XXH64 and CRC-32C against the test
 * vectors of their specifications, and against the checksums liblz4 and
 * libzstd write into their own frames (a second, independent
 * implementation) on real data at every length from 0 to 300 and at large
 * sizes; CRC-32C's hardware and table paths agree through chaining.
 */
#include <lz4frame.h>
#include <zstd.h>

#include "common/crc.h"
#include "common/xxh.h"
#include "test_buffer_util.h"

static void spec_vectors(void)
{
    CHECK(oc_xxh32("", 0, 0) == 0x02CC5D05u);
    CHECK(oc_xxh32("", 0, 1) == 0x0B2CB792u);
    CHECK(oc_xxh32("abc", 3, 0) == 0x32D153FFu);
    CHECK(oc_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
    CHECK(oc_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ull);
    /* CRC-32C: the check value and the iSCSI vectors of RFC 3720 B.4. */
    CHECK(oc_crc32c(0, "123456789", 9) == 0xE3069283u);
    unsigned char buf[32];
    memset(buf, 0, sizeof buf);
    CHECK(oc_crc32c(0, buf, 32) == 0x8A9136AAu);
    memset(buf, 0xff, sizeof buf);
    CHECK(oc_crc32c(0, buf, 32) == 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    CHECK(oc_crc32c(0, buf, 32) == 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)(31 - i);
    CHECK(oc_crc32c(0, buf, 32) == 0x113FDB5Cu);
    CHECK(oc_crc32(0, "123456789", 9) == 0xCBF43926u);
    CHECK(oc_crc32c(0, NULL, 0) == 0);
}

/* liblz4 writes XXH32 of the content as the frame's last 4 bytes. */
static uint32_t lz4_content_checksum(const unsigned char *p, size_t n)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    size_t cap = LZ4F_compressFrameBound(n, &prefs);
    unsigned char *f = (unsigned char *)tb_xmalloc(cap);
    size_t r = LZ4F_compressFrame(f, cap, p, n, &prefs);
    uint32_t v = 0;
    if (!LZ4F_isError(r))
        v = (uint32_t)f[r - 4] | ((uint32_t)f[r - 3] << 8) | ((uint32_t)f[r - 2] << 16) |
            ((uint32_t)f[r - 1] << 24);
    free(f);
    return v;
}

/* libzstd writes the low 32 bits of XXH64 as the frame's last 4 bytes. */
static uint32_t zstd_content_checksum(const unsigned char *p, size_t n)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t cap = ZSTD_compressBound(n);
    unsigned char *f = (unsigned char *)tb_xmalloc(cap);
    size_t r = ZSTD_compress2(c, f, cap, p, n);
    uint32_t v = 0;
    if (!ZSTD_isError(r))
        v = (uint32_t)f[r - 4] | ((uint32_t)f[r - 3] << 8) | ((uint32_t)f[r - 2] << 16) |
            ((uint32_t)f[r - 1] << 24);
    free(f);
    ZSTD_freeCCtx(c);
    return v;
}

static void against_libraries(const tb_data *d)
{
    for (size_t n = 0; n <= 300 && n <= d->n; n++) {
        CHECK(oc_xxh32(d->p, n, 0) == lz4_content_checksum(d->p, n));
        CHECK((uint32_t)oc_xxh64(d->p, n, 0) == zstd_content_checksum(d->p, n));
    }
    /* Unaligned starts and large sizes. */
    for (size_t off = 1; off < 8 && off < d->n; off++) {
        size_t n = d->n - off;
        CHECK(oc_xxh32(d->p + off, n, 0) == lz4_content_checksum(d->p + off, n));
        CHECK((uint32_t)oc_xxh64(d->p + off, n, 0) == zstd_content_checksum(d->p + off, n));
    }
    /* CRC-32C chaining: any split gives the whole. */
    uint32_t whole = oc_crc32c(0, d->p, d->n);
    for (size_t cut = 0; cut < d->n; cut += d->n / 13 + 1)
        CHECK(oc_crc32c(oc_crc32c(0, d->p, cut), d->p + cut, d->n - cut) == whole);
    /* Byte at a time (table tail path) equals the bulk path. */
    uint32_t c = 0;
    for (size_t i = 0; i < d->n && i < 5000; i++)
        c = oc_crc32c(c, d->p + i, 1);
    CHECK(c == oc_crc32c(0, d->p, d->n < 5000 ? d->n : 5000));
}

int main(void)
{
    spec_vectors();
    tb_data text = tb_text(200000), bin = tb_binary(1 << 20), rnd = tb_random(100003, 7);
    against_libraries(&text);
    against_libraries(&bin);
    against_libraries(&rnd);
    free(text.p);
    free(bin.p);
    free(rnd.p);
    return tb_finish("test_container_checksums");
}
