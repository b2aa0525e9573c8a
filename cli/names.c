/*
 * names.c - output file names.  NATIVE files get the suffix stock tools
 * expect (.zst .lz4 .gz .sz), so `zstd -d f.zst` just works; deflate and
 * zlib NATIVE files are the same indexed gzip container, hence .gz.  The
 * bare kinds get .raw (RAW) and .sized (WITH_UNCOMPRESSED_SIZE), which say
 * how to read them back but not the algorithm (give -a when decoding LZ4,
 * Snappy or deflate).  Decompression strips a known suffix and refuses
 * others, so it never guesses an output name.
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
    switch (algorithm) {
    case OC_ALGO_LZ4:
        return ".lz4";
    case OC_ALGO_SNAPPY:
        return ".sz";
    case OC_ALGO_ZSTD:
        return ".zst";
    default:
        return ".gz";
    }
}

typedef struct suffix_entry {
    const char *suffix;
    oc_algorithm algorithm;
    oc_bitstream_kind kind;
} suffix_entry;

static const suffix_entry known_suffixes[] = {
    {".zst", OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE},
    {".zstd", OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE},
    {".lz4", OC_ALGO_LZ4, OC_BITSTREAM_NATIVE},
    {".gz", OC_ALGO_GZIP, OC_BITSTREAM_NATIVE},
    {".sz", OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE},
    {".raw", OC_ALGO_NONE, OC_BITSTREAM_RAW},
    {".sized", OC_ALGO_NONE, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE},
};

char *cli_strip_suffix(const char *path, oc_algorithm *hint_algorithm, oc_bitstream_kind *hint_kind)
{
    size_t len = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t base_start = slash ? (size_t)(slash - path) + 1 : 0;
    for (size_t i = 0; i < sizeof known_suffixes / sizeof known_suffixes[0]; i++) {
        size_t sl = strlen(known_suffixes[i].suffix);
        /* The name must keep at least one character besides the suffix. */
        if (len > base_start + sl && strcmp(path + len - sl, known_suffixes[i].suffix) == 0) {
            char *out = malloc(len - sl + 1);
            if (!out)
                return NULL;
            memcpy(out, path, len - sl);
            out[len - sl] = '\0';
            *hint_algorithm = known_suffixes[i].algorithm;
            *hint_kind = known_suffixes[i].kind;
            return out;
        }
    }
    return NULL;
}
