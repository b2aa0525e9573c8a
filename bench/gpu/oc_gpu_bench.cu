/*
 * oc_gpu_bench.cu - the GPU benchmark: opencomp beside nvCOMP on the same
 * batches, from one chunk (latency) to at least 1 GiB per call (throughput).
 * This file reads the options and the corpus, measures the copy bandwidth
 * (the roofline), and hands the work to the pieces that do one job each:
 *
 *   batch_plan.c        which bytes make up each batch of the ladder
 *   ladder_budget.c     repeats and skips, so a run fits its time budget
 *   event_timer.cu      CUDA-event timing, medians, the copy bandwidth
 *   device_batch.cu     the batch on the GPU, and verification there
 *   contender_*.cu      opencomp's public API and nvCOMP's batched C API
 *   reference_codecs.c  the stock CPU libraries (stock streams, cross-checks)
 *   ladder_run.cu       the ladder: compress, cross-decode, decompress, rows
 *   zstd_cli_frames.cu  whole files the zstd CLI wrote, decoded as one chunk
 *   blosc_run.cu        --blosc: Blosc chunks (numcodecs' bytes) on the GPU, beside the plain
 *                       decoders on their split streams and c-blosc on the host's cores
 *   run_json.c          the run file (bench/SCHEMA.md)
 *
 * Method (nvCOMP's own benchmarks, at every batch size): buffers allocated
 * outside the timed region, CUDA events around one batched call, the median
 * of the timed calls after a warm-up, GB/s = uncompressed bytes / time
 * (1 GB = 1e9 B) in both directions, ratio = uncompressed / sum of the
 * compressed chunk sizes, every output compared byte by byte.  How to run it
 * and read it: bench/README.md, "Full scale".
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "batch_plan.h"
#include "blosc_run.h"
#include "event_timer.h"
#include "ladder_run.h"
#include "opencomp.h"
#include "run_json.h"
#include "zstd_cli_frames.h"

#ifdef OC_HAVE_NVCOMP
#include <nvcomp/shared_types.h>
#include <nvcomp/version.h>
#endif

extern "C" void ocb_opencomp_set_zstd_level(int level);
extern "C" void ocb_opencomp_paths_json(char *buf, size_t cap);

#define MAX_LIST 16

typedef struct options {
    const char *json, *commit, *label, *frames_dir;
    const char *codecs[MAX_LIST];
    size_t ncodecs;
    uint64_t chunks[MAX_LIST], rungs[MAX_LIST], stock[MAX_LIST];
    size_t nchunks, nrungs, nstock;
    const ocb_contender *contenders[4];
    size_t ncontenders;
    int data_type; /* --data-type: an oc_data_type, 0 = the codecs' defaults */
    const char *blosc_cnames[MAX_LIST];
    size_t nblosc_cnames;
    int blosc, blosc_clevel, chunks_given;
    int per_file, frames_only, zstd_level, threads, max_repeats, frame_levels[MAX_LIST];
    int foreign, stock_only, stock_cpu, nvcomp_algorithm, nvcomp_gzip_payload;
    size_t nframe_levels;
    int deflate_levels[MAX_LIST]; /* --deflate-level: opencomp's levels of deflate and gdeflate */
    size_t ndeflate_levels;
    double budget_s, rung_cap_s, target_s, frame_budget_s;
    uint64_t check_bytes;
    const char **files;
    size_t nfiles;
} options;

/* Split a comma list; each item through `one`; -1 on a bad item or too many. */
static int parse_list(const char *arg, int (*one)(const char *item, void *out, size_t i), void *out,
                      size_t *n)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_LIST || one(tok, out, *n) != 0)
            return -1;
        (*n)++;
    }
    return *n ? 0 : -1;
}

static int one_bytes(const char *s, void *out, size_t i)
{
    return ocb_parse_bytes(s, &((uint64_t *)out)[i]);
}

static int one_rung(const char *s, void *out, size_t i)
{
    return ocb_parse_rung(s, &((uint64_t *)out)[i]);
}

static int one_codec(const char *s, void *out, size_t i)
{
    for (size_t k = 0; k < ocb_ncodecs; k++)
        if (strcmp(s, ocb_codecs[k]) == 0) {
            ((const char **)out)[i] = ocb_codecs[k];
            return 0;
        }
    return -1;
}

static int one_contender(const char *s, void *out, size_t i)
{
    const ocb_contender **o = (const ocb_contender **)out;
    if (strcmp(s, "opencomp") == 0)
        o[i] = &ocb_contender_opencomp;
    else if (strcmp(s, "nvcomp") == 0)
        o[i] = &ocb_contender_nvcomp;
    else
        return -1;
    return 0;
}

