/*
 * args.c - the command line of `opencomp`: subcommand words and -d/-z/-t/-l
 * shortcuts, short option clusters (-cf, -19, -dc), long options
 * (--level=5, --level 5, --fast=3) and "--"; the habits of zstd, lz4 and
 * gzip (-k, -t, -l as list, --ultra, --format=).  Hand-written rather than getopt_long so
 * the command builds with strict C11 and parses the same everywhere.
 * Every malformed value is one error line and exit status 1.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: opencomp [compress|decompress|info|bench] [options] [FILE...]\n"
    "\n"
    "commands (default: compress):\n"
    "  compress, -z       compress each FILE to FILE.zst (.lz4 .gz .sz per algorithm)\n"
    "  decompress, -d     decompress each FILE, stripping its suffix (.tzst .tlz4 .tgz: .tar)\n"
    "  -t, --test         decompress each FILE and check it; write nothing\n"
    "  info, -l, --list   show container, algorithm, chunks, sizes, ratio, checksums\n"
    "  bench              measure ratio and GB/s (no FILE: a built-in 16 MiB sample)\n"
    "\n"
    "options:\n"
    "  -a, --algorithm A  %s (default zstd; bench: a list)\n"
    "      --format=A     the same as -a (zstd's spelling: --format=gzip, --format=lz4)\n"
    "  -#, --level=N      compression level: -1 .. -19 (0 = the algorithm's default)\n"
    "      --fast[=N]     fast levels: zstd -N, lz4 acceleration N (default 1)\n"
    "      --ultra        allow zstd levels 20..22\n"
    "      --chunk-size S chunk size, K/M suffixes (default 64K; bench: a list, e.g. 64K,1M)\n"
    "  -T, --threads N    CPU threads (default: all cores)\n"
    "      --checksum P   none | compute | verify (default verify: write and verify)\n"
    "      --kind K       native | raw | size (default native: the format's own container)\n"
    "  -o, --output FILE  write to FILE (one input only)\n"
    "  -c, --stdout       write to standard output\n"
    "  -f, --force        overwrite existing outputs; write binary data to a terminal\n"
    "  -k, --keep         keep the inputs (the default; accepted as zstd and lz4 do)\n"
    "  -r, --recursive    the files under each directory FILE (-d: those with a known suffix)\n"
    "      --rm           remove each input after its output is complete and verified\n"
    "      --memory S     zstd: largest window to set aside (default 128M, at most 2G), as zstd --memory\n"
    "      --data-type T  cascaded, ans, bitcomp: element type, |u1 <i4 <u8 <f2 ... or u8 i32 u64 f16 bf16 "
    "...\n"
    "                     (default |u1; ans: 1- and 2-byte types)\n"
    "      --algorithm-type N  bitcomp: 0 (default) or 1 (sparse: mostly zeros, faster to encode)\n"
    "      --num-rles N   cascaded: run-length layers 0..3 (default 2)\n"
    "      --num-deltas N cascaded: delta layers 0..3 (default 1)\n"
    "      --bitpack B    cascaded: bit-pack the last layers, 0 or 1 (default 1)\n"
    "      --layers auto  cascaded: choose the layers per 16 KiB tile (smallest output)\n"
    "  -q, --quiet        no warnings, no progress bar\n"
    "  -v, --verbose      say what was done\n"
    "      --repeat N     bench: timed repetitions after one warm-up (default 3)\n"
    "      --json FILE    bench: also write the results as JSON\n"
    "  -h, --help         this text\n"
    "  -V, --version      version and build information\n"
    "\n"
    "FILE '-' or no FILE reads standard input (and writes standard output).\n";

void cli_algorithm_list(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    for (oc_algorithm a = (oc_algorithm)1; oc_algorithm_get_info(a, &info) == OC_OK;
         a = (oc_algorithm)(a + 1)) {
        int n = snprintf(buf + used, cap - used, "%s%s", used ? " " : "", info.name);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
}

int cli_type_fits(oc_algorithm algorithm, oc_data_type type, char *buf, size_t cap)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    size_t w = oc_data_type_size(type);
    if (oc_algorithm_get_info(algorithm, &info) != OC_OK || info.type_widths == 0 ||
        type == OC_TYPE_DEFAULT || (w < 32 && (info.type_widths >> w) & 1u))
        return 1;
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned b = 1; b < 32; b++) {
        if (!((info.type_widths >> b) & 1u))
            continue;
        int more = (info.type_widths >> (b + 1)) != 0;
        int n = snprintf(buf + used, cap - used, "%s%u", used ? (more ? ", " : " or ") : "", b);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
    return 0;
}

int cli_max_algorithm_type(oc_algorithm algorithm)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    return oc_algorithm_get_info(algorithm, &info) == OC_OK ? info.max_algorithm_type : 0;
}

static int parse_int(const char *name, const char *text, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < min || v > max) {
        cli_error(NULL, "invalid value '%s' for %s", text, name);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int cli_parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift) {
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
    }
    if (*end != '\0' || v == 0 || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

/* Splits a comma list and calls `one` on each item. */
static int parse_algorithms(const char *text, cli_options *opts)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        cli_error(NULL, "algorithm list too long");
        return -1;
    }
    strcpy(buf, text);
    opts->num_algorithms = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        oc_algorithm a;
        if (strcmp(tok, "all") == 0) {
            opts->num_algorithms = 0; /* the bench default: all of them */
            continue;
        }
        if (oc_algorithm_from_name(tok, &a) != OC_OK || a == OC_ALGO_NONE) {
            char list[256];
            cli_algorithm_list(list, sizeof list);
            cli_error(NULL, "unknown algorithm '%s' (%s)", tok, list);
            return -1;
        }
        if (opts->num_algorithms == CLI_MAX_ALGOS) {
            cli_error(NULL, "too many algorithms");
            return -1;
        }
        opts->algorithms[opts->num_algorithms++] = a;
    }
    return 0;
}

