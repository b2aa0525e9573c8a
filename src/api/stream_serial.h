/*
 * stream_serial.h - the stream reader's serial fallbacks (stream_read.c):
 * one LZ4 frame with linked blocks (liblz4's LZ4F decoder), one zstd frame
 * that states no content size or is larger than a batch takes (libzstd's
 * streaming decoder, window bounded by the memory limit), one gzip member
 * of another writer (zlib), decoded piece by piece into the reader's
 * buffer.  Each decoder stops at the end of its frame or member, so the
 * reader goes back to batches for what follows.
 */
#ifndef OC_API_STREAM_SERIAL_H
#define OC_API_STREAM_SERIAL_H

#include "../common/oc_internal.h"

typedef enum oc_serial_kind { OC_SERIAL_LZ4F = 1, OC_SERIAL_ZSTD = 2, OC_SERIAL_GZIP = 3 } oc_serial_kind;

typedef struct oc_serial oc_serial;

/* A decoder of `kind`: checksums verified when `verify` (zstd and gzip
 * always verify theirs), zstd windows up to memory_limit bytes. */
OC_HIDDEN oc_status oc_serial_create(oc_serial_kind kind, int verify, uint64_t memory_limit, oc_serial **out);
/* Starts a new frame / member. */
OC_HIDDEN oc_status oc_serial_reset(oc_serial *s);
/* Decodes from in[0..*in_n) into out[0..*out_n): *in_n and *out_n become
 * the bytes consumed and produced; *done = 1 when the frame or member ended
 * (nothing after it consumed).  No progress with input left and room in
 * out means the decoder needs more input. */
OC_HIDDEN oc_status oc_serial_step(oc_serial *s, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n,
                                   int *done);
OC_HIDDEN void oc_serial_free(oc_serial *s);

#endif /* OC_API_STREAM_SERIAL_H */
