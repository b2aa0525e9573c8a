/*
 * zstd_enc_common.h - what every part of the GPU zstd encoder core shares
 * (zstd_enc_core.h says how the core is built and tested): limits,
 * sequences, the worker's scratch, the level parameters, hashing, the code
 * tables' lookups and the backward bit writer.
 */
#ifndef OC_ZSTD_ENC_COMMON_H
#define OC_ZSTD_ENC_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/le.h"
#include "../../../common/portable.h"
#include "opencomp.h"
#include "zstd_tables.h"

#define ZE_WINDOW 32u /* positions probed per step by the fast variant (one per lane on the GPU) */

#define ZE_BLOCK 131072u /* Block_Maximum_Size */
#define ZE_HASH_LOG 15   /* hash heads: 32 Ki positions */
#define ZE_CHAIN_LOG 16  /* chain links: 64 Ki positions (lazy variant) */
#define ZE_MAX_SEQ (ZE_BLOCK / 4 + 1)
#define ZE_MINMATCH 4u
#define ZE_EMPTY 0xFFFFFFFFu
/* hash buckets (levels 1-3): 12 Ki rows of ZE_WAYS positions, in the heads' and the chain links' memory
 * together (the heads come first: ze_work_from) */
#ifndef ZE_BUCKET_ROWS /* the dev harness's zstd_enc_phases_rows8k sets 8192 (A/B) */
#define ZE_BUCKET_ROWS 12288u
#endif
#define ZE_WAYS 8
#define ZE_BIG_WINDOW_LOG 27 /* frames of chunks over 128 MiB: window 2^27 */

/* One sequence: literal length, match length, Offset_Value (RFC 8878
 * 3.1.1.5: 1-3 repeat codes, else offset + 3). */
typedef struct {
    uint32_t ll, ml, ofv;
} ze_seq;

/* Scratch memory of one worker (global memory on the GPU).  The hash
 * heads hold base + position: a head below base is a position of an
 * earlier chunk and reads as empty (ze_head), so a worker moves base past
 * a chunk (ze_next_chunk) instead of clearing 128 KiB of heads before
 * every chunk (at 64 KiB chunks that was twice the input's bytes written
 * to DRAM); ze_reset clears them and sets base 0. */
typedef struct {
    uint32_t *hash;  /* 1 << ZE_HASH_LOG */
    uint32_t *chain; /* 1 << ZE_CHAIN_LOG */
    ze_seq *seq;     /* ZE_MAX_SEQ */
    uint8_t *lit;    /* ZE_BLOCK */
    uint32_t base;   /* heads below it are empty */
} ze_work;

#define ZE_SCRATCH_BYTES                                                                                     \
    ((size_t)4 * (1u << ZE_HASH_LOG) + (size_t)4 * (1u << ZE_CHAIN_LOG) + sizeof(ze_seq) * ZE_MAX_SEQ +      \
     ZE_BLOCK)

/* Carves a ze_work out of ZE_SCRATCH_BYTES bytes (4-byte aligned). */
OC_CORE_FN ze_work ze_work_from(void *mem)
{
    ze_work w;
    uint8_t *p = (uint8_t *)mem;
    w.hash = (uint32_t *)p; /* the links right after the heads: the buckets span both */
    p += (size_t)4 * (1u << ZE_HASH_LOG);
    w.chain = (uint32_t *)p;
    p += (size_t)4 * (1u << ZE_CHAIN_LOG);
    w.seq = (ze_seq *)p;
    p += sizeof(ze_seq) * ZE_MAX_SEQ;
    w.lit = p;
    w.base = 0;
    return w;
}

/* The head of hash h: a position of this chunk, or ZE_EMPTY. */
OC_CORE_FN uint32_t ze_head(const ze_work *W, uint32_t h)
{
    uint32_t r = W->hash[h];
    return r != ZE_EMPTY && r >= W->base ? r - W->base : ZE_EMPTY;
}

OC_CORE_FN void ze_set_head(const ze_work *W, uint32_t h, uint32_t p)
{
    W->hash[h] = W->base + p;
}

/* After a chunk of `done` bytes, before one of `next` bytes: moves base
 * past the chunk's positions; returns 1 (base 0) when base + next could
 * reach ZE_EMPTY, and the caller must then clear the heads (ze_reset). */
OC_CORE_FN int ze_next_chunk(ze_work *W, size_t done, size_t next)
{
    if ((uint64_t)W->base + done + next >= (uint64_t)ZE_EMPTY) {
        W->base = 0;
        return 1;
    }
    W->base += (uint32_t)done;
    return 0;
}

#ifndef ZE_WLAZY_MAX_LEVEL
#define ZE_WLAZY_MAX_LEVEL 5 /* levels 2..5: lazy by windows; >= 6: lazy on one lane */
#endif
/* Levels 2..ZE_BUCKET_MAX_LEVEL (lazy by windows, depth <= ZE_WAYS) take
 * their candidates from hash buckets (zstd_enc_match.h, ze_bucket_window)
 * instead of walking chains; the dev harness's zstd_enc_phases_chain sets 1
 * (chains at every level, the encoder before session 7) for its A/B. */
#ifndef ZE_BUCKET_MAX_LEVEL
#define ZE_BUCKET_MAX_LEVEL 3
#endif
/* Level 1: bucket windows of this depth (its ratio is then above nvCOMP's:
 * bench/gpu/zstd/ENC_NOTES.md, session 7); 0: the fast variant, as the
 * negative levels (the dev harness's zstd_enc_phases_l1fast: the encoder
 * before). */