static int parse_chunk_sizes(const char *text, cli_options *opts)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        cli_error(NULL, "chunk size list too long");
        return -1;
    }
    strcpy(buf, text);
    opts->num_chunk_sizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        size_t s;
        if (cli_parse_size(tok, &s) != 0) {
            cli_error(NULL, "invalid chunk size '%s' (e.g. 65536, 64K, 1M)", tok);
            return -1;
        }
        if (opts->num_chunk_sizes == CLI_MAX_CHUNK_SIZES) {
            cli_error(NULL, "too many chunk sizes");
            return -1;
        }
        opts->chunk_sizes[opts->num_chunk_sizes++] = s;
    }
    if (opts->num_chunk_sizes == 0) {
        cli_error(NULL, "invalid chunk size '%s'", text);
        return -1;
    }
    return 0;
}

static int set_command(cli_options *opts, cli_command cmd)
{
    if (opts->command != CLI_CMD_NONE && opts->command != cmd) {
        cli_error(NULL, "more than one command given");
        return -1;
    }
    opts->command = cmd;
    opts->explicit_command = 1;
    return 0;
}

/* Long option table: name, takes a value, short equivalent or a code. */
enum {
    OPT_CHUNK = 256,
    OPT_CHECKSUM,
    OPT_KIND,
    OPT_RM,
    OPT_REPEAT,
    OPT_JSON,
    OPT_MEMORY,
    OPT_DATA_TYPE,
    OPT_NUM_RLES,
    OPT_NUM_DELTAS,
    OPT_BITPACK,
    OPT_LAYERS,
    OPT_ALGORITHM_TYPE,
    OPT_FAST,
    OPT_ULTRA,
    OPT_FORMAT
};
typedef struct long_opt {
    const char *name;
    int has_arg;
    int code;
} long_opt;
/* has_arg 2: an optional value, given as --name=VALUE only. */
static const long_opt long_opts[] = {{"algorithm", 1, 'a'},
                                     {"format", 1, OPT_FORMAT},
                                     {"level", 1, 'L'},
                                     {"fast", 2, OPT_FAST},
                                     {"ultra", 0, OPT_ULTRA},
                                     {"keep", 0, 'k'},
                                     {"recursive", 0, 'r'},
                                     {"test", 0, 't'},
                                     {"list", 0, 'l'},
                                     {"chunk-size", 1, OPT_CHUNK},
                                     {"threads", 1, 'T'},
                                     {"checksum", 1, OPT_CHECKSUM},
                                     {"kind", 1, OPT_KIND},
                                     {"output", 1, 'o'},
                                     {"stdout", 0, 'c'},
                                     {"force", 0, 'f'},
                                     {"rm", 0, OPT_RM},
                                     {"memory", 1, OPT_MEMORY},
                                     {"data-type", 1, OPT_DATA_TYPE},
                                     {"algorithm-type", 1, OPT_ALGORITHM_TYPE},
                                     {"num-rles", 1, OPT_NUM_RLES},
                                     {"num-deltas", 1, OPT_NUM_DELTAS},
                                     {"bitpack", 1, OPT_BITPACK},
                                     {"layers", 1, OPT_LAYERS},
                                     {"quiet", 0, 'q'},
                                     {"verbose", 0, 'v'},
                                     {"repeat", 1, OPT_REPEAT},
                                     {"json", 1, OPT_JSON},
                                     {"help", 0, 'h'},
                                     {"version", 0, 'V'},
                                     {"decompress", 0, 'd'},
                                     {"compress", 0, 'z'},
                                     {NULL, 0, 0}};

