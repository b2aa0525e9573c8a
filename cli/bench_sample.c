/*
 * bench_sample.c - the built-in sample of `opencomp bench`: 16 MiB made in
 * memory, the same bytes on every machine (a fixed splitmix64 stream), in
 * four named parts of 4 MiB that look like what people compress:
 *   text          English-like prose: Zipf-distributed words from a list,
 *                 sentences, punctuation, paragraphs;
 *   int64-sorted  a sorted int64 column (keys/timestamps: small steps, runs);
 *   float64       a float64 column with structure (a daily-cycle sensor
 *                 signal plus noise, quantised to 0.01 as instruments do);
 *   source        C-like source code from templates and identifiers.
 * No file is needed, so `opencomp bench` runs anywhere in seconds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PART_SIZE ((size_t)4 << 20)

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double next_unit(uint64_t *s)
{
    return (double)(next_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

static const char *const words[] = {
    "the",     "of",      "and",   "to",       "a",     "in",          "is",      "it",     "you",
    "that",    "he",      "was",   "for",      "on",    "are",         "with",    "as",     "his",
    "they",    "be",      "at",    "one",      "have",  "this",        "from",    "or",     "had",
    "by",      "not",     "word",  "but",      "what",  "some",        "we",      "can",    "out",
    "other",   "were",    "all",   "there",    "when",  "up",          "use",     "your",   "how",
    "said",    "an",      "each",  "she",      "which", "do",          "their",   "time",   "if",
    "will",    "way",     "about", "many",     "then",  "them",        "write",   "would",  "like",
    "so",      "these",   "her",   "long",     "make",  "thing",       "see",     "him",    "two",
    "has",     "look",    "more",  "day",      "could", "go",          "come",    "did",    "number",
    "sound",   "no",      "most",  "people",   "my",    "over",        "know",    "water",  "than",
    "call",    "first",   "who",   "may",      "down",  "side",        "been",    "now",    "find",
    "any",     "new",     "work",  "part",     "take",  "get",         "place",   "made",   "live",
    "where",   "after",   "back",  "little",   "only",  "round",       "man",     "year",   "came",
    "show",    "every",   "good",  "me",       "give",  "our",         "under",   "name",   "very",
    "through", "just",    "form",  "sentence", "great", "think",       "say",     "help",   "low",
    "line",    "differ",  "turn",  "cause",    "much",  "mean",        "before",  "move",   "right",
    "boy",     "old",     "too",   "same",     "tell",  "does",        "set",     "three",  "want",
    "air",     "well",    "also",  "play",     "small", "end",         "put",     "home",   "read",
    "hand",    "port",    "large", "spell",    "add",   "even",        "land",    "here",   "must",
    "big",     "high",    "such",  "follow",   "act",   "why",         "ask",     "men",    "change",
    "went",    "light",   "kind",  "off",      "need",  "house",       "picture", "try",    "us",
    "again",   "animal",  "point", "mother",   "world", "near",        "build",   "self",   "earth",
    "father",  "head",    "stand", "own",      "page",  "should",      "country", "found",  "answer",
    "school",  "grow",    "study", "still",    "learn", "plant",       "cover",   "food",   "sun",
    "four",    "between", "state", "keep",     "eye",   "never",       "last",    "let",    "thought",
    "city",    "tree",    "cross", "farm",     "hard",  "start",       "might",   "story",  "saw",
    "far",     "sea",     "draw",  "left",     "late",  "run",         "while",   "press",  "close",
    "night",   "real",    "life",  "few",      "north", "compression", "library", "memory", "device",
    "buffer",  "stream",  "chunk", "batch"};
#define NUM_WORDS (sizeof words / sizeof words[0])

static void gen_text(uint8_t *p, size_t n, uint64_t *s)
{
    size_t i = 0;
    int in_sentence = 0, sentence_words = 0, sentences = 0;
    while (i < n) {
        /* Zipf-like: u^3 favours the common words at the head of the list. */
        double u = next_unit(s);
        const char *w = words[(size_t)(u * u * u * (double)NUM_WORDS)];
        char tmp[64];
        size_t len = strlen(w);
        memcpy(tmp, w, len);
        if (!in_sentence)
            tmp[0] = (char)(tmp[0] - 'a' + 'A');
        in_sentence = 1;
        sentence_words++;
        if (sentence_words > 4 && next_unit(s) < 0.12) {
            tmp[len++] = next_unit(s) < 0.9 ? '.' : '?';
            in_sentence = 0;
            sentence_words = 0;
            sentences++;
            if (sentences % 6 == 0 && next_unit(s) < 0.5)
                tmp[len++] = '\n';
        } else if (sentence_words > 2 && next_unit(s) < 0.07) {
            tmp[len++] = ',';
        }
        char sep = tmp[len - 1] == '\n' ? '\n' : ' '; /* a blank line ends a paragraph */
        tmp[len++] = sep;
        for (size_t k = 0; k < len && i < n; k++)
            p[i++] = (uint8_t)tmp[k];
    }
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void gen_sorted_int64(uint8_t *p, size_t n, uint64_t *s)
{
    uint64_t v = 1700000000000ull; /* epoch milliseconds */
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t r = next_rand(s);
        /* Mostly small steps, sometimes a repeat, sometimes a jump. */
        if ((r & 7) == 0)
            v += 0;
        else if ((r & 63) == 1)
            v += (r >> 8) % 100000;
        else
            v += (r >> 8) % 64;
        put_le64(p + i, v);
    }
}

