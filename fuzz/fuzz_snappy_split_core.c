/*
 * fuzz_snappy_split_core.c - the parse half of the GPU Snappy split decoder
 * (src/cuda/codecs/snappy/snappy_split_parse.h) compiled for the host, one
 * lane driven through windows as the GPU's warp drives it
 * (lz_common/lz_split_warp.cuh): the code the CUDA kernel runs, fuzzed
 * under ASan/UBSan on the CPU.  Byte 0 picks the capacity and the window.
 * The input, each window and the record slot are exactly-sized heap
 * buffers, so a one-byte overread or overwrite faults.  The status must be
 * the CPU engine's (oc_snappy_scan, then the capacity) unless the parse
 * gave the chunk back (OC_LZS_REDO, where the GPU's copy warp decodes it
 * alone); an accepted stream's records must stay inside the input and the
 * output and add up to the declared length, and their output must be the
 * CPU engine's bytes.  Then the two-lane walk of the same input (v11b,
 * an experiment that lost, kept in bench/gpu/dev/dev_snappy_pair_parse.h
 * and included from there: A from the start, B speculatively from the
 * middle, joined where they meet) through the same
 * windows must give the one-lane walk's status, size and records, unless
 * A gave the chunk back for its record bound (REDO); its slot is
 * exactly-sized too, B storing into its top.  Seeds (fuzz/seeds/
 * snappy_split_core): libsnappy chunks of 64 KiB behind a byte choosing
 * the 64 KiB capacity, so that the join runs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/snappy/snappy_scan.h"
#include "../bench/gpu/dev/dev_snappy_pair_parse.h" /* includes the library's snappy_split_parse.h */
#include "cuda/codecs/snappy/snappy_split_parse.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t caps[4] = {0, 64, 1000, OC_LZS_MAX_CAP};
    static const uint32_t wins[4] = {16, 33, 100, 512};
    if (size < 1 || size > 0x7fffffff)
        return 0;
    uint32_t cap = caps[data[0] & 3], win = wins[(data[0] >> 2) & 3], align = (uint32_t)(data[0] >> 4);
    data++;
    size--;
    uint32_t n = (uint32_t)size;
    uint8_t *in = fuzz_copy(data, size);
    oc_lzs_rec *recs = (oc_lzs_rec *)malloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    if (!recs)
        abort();
    oc_snaps_st s;
    oc_snaps_init(&s);
    uint8_t *w = NULL;
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    int r = n == 0 ? oc_snaps_step(&s, w, 0, 0, n, cap, recs) : OC_LZS_NEED;
    while (r != OC_LZS_END) {
        if (r == OC_LZS_NEED) {
            free(w);
            uint32_t back = align < s.ip ? align : s.ip;
            wshift = s.ip - back;
            whi = wshift + win < n ? wshift + win : n;
            w = fuzz_copy(in + wshift, whi - wshift);
            refill_at = s.ip;
        }
        r = oc_snaps_step(&s, w, wshift, whi, n, cap, recs);
        if (r == OC_LZS_NEED && s.ip == refill_at) /* a window too small for an element (as the warp) */
            r = oc_snaps_step(&s, in, 0, n, n, cap, recs);
    }
    free(w);
    if (s.nrec > OC_LZS_MAX_RECS(cap))
        abort();
    size_t want_size = 0;
    oc_status want = oc_snappy_scan(in, size, &want_size);
    if (want == OC_OK && want_size > cap)
        want = OC_ERR_OUTPUT_TOO_SMALL;
    if (s.status != OC_LZS_REDO && s.status != (int)want)
        abort();
    if (s.status == OC_LZS_OK) {
        if (s.op != want_size)
            abort();
        uint8_t *out = (uint8_t *)malloc(cap ? cap : 1), *ref = (uint8_t *)malloc(cap ? cap : 1);
        if (!out || !ref)
            abort();
        uint32_t op = 0;
        for (uint32_t i = 0; i < s.nrec; i++) {
            oc_lzs_rec e = recs[i];
            if (e.lit_src > n || e.lit_len > n - e.lit_src || e.lit_len > s.op - op)
                abort();
            memcpy(out + op, in + e.lit_src, e.lit_len);
            op += e.lit_len;
            if (e.m_len > s.op - op || (e.m_len && (e.m_off == 0 || e.m_off > op)))
                abort();
            for (uint32_t j = 0; j < e.m_len; j++, op++)
                out[op] = out[op - e.m_off];
        }
        if (op != s.op)
            abort();
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_SNAPPY;
        const void *src_ptrs[1] = {in};
        void *dst_ptrs[1] = {ref};
        size_t src_sizes[1] = {size}, caps1[1] = {cap}, got[1] = {0};
        oc_status st[1];
        if (oc_batch_decompress(fuzz_ctx(), &o, 1, src_ptrs, src_sizes, dst_ptrs, caps1, got, st) != OC_OK ||
            st[0] != OC_OK || got[0] != op || (op && memcmp(out, ref, op) != 0))
            abort();
        free(out), free(ref);
    }
    /* the two lanes (B first to its end; A held to its bound until it decides, as on the GPU) */
    oc_lzs_rec *slot = (oc_lzs_rec *)malloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    if (!slot)
        abort();
    oc_snaps_log log[OC_SNAPS_K];
    oc_snaps_b b;
    oc_snaps_b_init(&b, n / 2);
    int split = OC_SNAPS_SPLITS(n, cap);
    w = NULL;
    refill_at = 0xffffffffu;
    for (r = split ? OC_LZS_NEED : OC_LZS_END; r != OC_LZS_END;) {
        if (r == OC_LZS_NEED) {
            free(w);
            uint32_t back = align < b.ip ? align : b.ip;
            wshift = b.ip - back;
            whi = wshift + win < n ? wshift + win : n;
            w = fuzz_copy(in + wshift, whi - wshift);
            refill_at = b.ip;
        }
        r = oc_snaps_b_step(&b, log, w, wshift, whi, n, cap, slot + OC_SNAPS_BASE(cap));
        if (r == OC_LZS_NEED && b.ip == refill_at)
            r = oc_snaps_b_step(&b, log, in, 0, n, n, cap, slot + OC_SNAPS_BASE(cap));
    }
    if (b.nlog > OC_SNAPS_K || b.nrec > OC_LZS_MAX_RECS(cap) - OC_SNAPS_BASE(cap))
        abort();
    oc_snaps_st a;
    oc_snaps_init(&a);
    if (split)
        a.rmax = OC_SNAPS_BASE(cap);
    uint32_t lim = split ? n / 2 : 0xffffffffu, j = 0;
    int joined = 0;
    free(w);
    w = NULL;
    refill_at = 0xffffffffu;
    r = n == 0 ? oc_snaps_a_step(&a, w, 0, 0, n, cap, slot, lim) : OC_LZS_NEED;
    while (r != OC_LZS_END) {
        if (r == OC_LZS_STOP) {
            int f = b.state == 2 ? -1 : oc_snaps_find(&a, log, b.nlog, &j, &lim);
            if (f == 1 && oc_snaps_join(&a, log, b.nlog, j, b.op, b.nrec, cap)) {
                joined = 1;
                break;
            }
            if (f != 0)
                lim = 0xffffffffu, a.rmax = 0xffffffffu;
        }
        if (r == OC_LZS_NEED) {
            free(w);
            uint32_t back = align < a.ip ? align : a.ip;
            wshift = a.ip - back;
            whi = wshift + win < n ? wshift + win : n;
            w = fuzz_copy(in + wshift, whi - wshift);
            refill_at = a.ip;
        }
        r = oc_snaps_a_step(&a, w, wshift, whi, n, cap, slot, lim);
        if (r == OC_LZS_NEED && a.ip == refill_at)
            r = oc_snaps_a_step(&a, in, 0, n, n, cap, slot, lim);
    }
    free(w);
    if (a.status != OC_LZS_REDO || s.status == OC_LZS_REDO) {
        if (a.status != s.status || (a.status == OC_LZS_OK && (a.op != s.op || a.nrec != s.nrec)))
            abort();
        if (a.status == OC_LZS_OK) {
            uint32_t nb = joined ? b.nrec - log[j].nrec : 0, na = a.nrec - nb;
            if (memcmp(slot, recs, (size_t)na * sizeof *recs) != 0 ||
                (nb &&
                 memcmp(slot + OC_SNAPS_BASE(cap) + log[j].nrec, recs + na, (size_t)nb * sizeof *recs) != 0))
                abort();
        }
    }
    free(slot);
    free(in), free(recs);
    return 0;
}
