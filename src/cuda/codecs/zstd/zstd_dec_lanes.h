/*
 * zstd_dec_lanes.h - lane-parallel sequence decoding for batches of small
 * Zstandard chunks ("v6", bench/gpu/zstd/NOTES.md "Run 6"), written once for
 * nvcc and a C11 compiler like zstd_decode_core.h, whose pieces it reuses.
 *
 * Why: the per-chunk kernel runs the FSE sequence loop warp-uniformly, once
 * for 32 lanes that compute the same values; the ncu profile after v4a put
 * ~60% of its ~20.7 warp-instructions per output byte there, and one warp's
 * chain of dependent loads (~600 cycles a sequence) leaves it latency-bound.
 * Here a warp takes a group of G <= ZL_G (4) chunks and decodes them
 * together:
 *   1. prepare (warp-uniform, chunk by chunk, the per-chunk core's code):
 *      frame and block headers, literals into the TAIL OF THE CHUNK'S OWN
 *      OUTPUT (below), the three FSE tables into the chunk's table slot
 *      (global scratch), the bit reader and first states.  Lane j keeps
 *      chunk j's state in registers (zl_lane).  Then the group's tables go
 *      to shared memory in a 16-bit form (below, "Tables").
 *   2. rounds: every lane decodes up to ZL_K sequences of ITS chunk (G
 *      independent FSE chains in one warp: lane-parallel), into shared memory
 *      (sq: 3 x G x (ZL_K + 1) words per warp, never DRAM: v5 lost by sending
 *      sequences through DRAM); then the warp executes the G batches, one
 *      chunk after another, with the per-chunk core's zd_exec_batch.
 *   3. finish: trailing literals, content size and XXH64 per chunk.
 * Only one shape takes this path: a chunk that is exactly one frame (no
 * dictionary, checksum optional, content size present and within the
 * capacity) of exactly one compressed block, which is what 64 KiB chunks
 * written by libzstd's one-shot calls or by opencomp are; and of those,
 * only chunks the rule below chooses.  Any other chunk,
 * and any chunk that fails a check anywhere on the path, is decoded again
 * from the start by zd_decode_chunk, which gives the exact status.  So the
 * rule this file keeps is one-sided: it claims success only where
 * zd_decode_chunk succeeds, with the same bytes (every check of zd_frame and
 * zd_block on this shape is repeated here).
 *
 * Literals in the output (no literal slot per chunk in flight): a chunk of
 * content size F whose literal section regenerates S bytes (Huffman or
 * RLE) gets them decoded to dst[F - S, F).  Sequence t writes
 * dst[op_t, op_t + ll_t + ml_t) and reads literals from F - S + lp_t on.
 * Since op_t + ll_t + ml_t = lp_(t+1) + (match bytes of sequences <= t)
 * and the frame is F = S + (all match bytes) bytes, no write ever passes
 * the first unread literal byte, F - S + lp_(t+1), and the trailing
 * literals end up in place (no copy).  A stream whose sizes disagree
 * (F != S + match bytes) may overwrite its own literals, but then the
 * content-size check fails and zd_decode_chunk redoes the chunk, so this
 * costs nothing in correctness.  Within one batch the literal copies run
 * at once (zd_exec_literals); that is safe when the batch's last write
 * ends at or below its first literal, F - S + (lp at the batch's start); a
 * batch that is not (near the end of a chunk, where few match bytes
 * remain) copies its literals one sequence after another, each with a
 * forward copy that loads before it stores (zl_copy_down).  The scratch
 * per warp is then G table slots and one literal slot for zd_decode_chunk,
 * not G literal slots: ~220 MiB at full scale for 64 KiB chunks where v6b
 * needed ~1.1 GB.  Raw literals are read from the input as before.  An OK
 * chunk writes nothing past its content size; a chunk that fails may leave
 * literal bytes anywhere below its content size (zd_decode_chunk then
 * writes what it writes).
 *
 * Which chunks (the per-chunk choice, from the headers alone, before any
 * entropy decoding): the path's gain is in the FSE sequence loop, G chains
 * per warp instead of one; a chunk with no sequences (all literals, as
 * float weights at ratio ~1.1 are) still gains, because its literals are
 * decoded in place instead of into a slot and copied out.  A chunk whose
 * Huffman/RLE literals are more than half its content AND that has
 * sequences goes to zd_decode_chunk directly (ZL_LIT_HEAVY): its literal
 * region overlaps the output for most of its length, so most of its
 * batches would copy their literals in order, and it has few sequences to
 * gain on.
 *
 * On the host (tests/c/test_zstd_gpu_lanes.c, fuzz_zstd_gpu_core) the G
 * lanes run one after another: ZL_EACH loops over them, and ZL_U32 / ZL_PTR
 * read lane j's state directly instead of by a warp shuffle.
 *
 * Tables (bench/gpu/zstd/NOTES.md "Run 9"): the lane decode's chain waits
 * on each sequence's three table entries; in global slots (5 KiB a chunk,
 * 640 KiB an SM at G = 8 against ~45 KiB of L1) they came from L2.  In
 * shared memory they must fit beside 16 warps an SM, so: entries of 16
 * bits, sym | x << 6 with x the entry's FSE state counter (nbits = log -
 * highbit(x), base = (x << nbits) - 2^log; zl_convert, zl_tget), 2.5 KiB a
 * chunk; groups of ZL_G = 4; chunks 0-2's tables and the length-code table
 * xt (base | extra bits << 24) over the warp's zd_tables Huffman and FSE
 * tables (free once every literal section is decoded; zd_decode_chunk
 * runs after the rounds), chunk 3's after the sequence rows (slot3).
 *
 * Kernel: zl_decode_kernel in zstd_decode.cu, for batches that give every
 * resident warp a group (zl_pick); bench/gpu/dev/zstd_lanes.cu is its
 * harness (a copy of the kernel, against the per-chunk kernel).
 */
