/*
 * lz_split_rec.h - the record that joins the two halves of the split LZ
 * decoder (parse, then copy; bench/NOTES.md "v7" and "v8"): one 16-byte
 * record per sequence, literal first (lit_len bytes from input offset
 * lit_src), then match (m_len bytes at distance m_off; m_len 0: none).
 * Output positions are the running sum of lit_len + m_len, so a record
 * needs no output offset.  Plain C (tests/c/test_lz4_split_core.c builds
 * the parse that writes these on the host) and CUDA.
 *
 * Why a header of its own: the parse is per format (lz4/lz4_split_parse.h,
 * snappy/snappy_split_parse.h) and the copy is not (lz_split_copy.cuh);
 * both see only this.
 *
 * All fields are 32-bit: the decoder takes the split path only for chunks
 * whose input is below 2^31 bytes and whose capacity is at most
 * OC_LZS_MAX_CAP, and every value stored has passed a check against one
 * of them.
 */
#ifndef OC_LZ_SPLIT_REC_H
#define OC_LZ_SPLIT_REC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define OC_LZS_HD __host__ __device__ __forceinline__
#else
#define OC_LZS_HD static inline
#endif

/* statuses: the values of opencomp.h (lz_device.cuh's OC_D_*) */
#define OC_LZS_OK 0
#define OC_LZS_CORRUPT 3
#define OC_LZS_TRUNCATED 4
#define OC_LZS_OUTPUT_TOO_SMALL 5
/* not a status: the parse gave the chunk back to the copy warp, which
 * decodes it alone (a Snappy chunk whose records would overflow its slots) */
#define OC_LZS_REDO 0x100

/* What a parse step returns (lz4_split_parse.h, snappy_split_parse.h). */
#define OC_LZS_STEP 0 /* an element or sequence parsed */
#define OC_LZS_NEED 1 /* a byte at or after s->ip is not in the window */
#define OC_LZS_END 2  /* finished: s->status (and s->op, s->nrec) final */

/* The largest capacity the split path takes (64 KiB: where it was measured
 * faster than the pipe, bench/NOTES.md "v8: outcome"). */
#define OC_LZS_MAX_CAP 65536u

/* Records of one chunk of capacity cap, at most: an LZ4 record with a
 * match writes at least 4 bytes and all of them fit the capacity (checked
 * before the record is stored), and only the last record has no match.
 * Snappy's copies may be 1 to 3 bytes long and its literals may follow
 * one another, so its parse stores at most this many records and gives a
 * chunk that needs more to the copy warp (OC_LZS_REDO; no encoder of real
 * data writes such streams). */
#define OC_LZS_MAX_RECS(cap) ((cap) / 4 + 1)

/* Each chunk's state word in the scratch, which joins a parse running at
 * the same time as the copy (lz4/lz4_kernels.cu): 0 until a side claims
 * the chunk with a compare-and-swap; the parse lane that wins stores
 * CLAIM_PARSE | records stored so far after each refill of its window,
 * then CLAIM_PARSE | DONE | count at its end (count 0 when the chunk
 * failed: nothing more to copy; REDO too when it gives the chunk back, and
 * the copy warp then decodes it alone); a copy warp that wins stores
 * CLAIM_COPY and decodes the chunk alone.  Counts only grow until DONE. */
#define OC_LZS_CLAIM_PARSE 0x40000000u
#define OC_LZS_CLAIM_COPY 0x20000000u
#define OC_LZS_DONE 0x80000000u
#define OC_LZS_REDO_BIT 0x10000000u
#define OC_LZS_COUNT_MASK 0x0fffffffu

typedef struct oc_lzs_rec {
    uint32_t lit_src, lit_len, m_off, m_len;
} oc_lzs_rec;

/* The parse steps' two exits (lz4_split_parse.h, snappy_split_parse.h):
 * end the walk with a status, and read byte p of the input window or ask
 * for the next window (p < srcn is checked before, as in the serial walk).
 * They name the step's state `s` and its window `wp`, `wshift`, `whi`. */
#define OC_LZS_END_WITH(st_)                                                                                 \
    do {                                                                                                     \
        s->status = (st_);                                                                                   \
        return OC_LZS_END;                                                                                   \
    } while (0)
#define OC_LZS_GET(v_, p_)                                                                                   \
    do {                                                                                                     \
        if ((p_) >= whi)                                                                                     \
            return OC_LZS_NEED;                                                                              \
        (v_) = wp[(uint32_t)((p_)-wshift)];                                                                  \
    } while (0)

#endif /* OC_LZ_SPLIT_REC_H */
