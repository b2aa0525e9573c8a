/*
 * algo_table.c - the rows of the algorithm descriptor table (algo_table.h)
 * and the public calls that read it: names, levels, compress bounds,
 * algorithm info.  Engines and the API layer validate levels against these
 * rows, so the ranges live in exactly one place.
 *
 * The bound formulas are the formats' own worst cases, equal to the
 * reference libraries' (liblz4's LZ4_COMPRESSBOUND, snappy's
 * MaxCompressedLength, libdeflate 1.14's deflate/zlib/gzip bounds,
 * ZSTD_COMPRESSBOUND); tests/c/test_algo_table.c checks them against the
 * libraries for many sizes.
 */
#include "algo_table.h"

#include <string.h>

/* The engines' codecs and the containers, named by symbol (algo_table.h). */
#define OC_CPU_CODEC(x) extern const struct oc_cpu_codec oc_cpu_codec_##x;
#define OC_CONTAINER(x) extern const struct oc_container_ops oc_container_##x;
OC_CPU_CODEC(lz4)
OC_CPU_CODEC(snappy)
OC_CPU_CODEC(deflate)
OC_CPU_CODEC(zstd)
OC_CPU_CODEC(blosc)
OC_CPU_CODEC(cascaded)
OC_CPU_CODEC(ans)
OC_CPU_CODEC(bitcomp)
OC_CPU_CODEC(gdeflate)
OC_CONTAINER(lz4frame)
OC_CONTAINER(snappy)
OC_CONTAINER(gzip)
OC_CONTAINER(zstd)
OC_CONTAINER(own_cascaded)
OC_CONTAINER(own_ans)
OC_CONTAINER(own_bitcomp)
OC_CONTAINER(own_gdeflate)
#undef OC_CPU_CODEC
#undef OC_CONTAINER
#ifdef OC_WITH_CUDA /* the CUDA engine is in this build */
#define OC_GPU_CODEC(x) extern const struct oc_gpu_codec oc_gpu_codec_##x;
OC_GPU_CODEC(lz4)
OC_GPU_CODEC(snappy)
OC_GPU_CODEC(deflate)
OC_GPU_CODEC(zstd)
OC_GPU_CODEC(blosc)
OC_GPU_CODEC(cascaded)
OC_GPU_CODEC(ans)
OC_GPU_CODEC(bitcomp)
OC_GPU_CODEC(gdeflate)
#undef OC_GPU_CODEC
#define GPU(x) &oc_gpu_codec_##x
#else
#define GPU(x) NULL
#endif

static int magic_zstd(const uint8_t *p, size_t n)
{
    if (n < 4)
        return 0;
    uint32_t m = oc_load_le32(p);
    return m == 0xFD2FB528u || (m & 0xFFFFFFF0u) == 0x184D2A50u; /* frame, or skippable frame */
}

static int magic_gzip(const uint8_t *p, size_t n)
{
    return n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8; /* ID1 ID2 CM=deflate */
}