#ifndef OC_ZSTD_DEC_LANES_H
#define OC_ZSTD_DEC_LANES_H

#include <stddef.h>

#include "zstd_decode_core.h"

/* chunks per warp at most: one per lane (bench/gpu/dev's zl_group_dep; the library's groups are ZL_G) */
#define ZL_MAX_GROUP 32u
#define ZL_K 32u         /* sequences a lane decodes per round (a full zd_exec_batch) */
#define ZL_KS (ZL_K + 1) /* sq row stride: odd, so lanes' stores hit distinct banks */
#define ZL_TAB_OF 512u   /* table slot: LL at 0, OF at 512, ML at 768 (entries) */
#define ZL_TAB_ML 768u
#define ZL_TAB_ENTRIES 1280u
/* The per-chunk choice (top of the file): Huffman/RLE literals that are
 * more than half the content, in a chunk with sequences, leave the path. */
#define ZL_LIT_HEAVY(ls, fcs) (2 * (uint64_t)(ls) > (uint64_t)(fcs))

#if ZL_K > ZD_SEQ_BATCH
#error "a round's batch must fit zd_tables' sequence batch"
#endif

/* sq words per warp for a group of g chunks: ll, ml, off (the output and
 * literal positions are rebuilt when a batch is staged, zl_stage_batch) */
#define ZL_SQ_WORDS(g) (3u * (g)*ZL_KS)

/* ZL_PROFILE (nvcc, the zstd_lanes_prof harness only): lane 0 of each warp
 * adds clock64 cycles per step into zl_prof[]: 0 prepare, 1 lane-parallel
 * sequence decoding, 2 execution, 3 finish (with the chunks the path left). */
#if defined(ZL_PROFILE) && defined(__CUDACC__)
__device__ unsigned long long zl_prof[4];
#define ZL_PROF_START(t) long long t = clock64()
#define ZL_PROF_END(k, t)                                                                                    \
    do {                                                                                                     \
        if (OC_LANE() == 0)                                                                                  \
            atomicAdd(&zl_prof[k], (unsigned long long)(clock64() - (t)));                                   \
    } while (0)
#else
#define ZL_PROF_START(t) ((void)0)
#define ZL_PROF_END(k, t) ((void)0)
#endif

enum { ZL_NONE = 0, ZL_RUN, ZL_DONE, ZL_FAIL, ZL_OK };

/* One lane's chunk: the per-sequence state of zd_block's loop, plus what
 * the finish step needs.  Registers on the GPU. */
typedef struct zl_lane {
    oc_bitrd r;
    const uint8_t *lit;
    uint8_t *dst;
    uint32_t lls, ofs, mls;
    uint32_t r0, r1, r2;
    uint32_t left;      /* sequences not yet decoded */
    uint32_t bop, lp;   /* output and literal position (the block starts the output) */
    uint32_t ls;        /* literal count */
    uint32_t lim, bmax; /* min(cap, block max), block max */
    uint32_t batch_bop; /* bop when this round's batch began */
    uint32_t batch_lp;  /* lp when this round's batch began */
    uint32_t k;         /* sequences in this round's batch */
    uint32_t state;     /* ZL_* */
    uint32_t lit_out;   /* the literals are in dst, from lbase on (not raw) */
    uint32_t lbase;     /* content size - literal count, when lit_out */
    uint32_t ordered;   /* this round's literal copies must run in order */
    uint32_t has_fcs, checksum, want;
    uint64_t fcs;
    uint64_t cap;
} zl_lane;

