/*
 * zstd_dec_lanes_smem.h - "v6s", an experiment on the library's lane kernel
 * for 64 KiB zstd chunks (src/cuda/codecs/zstd/zstd_dec_lanes.h): the lane
 * decode's three FSE decoding tables in shared memory instead of the global
 * table slots.  Written once for nvcc and a C11 compiler like the library's
 * file, whose pieces it copies (zls_prepare = zl_prepare plus the table
 * logs, zls_decode_batch = zl_decode_batch reading these tables, zls_group =
 * zl_group with the conversion step).
 *
 * Why: ncu of the lane kernel (bench/gpu/zstd/NOTES.md "Run 8") says it is
 * latency-bound, and the top stall line is the bit reader's funnel shift in
 * the lane decode, which waits on the sequence's loads: the three table
 * entries (random over 5 KiB a chunk, 8 chunks a warp, 16 warps an SM: 640
 * KiB of tables against the ~45 KiB of L1 that 211 KiB of shared memory
 * leave, so nearly every entry comes from L2) and the bitstream refill
 * (sequential, but its lines are evicted by the table traffic).  Design and
 * prediction: NOTES.md "Run 9".
 *
 * Shared memory is the constraint: 16 warps an SM already use 211 of 228
 * KiB.  So:
 *   - entries of 16 bits: sym | x << 6, where x is the FSE state counter of
 *     the entry (nbits = log - highbit(x), base = (x << nbits) - 2^log), so
 *     a chunk's tables take 2.5 KiB (1280 entries: LL 2^9, OF 2^8, ML 2^9,
 *     what libzstd writes for nearly every 64 KiB chunk);
 *   - groups of ZLS_G = 4 chunks a warp (10 KiB of tables);
 *   - three chunks' tables and the length-code table xt (base | extra bits
 *     << 24, 89 words: the decode reads it instead of constant memory) live
 *     over the warp's zd_tables Huffman and FSE tables, which the lane path
 *     no longer needs once every chunk's literals are decoded (zd_decode_chunk,
 *     for the chunks the path leaves, runs after the rounds); the fourth
 *     chunk's in dynamic shared memory after the sequence rows (slot3).
 * The prepare step builds each chunk's tables into its global slot as
 * before; after all prepares, zls_convert turns them into the 16-bit form.
 *
 * Host check: bench/gpu/dev/zstd_lanes_smem_check.c runs the library's host
 * test (tests/c/test_zstd_gpu_lanes.c) with zls_group in place of zl_group
 * (make check-zstd-smem).  GPU harness: zstd_lanes.cu --smem.
 */
#ifndef OC_ZSTD_DEC_LANES_SMEM_H
#define OC_ZSTD_DEC_LANES_SMEM_H

#include <stddef.h>

#include "../../../src/cuda/codecs/zstd/zstd_dec_lanes.h"

#define ZLS_G 4u /* chunks a warp */
#define ZLS_SLOT_ENTRIES                                                                                     \
    ZL_TAB_ENTRIES    /* 16-bit entries a chunk: LL at 0, OF at ZL_TAB_OF, ML at ZL_TAB_ML */
#define ZLS_XT_ML 36u /* xt: LL codes 0..35, then ML codes 0..52 */
#define ZLS_XT_OFF (3u * ZLS_SLOT_ENTRIES * 2u) /* byte offset of xt in the region */
/* the region over zd_tables: from huf up to xxh */
#define ZLS_REGION_BYTES (offsetof(zd_tables, xxh) - offsetof(zd_tables, huf))
typedef char zls_region_fits[ZLS_REGION_BYTES >= ZLS_XT_OFF + 4u * (ZLS_XT_ML + 53u) ? 1 : -1];
/* dynamic shared memory a warp: the sequence rows, then slot 3 */
#define ZLS_DYN_WORDS (ZL_SQ_WORDS(ZLS_G) + ZLS_SLOT_ENTRIES / 2u)