/* Cascaded's layers as given so far (the others keep nvCOMP's defaults
 * 2, 1, 1) -> opts->typed.cascaded. */
static int cascaded_layer(cli_options *opts, int which, const char *name, const char *val)
{
    int v;
    if (parse_int(name, val, 0, which == 2 ? 1 : 3, &v) != 0)
        return -1;
    if (opts->typed.cascaded == OC_CASCADED_AUTO) {
        cli_error(NULL, "%s cannot be combined with --layers auto", name);
        return -1;
    }
    int *g = opts->layers;
    g[which] = v;
    opts->typed.cascaded = OC_CASCADED_LAYERS(g[0] < 0 ? 2 : g[0], g[1] < 0 ? 1 : g[1], g[2] < 0 ? 1 : g[2]);
    return 0;
}

/* Applies one option; returns 0, -1 on error, 2 for --help/--version. */
static int apply(cli_options *opts, int code, const char *name, const char *val)
{
    switch (code) {
    case 'a':
    case OPT_FORMAT:
        return parse_algorithms(val, opts);
    case 'L':
        opts->level_given = 1;
        return parse_int(name, val, -1000000, 1000, &opts->level);
    case OPT_FAST: {
        int n = 1;
        if (val && parse_int(name, val, 1, 1000000, &n) != 0)
            return -1;
        opts->level_given = 1;
        opts->level = -n;
        return 0;
    }
    case OPT_ULTRA:
        opts->ultra = 1;
        return 0;
    case 'k':
        return 0; /* keeping the input is the default */
    case 'r':
        opts->recursive = 1;
        return 0;
    case 't':
        return set_command(opts, CLI_CMD_TEST);
    case 'l':
        return set_command(opts, CLI_CMD_INFO);
    case OPT_CHUNK:
        return parse_chunk_sizes(val, opts);
    case 'T':
        return parse_int(name, val, 0, 4096, &opts->threads);
    case OPT_CHECKSUM:
        if (strcmp(val, "none") == 0)
            opts->checksum = OC_CHECKSUM_NONE;
        else if (strcmp(val, "compute") == 0)
            opts->checksum = OC_CHECKSUM_COMPUTE;
        else if (strcmp(val, "verify") == 0)
            opts->checksum = OC_CHECKSUM_VERIFY;
        else {
            cli_error(NULL, "invalid value '%s' for %s (none, compute, verify)", val, name);
            return -1;
        }
        return 0;
    case OPT_KIND:
        if (strcmp(val, "native") == 0)
            opts->kind = OC_BITSTREAM_NATIVE;
        else if (strcmp(val, "raw") == 0)
            opts->kind = OC_BITSTREAM_RAW;
        else if (strcmp(val, "size") == 0)
            opts->kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
        else {
            cli_error(NULL, "invalid value '%s' for %s (native, raw, size)", val, name);
            return -1;
        }
        opts->kind_given = 1;
        return 0;
    case 'o':
        opts->output = val;
        return 0;
    case 'c':
        opts->to_stdout = 1;
        return 0;
    case 'f':
        opts->force = 1;
        return 0;
    case OPT_RM:
        opts->remove_input = 1;
        return 0;
    case OPT_MEMORY: {
        size_t m;
        if (cli_parse_size(val, &m) != 0 || m > OC_MAX_MEMORY_LIMIT) {
            cli_error(NULL, "invalid value '%s' for %s (e.g. 512M, 2G; at most 2G)", val, name);
            return -1;
        }
        opts->memory_limit = m;
        return 0;
    }
    case OPT_DATA_TYPE:
        if (oc_data_type_from_name(val, &opts->typed.data_type) != OC_OK) {
            cli_error(NULL, "invalid value '%s' for %s (e.g. |u1, <i4, <u8, i32, u64, f64)", val, name);
            return -1;
        }
        return 0;
    case OPT_ALGORITHM_TYPE:
        return parse_int(name, val, 0, 1, &opts->typed.algorithm_type);
    case OPT_NUM_RLES:
        return cascaded_layer(opts, 0, name, val);
    case OPT_NUM_DELTAS:
        return cascaded_layer(opts, 1, name, val);
    case OPT_BITPACK:
        return cascaded_layer(opts, 2, name, val);
    case OPT_LAYERS:
        if (strcmp(val, "auto") != 0) {
            cli_error(NULL, "invalid value '%s' for %s (auto)", val, name);
            return -1;
        }
        if (opts->typed.cascaded != OC_CASCADED_DEFAULT && opts->typed.cascaded != OC_CASCADED_AUTO) {
            cli_error(NULL, "%s auto cannot be combined with --num-rles, --num-deltas, --bitpack", name);
            return -1;
        }
        opts->typed.cascaded = OC_CASCADED_AUTO;
        return 0;
    case 'q':
        opts->verbosity = 0;
        return 0;
    case 'v':
        opts->verbosity++;
        return 0;
    case OPT_REPEAT:
        return parse_int(name, val, 1, 1000000, &opts->repeat);
    case OPT_JSON:
        opts->json_path = val;
        return 0;
    case 'h': {
        char list[256];
        cli_algorithm_list(list, sizeof list);
        printf(usage_text, list);
        return 2;
    }
    case 'V':
        printf("opencomp %s\n%s\n", oc_version_string(), oc_build_info());
        return 2;
    case 'd':
        return set_command(opts, CLI_CMD_DECOMPRESS);
    case 'z':
        return set_command(opts, CLI_CMD_COMPRESS);
    default:
        cli_error(NULL, "internal error: option %d", code);
        return -1;
    }
}