#ifdef __CUDACC__
#define ZL_SLOT(l) 0u
#define ZL_EACH(l, g) for (uint32_t l = OC_LANE(), l##_once = l < (g); l##_once; l##_once = 0)
#define ZL_U32(L, f, j) __shfl_sync(0xFFFFFFFFu, (uint32_t)(L)[0].f, (int)(j))
#define ZL_PTR(type, L, f, j)                                                                                \
    ((type)(uintptr_t)__shfl_sync(0xFFFFFFFFu, (unsigned long long)(uintptr_t)(L)[0].f, (int)(j)))
#else
#define ZL_SLOT(l) (l)
#define ZL_EACH(l, g) for (uint32_t l = 0; l < (g); l++)
#define ZL_U32(L, f, j) ((uint32_t)(L)[j].f)
#define ZL_PTR(type, L, f, j) ((type)(L)[j].f)
#endif

/* The literal section header at blk (bsize bytes): *type, *ls the
 * regenerated size, *used the section's size.  0 where zd_literals would
 * fail on the header alone. */
OC_CORE_FN int zl_lit_header(const uint8_t *blk, size_t bsize, uint32_t *type, size_t *ls, size_t *used)
{
    uint32_t b0 = blk[0], sf = (b0 >> 2) & 3;
    *type = b0 & 3;
    if (*type < 2) {
        size_t lh = (sf == 0 || sf == 2) ? 1 : (sf == 1 ? 2 : 3);
        if (bsize < lh)
            return 0;
        *ls = lh == 1 ? b0 >> 3
                      : (lh == 2 ? (b0 >> 4) + ((size_t)blk[1] << 4)
                                 : (b0 >> 4) + ((size_t)blk[1] << 4) + ((size_t)blk[2] << 12));
        *used = lh + (*type == 0 ? *ls : 1);
    } else {
        size_t lh = sf < 2 ? 3 : (sf == 2 ? 4 : 5);
        int bits = sf < 2 ? 10 : (sf == 2 ? 14 : 18);
        if (bsize < lh)
            return 0;
        uint64_t h = 0;
        for (size_t i = 0; i < lh; i++)
            h |= (uint64_t)blk[i] << (8 * i);
        *ls = (size_t)((h >> 4) & ((1u << bits) - 1));
        *used = lh + (size_t)((h >> (4 + bits)) & ((1u << bits) - 1));
    }
    return *used <= bsize;
}

/* Step 1 for one chunk, by the whole warp (every lane computes the same
 * *rec): 1 if the chunk has this path's shape, the rule takes it, and its
 * literals, tables (in tab, global) and first states are ready, and *logs
 * the tables' logs (LL | OF << 4 | ML << 8); 0 if zd_decode_chunk must
 * decode it. */
