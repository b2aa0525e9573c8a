/*
 * zstd_decode_core.h - a Zstandard (RFC 8878) frame decoder written once for
 * two compilers: nvcc, where one WARP decodes one chunk, and a C11 compiler,
 * where one thread does (the same code with a "warp" of one lane).
 *
 * Why one source: CI has no GPU.  Compiled for the host, this file is tested
 * against libzstd on real data, under ASan/UBSan and libFuzzer; compiled by
 * nvcc it is the body of the GPU kernel (zstd_decode.cu).
 *
 * How a warp shares the work ("warp-uniform" design):
 *   - every lane runs the whole entropy decoder redundantly: headers, FSE and
 *     Huffman tables, the sequence bitstream.  The lanes read the same bytes
 *     and compute the same values, so the warp issues each instruction once
 *     and same-address loads are broadcasts; no hand-off is needed.
 *   - the byte work is split across lanes: literal and match copies, raw and
 *     RLE blocks, table fills, the four Huffman streams (lanes 0-3) and the
 *     four XXH64 accumulators (lanes 0-3).
 *   - OC_WARP_SYNC (__syncwarp) separates phases whose data other lanes wrote:
 *     after each sequence (its bytes may be the next match's source), after
 *     each table build and literal decode, before a table is rebuilt.
 *   Tables shared by the warp (zd_tables) live in shared memory on the GPU.
 *
 * Safety: every length and offset read from the input is checked before use;
 * reads never go past the chunk, writes never past the output capacity or
 * the literal buffer.  Statuses: TRUNCATED when the input ends before the
 * frame does, OUTPUT_TOO_SMALL when the capacity is exceeded, CORRUPT for any
 * inconsistent field, CHECKSUM_MISMATCH for a bad XXH64, NEEDS_DICTIONARY for
 * a frame with a dictionary ID.
 */
#ifndef OC_ZSTD_DECODE_CORE_H
#define OC_ZSTD_DECODE_CORE_H

/* The core along the format's seams: zstd_dec_common.h (tables, state,
 * limits), zstd_dec_fse.h, zstd_dec_huf.h, zstd_dec_block.h, and here the
 * frames and the content checksum. */
#include "zstd_dec_block.h"

/* ---- XXH64 of the frame's output (common/xxh.h), four lanes on lanes 0-3 - */

/* Accumulator k (0..3) over the `stripes` full 32-byte stripes at p, on the
 * calling lane.  On the GPU, when p is 8-aligned (every output of the
 * benchmarks, zarr and numcodecs), 8-byte loads of ZD_XXH_AHEAD stripes are
 * issued before their rounds: the byte loads of oc_xxh64_lane made each round
 * wait for its stripe, ~600 warp cycles a stripe, 19% of the 64 KiB lane
 * kernel's stall samples (bench/gpu/zstd/NOTES.md "Run 12").  The data was
 * written by the same warp: plain loads after a __syncwarp, not the read-only
 * path. */
#define ZD_XXH_AHEAD 8
OC_CORE_FN uint64_t zd_xxh64_acc(const uint8_t *p, uint64_t stripes, unsigned k)
{
#ifdef __CUDACC__
    if (((uintptr_t)p & 7u) == 0) {
        uint64_t v = oc_xxh64_lane_init(k, 0);
        const uint64_t *q = (const uint64_t *)(const void *)p + k; /* little-endian: oc_load_le64's value */
        uint64_t s = 0;
        for (; s + ZD_XXH_AHEAD <= stripes; s += ZD_XXH_AHEAD) {
            uint64_t x[ZD_XXH_AHEAD];
#pragma unroll
            for (int u = 0; u < ZD_XXH_AHEAD; u++)
                x[u] = q[4 * (s + (uint64_t)u)];
#pragma unroll
            for (int u = 0; u < ZD_XXH_AHEAD; u++)
                v = oc_xxh64_round(v, x[u]);
        }
        for (; s < stripes; s++)
            v = oc_xxh64_round(v, q[4 * s]);
        return v;
    }
#endif
    return oc_xxh64_lane(p, stripes, k, 0);
}

OC_CORE_BIGFN uint64_t zd_xxh64(zd_tables *T, const uint8_t *p, size_t len)
{
    size_t stripes = len / 32;
    if (len >= 32) {
        OC_WARP_SYNC();
        for (uint32_t l = OC_LANE(); l < 4; l += OC_NLANES)
            T->xxh[l] = zd_xxh64_acc(p, stripes, l);
        OC_WARP_SYNC();
    }
    return oc_xxh64_finish(T->xxh, p + 32 * stripes, len, 0);
}

/* ---- frames --------------------------------------------------------------- */

/* Decodes one frame starting at src[*ip] (its magic number already checked)
 * into dst[*op..cap). */