static int one_cname(const char *s, void *out, size_t i)
{
    static const char *const names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(s, names[k]) == 0) {
            ((const char **)out)[i] = names[k];
            return 0;
        }
    return -1;
}

static int one_int(const char *s, void *out, size_t i)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < -1000 || v > 1000)
        return -1;
    ((int *)out)[i] = (int)v;
    return 0;
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: oc_gpu_bench [options] FILE...\n"
        "  --json F            write the run file (bench/SCHEMA.md); rewritten after every codec\n"
        "  --commit SHA        the commit recorded\n"
        "  --label NAME        the rows' \"file\" for the mix (default: \"mix of N files\")\n"
        "  --codecs LIST       lz4,snappy,deflate,zstd,gdeflate (the default), zlib,gzip, "
        "cascaded,bitcomp,ans\n"
        "  --data-type T       element type of cascaded/bitcomp/ans (<i4, <i8, <f4, bf16, <f2, ...) on both\n"
        "                      contenders (default: each codec's default); give files of that type\n"
        "  --chunks LIST       chunk sizes (default 64K,256K,1M,4M)\n"
        "  --sizes LIST        ladder rungs: 1c (one chunk), sizes (1M, 1G), all (the corpus once)\n"
        "                      (default 1c,1M,32M,256M,1G)\n"
        "  --per-file          a ladder per file instead of one over the mix of all files\n"
        "  --contenders LIST   opencomp,nvcomp (default: both)\n"
        "  --stock LIST|none   chunk sizes whose stock-library streams are decoded too (default 1M,4M):\n"
        "                      liblz4 blocks, numcodecs' zstd frames, gzip -6 members\n"
        "  --stock-only        only the stock streams' rows (not each contender's own streams)\n"
        "  --stock-cpu         the stock streams of the largest rung decoded by opencomp's CPU engine too\n"
        "                      (host memory, --threads threads, wall clock)\n"
        "  --foreign           each contender's streams decoded by the other contenders too, timed\n"
        "                      (nvCOMP's GDeflate pages decoded by opencomp, and the reverse)\n"
        "  --nvcomp-algorithm N  nvCOMP's `algorithm` for deflate, zlib, gzip and gdeflate compression\n"
        "                      (0..5; default: nvCOMP's default, 1)\n"
        "  --nvcomp-gzip-payload  nvCOMP's gzip decoding by its Deflate on the members' raw payloads (a\n"
        "                      kernel of ours strips header and trailer) instead of its Gzip API\n"
        "  --budget S          seconds for the whole run (default 420): later rungs are skipped, and named\n"
        "  --rung-cap S        most seconds one rung may take, warm-up included (default 8)\n"
        "  --target S          seconds the timed calls of a rung aim at (default 0.5)\n"
        "  --max-repeats N     most timed calls per rung (default 15)\n"
        "  --check-size BYTES  the rung the cross-decoding runs on (default 32M)\n"
        "  --zstd-level N      opencomp's zstd level (default 3)\n"
        "  --deflate-level L   opencomp's deflate/zlib/gzip/gdeflate levels, each its own rows (nvCOMP runs\n"
        "                      once, with the first): 0 = the default level (6), 1 = fast, .. 12; e.g. 0,1\n"
        "                      (default 0)\n"
        "  --threads N         CPU threads for the reference libraries (default: all)\n"
        "  --frames DIR        also decode DIR/<file>.l<level>.zst whole (zstd CLI single frames)\n"
        "  --frame-levels L    levels of those frames (default 3,19)\n"
        "  --frame-budget S    seconds of frame decodes per GPU contender (default 50)\n"
        "  --frames-only       only the single frames\n"
        "  --blosc             instead of the ladder: Blosc chunks written by libblosc (numcodecs' Blosc) "
        "from\n"
        "                      the files grouped by typesize (.i32/.f32: 4, .i64/.f64: 8), chunk sizes\n"
        "                      --chunks (default 1M,4M), one batch of the largest --sizes (default 1G), "
        "byte\n"
        "                      shuffle and bitshuffle: opencomp's GPU Blosc decoder, the plain decoder on "
        "the\n"
        "                      same split streams, c-blosc on --threads cores (no GPU: the host side only)\n"
        "  --blosc-codecs L    inner codecs of --blosc (default lz4,zstd; any c-blosc cname)\n"
        "  --blosc-clevel N    c-blosc's clevel (default 5, numcodecs' default)\n");
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->commit = "unknown";
    o->zstd_level = 3;
    o->budget_s = 420;
    o->rung_cap_s = 8;
    o->target_s = 0.5;
    o->max_repeats = 15;
    o->frame_budget_s = 50;
    o->check_bytes = 32u << 20;
    o->threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    o->nvcomp_algorithm = -1;
    parse_list("lz4,snappy,deflate,zstd,gdeflate", one_codec, (void *)o->codecs, &o->ncodecs);
    parse_list("64K,256K,1M,4M", one_bytes, o->chunks, &o->nchunks);
    parse_list("1c,1M,32M,256M,1G", one_rung, o->rungs, &o->nrungs);
    parse_list("1M,4M", one_bytes, o->stock, &o->nstock);
    parse_list("opencomp,nvcomp", one_contender, (void *)o->contenders, &o->ncontenders);
    parse_list("3,19", one_int, o->frame_levels, &o->nframe_levels);
    parse_list("0", one_int, o->deflate_levels, &o->ndeflate_levels);
    parse_list("lz4,zstd", one_cname, (void *)o->blosc_cnames, &o->nblosc_cnames);
    o->blosc_clevel = 5;
    o->files = (const char **)calloc((size_t)argc, sizeof *o->files);
    int bad = !o->files;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--json") == 0 && v)
            o->json = v;
        else if (strcmp(a, "--commit") == 0 && v)
            o->commit = v;
        else if (strcmp(a, "--label") == 0 && v)
            o->label = v;
        else if (strcmp(a, "--codecs") == 0 && v)
            bad = parse_list(v, one_codec, (void *)o->codecs, &o->ncodecs) != 0;
        else if (strcmp(a, "--chunks") == 0 && v) {
            bad = parse_list(v, one_bytes, o->chunks, &o->nchunks) != 0;
            o->chunks_given = 1;
        } else if (strcmp(a, "--blosc-codecs") == 0 && v)
            bad = parse_list(v, one_cname, (void *)o->blosc_cnames, &o->nblosc_cnames) != 0;
        else if (strcmp(a, "--blosc-clevel") == 0 && v)
            bad = (o->blosc_clevel = atoi(v)) < 1 || o->blosc_clevel > 9;
        else if (strcmp(a, "--sizes") == 0 && v)
            bad = parse_list(v, one_rung, o->rungs, &o->nrungs) != 0;
        else if (strcmp(a, "--stock") == 0 && v) {
            if (strcmp(v, "none") == 0)
                o->nstock = 0;
            else
                bad = parse_list(v, one_bytes, o->stock, &o->nstock) != 0;
        } else if (strcmp(a, "--contenders") == 0 && v)
            bad = parse_list(v, one_contender, (void *)o->contenders, &o->ncontenders) != 0;
        else if (strcmp(a, "--budget") == 0 && v)
            bad = (o->budget_s = atof(v)) <= 0;
        else if (strcmp(a, "--rung-cap") == 0 && v)
            bad = (o->rung_cap_s = atof(v)) <= 0;
        else if (strcmp(a, "--target") == 0 && v)
            bad = (o->target_s = atof(v)) <= 0;
        else if (strcmp(a, "--max-repeats") == 0 && v)
            bad = (o->max_repeats = atoi(v)) < 1;
        else if (strcmp(a, "--check-size") == 0 && v)
            bad = ocb_parse_bytes(v, &o->check_bytes) != 0;
        else if (strcmp(a, "--data-type") == 0 && v) {
            oc_data_type t = OC_TYPE_DEFAULT;
            bad = oc_data_type_from_name(v, &t) != OC_OK;
            o->data_type = (int)t;
        } else if (strcmp(a, "--deflate-level") == 0 && v) {
            bad = parse_list(v, one_int, o->deflate_levels, &o->ndeflate_levels) != 0;
            for (size_t k = 0; k < o->ndeflate_levels && !bad; k++)
                bad = o->deflate_levels[k] < 0 || o->deflate_levels[k] > 12;
        } else if (strcmp(a, "--zstd-level") == 0 && v)
            bad = (o->zstd_level = atoi(v)) == 0;
        else if (strcmp(a, "--nvcomp-algorithm") == 0 && v)
            bad = (o->nvcomp_algorithm = atoi(v)) < 0 || o->nvcomp_algorithm > 5;
        else if (strcmp(a, "--threads") == 0 && v)
            bad = (o->threads = atoi(v)) < 1;
        else if (strcmp(a, "--frames") == 0 && v)
            o->frames_dir = v;
        else if (strcmp(a, "--frame-levels") == 0 && v)
            bad = parse_list(v, one_int, o->frame_levels, &o->nframe_levels) != 0;
        else if (strcmp(a, "--frame-budget") == 0 && v)
            bad = (o->frame_budget_s = atof(v)) <= 0;
        else {
            takes = 0;
            if (strcmp(a, "--per-file") == 0)
                o->per_file = 1;
            else if (strcmp(a, "--frames-only") == 0)
                o->frames_only = 1;
            else if (strcmp(a, "--foreign") == 0)
                o->foreign = 1;
            else if (strcmp(a, "--stock-only") == 0)
                o->stock_only = 1;
            else if (strcmp(a, "--stock-cpu") == 0)
                o->stock_cpu = 1;
            else if (strcmp(a, "--nvcomp-gzip-payload") == 0)
                o->nvcomp_gzip_payload = 1;
            else if (strcmp(a, "--blosc") == 0)
                o->blosc = 1;
            else if (a[0] == '-')
                bad = 1;
            else
                o->files[o->nfiles++] = a;
        }
        i += takes;
    }
    if (o->blosc && !o->chunks_given)
        parse_list("1M,4M", one_bytes, o->chunks, &o->nchunks);
    for (size_t c = 0; c < o->nchunks && !bad; c++)
        bad = o->chunks[c] > ((uint64_t)1 << 31);
    if (bad || o->nfiles == 0 || (o->frames_only && !o->frames_dir)) {
        usage();
        return -1;
    }
    return 0;
}