OC_CORE_BIGFN int zl_prepare(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                             zd_fse_entry *tab, zl_lane *rec, uint32_t *logs)
{
    /* zd_frame's header checks */
    if (n < 6 || oc_load_le32(src) != 0xFD2FB528u)
        return 0;
    size_t ip = 4;
    uint32_t fhd = src[ip];
    uint32_t fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
    if ((fhd & 8) || did_flag != 0)
        return 0;
    size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (fcs_flag == 1 ? 2 : (fcs_flag == 2 ? 4 : 8));
    size_t hsize = 1 + (single ? 0 : 1) + fcs_size;
    if (n - ip < hsize)
        return 0;
    const uint8_t *h = src + ip + 1;
    uint64_t window = 0;
    if (!single) {
        uint32_t wd = *h++;
        uint32_t wlog = 10 + (wd >> 3);
        uint64_t base = 1ull << wlog;
        window = base + (base >> 3) * (wd & 7);
    }
    uint64_t fcs = 0;
    for (size_t i = 0; i < fcs_size; i++)
        fcs |= (uint64_t)h[i] << (8 * i);
    if (fcs_size == 2)
        fcs += 256;
    if (single)
        window = fcs;
    if (fcs_size == 0 || fcs > cap)
        return 0; /* the literals' place in dst needs the content size */
    ip += hsize;
    zd_frame_state fs;
    fs.huf_log = 0;
    fs.ll_log = fs.ml_log = fs.of_log = -1;
    fs.rep[0] = 1;
    fs.rep[1] = 4;
    fs.rep[2] = 8;
    fs.block_max = window < ZD_BLOCK_MAX ? (size_t)window : ZD_BLOCK_MAX;
    if (fcs > fs.block_max)
        return 0; /* one block cannot hold it (and positions stay 32-bit) */
    /* exactly one block, compressed and last, then the checksum, then the
     * end of the chunk */
    if (n - ip < 3)
        return 0;
    uint32_t bh = oc_load_le24(src + ip);
    ip += 3;
    size_t bsize = bh >> 3;
    if ((bh & 7) != 5 || bsize > fs.block_max || bsize < 1 || n - ip < bsize)
        return 0;
    if (n - ip - bsize != (checksum ? 4u : 0u))
        return 0;
    const uint8_t *blk = src + ip;
    /* the choice, from the literal and sequence section headers */
    uint32_t ltype;
    size_t ls, lused;
    if (!zl_lit_header(blk, bsize, &ltype, &ls, &lused) || lused >= bsize || ls > fcs)
        return 0;
    uint32_t nseq = blk[lused];
    if (ltype != 0 && nseq != 0 && ZL_LIT_HEAVY(ls, fcs))
        return 0; /* see the top of the file */
    /* zd_block up to its sequence loop, the literals into dst[fcs - ls, fcs) */
    const uint8_t *lit;
    size_t lsize, used;
    if (zd_literals(T, &fs, blk, bsize, dst + (fcs - ls), ls, &lit, &lsize, &used) != OC_OK || lsize != ls ||
        used != lused)
        return 0;
    OC_WARP_SYNC();
    const uint8_t *sp = blk + used, *se = blk + bsize;
    if (sp >= se)
        return 0;
    nseq = *sp++;
    if (nseq >= 128) {
        if (nseq == 255) {
            if (se - sp < 2)
                return 0;
            nseq = oc_load_le16(sp) + 0x7F00;
            sp += 2;
        } else {
            if (se - sp < 1)
                return 0;
            nseq = ((nseq - 128) << 8) + *sp++;
        }
    }
    if (nseq == 0 && sp != se)
        return 0;
    zl_lane z;
    z.state = ZL_DONE;
    if (nseq > 0) {
        if (sp >= se)
            return 0;
        uint32_t modes = *sp++;
        if (modes & 3)
            return 0;
        oc_status st = zd_seq_table(tab, &fs.ll_log, modes >> 6, oc_zstd_ll_default, 36, 6, ZD_LL_MAX_SYM,
                                    ZD_LL_MAX_LOG, oc_zstd_ll_bits, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(tab + ZL_TAB_OF, &fs.of_log, (modes >> 4) & 3, oc_zstd_of_default, 29, 5,
                              ZD_OF_MAX_SYM, ZD_OF_MAX_LOG, NULL, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(tab + ZL_TAB_ML, &fs.ml_log, (modes >> 2) & 3, oc_zstd_ml_default, 53, 6,
                              ZD_ML_MAX_SYM, ZD_ML_MAX_LOG, oc_zstd_ml_bits, &sp, se);
        OC_WARP_SYNC(); /* the tables are read by one lane from here on */
        *logs = (uint32_t)fs.ll_log | (uint32_t)fs.of_log << 4 | (uint32_t)fs.ml_log << 8;
        if (st != OC_OK || zd_brd_init(&z.r, sp, (size_t)(se - sp)) != OC_OK)
            return 0;
        oc_bitrd_refill(&z.r);
        z.lls = oc_bitrd_read(&z.r, fs.ll_log);
        z.ofs = oc_bitrd_read(&z.r, fs.of_log);
        z.mls = oc_bitrd_read(&z.r, fs.ml_log);
        z.state = ZL_RUN;
    } else {
        z.lls = z.ofs = z.mls = 0;
        *logs = 0;
    }
    z.lit = lit;
    z.dst = dst;
    z.r0 = 1;
    z.r1 = 4;
    z.r2 = 8;
    z.left = nseq;
    z.bop = z.lp = 0;
    z.ls = (uint32_t)lsize;
    z.bmax = (uint32_t)fs.block_max;
    z.lim = cap < fs.block_max ? (uint32_t)cap : z.bmax;
    z.batch_bop = 0;
    z.batch_lp = 0;
    z.k = 0;
    z.lit_out = ltype != 0;
    z.lbase = (uint32_t)(fcs - ls);
    z.ordered = 0;
    z.has_fcs = fcs_size > 0;
    z.fcs = fcs;
    z.checksum = checksum;
    z.want = checksum ? oc_load_le32(src + n - 4) : 0;
    z.cap = cap;
    *rec = z;
    return 1;
}

/* Entry i of a table slot as one 32-bit load (the slots are 4-aligned; a
 * zd_fse_entry is 2-aligned, so a plain copy costs two 16-bit loads on the
 * GPU, on the FSE chain's critical path). */
OC_CORE_FN zd_fse_entry zl_entry(const zd_fse_entry *t, uint32_t i)
{
#ifdef __CUDA_ARCH__
    uint32_t w = *(const uint32_t *)(const void *)(t + i);
    zd_fse_entry e;
    e.base = (uint16_t)w;
    e.nbits = (uint8_t)(w >> 16);
    e.sym = (uint8_t)(w >> 24);
    return e;
#else
    return t[i];
#endif
}

#define ZL_G 4u /* chunks a warp */
/* 16-bit entries a chunk: LL at 0, OF at ZL_TAB_OF, ML at ZL_TAB_ML */
#define ZL_SLOT_ENTRIES ZL_TAB_ENTRIES
#define ZL_XT_ML 36u                          /* xt: LL codes 0..35, then ML codes 0..52 */
#define ZL_XT_OFF (3u * ZL_SLOT_ENTRIES * 2u) /* byte offset of xt in the region */
/* the region over zd_tables: from huf up to xxh */
#define ZL_REGION_BYTES (offsetof(zd_tables, xxh) - offsetof(zd_tables, huf))
typedef char zl_region_fits[ZL_REGION_BYTES >= ZL_XT_OFF + 4u * (ZL_XT_ML + 53u) ? 1 : -1];
/* dynamic shared memory a warp: the sequence rows, then slot 3 */
#define ZL_DYN_WORDS (ZL_SQ_WORDS(ZL_G) + ZL_SLOT_ENTRIES / 2u)

#ifdef __CUDACC__
#define ZL_W32(A, j) __shfl_sync(0xFFFFFFFFu, (uint32_t)(A)[0], (int)(j))
#else
#define ZL_W32(A, j) ((uint32_t)(A)[j])
#endif

/* Chunk j's 16-bit table slot: 0-2 over T, 3 in slot3. */
OC_CORE_FN uint16_t *zl_tslot(zd_tables *T, uint16_t *slot3, uint32_t j)
{
    uint8_t *region = (uint8_t *)(void *)T + offsetof(zd_tables, huf);
    return j < 3u ? (uint16_t *)(void *)(region + (size_t)j * ZL_SLOT_ENTRIES * 2u) : slot3;
}

OC_CORE_FN uint32_t *zl_xt(zd_tables *T)
{
    return (uint32_t *)(void *)((uint8_t *)(void *)T + offsetof(zd_tables, huf) + ZL_XT_OFF);
}

/* One table of a chunk's global slot (2^log entries) into the 16-bit form.
 * A warp. */
OC_CORE_FN void zl_convert_one(uint16_t *d, const zd_fse_entry *t, uint32_t log)
{
    uint32_t n = 1u << log;
    for (uint32_t i = OC_LANE(); i < n; i += OC_NLANES) {
        zd_fse_entry e = zl_entry(t, i);
        uint32_t x = ((e.base & 0x7FFu) + n) >> e.nbits;
        d[i] = (uint16_t)(e.sym | x << 6);
    }
}

/* logs: LL | OF << 4 | ML << 8 (zl_prepare). */
OC_CORE_FN void zl_convert(uint16_t *d, const zd_fse_entry *tab, uint32_t logs)
{
    zl_convert_one(d, tab, logs & 15u);
    zl_convert_one(d + ZL_TAB_OF, tab + ZL_TAB_OF, (logs >> 4) & 15u);
    zl_convert_one(d + ZL_TAB_ML, tab + ZL_TAB_ML, (logs >> 8) & 15u);
}

typedef struct zl_tentry {
    uint32_t base, nbits, sym;
} zl_tentry;

/* Loads from the tables in shared memory: the GPU code reaches them
 * through generic pointers (zl_group is not inlined), so these say
 * ld.shared explicitly. */
#ifdef __CUDA_ARCH__
OC_CORE_FN uint32_t zl_ld16(const uint16_t *p)
{
    unsigned short v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)));
    return v;
}
OC_CORE_FN uint32_t zl_ld32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)));
    return v;
}
#else
#define zl_ld16(p) ((uint32_t) * (p))
#define zl_ld32(p) (*(p))
#endif