OC_CORE_BIGFN oc_status zd_frame(zd_tables *T, const uint8_t *src, size_t n, size_t *ip_io, uint8_t *dst,
                                 size_t cap, size_t *op_io, uint8_t *litbuf, size_t litcap)
{
    size_t ip = *ip_io + 4, op = *op_io;
    if (n - ip < 1)
        return ZD_ERR(OC_ERR_TRUNCATED);
    uint32_t fhd = src[ip];
    uint32_t fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
    if (fhd & 8)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t did_size = did_flag == 3 ? 4 : did_flag;
    size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (fcs_flag == 1 ? 2 : (fcs_flag == 2 ? 4 : 8));
    size_t hsize = 1 + (single ? 0 : 1) + did_size + fcs_size;
    if (n - ip < hsize)
        return ZD_ERR(OC_ERR_TRUNCATED);
    const uint8_t *h = src + ip + 1;
    uint64_t window = 0;
    if (!single) {
        uint32_t wd = *h++;
        uint32_t wlog = 10 + (wd >> 3);
        uint64_t base = 1ull << wlog;
        window = base + (base >> 3) * (wd & 7);
    }
    uint32_t did = 0;
    for (size_t i = 0; i < did_size; i++)
        did |= (uint32_t)h[i] << (8 * i);
    h += did_size;
    uint64_t fcs = 0;
    int has_fcs = fcs_size > 0;
    for (size_t i = 0; i < fcs_size; i++)
        fcs |= (uint64_t)h[i] << (8 * i);
    if (fcs_size == 2)
        fcs += 256;
    if (did != 0)
        return ZD_ERR(OC_ERR_NEEDS_DICTIONARY);
    if (single)
        window = fcs;
    if (has_fcs && fcs > cap - op)
        return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
    ip += hsize;
    size_t frame_start = op;
    zd_frame_state fs;
    fs.huf_log = 0;
    fs.ll_log = fs.ml_log = fs.of_log = -1;
    fs.rep[0] = 1;
    fs.rep[1] = 4;
    fs.rep[2] = 8;
    fs.block_max = window < ZD_BLOCK_MAX ? (size_t)window : ZD_BLOCK_MAX;
    for (;;) {
        if (n - ip < 3)
            return ZD_ERR(OC_ERR_TRUNCATED);
        uint32_t bh = oc_load_le24(src + ip);
        ip += 3;
        uint32_t last = bh & 1, type = (bh >> 1) & 3;
        size_t bsize = bh >> 3;
        if (type == 3 || bsize > fs.block_max)
            return ZD_ERR(OC_ERR_CORRUPT);
        if (type == 1) {
            if (n - ip < 1)
                return ZD_ERR(OC_ERR_TRUNCATED);
            if (bsize > cap - op)
                return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
            uint8_t v = src[ip];
            for (size_t i = OC_LANE(); i < bsize; i += OC_NLANES)
                dst[op + i] = v;
            ip += 1;
            op += bsize;
        } else {
            if (n - ip < bsize)
                return ZD_ERR(OC_ERR_TRUNCATED);
            if (type == 0) {
                if (bsize > cap - op)
                    return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
                zd_copy(dst + op, src + ip, bsize);
                op += bsize;
            } else {
                oc_status st = zd_block(T, &fs, src + ip, bsize, dst, cap, &op, frame_start, litbuf, litcap);
                if (st != OC_OK)
                    return st;
            }
            ip += bsize;
        }
        if (last)
            break;
    }
    OC_WARP_SYNC();
    if (has_fcs && (uint64_t)(op - frame_start) != fcs)
        return ZD_ERR(OC_ERR_CORRUPT);
    if (checksum) {
        if (n - ip < 4)
            return ZD_ERR(OC_ERR_TRUNCATED);
        uint32_t want = oc_load_le32(src + ip);
        ip += 4;
        ZD_PROF_START(t_xxh);
        uint64_t got = zd_xxh64(T, dst + frame_start, op - frame_start);
        ZD_PROF_END(4, t_xxh);
        if ((uint32_t)got != want)
            return ZD_ERR(OC_ERR_CHECKSUM_MISMATCH);
    }
    *ip_io = ip;
    *op_io = op;
    return OC_OK;
}

/* Decodes every frame of src[0..n) into dst[0..cap): Zstandard frames are
 * decoded one after another, skippable frames skipped.  *out_size receives
 * the bytes written so far (also on error).  litbuf holds litcap bytes
 * (literals of one block; at most ZD_BLOCK_MAX are ever needed). */
OC_CORE_BIGFN oc_status zd_decode_chunk(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                        size_t *out_size, uint8_t *litbuf, size_t litcap)
{
    size_t ip = 0, op = 0;
    /* An empty input is a frame cut before its magic number (as libzstd and
     * the CPU engine say), not an empty success. */
    oc_status st = n == 0 ? ZD_ERR(OC_ERR_TRUNCATED) : OC_OK;
    while (ip < n) {
        if (n - ip < 4) {
            /* A proper prefix of a frame or skippable magic is cut short;
             * other bytes are not a frame at all (the CPU engine's rule). */
            int zstd = 1, skip = 1;
            for (size_t i = 0; i < n - ip; i++) {
                uint8_t b = src[ip + i];
                zstd &= b == (uint8_t)(0xFD2FB528u >> (8 * i));
                skip &= i == 0 ? (b & 0xF0) == 0x50 : b == (uint8_t)(0x184D2A50u >> (8 * i));
            }
            st = zstd || skip ? ZD_ERR(OC_ERR_TRUNCATED) : ZD_ERR(OC_ERR_CORRUPT);
            break;
        }
        uint32_t magic = oc_load_le32(src + ip);
        if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
            if (n - ip < 8) {
                st = OC_ERR_TRUNCATED;
                break;
            }
            size_t fsz = oc_load_le32(src + ip + 4);
            if (fsz > n - ip - 8) {
                st = OC_ERR_TRUNCATED;
                break;
            }
            ip += 8 + fsz;
            continue;
        }
        if (magic != 0xFD2FB528u) {
            st = OC_ERR_CORRUPT;
            break;
        }
        st = zd_frame(T, src, n, &ip, dst, cap, &op, litbuf, litcap);
        if (st != OC_OK)
            break;
    }
    OC_WARP_SYNC();
    *out_size = op;
    return st;
}

#endif /* OC_ZSTD_DECODE_CORE_H */