#ifndef ZE_L1_DEPTH
#define ZE_L1_DEPTH 1
#endif
typedef struct {
    int lazy;      /* 0 fast (windows), 1 lazy with chains (lane 0), 2 lazy by windows */
    int depth;     /* chain or bucket candidates per position (lazy) */
    int bucket;    /* 1: candidates from hash buckets (lazy by windows), 0: chains */
    int fse_built; /* 1: FSE tables from statistics when cheaper */
} ze_params;

/* Public level -> variant: negative fast (1 too with ZE_L1_DEPTH 0); 1 lazy
 * depth 1, 2 depth 4, 3 (default) depth 8 (1-3: hash buckets); 4-5 depth 16
 * (1-5 by windows); >= 6 depth 32 on one lane (4 and up: chains).  Every level
 * may build FSE tables. */
OC_INLINE ze_params ze_params_for_level(int level)
{
    ze_params p;
    if (level == 0)
        level = 3;
#if ZE_L1_DEPTH > 0
    if (level == 1) {
        p.lazy = 2;
        p.fse_built = 1;
        p.depth = ZE_L1_DEPTH;
        p.bucket = 1;
        return p;
    }
#endif
    p.lazy = level <= 1 ? 0 : level <= ZE_WLAZY_MAX_LEVEL ? 2 : 1;
    p.fse_built = 1;
    p.depth = level <= 1 ? 1 : level == 2 ? 4 : level == 3 ? 8 : level <= 5 ? 16 : 32;
    p.bucket = p.lazy == 2 && level <= ZE_BUCKET_MAX_LEVEL;
    return p;
}

/* Profiling hook: ZE_PHASE(k) marks the start of phase k of a block (0
 * match finding, 1 literals section, 2 sequences section, 3 the block's
 * output and the rest).  Nothing in the library; the dev harness
 * bench/gpu/dev/zstd_enc_phases.cu defines it to count lane 0's cycles per
 * phase (bench/gpu/zstd/ENC_NOTES.md, "Where the time goes"). */
#ifndef ZE_PHASE
#define ZE_PHASE(k) ((void)0)
#endif

/* ---- helpers ---------------------------------------------------------------- */

/* Hash of the `hb` (4-8) bytes at p (p + 8 <= the block end): 6 for the
 * fast variant, 4 for the lazy one (measured best on the corpus). */
#define ZE_HASH_FAST 6
#define ZE_HASH_LAZY 4
OC_CORE_FN uint32_t ze_hash(const uint8_t *p, int hb)
{
    uint64_t v = (uint64_t)oc_load_le32(p) | ((uint64_t)oc_load_le32(p + 4) << 32);
    v <<= 64 - 8 * hb;
    return (uint32_t)((v * 0x9E3779B185EBCA87ull) >> (64 - ZE_HASH_LOG));
}

/* log2(x) in 1/256 bits, x >= 1 (linear between powers of two: within 0.09
 * bits; used only to compare costs). */
OC_CORE_FN uint32_t ze_log2fp(uint32_t x)
{
    int h = oc_highbit32(x);
    uint32_t frac = h >= 8 ? (x >> (h - 8)) & 255u : (x << (8 - h)) & 255u;
    return ((uint32_t)h << 8) + frac;
}

OC_CORE_FN uint32_t ze_ll_code(uint32_t ll)
{
    if (ll < 16)
        return ll;
    if (ll >= 64)
        return (uint32_t)oc_highbit32(ll) + 19u;
    uint32_t c = 16;
    while (c < 24 && oc_zstd_ll_base[c + 1] <= ll)
        c++;
    return c;
}

OC_CORE_FN uint32_t ze_ml_code(uint32_t ml) /* ml >= 3 */
{
    uint32_t b = ml - 3;
    if (b < 32)
        return b;
    if (b >= 128)
        return (uint32_t)oc_highbit32(b) + 36u;
    uint32_t c = 32;
    while (c < 42 && oc_zstd_ml_base[c + 1] <= ml)
        c++;
    return c;
}

/* Bit writer, least significant bit first.  Writes nothing past lim; ovf
 * records that something did not fit. */
typedef struct {
    uint8_t *p;
    size_t pos, lim;
    uint64_t acc;
    int n, ovf;
} ze_bw;

OC_CORE_FN void ze_bw_init(ze_bw *w, uint8_t *p, size_t pos, size_t lim)
{
    w->p = p;
    w->pos = pos;
    w->lim = lim;
    w->acc = 0;
    w->n = 0;
    w->ovf = pos > lim;
}

OC_CORE_FN void ze_bw_put(ze_bw *w, uint32_t v, int nb) /* nb <= 32 */
{
    if (nb == 0)
        return;
    w->acc |= ((uint64_t)v & ((1ull << nb) - 1)) << w->n;
    w->n += nb;
    while (w->n >= 8) {
        if (w->pos < w->lim)
            w->p[w->pos] = (uint8_t)w->acc;
        else
            w->ovf = 1;
        w->pos++;
        w->acc >>= 8;
        w->n -= 8;
    }
}

OC_CORE_FN void ze_bw_flush(ze_bw *w) /* pads the last byte with zeros */
{
    if (w->n > 0)
        ze_bw_put(w, 0, 8 - w->n);
}

/* Closes a backward stream: the end mark (a 1 bit), then padding. */
OC_CORE_FN void ze_bw_close(ze_bw *w)
{
    ze_bw_put(w, 1, 1);
    ze_bw_flush(w);
}

#endif /* OC_ZSTD_ENC_COMMON_H */