/* State s of a 16-bit table of 2^log entries. */
OC_CORE_FN zl_tentry zl_tget(const uint16_t *t, uint32_t s, uint32_t log)
{
    uint32_t e = zl_ld16(t + s), x = e >> 6;
    zl_tentry r;
    r.sym = e & 63u;
    r.nbits = log - (uint32_t)oc_highbit32(x);
    r.base = (x << r.nbits) - (1u << log);
    return r;
}

/* Step 2 on one lane: up to ZL_K sequences of its chunk into its rows of sq,
 * its tables tb (zl_tslot) of logs LG, the length codes xt
 * (row f of lane l at sq + (f * g + l) * ZL_KS).  The per-sequence code and
 * checks are zd_block's (the frame has one block: no history before it).
 * A failed check makes the chunk ZL_FAIL (zd_decode_chunk redoes it). */
OC_CORE_FN void zl_decode_batch(zl_lane *z, const uint16_t *tb, uint32_t logs, const uint32_t *xt,
                                uint32_t *sq, uint32_t l, uint32_t g)
{
    uint32_t *s_ll = sq + (0 * g + l) * ZL_KS, *s_ml = sq + (1 * g + l) * ZL_KS;
    uint32_t *s_off = sq + (2 * g + l) * ZL_KS;
    oc_bitrd r = z->r;
    uint32_t lls = z->lls, ofs = z->ofs, mls = z->mls;
    uint32_t r0 = z->r0, r1 = z->r1, r2 = z->r2;
    uint32_t bop = z->bop, lp32 = z->lp, ls32 = z->ls, lim = z->lim;
    uint32_t left = z->left;
    uint32_t k = 0;
    z->batch_bop = bop;
    z->batch_lp = lp32;
    while (k < ZL_K && left > 0) {
        zl_tentry le = zl_tget(tb, lls, logs & 15u), me = zl_tget(tb + ZL_TAB_ML, mls, (logs >> 8) & 15u);
        zl_tentry oe = zl_tget(tb + ZL_TAB_OF, ofs, (logs >> 4) & 15u);
        uint32_t lx = zl_ld32(xt + le.sym), mx = zl_ld32(xt + ZL_XT_ML + me.sym);
        uint32_t ofc = oe.sym;
        oc_bitrd_refill(&r);
        uint32_t ofv = (1u << ofc) + oc_bitrd_read(&r, (int)ofc);
        uint32_t mlx = oc_bitrd_read(&r, (int)(mx >> 24));
        if (r.c + (lx >> 24) + le.nbits + me.nbits + oe.nbits > 64)
            oc_bitrd_refill(&r);
        uint32_t llx = oc_bitrd_read(&r, (int)(lx >> 24));
        uint32_t ml = (mx & 0xFFFFFFu) + mlx;
        uint32_t ll = (lx & 0xFFFFFFu) + llx;
        uint32_t off = zd_offset(ofv, ll, &r0, &r1, &r2);
        left--;
        if (left > 0) {
            lls = le.base + oc_bitrd_read(&r, (int)le.nbits);
            mls = me.base + oc_bitrd_read(&r, (int)me.nbits);
            ofs = oe.base + oc_bitrd_read(&r, (int)oe.nbits);
        }
        uint32_t len = ll + ml;
        if (oc_bitrd_pos(&r) < 0 || ll > ls32 - lp32 || off == 0 || (uint64_t)off > (uint64_t)bop + ll ||
            len > lim - bop) {
            z->state = ZL_FAIL;
            z->k = 0;
            return;
        }
        s_ll[k] = ll;
        s_ml[k] = ml;
        s_off[k] = off;
        bop += len;
        lp32 += ll;
        k++;
    }
    if (left == 0) {
        if (oc_bitrd_pos(&r) != 0) {
            z->state = ZL_FAIL;
            z->k = 0;
            return;
        }
        z->state = ZL_DONE;
    }
    z->r = r;
    z->lls = lls;
    z->ofs = ofs;
    z->mls = mls;
    z->r0 = r0;
    z->r1 = r1;
    z->r2 = r2;
    z->bop = bop;
    z->lp = lp32;
    z->left = left;
    z->k = k;
    /* the batch's literals may be read only after its writes when its last
     * write passes its first literal (literals in dst) */
    z->ordered = z->lit_out && bop > z->lbase + z->batch_lp;
}