static const char short_with_arg[] = "aoT";
static const char short_flags[] = "cfqvhVdzkltr";

int cli_parse_args(int argc, char **argv, cli_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->checksum = OC_CHECKSUM_VERIFY;
    opts->kind = OC_BITSTREAM_NATIVE;
    opts->verbosity = 1;
    opts->repeat = 3;
    opts->layers[0] = opts->layers[1] = opts->layers[2] = -1;
    opts->files = calloc((size_t)argc + 1, sizeof *opts->files);
    if (!opts->files) {
        cli_error(NULL, "out of memory");
        return 1;
    }
    int only_operands = 0;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (only_operands || arg[0] != '-' || strcmp(arg, "-") == 0) {
            /* The first operand may be a command word. */
            if (!only_operands && opts->num_files == 0 && opts->command == CLI_CMD_NONE) {
                cli_command cmd = CLI_CMD_NONE;
                if (strcmp(arg, "compress") == 0)
                    cmd = CLI_CMD_COMPRESS;
                else if (strcmp(arg, "decompress") == 0)
                    cmd = CLI_CMD_DECOMPRESS;
                else if (strcmp(arg, "info") == 0)
                    cmd = CLI_CMD_INFO;
                else if (strcmp(arg, "bench") == 0)
                    cmd = CLI_CMD_BENCH;
                if (cmd != CLI_CMD_NONE) {
                    opts->command = cmd;
                    opts->explicit_command = 1;
                    continue;
                }
            }
            opts->files[opts->num_files++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_operands = 1;
            continue;
        }
        if (arg[1] == '-') { /* long option */
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const long_opt *lo = NULL;
            for (const long_opt *p = long_opts; p->name; p++)
                if (strlen(p->name) == len && strncmp(p->name, name, len) == 0)
                    lo = p;
            if (!lo) {
                cli_error(NULL, "unknown option '%s' (see --help)", arg);
                return 1;
            }
            const char *val = NULL;
            if (lo->has_arg == 2) {
                val = eq ? eq + 1 : NULL;
            } else if (lo->has_arg) {
                if (eq)
                    val = eq + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    cli_error(NULL, "option '--%s' needs a value", lo->name);
                    return 1;
                }
            } else if (eq) {
                cli_error(NULL, "option '--%s' takes no value", lo->name);
                return 1;
            }
            char display[64];
            snprintf(display, sizeof display, "--%s", lo->name);
            int r = apply(opts, lo->code, display, val);
            if (r != 0)
                return r < 0 ? 1 : 2;
            continue;
        }
        /* -1 .. -19: a level, as gzip and zstd accept. */
        if (arg[1] >= '0' && arg[1] <= '9') {
            opts->level_given = 1;
            if (parse_int("level", arg + 1, 0, 1000, &opts->level) != 0)
                return 1;
            continue;
        }
        /* A cluster of short options. */
        for (const char *p = arg + 1; *p; p++) {
            char display[4] = {'-', *p, 0, 0};
            if (strchr(short_with_arg, *p)) {
                const char *val;
                if (p[1])
                    val = p + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    cli_error(NULL, "option '%s' needs a value", display);
                    return 1;
                }
                int r = apply(opts, *p, display, val);
                if (r != 0)
                    return r < 0 ? 1 : 2;
                break;
            }
            if (!strchr(short_flags, *p)) {
                cli_error(NULL, "unknown option '%s' (see --help)", display);
                return 1;
            }
            int r = apply(opts, *p, display, NULL);
            if (r != 0)
                return r < 0 ? 1 : 2;
        }
    }
    if (opts->command == CLI_CMD_NONE)
        opts->command = CLI_CMD_COMPRESS;
    return 0;
}
