/*
 * cz_v3.cuh - why this exists: the Cascaded tile decoder v3 (the library's
 * from session 7 until v4 replaced it in session 10, bench/gpu/owncodecs/
 * NOTES.md "Cascaded decode v4"), kept for cz_dev's A/B: every tile by the
 * library's czg_decode_tile (the layers one after another: for nVCOMP's,
 * two expansions through shared memory, a delta scan, 7 barriers), in
 * v3's tile loop (tiles b, b + grid, ..., every warp finding its chunk by
 * the 32-way search: czg_locate, here since the library keeps a CTA's
 * chunk instead).  v4 (czg_decode_rdr: nVCOMP's layers on 4- and 8-byte
 * types in one pass; a CTA's tiles consecutive, its chunk lookup kept) is
 * the library's.  Included by cz_dev.cu after the library's
 * cascaded_kernels.cu.
 */

#ifndef CZ3_HOST_CHECK /* the tile loop and kernel: not in cz_v4_cpu_check.cpp */
/* Tile t of the batch (own_tiled_tiles' lookup, by the calling warp): v3's,
 * before the library kept a CTA's chunk from tile to tile. */
static __device__ __forceinline__ void czg_locate(size_t n, const void *const *src, const size_t *src_sizes,
                                                  void *const *dst, const own_batch_scratch &s,
                                                  unsigned long long t, unsigned long long total, czg_tile *T)
{
    T->valid = t < total;
    if (!T->valid)
        return;
    size_t i = oc_chunk_of_warp(s.first, n, t);
    uint32_t tile = (uint32_t)(t - s.first[i]);
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    own_tiled k;
    oc_status st = cz_chunk_check(p, len, UINT64_MAX, &k); /* OK: the header kernel said so */
    uint64_t elems = k.size / k.w, first = (uint64_t)tile * k.per_tile;
    uint32_t cnt = own_tile_elems(elems, k.per_tile, tile);
    uint64_t a = 0, b = 0;
    if (st == OC_OK)
        st = own_tile_span(p, k.table, k.ntiles, tile, k.limit, &a, &b);
    T->src = p + a;
    T->cend = p + len;
    T->dst = dst ? (uint8_t *)dst[i] + first * k.w : NULL;
    T->chunk = i;
    T->n = (uint32_t)(b - a);
    T->cnt = cnt;
    T->w = k.w;
    T->tile = tile;
    T->ver = k.version;
    T->st = st;
}

/* v3's tile loop: a persistent grid over the batch's tiles, tile t + grid
 * copied in while tile t decodes, every tile by czg_decode_tile. */
static __device__ __forceinline__ void cz3_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, nxt;
    uint32_t cidx = ~0u, cval = 0, sb = 0;
    czg_locate(n, src, src_sizes, dst, s, blockIdx.x, total, &cur);
    czg_issue(sa0, cur, &cidx, &cval);
    for (unsigned long long t = blockIdx.x; t < total; t += gridDim.x) {
        czg_locate(n, src, src_sizes, dst, s, t + gridDim.x, total, &nxt);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb is whole; every thread is past the tile before (stage sb ^ 1 free) */
        czg_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, nxt, &cidx, &cval);
        oc_status st = (oc_status)cur.st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur.src & 15u);
            switch (cur.w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 4:
                st = czg_decode_tile<uint32_t, 4>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            default:
                st = czg_decode_tile<uint64_t, 8>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            }
        }
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur.chunk], own_key((unsigned long long)cur.tile + 1, st));
        cur = nxt;
        sb ^= 1u;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz3_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    cz3_tiles(n, src, src_sizes, dst, s);
}
#endif