/* Copies chunk j's batch of k sequences from its rows of sq into zd_tables'
 * batch, with the output and literal positions (block-relative) rebuilt
 * from bb and blp, the positions at the batch start: a warp prefix sum on
 * the GPU (sequence t on lane t), a running sum on the host. */
OC_CORE_FN void zl_stage_batch(zd_tables *T, const uint32_t *sq, uint32_t g, uint32_t j, uint32_t k,
                               uint32_t bb, uint32_t blp)
{
    const uint32_t *r_ll = sq + (0 * g + j) * ZL_KS, *r_ml = sq + (1 * g + j) * ZL_KS;
    const uint32_t *r_off = sq + (2 * g + j) * ZL_KS;
    ZD_EACH_SEQ(t, k)
    {
        uint32_t ll = t < k ? r_ll[t] : 0, ml = t < k ? r_ml[t] : 0, off = t < k ? r_off[t] : 0;
        zd_stage_seq(T, t, k, ll, ml, off, &bb, &blp);
    }
}

/* Copies len bytes from src down to d <= src, which may overlap (a
 * sequence's literals in dst moving to their place): each step loads one
 * byte a lane, then stores, so no store lands on a byte not yet loaded. */
OC_CORE_FN void zl_copy_down(uint8_t *d, const uint8_t *src, uint32_t len)
{
    for (uint32_t i0 = 0; i0 < len; i0 += OC_NLANES) {
        uint32_t i = i0 + OC_LANE();
        uint8_t b = i < len ? src[i] : 0;
        OC_WARP_SYNC();
        if (i < len)
            d[i] = b;
        OC_WARP_SYNC();
    }
}

/* The literal half of a batch whose literal copies must run in order. */
OC_CORE_FN void zl_exec_literals_ordered(zd_tables *T, uint8_t *out, const uint8_t *lit, uint32_t cnt)
{
    for (uint32_t j = 0; j < cnt; j++)
        zl_copy_down(out + T->sq_op[j], lit + T->sq_lp[j], T->sq_ll[j]);
}