/* ---- corpus ---------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **data, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int rc = -1;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (*data = (uint8_t *)malloc((size_t)n)) != NULL) {
            if (fread(*data, 1, (size_t)n, f) == (size_t)n) {
                *size = (uint64_t)n;
                rc = 0;
            } else {
                free(*data);
            }
        }
    }
    fclose(f);
    return rc;
}

/* ---- the run file ---------------------------------------------------------- */

static struct {
    const options *o;
    char host[1024], device[1024], extra[4096];
} g_meta;

static void flush_json(ocb_sink *sink)
{
    if (!g_meta.o->json)
        return;
    ocb_run_meta m = {g_meta.o->commit, g_meta.host,    g_meta.device,  g_meta.extra,
                      sink->copy_gbps,  &sink->skipped, &sink->failures};
    ocb_json_write(g_meta.o->json, &m, &sink->rows);
}

static void describe_device(double copy_gbps)
{
    cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    cudaGetDeviceProperties(&p, 0);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    const char *driver = getenv("OC_DRIVER_VERSION");
    char qn[300], qd[100];
    snprintf(g_meta.device, sizeof g_meta.device,
             "{\"name\": %s, \"driver\": %s, \"driver_cuda\": \"%d.%d\", \"cuda_runtime\": \"%d.%d\", "
             "\"sms\": %d, \"memory_gib\": %.1f, \"d2d_copy_gbps\": %.1f}",
             ocb_json_str(p.name, qn, sizeof qn), ocb_json_str(driver ? driver : "unknown", qd, sizeof qd),
             drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, p.multiProcessorCount,
             (double)p.totalGlobalMem / (1 << 30), copy_gbps);
}

