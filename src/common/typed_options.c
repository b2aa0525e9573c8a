/*
 * typed_options.c - oc_typed_options: validity and meaning (see
 * include/opencomp.h for the encoding of the `cascaded` field).
 */
#include "typed_options.h"

#include "algo_table.h"

#include <string.h>

#define CASCADED_AUTO_RLES 4u

oc_status oc_typed_check(const oc_typed_options *t, oc_algorithm algorithm)
{
    RETURN_ERROR_IF(t == NULL, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)t->data_type >= OC_TYPE_COUNT || t->reserved != 0, OC_ERR_INVALID_ARGUMENT);
    const oc_algo_desc *d = oc_algo(algorithm); /* NULL: no algorithm (decoding), only the common checks */
    int max_type = d ? d->max_algorithm_type : 0;
    RETURN_ERROR_IF(t->algorithm_type < 0 || t->algorithm_type > max_type, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(d && d->type_widths && t->data_type != OC_TYPE_DEFAULT &&
                        !(d->type_widths & (1u << oc_data_type_width(t->data_type))),
                    OC_ERR_INVALID_ARGUMENT);
    uint32_t c = t->cascaded;
    if (c == OC_CASCADED_DEFAULT || c == OC_CASCADED_AUTO)
        return OC_OK;
    RETURN_ERROR_IF((c & 0xfffffe00u) != 0x80000000u, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((c & 0xfu) > 3 || ((c >> 4) & 0xfu) > 3, OC_ERR_INVALID_ARGUMENT);
    return OC_OK;
}

oc_data_type oc_typed_data_type(const oc_typed_options *t)
{
    return t->data_type == OC_TYPE_DEFAULT ? OC_TYPE_U8 : t->data_type;
}

void oc_typed_cascaded(const oc_typed_options *t, uint32_t *rles, uint32_t *deltas, uint32_t *bitpack)
{
    uint32_t c = t->cascaded;
    if (c == OC_CASCADED_DEFAULT) { /* nvCOMP's defaults */
        *rles = 2;
        *deltas = 1;
        *bitpack = 1;
    } else if (c == OC_CASCADED_AUTO) {
        *rles = CASCADED_AUTO_RLES;
        *deltas = 0;
        *bitpack = 1;
    } else {
        *rles = c & 0xfu;
        *deltas = (c >> 4) & 0xfu;
        *bitpack = (c >> 8) & 1u;
    }
}

uint32_t oc_data_type_width(oc_data_type t)
{
    switch (t) {
    case OC_TYPE_DEFAULT:
    case OC_TYPE_U8:
    case OC_TYPE_I8:
        return 1;
    case OC_TYPE_U16:
    case OC_TYPE_I16:
    case OC_TYPE_F16:
    case OC_TYPE_BF16:
        return 2;
    case OC_TYPE_U32:
    case OC_TYPE_I32:
    case OC_TYPE_F32:
        return 4;
    case OC_TYPE_U64:
    case OC_TYPE_I64:
    case OC_TYPE_F64:
        return 8;
    default:
        return 0;
    }
}

/* ---- names ------------------------------------------------------------------ */

static const struct {
    const char *typestr, *shortname;
} type_names[OC_TYPE_COUNT] = {
    [OC_TYPE_DEFAULT] = {"", ""},   [OC_TYPE_U8] = {"|u1", "u8"},      [OC_TYPE_I8] = {"|i1", "i8"},
    [OC_TYPE_U16] = {"<u2", "u16"}, [OC_TYPE_I16] = {"<i2", "i16"},    [OC_TYPE_U32] = {"<u4", "u32"},
    [OC_TYPE_I32] = {"<i4", "i32"}, [OC_TYPE_U64] = {"<u8", "u64"},    [OC_TYPE_I64] = {"<i8", "i64"},
    [OC_TYPE_F16] = {"<f2", "f16"}, [OC_TYPE_BF16] = {"bf16", "bf16"}, [OC_TYPE_F32] = {"<f4", "f32"},
    [OC_TYPE_F64] = {"<f8", "f64"},
};

size_t oc_data_type_size(oc_data_type type)
{
    return oc_data_type_width(type);
}

const char *oc_data_type_name(oc_data_type type)
{
    return (unsigned)type < OC_TYPE_COUNT ? type_names[type].typestr : NULL;
}

oc_status oc_data_type_from_name(const char *name, oc_data_type *out)
{
    RETURN_ERROR_IF(name == NULL || out == NULL, OC_ERR_INVALID_ARGUMENT);
    for (unsigned t = 1; t < OC_TYPE_COUNT; t++) {
        const char *ts = type_names[t].typestr;
        /* one-byte types also as "<u1" / "<i1" */
        int one_byte_lt = ts[0] == '|' && name[0] == '<' && strcmp(name + 1, ts + 1) == 0;
        if (strcmp(name, ts) == 0 || strcmp(name, type_names[t].shortname) == 0 || one_byte_lt) {
            *out = (oc_data_type)t;
            return OC_OK;
        }
    }
    return OC_ERR_UNSUPPORTED;
}
