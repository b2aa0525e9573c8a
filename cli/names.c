/*
 * names.c - output file names.  NATIVE files get the suffix stock tools
 * expect (.zst .lz4 .gz .sz), so `zstd -d f.zst` just works; deflate and
 * zlib NATIVE files are the same indexed gzip container, hence .gz.  The
 * bare kinds get .raw (RAW) and .sized (WITH_UNCOMPRESSED_SIZE), which say
 * how to read them back but not the algorithm (give -a when decoding LZ4,
 * Snappy or deflate).  Decompression strips a known suffix and refuses
 * others, so it never guesses an output name.  The suffixes of each
 * algorithm come from the library (oc_algorithm_get_info).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_suffix(oc_algorithm algorithm, oc_bitstream_kind kind)
{
    if (kind == OC_BITSTREAM_RAW)
        return ".raw";
    if (kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE)
        return ".sized";
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    return oc_algorithm_get_info(algorithm, &info) == OC_OK ? info.suffix : ".raw";
}

/* Strips `suffix` from path into a malloc'd copy, or NULL when path does
 * not end with it (the name must keep one character besides it). */
static char *strip(const char *path, const char *suffix)
{
    size_t len = strlen(path), sl = strlen(suffix);
    const char *slash = strrchr(path, '/');
    size_t base_start = slash ? (size_t)(slash - path) + 1 : 0;
    if (len <= base_start + sl || strcmp(path + len - sl, suffix) != 0)
        return NULL;
    char *out = malloc(len - sl + 1);
    if (out) {
        memcpy(out, path, len - sl);
        out[len - sl] = '\0';
    }
    return out;
}

char *cli_strip_suffix(const char *path, oc_algorithm *hint_algorithm, oc_bitstream_kind *hint_kind)
{
    /* Compressed tar files' short names (tar -a and the stock tools): NAME.tar. */
    static const struct {
        const char *suffix;
        oc_algorithm algorithm;
    } tars[] = {{".tzst", OC_ALGO_ZSTD}, {".tlz4", OC_ALGO_LZ4}, {".tgz", OC_ALGO_GZIP}};
    for (size_t i = 0; i < sizeof tars / sizeof tars[0]; i++) {
        char *out = strip(path, tars[i].suffix);
        if (out) {
            char *tar = realloc(out, strlen(out) + 5);
            if (!tar) {
                free(out);
                return NULL;
            }
            strcat(tar, ".tar");
            *hint_algorithm = tars[i].algorithm;
            *hint_kind = OC_BITSTREAM_NATIVE;
            return tar;
        }
    }
    /* The library's algorithms say which suffixes name their files. */
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    for (oc_algorithm a = (oc_algorithm)1; oc_algorithm_get_info(a, &info) == OC_OK;
         a = (oc_algorithm)(a + 1)) {
        for (const char *const *s = info.decode_suffixes; *s; s++) {
            char *out = strip(path, *s);
            if (out) {
                *hint_algorithm = a;
                *hint_kind = OC_BITSTREAM_NATIVE;
                return out;
            }
        }
    }
    static const struct {
        const char *suffix;
        oc_bitstream_kind kind;
    } bare[] = {{".raw", OC_BITSTREAM_RAW}, {".sized", OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE}};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        char *out = strip(path, bare[i].suffix);
        if (out) {
            *hint_algorithm = OC_ALGO_NONE;
            *hint_kind = bare[i].kind;
            return out;
        }
    }
    return NULL;
}