static void describe_run(const options *o, uint64_t distinct)
{
    char paths[512] = "", chunks[256] = "", sizes[256] = "", files[2048] = "", q[300];
    size_t off = 0;
    ocb_opencomp_paths_json(paths, sizeof paths);
    off = 0;
    for (size_t i = 0; i < o->nchunks && off < sizeof chunks; i++)
        off += (size_t)snprintf(chunks + off, sizeof chunks - off, "%s%llu", i ? ", " : "",
                                (unsigned long long)o->chunks[i]);
    off = 0;
    for (size_t i = 0; i < o->nrungs && off < sizeof sizes; i++)
        off += (size_t)snprintf(sizes + off, sizeof sizes - off, i ? ", %lld" : "%lld",
                                o->rungs[i] == OCB_RUNG_CYCLE ? -1LL : (long long)o->rungs[i]);
    off = 0;
    for (size_t i = 0; i < o->nfiles && off < sizeof files; i++) {
        const char *slash = strrchr(o->files[i], '/');
        off += (size_t)snprintf(files + off, sizeof files - off, "%s%s", i ? ", " : "",
                                ocb_json_str(slash ? slash + 1 : o->files[i], q, sizeof q));
    }
    char nv[64] = "null";
#ifdef OC_HAVE_NVCOMP
    snprintf(nv, sizeof nv, "\"%d.%d.%d.%d\"", NVCOMP_VER_MAJOR, NVCOMP_VER_MINOR, NVCOMP_VER_PATCH,
             NVCOMP_VER_BUILD);
#endif
    snprintf(g_meta.extra, sizeof g_meta.extra,
             "\"nvcomp\": %s, \"nvcomp_algorithm\": %d, \"nvcomp_gzip\": \"%s\", \"libzstd\": \"%s\", "
             "\"opencomp\": %s, "
             "\"opencomp_paths\": {%s},\n"
             "  \"ladder\": {\"chunks\": [%s], \"sizes\": [%s], \"per_file\": %s, \"files\": [%s], "
             "\"distinct_bytes\": %llu, \"budget_s\": %.0f, \"rung_cap_s\": %.1f, \"target_s\": %.2f, "
             "\"max_repeats\": %d}",
             nv, o->nvcomp_algorithm,
             o->nvcomp_gzip_payload ? "deflate on the members' payloads" : "gzip API", ZSTD_versionString(),
             ocb_json_str(oc_build_info(), q, sizeof q), paths, chunks, sizes, o->per_file ? "true" : "false",
             files, (unsigned long long)distinct, o->budget_s, o->rung_cap_s, o->target_s, o->max_repeats);
}

