/*
 * algorithm.c - algorithm names (with nvCOMP's spellings accepted when
 * parsing) and the compression level range of each algorithm.  Engines and
 * the API layer validate levels against oc_level_range, so the ranges live
 * in exactly one place.
 */
#include <string.h>

#include "oc_internal.h"

static const char *const algo_names[OC_ALGO_COUNT] = {"none", "lz4",  "snappy", "deflate",
                                                      "zlib", "gzip", "zstd"};

const char *oc_algorithm_name(oc_algorithm algorithm)
{
    if ((unsigned)algorithm >= OC_ALGO_COUNT)
        return NULL;
    return algo_names[algorithm];
}

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int equal_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

oc_status oc_algorithm_from_name(const char *name, oc_algorithm *out)
{
    RETURN_ERROR_IF(name == NULL || out == NULL, OC_ERR_INVALID_ARGUMENT);
    /* Case-insensitive comparison covers nvCOMP's "LZ4", "Snappy", "Deflate",
     * "Zstd", "Gzip", "Zlib" as well as our lower-case names. */
    for (unsigned a = 0; a < OC_ALGO_COUNT; a++) {
        if (equal_nocase(name, algo_names[a])) {
            *out = (oc_algorithm)a;
            return OC_OK;
        }
    }
    return OC_ERR_UNSUPPORTED;
}

oc_status oc_level_range(oc_algorithm algorithm, int *min_level, int *max_level, int *default_level)
{
    int lo, hi, def;
    switch (algorithm) {
    case OC_ALGO_LZ4:
        lo = -65536; /* acceleration up to LZ4's own limit (LZ4_ACCELERATION_MAX) */
        hi = 12;
        def = 1;
        break;
    case OC_ALGO_SNAPPY:
        lo = 0;
        hi = 0;
        def = 0;
        break;
    case OC_ALGO_DEFLATE:
    case OC_ALGO_ZLIB:
    case OC_ALGO_GZIP:
        lo = 1;
        hi = 12;
        def = 6;
        break;
    case OC_ALGO_ZSTD:
        lo = -7;
        hi = 22;
        def = 3;
        break;
    default:
        return OC_ERR_INVALID_ARGUMENT;
    }
    if (min_level)
        *min_level = lo;
    if (max_level)
        *max_level = hi;
    if (default_level)
        *default_level = def;
    return OC_OK;
}

oc_status oc_resolve_level(oc_algorithm algorithm, int level, int *out)
{
    int lo, hi, def;
    FORWARD_IF_ERROR(oc_level_range(algorithm, &lo, &hi, &def));
    if (algorithm == OC_ALGO_SNAPPY) { /* no levels: any value accepted, ignored */
        *out = 0;
        return OC_OK;
    }
    if (level == 0) {
        *out = def;
        return OC_OK;
    }
    RETURN_ERROR_IF(level < lo || level > hi, OC_ERR_INVALID_ARGUMENT);
    *out = level;
    return OC_OK;
}
