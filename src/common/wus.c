/*
 * wus.c - the WITH_UNCOMPRESSED_SIZE header's parser and size guard
 * (wus.h).  A header is untrusted input: a 1.6 KB stream claiming 2^34
 * bytes made the CLI reserve 16 GiB once (issue 11 item 13), so the claim
 * is checked against the algorithm's maximum expansion before anything is
 * allocated for it.
 */
#include "wus.h"

#include "algo_table.h"
#include "le.h"

oc_status oc_wus_parse(const uint8_t *src, uint64_t src_size, oc_algorithm a, uint64_t *size,
                       oc_algorithm *algo)
{
    SAFETY_CHECK(src_size >= OC_WUS_HEADER, OC_ERR_TRUNCATED);
    if (a == OC_ALGO_NONE)
        a = oc_algo_detect(src + OC_WUS_HEADER, (size_t)(src_size - OC_WUS_HEADER));
    RETURN_ERROR_IF(a == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
    uint64_t s = oc_load_le64(src);
    SAFETY_CHECK(s <= oc_algo_max_decoded(a, src_size - OC_WUS_HEADER), OC_ERR_CORRUPT);
    *size = s;
    *algo = a;
    return OC_OK;
}
