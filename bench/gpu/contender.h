/*
 * contender.h - what the ladder asks of a GPU library: can it run a codec,
 * how big must a compressed slot be, and one batched compress or decompress
 * of the first n chunks of a device batch, enqueued on stream 0.  Two
 * implementations: contender_opencomp.cu (opencomp's public C API) and
 * contender_nvcomp.cu (nvCOMP's batched C API, nvcompBatched*).
 *
 * A contender serves one codec at a time: prepare() picks it and sizes the
 * scratch for batches of up to n chunks; release() frees it.
 */
#ifndef OC_BENCH_CONTENDER_H
#define OC_BENCH_CONTENDER_H

#include <stddef.h>
#include <stdint.h>

#include "device_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocb_contender {
    const char *name; /* "opencomp-gpu", "nvcomp-gpu": the JSON contender */
    /* Once, before anything else: 0 if usable; else *why says why not. */
    int (*init)(char *why, size_t cap);
    /* 1 if it runs `codec` (lz4, snappy, deflate, zlib, gzip, zstd, gdeflate, ...) both ways. */
    int (*supports)(const char *codec);
    /* "gpu-kernel" or "host-staged": how it runs the codec ("" when it only has kernels). */
    const char *(*path)(const char *codec);
    /* The level its rows record (0 = the codec's default). */
    int (*level)(const char *codec);
    /* Bytes a compressed chunk of up to `chunk` bytes may need. */
    size_t (*bound)(const char *codec, size_t chunk);
    /* Pick the codec and size scratch for up to n chunks of up to `chunk`
     * bytes, `total` bytes together: 0 on success, else *why. */
    int (*prepare)(const char *codec, size_t chunk, size_t n, uint64_t total, char *why, size_t cap);
    /* Enqueue one batched call over the first n chunks of b: 0 if launched. */
    int (*compress)(ocb_dev_batch *b, size_t n);
    int (*decompress)(ocb_dev_batch *b, size_t n);
    void (*release)(void);
} ocb_contender;

extern const ocb_contender ocb_contender_opencomp;
extern const ocb_contender ocb_contender_nvcomp;

/* The codecs the ladder knows, in table order. */
extern const char *const ocb_codecs[];
extern const size_t ocb_ncodecs;

/* 1 for the typed codecs whose formats are each library's own (cascaded,
 * bitcomp, ans): one contender cannot decode the other's streams, so the
 * ladder cross-decodes them with no other contender. */
int ocb_codec_own_format(const char *codec);

/* The element type the typed codecs compress (the benchmark's --data-type,
 * an oc_data_type value; 0 = each codec's default).  A codec that does not
 * take the type's width (ANS: 1 and 2 bytes) keeps its default. */
void ocb_opencomp_set_data_type(int oc_type);
/* The level of opencomp's deflate, zlib, gzip and gdeflate rows (0 = default). */
void ocb_opencomp_set_deflate_level(int level);
void ocb_nvcomp_set_data_type(int oc_type);
/* nvCOMP's `algorithm` in the compression options of Deflate, zlib (its
 * Deflate), gzip and GDeflate (the benchmark's --nvcomp-algorithm; -1 =
 * nvCOMP's default), and the value in force. */
void ocb_nvcomp_set_algorithm(int algorithm);
int ocb_nvcomp_algorithm(void);
/* 1: nvCOMP's gzip rows decode with its Deflate on the members' raw
 * payloads (--nvcomp-gzip-payload), not its Gzip API. */
void ocb_nvcomp_set_gzip_payload(int on);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_CONTENDER_H */