#ifdef __CUDACC__
#define ZLS_U32(A, j) __shfl_sync(0xFFFFFFFFu, (uint32_t)(A)[0], (int)(j))
#else
#define ZLS_U32(A, j) ((uint32_t)(A)[j])
#endif

/* Chunk j's 16-bit table slot: 0-2 over T, 3 in slot3. */
OC_CORE_FN uint16_t *zls_slot(zd_tables *T, uint16_t *slot3, uint32_t j)
{
    uint8_t *region = (uint8_t *)(void *)T + offsetof(zd_tables, huf);
    return j < 3u ? (uint16_t *)(void *)(region + (size_t)j * ZLS_SLOT_ENTRIES * 2u) : slot3;
}

OC_CORE_FN uint32_t *zls_xt(zd_tables *T)
{
    return (uint32_t *)(void *)((uint8_t *)(void *)T + offsetof(zd_tables, huf) + ZLS_XT_OFF);
}

/* One table of a chunk's global slot (2^log entries) into the 16-bit form.
 * A warp. */
OC_CORE_FN void zls_convert_one(uint16_t *d, const zd_fse_entry *t, uint32_t log)
{
    uint32_t n = 1u << log;
    for (uint32_t i = OC_LANE(); i < n; i += OC_NLANES) {
        zd_fse_entry e = zl_entry(t, i);
        uint32_t x = ((e.base & 0x7FFu) + n) >> e.nbits;
        d[i] = (uint16_t)(e.sym | x << 6);
    }
}

/* logs: LL | OF << 4 | ML << 8 (zls_prepare). */
OC_CORE_FN void zls_convert(uint16_t *d, const zd_fse_entry *tab, uint32_t logs)
{
    zls_convert_one(d, tab, logs & 15u);
    zls_convert_one(d + ZL_TAB_OF, tab + ZL_TAB_OF, (logs >> 4) & 15u);
    zls_convert_one(d + ZL_TAB_ML, tab + ZL_TAB_ML, (logs >> 8) & 15u);
}

typedef struct zls_entry {
    uint32_t base, nbits, sym;
} zls_entry;

/* Loads from the tables in shared memory: the GPU code reaches them
 * through generic pointers (zls_group is not inlined), so these say
 * ld.shared explicitly. */
#ifdef __CUDA_ARCH__
OC_CORE_FN uint32_t zls_ld16(const uint16_t *p)
{
    unsigned short v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)));
    return v;
}
OC_CORE_FN uint32_t zls_ld32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)));
    return v;
}
#else
#define zls_ld16(p) ((uint32_t) * (p))
#define zls_ld32(p) (*(p))
#endif

/* State s of a 16-bit table of 2^log entries. */
OC_CORE_FN zls_entry zls_get(const uint16_t *t, uint32_t s, uint32_t log)
{
    uint32_t e = zls_ld16(t + s), x = e >> 6;
    zls_entry r;
    r.sym = e & 63u;
    r.nbits = log - (uint32_t)oc_highbit32(x);
    r.base = (x << r.nbits) - (1u << log);
    return r;
}