static int finish(ocb_sink *sink, double t0)
{
    flush_json(sink);
    size_t unverified = 0;
    for (size_t i = 0; i < sink->rows.n; i++)
        unverified += !sink->rows.v[i].verified;
    printf("\noc_gpu_bench: %zu rows (%zu unverified), %zu skipped, %zu failures, %.0f s\n", sink->rows.n,
           unverified, sink->skipped.n, sink->failures.n, ocb_budget_now() - t0);
    for (size_t i = 0; i < sink->failures.n; i++)
        printf("FAILED: %s\n", sink->failures.v[i]);
    return unverified || sink->failures.n ? 1 : 0;
}

/* --blosc: the Blosc cases (blosc_run.h) instead of the ladder; with no
 * device (have_gpu 0) the host side only, a dry run. */
static int blosc_main(const options *o, const char **names, uint8_t **data, uint64_t *sizes, int have_gpu)
{
    static ocb_sink sink;
    const ocb_contender *gpu[1];
    size_t ngpu = 0;
    char why[256] = "";
    if (have_gpu && ocb_contender_opencomp.init(why, sizeof why) == 0)
        gpu[ngpu++] = &ocb_contender_opencomp;
    else if (have_gpu)
        ocb_strs_add(&sink.failures, "opencomp-gpu: %s", why);
    else
        ocb_strs_add(&sink.skipped, "every GPU row: no CUDA device (a dry run of the host side)");
    sink.copy_gbps = have_gpu ? ocb_copy_gbps((size_t)1 << 30) : 0;
    ocb_budget_init(&sink.budget, o->budget_s);
    sink.budget.rung_cap_s = o->rung_cap_s;
    sink.budget.target_s = o->target_s;
    sink.budget.max_repeats = o->max_repeats;
    sink.flush = flush_json;
    g_meta.o = o;
    ocb_host_json(g_meta.host, sizeof g_meta.host);
    snprintf(g_meta.device, sizeof g_meta.device, "null");
    if (have_gpu)
        describe_device(sink.copy_gbps);
    describe_run(o, 0);
    printf("device: %s\n", g_meta.device);
    uint64_t rung = 0;
    for (size_t i = 0; i < o->nrungs; i++)
        if (o->rungs[i] != OCB_RUNG_CYCLE && o->rungs[i] > rung)
            rung = o->rungs[i];
    ocb_blosc_opts bo = {o->blosc_cnames,
                         o->nblosc_cnames,
                         o->chunks,
                         o->nchunks,
                         rung ? rung : (1u << 30),
                         o->blosc_clevel,
                         gpu,
                         ngpu,
                         o->threads,
                         o->nfiles,
                         names,
                         (const uint8_t *const *)data,
                         sizes};
    double t0 = ocb_budget_now();
    ocb_blosc_run(&sink, &bo);
    return finish(&sink, t0);
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o) != 0)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint8_t **data = (uint8_t **)calloc(o.nfiles, sizeof *data);
    uint64_t *sizes = (uint64_t *)calloc(o.nfiles, sizeof *sizes), distinct = 0;
    const char **names = (const char **)calloc(o.nfiles, sizeof *names);
    if (!data || !sizes || !names)
        return 2;
    for (size_t i = 0; i < o.nfiles; i++) {
        if (read_file(o.files[i], &data[i], &sizes[i]) != 0) {
            fprintf(stderr, "oc_gpu_bench: cannot read %s (or it is empty)\n", o.files[i]);
            return 2;
        }
        const char *slash = strrchr(o.files[i], '/');
        names[i] = slash ? slash + 1 : o.files[i];
        distinct += sizes[i];
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        if (o.blosc)
            return blosc_main(&o, names, data, sizes, 0);
        fprintf(stderr, "oc_gpu_bench: no CUDA device\n");
        return 2;
    }
    if (o.blosc)
        return blosc_main(&o, names, data, sizes, 1);
    ocb_opencomp_set_zstd_level(o.zstd_level);
    ocb_opencomp_set_data_type(o.data_type);
    ocb_nvcomp_set_data_type(o.data_type);
    ocb_nvcomp_set_algorithm(o.nvcomp_algorithm);
    ocb_nvcomp_set_gzip_payload(o.nvcomp_gzip_payload);
    const ocb_contender *usable[4];
    size_t nusable = 0;
    static ocb_sink sink;
    for (size_t i = 0; i < o.ncontenders; i++) {
        char why[256] = "";
        if (o.contenders[i]->init(why, sizeof why) == 0)
            usable[nusable++] = o.contenders[i];
        else {
            ocb_strs_add(&sink.skipped, "%s: %s", o.contenders[i]->name, why);
            printf("%s: not run: %s\n", o.contenders[i]->name, why);
        }
    }
    sink.copy_gbps = ocb_copy_gbps((size_t)1 << 30);
    ocb_budget_init(&sink.budget, o.budget_s);
    sink.budget.rung_cap_s = o.rung_cap_s;
    sink.budget.target_s = o.target_s;
    sink.budget.max_repeats = o.max_repeats;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.multiProcessorCount > 0)
        sink.budget.parallel_chunks = (uint64_t)prop.multiProcessorCount;
    sink.flush = flush_json;
    g_meta.o = &o;
    ocb_host_json(g_meta.host, sizeof g_meta.host);
    describe_device(sink.copy_gbps);
    describe_run(&o, distinct);
    printf("device: %s\n", g_meta.device);
    printf("device-to-device copy: %.0f GB/s (read + write): the roofline of a decoder at ratio r is that x "
           "r/(1+r)\n",
           sink.copy_gbps);
    char dl[128] = "";
    for (size_t i = 0, off = 0; i < o.ndeflate_levels && off < sizeof dl; i++)
        off += (size_t)snprintf(dl + off, sizeof dl - off, "%s%d", i ? "," : "", o.deflate_levels[i]);
    printf("corpus: %zu files, %llu bytes; opencomp %s; zstd level %d, deflate/gdeflate levels %s (0 = "
           "default) for opencomp\n",
           o.nfiles, (unsigned long long)distinct, oc_build_info(), o.zstd_level, dl);
    double t0 = ocb_budget_now();
    if (!o.frames_only) {
        ocb_ladder_opts lo = {o.codecs,         o.ncodecs,         o.chunks,  o.nchunks,     o.rungs,
                              o.nrungs,         o.stock,           o.nstock,  usable,        nusable,
                              o.deflate_levels, o.ndeflate_levels, o.threads, o.check_bytes, o.foreign,
                              o.stock_only,     o.stock_cpu};
        char label[200];
        if (o.per_file) {
            for (size_t i = 0; i < o.nfiles; i++) {
                ocb_mix mix = {names[i], 1, &names[i], (const uint8_t *const *)&data[i], &sizes[i], 1};
                ocb_ladder_mix(&sink, &lo, &mix);
            }
        } else {
            snprintf(label, sizeof label, "%s", o.label ? o.label : "");
            if (!o.label)
                snprintf(label, sizeof label, "mix of %zu files", o.nfiles);
            ocb_mix mix = {label, o.nfiles, names, (const uint8_t *const *)data, sizes, 0};
            ocb_ladder_mix(&sink, &lo, &mix);
        }
    }
    if (o.frames_dir)
        ocb_frames_run(&sink, usable, nusable, o.files, o.nfiles, o.frames_dir, o.frame_levels,
                       o.nframe_levels, o.frame_budget_s);
    return finish(&sink, t0);
}
