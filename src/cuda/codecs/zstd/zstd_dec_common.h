/*
 * zstd_dec_common.h - what every part of the GPU zstd decoder core shares (zstd_decode_core.h
 * says how the core is built and tested): error tracing, the profile
 * counters, the limits of RFC 8878, the warp's shared tables and the
 * per-frame entropy state, and the bit reader's entry (common/bitreader.h).
 */
#ifndef OC_ZSTD_DEC_COMMON_H
#define OC_ZSTD_DEC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/bitreader.h"
#include "../../../common/portable.h"
#include "../../../common/xxh.h"
#include "opencomp.h"
#include "zstd_tables.h"

/* ZD_TRACE (host builds): print the line of every error return. */
#if defined(ZD_TRACE) && !defined(__CUDACC__)
#include <stdio.h>
#define ZD_ERR(st) (fprintf(stderr, "zd: status %d at line %d\n", (int)(st), __LINE__), (st))
#else
#define ZD_ERR(st) (st)
#endif

#define ZD_BLOCK_MAX 131072u /* Block_Maximum_Size upper bound */
/* ZD_PROFILE (nvcc, harness builds only): lane 0 of each warp adds clock64
 * cycles per phase into zd_prof[] (defined in zstd_decode.cu):
 * 0 literals section, 1 sequence tables, 2 sequence loop (with 3),
 * 3 batch execution, 4 XXH64, 5 whole chunks.  The includer defines zd_prof. */
#if defined(ZD_PROFILE) && defined(__CUDACC__)
#define ZD_PROF_START(t) long long t = clock64()
#define ZD_PROF_END(k, t)                                                                                    \
    do {                                                                                                     \
        if (OC_LANE() == 0)                                                                                  \
            atomicAdd(&zd_prof[k], (unsigned long long)(clock64() - (t)));                                   \
    } while (0)
#else
#define ZD_PROF_START(t) ((void)0)
#define ZD_PROF_END(k, t) ((void)0)
#endif

#define ZD_SEQ_BATCH 32 /* sequences decoded, then executed, together */
#define ZD_SHORT 32     /* copies up to this length run on one lane */
#define ZD_HUF_MAX_LOG 11
#define ZD_LL_MAX_LOG 9
#define ZD_ML_MAX_LOG 9
#define ZD_OF_MAX_LOG 8
#define ZD_LL_MAX_SYM 35
#define ZD_ML_MAX_SYM 52
#define ZD_OF_MAX_SYM 31

/* A sequence's offset from its offset value (RFC 8878 3.1.1.5): above 3 a
 * new offset; else a repeat offset (shifted by one when the literal length
 * is 0), the three repeat offsets updated in place.  Shared by the
 * per-chunk block decoder and the lane-parallel one. */
OC_CORE_FN uint32_t zd_offset(uint32_t ofv, uint32_t ll, uint32_t *r0, uint32_t *r1, uint32_t *r2)
{
    uint32_t off;
    if (ofv > 3) {
        off = ofv - 3;
        *r2 = *r1;
        *r1 = *r0;
        *r0 = off;
        return off;
    }
    uint32_t idx = ofv - 1 + (ll == 0 ? 1u : 0u);
    if (idx == 0)
        return *r0;
    if (idx == 1) {
        off = *r1;
        *r1 = *r0;
        *r0 = off;
        return off;
    }
    off = idx == 2 ? *r2 : *r0 - 1;
    *r2 = *r1;
    *r1 = *r0;
    *r0 = off;
    return off;
}

/* One FSE decoding cell: next state = base + read(nbits). */
typedef struct zd_fse_entry {
    uint16_t base;
    uint8_t nbits;
    uint8_t sym;
} zd_fse_entry;

/* The warp's shared tables (about 9.3 KiB). */
typedef struct zd_tables {
    uint16_t huf[1u << ZD_HUF_MAX_LOG]; /* symbol | nbits << 8 */
    zd_fse_entry ll[1u << ZD_LL_MAX_LOG];
    zd_fse_entry ml[1u << ZD_ML_MAX_LOG];
    zd_fse_entry of[1u << ZD_OF_MAX_LOG];
    zd_fse_entry hw[64]; /* Huffman weights, accuracy log <= 6 */
    uint64_t xxh[4];
    /* one batch of decoded sequences, executed together (zd_exec_batch) */
    uint32_t sq_ll[ZD_SEQ_BATCH], sq_ml[ZD_SEQ_BATCH], sq_off[ZD_SEQ_BATCH];
    uint32_t sq_op[ZD_SEQ_BATCH], sq_lp[ZD_SEQ_BATCH]; /* output / literal position from the block start */
} zd_tables;

/* Per-frame entropy state, identical in every lane (registers). */
typedef struct zd_frame_state {
    int huf_log;                /* 0: no Huffman table yet in this frame */
    int ll_log, ml_log, of_log; /* -1: no table yet (Repeat_Mode is corrupt) */
    uint32_t rep[3];
    size_t block_max;
} zd_frame_state;

/* ---- backward bit reader (FSE and Huffman bitstreams): common/bitreader.h */

/* Starts a reader over [p, p+size); CORRUPT if empty or the last byte has no
 * end marker. */
OC_CORE_FN oc_status zd_brd_init(oc_bitrd *r, const uint8_t *p, size_t size)
{
    return oc_bitrd_init(r, p, size) == 0 ? OC_OK : ZD_ERR(OC_ERR_CORRUPT);
}

#endif /* OC_ZSTD_DEC_COMMON_H */