/* zl_prepare (zstd_dec_lanes.h), also giving the table logs. */
OC_CORE_BIGFN int zls_prepare(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
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
    z.ll = tab;
    z.of = tab + ZL_TAB_OF;
    z.ml = tab + ZL_TAB_ML;
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

/* zl_decode_batch (zstd_dec_lanes.h) with the tables of zls_slot and xt. */
OC_CORE_FN void zls_decode_batch(zl_lane *z, const uint16_t *tb, uint32_t logs, const uint32_t *xt,
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
        zls_entry le = zls_get(tb, lls, logs & 15u), me = zls_get(tb + ZL_TAB_ML, mls, (logs >> 8) & 15u);
        zls_entry oe = zls_get(tb + ZL_TAB_OF, ofs, (logs >> 4) & 15u);
        uint32_t lx = zls_ld32(xt + le.sym), mx = zls_ld32(xt + ZLS_XT_ML + me.sym);
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

/* zl_group with the lane decode's tables in shared memory (g <= ZLS_G):
 * after the prepare step, each chunk's three tables are converted to
 * 16-bit entries (zls_convert) into slot j (zls_slot), and the rounds read
 * them there (zls_decode_batch).  LG: ZL_SLOT-indexed table logs (as L).
 * zl_group's comment: decodes chunks first .. first+g-1 (g <= 32) of a batch by one warp:
 * steps 1-3 above, then zd_decode_chunk for every chunk the path left.
 * L: ZL_SLOT-indexed lane states (one on the GPU, g on the host); sq: the
 * warp's ZL_SQ_WORDS(g) words (shared memory on the GPU); slot: the warp's
 * literal buffer of litcap bytes, for zd_decode_chunk; tabs: g table slots
 * of ZL_TAB_ENTRIES entries.
 * Writes dst_sizes[c] and statuses[c] (each may be NULL).  Returns how many
 * of the g chunks the path decoded (the rest went to zd_decode_chunk). */
OC_CORE_BIGFN uint32_t zls_group(zd_tables *T, zl_lane *L, uint32_t *LG, uint32_t *sq, uint16_t *slot3,
                                 size_t first, uint32_t g, const void *const *src_ptrs,
                                 const size_t *src_sizes, void *const *dst_ptrs, const size_t *dst_caps,
                                 size_t *dst_sizes, oc_status *statuses, uint8_t *slot, size_t litcap,
                                 zd_fse_entry *tabs)
{
    /* 1. prepare, chunk by chunk */
    ZL_PROF_START(t_prep);
    ZL_EACH(l, ZL_MAX_GROUP)
    {
        L[ZL_SLOT(l)].state = ZL_NONE;
    }
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        zl_lane rec;
        uint32_t logs = 0;
        int ok = zls_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
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
    uint32_t *xt = zls_xt(T);
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_RUN)
            continue;
        uint32_t logs = ZLS_U32(LG, j);
        zls_convert(zls_slot(T, slot3, j), tabs + (size_t)j * ZL_TAB_ENTRIES, logs);
    }
    for (uint32_t i = OC_LANE(); i < ZLS_XT_ML + 53u; i += OC_NLANES)
        xt[i] = i < ZLS_XT_ML
                    ? oc_zstd_ll_base[i] | (uint32_t)oc_zstd_ll_bits[i] << 24
                    : oc_zstd_ml_base[i - ZLS_XT_ML] | (uint32_t)oc_zstd_ml_bits[i - ZLS_XT_ML] << 24;
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
                zls_decode_batch(z, zls_slot(T, slot3, l), LG[ZL_SLOT(l)], xt, sq, l, g);
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
    /* 3. finish: zd_block's trailing literals, zd_frame's content size */
    ZL_PROF_START(t_fin);
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
    uint32_t on_path = 0;
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        uint32_t state = ZL_U32(L, state, j);
        oc_status st = OC_OK;
        size_t out = 0;
        if (state == ZL_OK) {
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            uint32_t bop = ZL_U32(L, bop, j), lp = ZL_U32(L, lp, j), ls = ZL_U32(L, ls, j);
            OC_WARP_SYNC();
            /* literals in dst: the trailing ones are in place already
             * (bop + ls - lp == content size, checked above) */
            if (!ZL_U32(L, lit_out, j))
                zd_copy(d + bop, lit + lp, ls - lp);
            out = bop + (ls - lp);
            OC_WARP_SYNC();
            if (ZL_U32(L, checksum, j) && (uint32_t)zd_xxh64(T, d, out) != ZL_U32(L, want, j))
                state = ZL_FAIL;
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
    ZL_PROF_END(3, t_fin);
    return on_path;
}

#endif /* OC_ZSTD_DEC_LANES_SMEM_H */