static int magic_zlib(const uint8_t *p, size_t n)
{
    /* CM = 8 (deflate), CINFO <= 7 (window <= 32 KiB), FCHECK; FDICT is
     * accepted here so that such a stream reports NEEDS_DICTIONARY. */
    return n >= 2 && (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 && (((unsigned)p[0] << 8) | p[1]) % 31 == 0;
}

#define LZ4_MAX_INPUT ((size_t)0x7E000000u)    /* LZ4_MAX_INPUT_SIZE */
#define SNAPPY_MAX_INPUT ((size_t)0xFFFFFFFFu) /* the preamble is a 32-bit varint */

static size_t bound_lz4(size_t n)
{
    return n > LZ4_MAX_INPUT ? 0 : n + n / 255 + 16;
}

static size_t bound_snappy(size_t n)
{
    return n > SNAPPY_MAX_INPUT ? 0 : 32 + n + n / 6;
}

/* libdeflate: stored blocks of at least 5000 bytes, 5 header bytes each,
 * one end byte and 8 bytes of output padding; zlib adds 2 + 4, gzip 10 + 8. */
static size_t bound_deflate(size_t n)
{
    size_t blocks = n / 5000 + (n % 5000 != 0);
    if (blocks == 0)
        blocks = 1;
    if (n > SIZE_MAX / 2)
        return 0;
    return 5 * blocks + n + 1 + 8;
}

static size_t bound_zlib(size_t n)
{
    size_t b = bound_deflate(n);
    return b ? b + 6 : 0;
}

static size_t bound_gzip(size_t n)
{
    size_t b = bound_deflate(n);
    return b ? b + 18 : 0;
}

static size_t bound_zstd(size_t n)
{
    if (n >= (sizeof(size_t) == 8 ? (size_t)0xFF00FF00FF00FF00ull : (size_t)0xFF00FF00u))
        return 0; /* ZSTD_MAX_INPUT_SIZE */
    return n + (n >> 8) + (n < ((size_t)128 << 10) ? (((size_t)128 << 10) - n) >> 11 : 0);
}

/* c-blosc stores a chunk that does not shrink (flag memcpyed): at most the
 * input plus the 16-byte header; chunks hold at most 2^31 - 1 - 16 bytes. */
#define BLOSC_MAX_INPUT ((size_t)0x7FFFFFEFu)
static size_t bound_blosc(size_t n)
{
    return n > BLOSC_MAX_INPUT ? 0 : n + 16;
}

/* Cascaded (src/cores/cascaded/cascaded_core.h, cz_bound): an 8-byte
 * header, a 4-byte table entry per tile of at most 8192 elements, and
 * tiles that are never larger than their input. */
#define CASCADED_MAX_INPUT ((size_t)0xFFFFFFFFu)
static size_t bound_cascaded(size_t n)
{
    if (n > CASCADED_MAX_INPUT)
        return 0;
    return 8 + 4 * ((n + 8191) / 8192) + n;
}

/* ANS (src/cores/ans/ans_core.h, ans_bound): the 8-byte header, the mode
 * byte and the data stored when coding does not pay. */
static size_t bound_ans(size_t n)
{
    return n > CASCADED_MAX_INPUT ? 0 : n + 9;
}

/* Bitcomp (src/cores/bitcomp/bitcomp_core.h, bc_bound): the 8-byte header,
 * a 4-byte table entry per tile of 4096 elements (most with 1-byte
 * elements), and tiles never larger than their input. */
static size_t bound_bitcomp(size_t n)
{
    return n > CASCADED_MAX_INPUT ? 0 : 8 + 4 * ((n + 4095) / 4096) + n;
}

/* GDeflate (src/cpu/codecs/gdeflate/gdeflate_core.h): stored blocks of at
 * most 65535 bytes, 19 header bits each, dealt over 32 lanes; a lane of B
 * bits takes ceil(B / 32) + 1 words, since the decoder keeps 32 bits ahead. */
#define GDEFLATE_MAX_INPUT ((size_t)65536)
static size_t bound_gdeflate(size_t n)
{
    if (n > GDEFLATE_MAX_INPUT)
        return 0;
    return n + 4 * (n / 65535 + 1) + 64 * 4 + 8;
}

static const char *const none[] = {NULL};
static const char *const sfx_lz4[] = {".lz4", NULL};
static const char *const sfx_snappy[] = {".sz", NULL};
static const char *const sfx_gzip[] = {".gz", NULL};
static const char *const sfx_zstd[] = {".zst", ".zstd", NULL};
static const char *const sfx_cascaded[] = {".cascaded", NULL};
static const char *const sfx_ans[] = {".ans", NULL};
static const char *const sfx_bitcomp[] = {".bitcomp", NULL};

#define LIBDEFLATE_MAX ((uint64_t)SIZE_MAX / 2)

/* deflate, zlib and gzip share libdeflate's levels, the gzip-members
 * container, the CPU codec and the GPU codec; their streams differ by the
 * wrapper.  Deflate expands at most 258 bytes per 2 bits (1032:1). */
#define DEFLATE_FAMILY                                                                                       \
    .min_level = 1, .max_level = 12, .default_level = 6, .has_levels = 1, .max_chunk = LIBDEFLATE_MAX,       \
    .max_expansion = 1032, .suffix = ".gz", .aliases = none, .container = &oc_container_gzip,                \
    .native_chunks = OC_ALGO_DEFLATE, .cpu = &oc_cpu_codec_deflate, .gpu = GPU(deflate)

static const oc_algo_desc rows[OC_ALGO_COUNT] = {
    [OC_ALGO_LZ4] =
        {
            .id = OC_ALGO_LZ4,
            .name = "lz4",
            .display_name = "LZ4",
            .aliases = none,
            .suffix = ".lz4",
            .decode_suffixes = sfx_lz4,
            /* 1 = fast (default), negative = acceleration (LZ4_ACCELERATION_MAX), 2..12 HC */
            .min_level = -65536,
            .max_level = 12,
            .default_level = 1,
            .has_levels = 1,
            .max_chunk = LZ4_MAX_INPUT,
            .bound = bound_lz4,
            .max_expansion = 256, /* 255 bytes per length byte */
            .magic = NULL,
            .container = &oc_container_lz4frame,
            .native_chunks = OC_ALGO_LZ4,
            .cpu = &oc_cpu_codec_lz4,
            .gpu = GPU(lz4),
        },
    [OC_ALGO_SNAPPY] =
        {
            .id = OC_ALGO_SNAPPY,
            .name = "snappy",
            .display_name = "Snappy",
            .aliases = none,
            .suffix = ".sz",
            .decode_suffixes = sfx_snappy,
            .has_levels = 0, /* any level accepted and ignored */
            .max_chunk = SNAPPY_MAX_INPUT,
            .bound = bound_snappy,
            .max_expansion = 22, /* 64 bytes per 3-byte copy */
            .magic = NULL,
            .container = &oc_container_snappy,
            .native_chunks = OC_ALGO_SNAPPY,
            .cpu = &oc_cpu_codec_snappy,
            .gpu = GPU(snappy),
        },
    [OC_ALGO_DEFLATE] = {.id = OC_ALGO_DEFLATE,
                         .name = "deflate",
                         .display_name = "Deflate",
                         .decode_suffixes = none,
                         .bound = bound_deflate,
                         .magic = NULL,
                         DEFLATE_FAMILY},
    [OC_ALGO_ZLIB] = {.id = OC_ALGO_ZLIB,
                      .name = "zlib",
                      .display_name = "Zlib",
                      .decode_suffixes = none,
                      .bound = bound_zlib,
                      .magic = magic_zlib,
                      DEFLATE_FAMILY},
    [OC_ALGO_GZIP] = {.id = OC_ALGO_GZIP,
                      .name = "gzip",
                      .display_name = "Gzip",
                      .decode_suffixes = sfx_gzip,
                      .bound = bound_gzip,
                      .magic = magic_gzip,
                      DEFLATE_FAMILY},
    [OC_ALGO_ZSTD] =
        {
            .id = OC_ALGO_ZSTD,
            .name = "zstd",
            .display_name = "Zstd",
            .aliases = none,
            .suffix = ".zst",
            .decode_suffixes = sfx_zstd,
            /* -7..-1 fast, 1..19 normal, 20..22 ultra */
            .min_level = -7,
            .max_level = 22,
            .default_level = 3,
            .has_levels = 1,
            .max_chunk = (uint64_t)0xFF00FF00FF00FF00ull,
            .bound = bound_zstd,
            .max_expansion = 32768, /* a 128 KiB RLE block per 4 bytes */
            .magic = magic_zstd,
            .container = &oc_container_zstd,
            .native_chunks = OC_ALGO_ZSTD,
            .cpu = &oc_cpu_codec_zstd,
            .gpu = GPU(zstd),
        },
    [OC_ALGO_BLOSC] =
        {
            .id = OC_ALGO_BLOSC,
            .name = "blosc",
            .display_name = "Blosc",
            .aliases = none,
            .suffix = ".blosc",
            .decode_suffixes = none,
            .min_level = -1, /* c-blosc's clevel 1..9; -1 is its clevel 0 (store), since 0 means default */
            .max_level = 9,
            .default_level = 5,
            .has_levels = 1,
            .max_chunk = BLOSC_MAX_INPUT,
            .bound = bound_blosc,
            .max_expansion = 32768, /* a zstd stream's; the header's nbytes is checked against the blocks */
            .magic = NULL,          /* no magic number: version 2, versionlz 1 say too little */
            .container = NULL,
            .native_chunks = OC_ALGO_BLOSC,
            .cpu = &oc_cpu_codec_blosc,
            .gpu = GPU(blosc), /* decoding and compression (blosclz, zlib and size queries host-staged) */
        },
    [OC_ALGO_CASCADED] =
        {
            .id = OC_ALGO_CASCADED,
            .name = "cascaded",
            .display_name = "Cascaded",
            .aliases = none,
            .suffix = ".cascaded",
            .decode_suffixes = sfx_cascaded,
            .has_levels = 0, /* layers are options (oc_typed_options), not levels */
            .max_chunk = CASCADED_MAX_INPUT,
            .bound = bound_cascaded,
            /* the smallest tile of 16 KiB (8192 2-byte elements, all equal) takes 11 bytes
             * with its table entry since format version 2: layer byte 1, the value stream in
             * mode 2 of width 0 (bytes: count 2, mode 1, width 1, base 2); 16384 / 11 < 1490 (version
             * 1: 15 bytes, 1100) */
            .max_expansion = 1490,
            .magic = NULL,
            .container = &oc_container_own_cascaded,
            .native_chunks = OC_ALGO_CASCADED,
            .cpu = &oc_cpu_codec_cascaded,
            .gpu = GPU(cascaded),
            .type_widths = 0, /* every width */
        },
    [OC_ALGO_ANS] =
        {
            .id = OC_ALGO_ANS,
            .name = "ans",
            .display_name = "ANS",
            .aliases = none,
            .suffix = ".ans",
            .decode_suffixes = sfx_ans,
            .has_levels = 0,
            .max_chunk = CASCADED_MAX_INPUT,
            .bound = bound_ans,
            /* a 16384-symbol tile takes at least 132 bytes with its table entry (32
             * states, no word: one symbol of frequency 2^PB): bytes decode 124:1 at most;
             * 16-bit values store their low bytes (under 2:1) */
            .max_expansion = 128,
            .magic = NULL,
            .container = &oc_container_own_ans,
            .native_chunks = OC_ALGO_ANS,
            .cpu = &oc_cpu_codec_ans,
            .gpu = GPU(ans),
            .type_widths = (1u << 1) | (1u << 2), /* bytes; 16-bit values (<f2) */
        },
    [OC_ALGO_BITCOMP] =
        {
            .id = OC_ALGO_BITCOMP,
            .name = "bitcomp",
            .display_name = "Bitcomp",
            .aliases = none,
            .suffix = ".bitcomp",
            .decode_suffixes = sfx_bitcomp,
            .has_levels = 0, /* algorithm_type 0/1 is an option (oc_typed_options) */
            .max_chunk = CASCADED_MAX_INPUT,
            .bound = bound_bitcomp,
            /* format version 2: a tile of 4096 8-byte elements as TILE_FOR with k = 0 takes
             * 14 bytes with its table entry (kind, k, an 8-byte base, 4): 2341:1 at most
             * (version 1's most: 32 constant blocks, 292 bytes, 112:1) */
            .max_expansion = 2341,
            .magic = NULL,
            .container = &oc_container_own_bitcomp,
            .native_chunks = OC_ALGO_BITCOMP,
            .cpu = &oc_cpu_codec_bitcomp,
            .gpu = GPU(bitcomp),
            .type_widths = 0,        /* every width */
            .max_algorithm_type = 1, /* 1: "sparse" */
        },
    [OC_ALGO_GDEFLATE] =
        {
            .id = OC_ALGO_GDEFLATE,
            .name = "gdeflate",
            .display_name = "GDeflate",
            .aliases = none,
            .suffix = ".gdeflate",
            .decode_suffixes = none,
            .min_level = 1, /* the match finder's effort (opencomp.h) */
            .max_level = 9,
            .default_level = 6,
            .has_levels = 1,
            .max_chunk = GDEFLATE_MAX_INPUT, /* one 64 KiB page, as DirectStorage's tiles and nvCOMP */
            .bound = bound_gdeflate,
            .max_expansion = 1032, /* deflate's: 258 bytes per 2 bits */
            .magic = NULL,
            .container = &oc_container_own_gdeflate, /* DirectStorage's tile stream is not read yet */
            .native_chunks = OC_ALGO_GDEFLATE,
            .cpu = &oc_cpu_codec_gdeflate,
            .gpu = GPU(gdeflate), /* compression, decoding and size queries */
        },
};

const oc_algo_desc *oc_algo(oc_algorithm a)
{
    if ((unsigned)a >= OC_ALGO_COUNT || a == OC_ALGO_NONE)
        return NULL;
    return &rows[a];
}

oc_algorithm oc_algo_detect(const uint8_t *p, size_t n)
{
    for (unsigned a = 1; a < OC_ALGO_COUNT; a++)
        if (rows[a].magic && rows[a].magic(p, n))
            return (oc_algorithm)a;
    return OC_ALGO_NONE;
}

size_t oc_algo_bound(oc_algorithm a, size_t n)
{
    const oc_algo_desc *d = oc_algo(a);
    return d ? d->bound(n) : 0;
}

uint32_t oc_algo_expansion(oc_algorithm a)
{
    uint32_t ratio = 0;
    const oc_algo_desc *d = oc_algo(a);
    if (d)
        return d->max_expansion;
    for (unsigned k = 1; k < OC_ALGO_COUNT; k++)
        ratio = rows[k].max_expansion > ratio ? rows[k].max_expansion : ratio;
    return ratio;
}

uint64_t oc_algo_max_decoded(oc_algorithm a, uint64_t n)
{
    return oc_max_decoded_at(oc_algo_expansion(a), n);
}

/* ---- the public calls ------------------------------------------------------ */

const char *oc_algorithm_name(oc_algorithm algorithm)
{
    if (algorithm == OC_ALGO_NONE)
        return "none";
    const oc_algo_desc *d = oc_algo(algorithm);
    return d ? d->name : NULL;
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
    if (equal_nocase(name, "none")) {
        *out = OC_ALGO_NONE;
        return OC_OK;
    }
    /* Case-insensitive: nvCOMP's "LZ4", "Snappy", "Zstd", ... match too. */
    for (unsigned a = 1; a < OC_ALGO_COUNT; a++) {
        int hit = equal_nocase(name, rows[a].name) || equal_nocase(name, rows[a].display_name);
        for (const char *const *al = rows[a].aliases; !hit && *al; al++)
            hit = equal_nocase(name, *al);
        if (hit) {
            *out = (oc_algorithm)a;
            return OC_OK;
        }
    }
    return OC_ERR_UNSUPPORTED;
}

oc_status oc_level_range(oc_algorithm algorithm, int *min_level, int *max_level, int *default_level)
{
    const oc_algo_desc *d = oc_algo(algorithm);
    RETURN_ERROR_IF(d == NULL, OC_ERR_INVALID_ARGUMENT);
    if (min_level)
        *min_level = d->min_level;
    if (max_level)
        *max_level = d->max_level;
    if (default_level)
        *default_level = d->default_level;
    return OC_OK;
}

oc_status oc_resolve_level(oc_algorithm algorithm, int level, int *out)
{
    const oc_algo_desc *d = oc_algo(algorithm);
    RETURN_ERROR_IF(d == NULL, OC_ERR_INVALID_ARGUMENT);
    if (!d->has_levels) { /* no levels: any value accepted, ignored */
        *out = d->default_level;
        return OC_OK;
    }
    if (level == 0) {
        *out = d->default_level;
        return OC_OK;
    }
    RETURN_ERROR_IF(level < d->min_level || level > d->max_level, OC_ERR_INVALID_ARGUMENT);
    *out = level;
    return OC_OK;
}

size_t oc_compress_bound(oc_algorithm algorithm, size_t uncompressed_size)
{
    return oc_algo_bound(algorithm, uncompressed_size);
}

oc_status oc_algorithm_get_info(oc_algorithm algorithm, oc_algorithm_info *info)
{
    RETURN_ERROR_IF(info == NULL || info->struct_size != sizeof(oc_algorithm_info), OC_ERR_INVALID_ARGUMENT);
    const oc_algo_desc *d = oc_algo(algorithm);
    RETURN_ERROR_IF(d == NULL, algorithm == OC_ALGO_NONE ? OC_ERR_INVALID_ARGUMENT : OC_ERR_UNSUPPORTED);
    size_t size = info->struct_size;
    memset(info, 0, sizeof *info);
    info->struct_size = size;
    info->algorithm = d->id;
    info->name = d->name;
    info->display_name = d->display_name;
    info->aliases = d->aliases;
    info->suffix = d->suffix;
    info->decode_suffixes = d->decode_suffixes;
    info->min_level = d->min_level;
    info->max_level = d->max_level;
    info->default_level = d->default_level;
    info->has_levels = d->has_levels;
    info->self_identifying = d->magic != NULL;
    info->max_chunk_size = d->max_chunk;
    info->max_expansion = d->max_expansion;
    info->type_widths = d->type_widths;
    info->max_algorithm_type = d->max_algorithm_type;
    return OC_OK;
}
