/*
 * typed_options.h - checks and resolution of oc_typed_options (the
 * options of opencomp's own formats: data type, Cascaded's layers), kept
 * in one place so the batched layer, the whole-buffer layer and both
 * engines agree on what a value means.
 */
#ifndef OC_TYPED_OPTIONS_H
#define OC_TYPED_OPTIONS_H

#include "oc_internal.h"

#ifdef __cplusplus /* the CUDA engine's .cu files are C++ */
extern "C" {
#endif

/* INVALID_ARGUMENT for an unknown data type, one of a width `algorithm`
 * does not code (its row's type_widths), an algorithm_type beyond the
 * row's largest (beyond 0 when `algorithm` is OC_ALGO_NONE), a malformed
 * `cascaded` value (OC_CASCADED_LAYERS beyond 3 RLEs or 3 deltas) or a
 * non-zero reserved field; OK otherwise. */
OC_HIDDEN oc_status oc_typed_check(const oc_typed_options *t, oc_algorithm algorithm);

/* The data type a codec runs with: OC_TYPE_DEFAULT means bytes. */
OC_HIDDEN oc_data_type oc_typed_data_type(const oc_typed_options *t);

/* Cascaded's layers: rles 0..3 (4: the automatic choice), deltas 0..3,
 * bitpack 0/1.  `t` must have passed oc_typed_check. */
OC_HIDDEN void oc_typed_cascaded(const oc_typed_options *t, uint32_t *rles, uint32_t *deltas,
                                 uint32_t *bitpack);

/* Bytes per element of a data type (1 for OC_TYPE_DEFAULT, 0 invalid). */
OC_HIDDEN uint32_t oc_data_type_width(oc_data_type t);

#ifdef __cplusplus
}
#endif
#endif /* OC_TYPED_OPTIONS_H */
