/*
 * batch_plan.c - the ladder's batches (what batch_plan.h promises): the
 * cycle order, rung sizes, buffer offsets and the batch identity.  Integer
 * arithmetic only, so bench/gpu/batch_plan.py reproduces it exactly.
 */
#include "batch_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sort key of chunk j of a file of n chunks: (2j+1)/(2n), compared by cross
 * multiplication (n <= 2^32, so the products fit 64 bits); ties by file. */
typedef struct {
    uint32_t file, j, n;
} plan_key;

static int plan_key_cmp(const void *a_, const void *b_)
{
    const plan_key *a = (const plan_key *)a_, *b = (const plan_key *)b_;
    uint64_t l = (2 * (uint64_t)a->j + 1) * b->n, r = (2 * (uint64_t)b->j + 1) * a->n;
    if (l != r)
        return l < r ? -1 : 1;
    return a->file < b->file ? -1 : a->file > b->file;
}

static uint64_t align_up(uint64_t v)
{
    return (v + OCB_ALIGN - 1) / OCB_ALIGN * OCB_ALIGN;
}

int ocb_plan_make(ocb_plan *p, const uint64_t *file_sizes, size_t nfiles, size_t chunk_size)
{
    memset(p, 0, sizeof *p);
    if (nfiles == 0 || nfiles > UINT32_MAX || chunk_size == 0 || chunk_size > ((size_t)1 << 31))
        return -1;
    size_t total = 0;
    for (size_t f = 0; f < nfiles; f++) {
        if (file_sizes[f] == 0)
            return -1;
        uint64_t n = (file_sizes[f] + chunk_size - 1) / chunk_size;
        if (n > UINT32_MAX || total + n < total)
            return -1;
        total += (size_t)n;
    }
    plan_key *keys = (plan_key *)malloc(total * sizeof *keys);
    p->order = (ocb_chunk *)malloc(total * sizeof *p->order);
    p->prefix = (uint64_t *)malloc((total + 1) * sizeof *p->prefix);
    p->aligned = (uint64_t *)malloc((total + 1) * sizeof *p->aligned);
    if (!keys || !p->order || !p->prefix || !p->aligned) {
        free(keys);
        ocb_plan_free(p);
        return -1;
    }
    size_t k = 0;
    for (size_t f = 0; f < nfiles; f++) {
        uint32_t n = (uint32_t)((file_sizes[f] + chunk_size - 1) / chunk_size);
        for (uint32_t j = 0; j < n; j++)
            keys[k++] = (plan_key){(uint32_t)f, j, n};
    }
    qsort(keys, total, sizeof *keys, plan_key_cmp);
    p->prefix[0] = p->aligned[0] = 0;
    for (size_t i = 0; i < total; i++) {
        uint64_t off = (uint64_t)keys[i].j * chunk_size;
        uint64_t left = file_sizes[keys[i].file] - off;
        p->order[i].file = keys[i].file;
        p->order[i].offset = off;
        p->order[i].size = (uint32_t)(left < chunk_size ? left : chunk_size);
        p->prefix[i + 1] = p->prefix[i] + p->order[i].size;
        p->aligned[i + 1] = align_up(p->aligned[i] + p->order[i].size);
    }
    free(keys);
    p->chunk_size = chunk_size;
    p->nfiles = nfiles;
    p->ndistinct = total;
    p->distinct_bytes = p->prefix[total];
    return 0;
}

void ocb_plan_free(ocb_plan *p)
{
    free(p->order);
    free(p->prefix);
    free(p->aligned);
    memset(p, 0, sizeof *p);
}

const ocb_chunk *ocb_plan_chunk(const ocb_plan *p, size_t i)
{
    return &p->order[i % p->ndistinct];
}

uint64_t ocb_plan_bytes(const ocb_plan *p, size_t n)
{
    return (uint64_t)(n / p->ndistinct) * p->distinct_bytes + p->prefix[n % p->ndistinct];
}

size_t ocb_plan_rung_chunks(const ocb_plan *p, uint64_t target, uint64_t *bytes)
{
    size_t n;
    if (target == OCB_RUNG_CYCLE) {
        n = p->ndistinct;
    } else if (target == 0) {
        n = 1;
    } else {
        /* whole cycles, then the shortest prefix of the cycle that reaches the rest */
        uint64_t cycles = (target - 1) / p->distinct_bytes;
        uint64_t rest = target - cycles * p->distinct_bytes; /* in [1, distinct_bytes] */
        size_t lo = 1, hi = p->ndistinct;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (p->prefix[mid] >= rest)
                hi = mid;
            else
                lo = mid + 1;
        }
        n = (size_t)cycles * p->ndistinct + lo;
    }
    if (bytes)
        *bytes = ocb_plan_bytes(p, n);
    return n;
}

uint64_t ocb_plan_offset(const ocb_plan *p, size_t i)
{
    return (uint64_t)(i / p->ndistinct) * p->aligned[p->ndistinct] + p->aligned[i % p->ndistinct];
}

uint64_t ocb_plan_buffer_bytes(const ocb_plan *p, size_t n)
{
    return ocb_plan_offset(p, n);
}

uint64_t ocb_plan_id(const ocb_plan *p, const char *const *names, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    char line[512];
    for (size_t i = 0; i < n; i++) {
        const ocb_chunk *c = ocb_plan_chunk(p, i);
        int len = snprintf(line, sizeof line, "%s:%llu:%u\n", names[c->file], (unsigned long long)c->offset,
                           (unsigned)c->size);
        if (len < 0 || (size_t)len >= sizeof line)
            len = (int)sizeof line - 1;
        for (int k = 0; k < len; k++) {
            h ^= (unsigned char)line[k];
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

int ocb_parse_bytes(const char *s, uint64_t *bytes)
{
    char *end = NULL;
    if (!s || *s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end == 'i' && shift)
        end++;
    if ((*end == 'B' || *end == 'b') && shift)
        end++;
    if (*end != '\0' || v == 0 || v > (UINT64_MAX >> 34))
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

int ocb_parse_rung(const char *s, uint64_t *target)
{
    if (!s)
        return -1;
    if (strcmp(s, "all") == 0) {
        *target = OCB_RUNG_CYCLE;
        return 0;
    }
    if (strcmp(s, "1c") == 0) {
        *target = 0;
        return 0;
    }
    return ocb_parse_bytes(s, target);
}

const char *ocb_human_bytes(uint64_t n, char *buf, size_t cap)
{
    static const char *units[] = {"GiB", "MiB", "KiB"};
    static const unsigned shifts[] = {30, 20, 10};
    for (int u = 0; u < 3; u++)
        if (n >= ((uint64_t)1 << shifts[u]) && n % ((uint64_t)1 << shifts[u]) == 0) {
            snprintf(buf, cap, "%llu %s", (unsigned long long)(n >> shifts[u]), units[u]);
            return buf;
        }
    snprintf(buf, cap, "%llu B", (unsigned long long)n);
    return buf;
}
