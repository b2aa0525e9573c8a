/*
 * wus.c - the WITH_UNCOMPRESSED_SIZE header's parser on the host (wus.h):
 * oc_wus_read, the check the CUDA engine's kernels run too, after the
 * algorithm is known.  A header is untrusted input: a 1.6 KB stream
 * claiming 2^34 bytes made the CLI reserve 16 GiB once (issue 11 item 13),
 * so the claim is checked against the algorithm's maximum expansion before
 * anything is allocated for it.
 */
#include "wus.h"

oc_status oc_wus_parse(const uint8_t *src, uint64_t src_size, oc_algorithm a, uint64_t *size,
                       oc_algorithm *algo)
{
    SAFETY_CHECK(src_size >= OC_WUS_HEADER, OC_ERR_TRUNCATED);
    if (a == OC_ALGO_NONE)
        a = oc_algo_detect(src + OC_WUS_HEADER, (size_t)(src_size - OC_WUS_HEADER));
    RETURN_ERROR_IF(a == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
    uint64_t s = 0;
    oc_status st = oc_wus_read(src, src_size, oc_algo_expansion(a), &s);
    SAFETY_CHECK(st == OC_OK, st);
    *size = s;
    *algo = a;
    return OC_OK;
}
