/*
 * gdeflate_core.h - GDeflate pages on the CPU: a decoder and an encoder of
 * the format Microsoft's DirectStorage publishes (docs/FORMAT.md,
 * "GDeflate"), written from its specification: deflate blocks whose bits
 * are dealt over 32 sub-streams ("lanes") and serialised in the order in
 * which a 32-lane decoder refills its bit buffers.
 *
 * Both sides run one model of that decoder (gd_lane_model below): lanes
 * visited round-robin, each visit consuming at most 32 bits and ending with
 * a refill of that lane to 32 bits or more from the one shared word stream.
 * The decoder never reads outside src: words past its end are zeros that
 * may be loaded but never consumed (a consumed bit past the end is
 * TRUNCATED).  The encoder writes each lane's bits, logs the visits, and
 * replays the log to serialise the words.
 */
#ifndef OC_GDEFLATE_CORE_H
#define OC_GDEFLATE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/oc_internal.h"

#define GD_LANES 32
#define GD_MAX_PAGE ((size_t)65536) /* the largest page we encode (DirectStorage's tile, nvCOMP's chunk) */

/* The decoder's workspace: its Huffman tables (about 130 KiB). */
typedef struct gd_dec_ws {
    uint16_t litlen[1u << 15]; /* (symbol | length << 9), 0: no code */
    uint16_t dist[1u << 15];
    uint8_t lens[288 + 32 + 140]; /* code lengths, with room for a run that overshoots (rejected) */
} gd_dec_ws;

/* gd_decode decodes one page src[0..n) into dst[0..cap): OK with *out the
 * decoded size; CORRUPT, TRUNCATED (a bit needed lies past src's end) or
 * OUTPUT_TOO_SMALL otherwise.  dst NULL counts only (cap is then ignored):
 * the size query, with decoding's statuses. */
OC_HIDDEN oc_status gd_decode(gd_dec_ws *ws, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                              size_t *out);

/* The encoder's workspace (about 0.9 MiB): match finder, symbols, the
 * lanes' bits and the visit log. */
#define GD_LANE_WORDS 4096 /* per lane; a page needs at most about 2100 */
#define GD_MAX_VISITS 72000
typedef struct gd_enc_ws {
    int32_t head[1u << 15];
    int32_t prev[GD_MAX_PAGE];
    uint16_t sym_len[GD_MAX_PAGE + 1]; /* 0: literal, else match length 3..258 */
    uint16_t sym_val[GD_MAX_PAGE + 1]; /* the literal byte, or the match distance */
    uint32_t lane_words[GD_LANES][GD_LANE_WORDS];
    uint16_t visits[GD_MAX_VISITS]; /* lane | bits consumed since its last refill << 5 */
} gd_enc_ws;

/* gd_encode encodes src[0..n) (n <= GD_MAX_PAGE, else CHUNK_TOO_LARGE) as
 * one page into dst[0..cap) at `level` (1..9): OK with *out its size, or
 * OUTPUT_TOO_SMALL.  The smallest of dynamic, fixed and stored blocks is
 * written; the output never exceeds gd_bound(n). */
OC_HIDDEN oc_status gd_encode(gd_enc_ws *ws, int level, const uint8_t *src, size_t n, uint8_t *dst,
                              size_t cap, size_t *out);

/* The most bytes gd_encode writes for n input bytes (the table's bound). */
static inline size_t gd_bound(size_t n)
{
    return n > GD_MAX_PAGE ? 0 : n + 4 * (n / 65535 + 1) + 64 * 4 + 8;
}

#endif /* OC_GDEFLATE_CORE_H */
