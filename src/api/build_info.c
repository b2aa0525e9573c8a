/*
 * build_info.c - version numbers, the one-line build description, and which
 * engines and algorithms this build can run.
 */
#include <lz4.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>

#include "../common/algo_table.h"
#include "../cuda/runtime/cuda_engine.h"

unsigned oc_version_number(void)
{
    return OC_VERSION_NUMBER;
}
const char *oc_version_string(void)
{
    return OC_VERSION_STRING;
}

static char build_info[512];
static pthread_once_t build_info_once = PTHREAD_ONCE_INIT;

static void make_build_info(void)
{
    /* snappy exposes no version string at run time. */
    snprintf(build_info, sizeof(build_info),
             "opencomp %s; cpu: lz4 %s, snappy, libdeflate %s, zlib %s, zstd %s; %s", OC_VERSION_STRING,
             LZ4_versionString(), LIBDEFLATE_VERSION_STRING, zlibVersion(), ZSTD_versionString(),
             oc_cuda_build_info());
}

const char *oc_build_info(void)
{
    pthread_once(&build_info_once, make_build_info);
    return build_info;
}

int oc_engine_available(oc_engine engine)
{
    switch (engine) {
    case OC_ENGINE_AUTO:
    case OC_ENGINE_CPU:
        return 1;
    case OC_ENGINE_CUDA:
        return oc_cuda_available();
    default:
        return 0;
    }
}

int oc_algorithm_decode_available(oc_engine engine, oc_algorithm algorithm)
{
    if (engine == OC_ENGINE_CUDA)
        return oc_algo(algorithm) != NULL && oc_cuda_available() &&
               oc_cuda_has_op(algorithm, 1); /* a decode kernel */
    return oc_algorithm_available(engine, algorithm);
}

int oc_algorithm_available(oc_engine engine, oc_algorithm algorithm)
{
    const oc_algo_desc *d = oc_algo(algorithm);
    if (d == NULL)
        return 0;
    switch (engine) {
    case OC_ENGINE_AUTO:
    case OC_ENGINE_CPU:
        return d->cpu != NULL;
    case OC_ENGINE_CUDA:
        return oc_cuda_available() && oc_cuda_algorithm_available(algorithm);
    default:
        return 0;
    }
}
