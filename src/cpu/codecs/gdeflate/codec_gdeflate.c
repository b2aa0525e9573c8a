/*
 * codec_gdeflate.c - GDeflate on the CPU engine: the page decoder and
 * encoder of gdeflate_core.h behind the oc_cpu_codec interface.  The
 * workspaces (decode tables; match finder, lanes and visit log) are the
 * worker's state in GDeflate's slot, each created on its first use.  The
 * size query is a decode that writes nothing, so it gives decoding's
 * statuses.  There is no reference library for GDeflate in Debian: this is
 * our own code, written from the published format.
 */
#include "../../cpu_codec.h"
#include "gdeflate_core.h"

/* The workspaces come from the context's host allocator, as the worker's
 * own buffers do, through one state slot holding both. */
typedef struct gd_slot {
    gd_dec_ws dec;
    gd_enc_ws enc;
} gd_slot;

static gd_slot *gd_slot_of(oc_cpu_worker *w)
{
    return (gd_slot *)oc_worker_state(w, OC_ALGO_GDEFLATE, sizeof(gd_slot));
}

static oc_status gd_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t n,
                             uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    RETURN_ERROR_IF(n > GD_MAX_PAGE, OC_ERR_CHUNK_TOO_LARGE);
    gd_slot *s = gd_slot_of(w);
    RETURN_ERROR_IF(!s, OC_ERR_OUT_OF_MEMORY);
    return gd_encode(&s->enc, level, src, n, dst, cap, out);
}

static oc_status gd_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                               uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    gd_slot *s = gd_slot_of(w);
    RETURN_ERROR_IF(!s, OC_ERR_OUT_OF_MEMORY);
    uint8_t none;
    return gd_decode(&s->dec, src, n, dst ? dst : &none, dst ? cap : 0, out);
}

static oc_status gd_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)algo;
    gd_slot *s = gd_slot_of(w);
    RETURN_ERROR_IF(!s, OC_ERR_OUT_OF_MEMORY);
    return gd_decode(&s->dec, src, n, NULL, 0, size);
}

static void gd_release(oc_cpu_worker *w)
{
    (void)w; /* the slot is plain memory, freed with the worker */
}

const oc_cpu_codec oc_cpu_codec_gdeflate = {gd_compress, gd_decompress, gd_size, gd_release};
