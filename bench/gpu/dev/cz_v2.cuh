/*
 * cz_v2.cuh - why this exists: the Cascaded tile decoder v2 (the library's
 * from session 5 until v3 replaced it in session 7, bench/gpu/owncodecs/
 * NOTES.md), kept for cz_dev's A/B: the whole CTA stages the tile and
 * waits for it, warp 0 parses the headers (the core's cz_dec_parse) while
 * seven warps wait, two element buffers in the core's cz_ws.  Its layer
 * code is v3's (the library's cascaded_tile_decode.cuh, whose helpers it
 * uses), but for reading the parse from the workspace.  Included by
 * cz_dev.cu after the library's cascaded_kernels.cu.
 */
/* Vector stores into the workspace's element buffers and run starts. */
static_assert(offsetof(cz_ws, buf) % 16 == 0 && offsetof(cz_ws, starts) % 16 == 0,
              "cz_ws: buf and starts at multiples of 16 bytes");

/* Elements [e0, e0 + nv) of stream s (parsed: ws->st[s], ws->blk[s]) as
 * V, each (base + field) mod 2^(8 ew) for a packed stream, the stored
 * element for a raw one; x[i] for i >= nv is garbage (0 when nv is 0). */
template <typename V, uint32_t K>
static __device__ __forceinline__ void cz2_unpack(const cz_ws *ws, uint32_t s, uint32_t e0, uint32_t nv, V *x)
{
    const cz_stream *st = &ws->st[s];
    uint32_t ew = st->ew;
    if (nv == 0 || st->mode == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] =
                i < nv ? (V)own_bytes_get(ws->stage, (uint64_t)st->data + (uint64_t)(e0 + i) * ew, ew) : (V)0;
        return;
    }
    const cz_block *bk = &ws->blk[s][e0 / CZ_BLOCK];
    uint32_t bit = 8u * st->data + bk->bit + (e0 % CZ_BLOCK) * bk->width;
    V base = (V)bk->base;
    if (sizeof(V) == 8) {
        uint64_t f[K];
        czg_bits64<K>(ws->stage, bit, bk->width, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    } else {
        uint32_t f[K];
        czg_bits32<K>(ws->stage, bit, bk->width, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    }
}

/* Run stream s (c run lengths - 1) into the swizzled run starts, with
 * starts[c] = before, when the lengths add up to `before`; returns 0 (in
 * every thread alike) when they do not: CORRUPT, as the core's
 * cz_runs_starts. */
template <uint32_t K>
static __device__ __forceinline__ int cz2_runs(cz_ws *ws, uint32_t s, uint32_t c, uint32_t before,
                                               uint32_t e0, uint32_t *q)
{
    uint8_t *starts = (uint8_t *)ws->starts;
    uint32_t nv = c > e0 ? (c - e0 < K ? c - e0 : K) : 0u;
    uint32_t len[K];
    cz2_unpack<uint32_t, K>(ws, s, e0, nv, len);
    uint32_t acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        uint32_t l = i < nv ? (len[i] & 0xffffu) + 1u : 0u;
        len[i] = acc; /* exclusive, within the thread */
        acc += l;
    }
    uint32_t all;
    uint32_t pre = czg_scan<uint32_t>(acc, q, &all);
    if (all != before)
        return 0;
    /* every position >= c gets the total, `before`: starts[c] is the
     * sentinel; the position 256 K (c = E) has no owner: the last thread */
    uint32_t wd[K / 2u];
#pragma unroll
    for (uint32_t m = 0; m < K / 2u; m++)
        wd[m] = ((pre + len[2 * m]) & 0xffffu) | ((pre + len[2 * m + 1]) << 16);
#pragma unroll
    for (uint32_t v = 0; v < K / 8u; v++)
        *(uint4 *)(starts + czg_swz(2u * e0 + 16u * v)) =
            make_uint4(wd[4 * v], wd[4 * v + 1], wd[4 * v + 2], wd[4 * v + 3]);
    if (c == CZG_THREADS * K && threadIdx.x == CZG_THREADS - 1u)
        *(uint16_t *)(starts + czg_swz(2u * c)) = (uint16_t)before;
    return 1;
}

/* Expands the c values of `vals` (swizzled) by the run starts into the
 * thread's positions [e0, e0 + K) of the `before` outputs (0 past them). */
template <typename V, uint32_t W, uint32_t K>
static __device__ __forceinline__ void cz2_expand(const cz_ws *ws, const uint8_t *vals, uint32_t c,
                                                  uint32_t before, uint32_t e0, V *x)
{
    const uint8_t *starts = (const uint8_t *)ws->starts;
    uint32_t nv = before > e0 ? (before - e0 < K ? before - e0 : K) : 0u;
    if (nv == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = 0; /* the values stored before the layer are dead: not kept in registers */
        return;
    }
    /* run r starts in [r, r + before - c]: the run of e0 is in [a, b) */
    uint32_t slack = before - c;
    uint32_t a = e0 > slack ? e0 - slack : 0u;
    uint32_t b = (e0 < c - 1u ? e0 : c - 1u) + 1u; /* starts[a] <= e0 < starts[b] */
    while (b - a > 1u) {
        uint32_t mid = (a + b) >> 1;
        if (czg_start(starts, mid) <= e0)
            a = mid;
        else
            b = mid;
    }
    uint32_t r = a, next = czg_start(starts, r + 1u);
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        /* runs are >= 1 long: at most one step; none past the outputs, so
         * r stays below c (x[i] for i >= nv: a value, unused) */
        if (e0 + i == next && i < nv) {
            r++;
            next = czg_start(starts, r + 1u);
        }
        x[i] = czg_ld<V, W>(vals, r);
    }
}