static void gen_float64(uint8_t *p, size_t n, uint64_t *s)
{
    double drift = 0.0;
    size_t count = n / 8;
    for (size_t i = 0; i < count; i++) {
        double t = (double)i / 1440.0; /* one sample a minute */
        drift += (next_unit(s) - 0.5) * 0.02;
        double v = 20.0 + 6.0 * sin(2.0 * 3.14159265358979 * t) + drift + (next_unit(s) - 0.5) * 0.3;
        v = round(v * 100.0) / 100.0;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        put_le64(p + 8 * i, bits);
    }
}

static const char *const idents[] = {"buf",   "len",    "count", "offset", "chunk", "status", "ctx",
                                     "index", "result", "src",   "dst",    "size",  "value",  "node"};
#define NUM_IDENTS (sizeof idents / sizeof idents[0])

static void gen_source(uint8_t *p, size_t n, uint64_t *s)
{
    size_t i = 0;
    int fn = 0;
    char line[256];
    while (i < n) {
        const char *a = idents[next_rand(s) % NUM_IDENTS];
        const char *b = idents[next_rand(s) % NUM_IDENTS];
        const char *c = idents[next_rand(s) % NUM_IDENTS];
        int len;
        switch (next_rand(s) % 9) {
        case 0:
            len = snprintf(line, sizeof line,
                           "\n/* %s_%d: update the %s from %s. */\nstatic int %s_%d(struct %s *%s, "
                           "size_t %s)\n{\n",
                           a, fn, b, c, a, fn, b, b, c);
            fn++;
            break;
        case 1:
            len = snprintf(line, sizeof line, "    if (%s->%s > %s) {\n        return -1;\n    }\n", a, b, c);
            break;
        case 2:
            len = snprintf(line, sizeof line,
                           "    for (size_t i = 0; i < %s; i++)\n        %s[i] = %s[i] + %d;\n", a, b, c,
                           (int)(next_rand(s) % 256));
            break;
        case 3:
            len = snprintf(line, sizeof line, "    %s = %s_%d(%s, %s);\n", a, b,
                           (int)(next_rand(s) % (fn + 1)), c, a);
            break;
        case 4:
            len = snprintf(line, sizeof line, "    return %s;\n}\n", a);
            break;
        case 5:
            len = snprintf(line, sizeof line, "    memcpy(%s + %s, %s, sizeof(*%s));\n", a, b, c, c);
            break;
        case 6:
            len = snprintf(line, sizeof line, "#define %s_MAX_%d %u\n", "OC", fn,
                           (unsigned)(next_rand(s) % 65536));
            break;
        case 7:
            len = snprintf(line, sizeof line, "    %s += %s * %d;\n", a, b, (int)(next_rand(s) % 100));
            break;
        default:
            len = snprintf(line, sizeof line, "    /* the %s is checked before %s is used */\n", b, c);
            break;
        }
        for (int k = 0; k < len && i < n; k++)
            p[i++] = (uint8_t)line[k];
    }
}

int cli_bench_sample(bench_input *inputs, int max_inputs)
{
    static const char *const names[] = {"text", "int64-sorted", "float64", "source"};
    if (max_inputs < 4)
        return -1;
    uint64_t seed = 0x6f70656e636f6d70ull; /* "opencomp" */
    for (int k = 0; k < 4; k++) {
        inputs[k].data = malloc(PART_SIZE);
        if (!inputs[k].data) {
            for (int j = 0; j < k; j++)
                free(inputs[j].data);
            return -1;
        }
        inputs[k].size = PART_SIZE;
        snprintf(inputs[k].name, sizeof inputs[k].name, "%s", names[k]);
        switch (k) {
        case 0:
            gen_text(inputs[k].data, PART_SIZE, &seed);
            break;
        case 1:
            gen_sorted_int64(inputs[k].data, PART_SIZE, &seed);
            break;
        case 2:
            gen_float64(inputs[k].data, PART_SIZE, &seed);
            break;
        default:
            gen_source(inputs[k].data, PART_SIZE, &seed);
            break;
        }
    }
    return 4;
}