/* Step 3b on the GPU: the content checksums of the group's chunks on the path
 * at once, lane 4j + k accumulator k of chunk j (the finish step hashed them
 * one after another on lanes 0-3: 19% of the lane kernel's stall samples with
 * the byte loads zd_xxh64_acc replaced, bench/gpu/zstd/NOTES.md "Run 12").
 * Lane 4j returns 1 if chunk j's XXH64 differs from its frame's.  Every lane
 * calls it, after the trailing literals are in place. */
#ifdef __CUDACC__
OC_CORE_BIGFN uint32_t zl_hash_group(const zl_lane *L, uint32_t g)
{
    uint32_t lane = OC_LANE(), hj = lane / 4, hk = lane % 4, hs = hj < g ? hj : 0;
    uint32_t h_state = ZL_U32(L, state, hs), h_sum = ZL_U32(L, checksum, hs), h_want = ZL_U32(L, want, hs);
    uint32_t h_out = ZL_U32(L, bop, hs) + (ZL_U32(L, ls, hs) - ZL_U32(L, lp, hs));
    const uint8_t *h_d = ZL_PTR(const uint8_t *, L, dst, hs);
    int hashed = hj < g && h_state == ZL_OK && h_sum;
    uint64_t acc = hashed && h_out >= 32 ? zd_xxh64_acc(h_d, h_out / 32, hk) : 0;
    uint64_t v[4];
#pragma unroll
    for (uint32_t q = 0; q < 4; q++)
        v[q] = __shfl_sync(0xFFFFFFFFu, acc, (int)(hj * 4 + q) & 31);
    uint32_t bad = 0;
    if (hashed && hk == 0)
        bad = (uint32_t)oc_xxh64_finish(v, h_d + 32 * (size_t)(h_out / 32), h_out, 0) != h_want;
    return bad;
}
#endif

/* Step 3 of zl_group: zd_block's trailing literals and zd_frame's content
 * size and checksum for every chunk on the path, then zd_decode_chunk for
 * every chunk the path left; statuses and sizes.  Returns how many of the g
 * chunks the path decoded.  Out of line on the GPU (OC_CORE_BIGFN), so the
 * rounds keep their registers. */
OC_CORE_BIGFN uint32_t zl_finish(zd_tables *T, zl_lane *L, size_t first, uint32_t g,
                                 const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                                 const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses,
                                 uint8_t *slot, size_t litcap)
{
    ZL_EACH(l, g)
    {
        zl_lane *z = &L[ZL_SLOT(l)];
        if (z->state == ZL_DONE) {
            uint32_t tail = z->ls - z->lp;
            uint64_t op = (uint64_t)z->bop + tail;
            if (tail > z->bmax - z->bop || op > z->cap || (z->has_fcs && op != z->fcs))
                z->state = ZL_FAIL;
            else
                z->state = ZL_OK;
        }
    }
    /* 3a. the literals after the last sequence (in place already when lit_out) */
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_OK || ZL_U32(L, lit_out, j))
            continue;
        uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
        const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
        uint32_t bop = ZL_U32(L, bop, j), lp = ZL_U32(L, lp, j), ls = ZL_U32(L, ls, j);
        OC_WARP_SYNC();
        zd_copy(d + bop, lit + lp, ls - lp);
    }
    OC_WARP_SYNC();
    /* 3b. the checksums: the group's chunks at once on the GPU */
#ifdef __CUDACC__
    uint32_t bad = zl_hash_group(L, g);
    OC_WARP_SYNC();
#endif
    uint32_t on_path = 0;
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        uint32_t state = ZL_U32(L, state, j);
        oc_status st = OC_OK;
        size_t out = 0;
        if (state == ZL_OK) {
            out = ZL_U32(L, bop, j) + (ZL_U32(L, ls, j) - ZL_U32(L, lp, j));
#ifdef __CUDACC__
            if (__shfl_sync(0xFFFFFFFFu, bad, (int)(4 * j)))
                state = ZL_FAIL;
#else
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            if (ZL_U32(L, checksum, j) && (uint32_t)zd_xxh64(T, d, out) != ZL_U32(L, want, j))
                state = ZL_FAIL;
#endif
        }
        on_path += state == ZL_OK;
        if (state != ZL_OK) {
            /* 4. everything else: the per-chunk core, from the start */
            OC_WARP_SYNC();
            st = zd_decode_chunk(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                                 dst_caps[c], &out, slot, litcap);
        }
        if (OC_LANE() == 0) {
            if (dst_sizes)
                dst_sizes[c] = out;
            if (statuses)
                statuses[c] = st;
        }
    }
    OC_WARP_SYNC();
    return on_path;
}