/* Decodes one tile of cnt elements of W bytes (V: the register type,
 * uint32_t up to 4 bytes, uint64_t for 8) with the workspace in czg_smem,
 * as the core's cz_decode_tile does: the same statuses, the same output
 * (dst NULL: checks only).  Runs in every thread of a CTA of CZG_THREADS.
 * Not inlined: each width's instance gets the kernel's 80 registers to
 * itself (inlined together with the tile loop, ptxas spilled ~700 bytes
 * in the layer loops; apart, none there), and it names the shared array
 * itself so that its accesses stay shared-memory ones. */
template <typename V, uint32_t W>
static __device__ __noinline__ oc_status cz2_decode_tile(const uint8_t *src, uint32_t n, uint32_t cnt,
                                                         uint32_t ver, uint8_t *dst)
{
    cz_ws *ws = (cz_ws *)czg_smem;
    constexpr uint32_t K = (W <= 2u ? CZ_TILE_MAX : CZ_TILE_BYTES / W) / CZG_THREADS;
    const uint32_t nw = CZG_WARPS;
    uint32_t raw = cnt * W;
    if (n > raw)
        return OC_ERR_CORRUPT; /* coded tiles are smaller than their elements */
    if (n == raw) {            /* a tile whose coding did not pay is stored */
        if (dst)
            OWN_RUN(nw, cz_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, cz_stage_in, ws, src, n);
    if (threadIdx.x == 0) {
        ws->w = W;
        ws->cnt = cnt;
        ws->ver = ver;
    }
    __syncthreads();
    OWN_RUN(nw, cz_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    uint32_t rles = ws->nstreams - 1u, nops = ws->nops;
    uint32_t c = ws->st[rles].count, e0 = threadIdx.x * K, q = 0, cur = 0;
    V x[K];
    cz2_unpack<V, K>(ws, rles, e0, c > e0 ? (c - e0 < K ? c - e0 : K) : 0u, x);
    uint32_t s = rles, d = nops - rles;
    for (uint32_t k = nops; k-- > 0;) {
        if (ws->ops[k] == CZ_OP_DELTA) {
            d--;
            czg_delta<V, K>(x, (V)ws->seed[d], &q);
        } else {
            uint8_t *vals = (uint8_t *)ws->buf[cur];
            czg_store<V, W, K>(vals, e0, x);
            s--;
            /* the count before this layer: the previous run stream's, or the tile's */
            uint32_t before = s ? ws->st[s - 1].count : cnt;
            if (!cz2_runs<K>(ws, s, c, before, e0, &q))
                return OC_ERR_CORRUPT;
            __syncthreads(); /* the values and the starts */
            cz2_expand<V, W, K>(ws, vals, c, before, e0, x);
            cur ^= 1u;
            c = before;
        }
    }
    if (dst) {
        uint8_t *out = (uint8_t *)ws->buf[cur];
        czg_store<V, W, K>(out, e0, x);
        __syncthreads();
        czg_copy_out(out, raw, dst);
    }
    return OC_OK;
}

/* own_tile_decode_fn for the tile kernel: the instance of the tile's
 * element width (1, 2, 4 or 8: the chunk's header was checked). */
static __device__ __forceinline__ oc_status cz2_tile_decode(void *ws, const uint8_t *tile, uint32_t len,
                                                            uint32_t cnt, const own_tiled *k, uint8_t *out,
                                                            uint32_t nw)
{
    (void)ws, (void)nw; /* czg_smem, CZG_WARPS */
    switch (k->w) {
    case 1:
        return cz2_decode_tile<uint32_t, 1>(tile, len, cnt, k->version, out);
    case 2:
        return cz2_decode_tile<uint32_t, 2>(tile, len, cnt, k->version, out);
    case 4:
        return cz2_decode_tile<uint32_t, 4>(tile, len, cnt, k->version, out);
    default:
        return cz2_decode_tile<uint64_t, 8>(tile, len, cnt, k->version, out);
    }
}

/* v2's tile kernel: own_tiled_tiles with the tile decoder above, 3 CTAs an
 * SM, the core's cz_ws (~68 KiB) as its dynamic shared memory. */
static __global__ void __launch_bounds__(CZG_THREADS, 3)
    cz2_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    own_tiled_tiles(n, src, src_sizes, dst, s, czg_smem, cz_chunk_check, cz2_tile_decode, CZG_WARPS);
}
