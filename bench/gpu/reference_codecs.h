/*
 * reference_codecs.h - the stock CPU libraries in the GPU benchmark, on many
 * threads: they write the "stock streams" the GPU decoders are timed on
 * (LZ4 blocks from liblz4, zstd frames as numcodecs/zarr write them with
 * libzstd), and they decode what the GPU libraries wrote, so every
 * bitstream is checked standard.  Plain C, no CUDA: tested on the CPU by
 * bench/gpu/test_bench_host.c.
 *
 * Codecs by name: "lz4" (block), "snappy" (raw), "deflate" (RFC 1951 raw,
 * libdeflate), "zstd" (RFC 8878 frames).  GDeflate has no CPU reference here.
 */
#ifndef OC_BENCH_REFERENCE_CODECS_H
#define OC_BENCH_REFERENCE_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What ocb_ref_stock_encode writes for a codec ("" when it has no stock
 * encoder here: only lz4 and zstd do). */
const char *ocb_ref_stock_label(const char *codec);

/* Largest stock-encoded size of a chunk of n bytes (0: no stock encoder). */
size_t ocb_ref_stock_bound(const char *codec, size_t n);

/* Encode n chunks on `threads` threads with the stock encoder: chunk i from
 * src[i] (src_sizes[i] bytes) into dst[i] (dst_cap bytes), its size in
 * dst_sizes[i].  0 on success, -1 if the codec has none or a chunk failed. */
int ocb_ref_stock_encode(const char *codec, int threads, size_t n, const uint8_t *const *src,
                         const size_t *src_sizes, uint8_t *const *dst, size_t dst_cap, size_t *dst_sizes);

/* 1 if `codec` has a CPU reference decoder here. */
int ocb_ref_can_decode(const char *codec);

/* Decode n chunks on `threads` threads and compare each with expect[i]
 * (expect_sizes[i] bytes): 1 when every chunk decodes to exactly those
 * bytes, 0 otherwise (*first_bad = the first failing chunk), -1 when the
 * codec has no reference decoder or memory ran out. */
int ocb_ref_check(const char *codec, int threads, size_t n, const uint8_t *const *comp,
                  const size_t *comp_sizes, const uint8_t *const *expect, const size_t *expect_sizes,
                  size_t *first_bad);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_REFERENCE_CODECS_H */