/* Decodes chunks first .. first+g-1 (g <= ZL_G) of a batch by one warp:
 * steps 1-3 above, then zd_decode_chunk for every chunk the path left.
 * L: ZL_SLOT-indexed lane states and LG their table logs (one each on the
 * GPU, g on the host); sq: the warp's ZL_SQ_WORDS(ZL_G) words and slot3
 * chunk 3's tables (ZL_DYN_WORDS words of shared memory on the GPU, sq
 * first); T's Huffman and FSE tables hold the other chunks' tables during
 * the rounds; slot: the warp's literal buffer of litcap bytes, for
 * zd_decode_chunk; tabs: g table slots of ZL_TAB_ENTRIES entries (global).
 * Writes dst_sizes[c] and statuses[c] (each may be NULL).  Returns how many
 * of the g chunks the path decoded (the rest went to zd_decode_chunk). */
OC_CORE_BIGFN uint32_t zl_group(zd_tables *T, zl_lane *L, uint32_t *LG, uint32_t *sq, uint16_t *slot3,
                                size_t first, uint32_t g, const void *const *src_ptrs,
                                const size_t *src_sizes, void *const *dst_ptrs, const size_t *dst_caps,
                                size_t *dst_sizes, oc_status *statuses, uint8_t *slot, size_t litcap,
                                zd_fse_entry *tabs)
{
    /* 1. prepare, chunk by chunk */
    ZL_PROF_START(t_prep);
    ZL_EACH(l, ZL_G)
    {
        L[ZL_SLOT(l)].state = ZL_NONE;
    }
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        zl_lane rec;
        uint32_t logs = 0;
        int ok = zl_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                            dst_caps[c], tabs + (size_t)j * ZL_TAB_ENTRIES, &rec, &logs);
        ZL_EACH(l, g)
        {
            if (l == j) {
                if (ok) {
                    L[ZL_SLOT(l)] = rec;
                    LG[ZL_SLOT(l)] = logs;
                } else {
                    L[ZL_SLOT(l)].state = ZL_FAIL;
                }
            }
        }
    }
    /* 1b. the tables of the chunks in flight into shared memory (over T's
     * Huffman and FSE tables: every literal section is decoded by now) */
    OC_WARP_SYNC();
    uint32_t *xt = zl_xt(T);
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_RUN)
            continue;
        uint32_t logs = ZL_W32(LG, j);
        zl_convert(zl_tslot(T, slot3, j), tabs + (size_t)j * ZL_TAB_ENTRIES, logs);
    }
    for (uint32_t i = OC_LANE(); i < ZL_XT_ML + 53u; i += OC_NLANES)
        xt[i] = i < ZL_XT_ML ? oc_zstd_ll_base[i] | (uint32_t)oc_zstd_ll_bits[i] << 24
                             : oc_zstd_ml_base[i - ZL_XT_ML] | (uint32_t)oc_zstd_ml_bits[i - ZL_XT_ML] << 24;
    OC_WARP_SYNC();
    ZL_PROF_END(0, t_prep);
    /* 2. rounds: every lane decodes a batch of its chunk, the warp executes
     * them chunk by chunk */
    for (;;) {
        int any = 0;
        ZL_PROF_START(t_dec);
        OC_WARP_SYNC(); /* the last round's batches were copied out of sq */
        ZL_EACH(l, g)
        {
            zl_lane *z = &L[ZL_SLOT(l)];
            z->k = 0;
            if (z->state == ZL_RUN) {
                zl_decode_batch(z, zl_tslot(T, slot3, l), LG[ZL_SLOT(l)], xt, sq, l, g);
                any |= z->k > 0;
            }
        }
        int more = OC_WARP_ANY(any);
        ZL_PROF_END(1, t_dec);
        if (!more)
            break;
        ZL_PROF_START(t_ex);
        OC_WARP_SYNC();
        for (uint32_t j = 0; j < g; j++) {
            uint32_t k = ZL_U32(L, k, j);
            if (k == 0)
                continue;
            uint32_t bb = ZL_U32(L, batch_bop, j), blp = ZL_U32(L, batch_lp, j);
            uint32_t ordered = ZL_U32(L, ordered, j);
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            zl_stage_batch(T, sq, g, j, k, bb, blp);
            OC_WARP_SYNC();
            if (ordered)
                zl_exec_literals_ordered(T, d, lit, k);
            else
                zd_exec_literals(T, d, lit, k);
            zd_exec_matches(T, d, k, bb);
        }
        ZL_PROF_END(2, t_ex);
    }
    /* 3. finish */
    ZL_PROF_START(t_fin);
    uint32_t on_path =
        zl_finish(T, L, first, g, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes, statuses, slot, litcap);
    ZL_PROF_END(3, t_fin);
    return on_path;
}

#endif /* OC_ZSTD_DEC_LANES_H */
