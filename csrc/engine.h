/* Shared by every instruction-set variant of the kernels: constants, tables, helpers.
 *
 * The kernels are plain C99 with optional GCC/clang extensions (target attributes, x86
 * intrinsics) behind KISA; everything here compiles with any C compiler.
 */
#ifndef DITTO_ENGINE_H
#define DITTO_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FNV_OFFSET UINT64_C(0xCBF29CE484222325)
#define FNV_PRIME UINT64_C(0x100000001B3)
/* Window hashes voted at a time: 240 + 15 sixteens fit an 8-bit counter. */
#define BLOCK 3840

#define ONES UINT64_C(0x0101010101010101)
#define HIGH UINT64_C(0x8080808080808080)
#define LOW7 UINT64_C(0x7F7F7F7F7F7F7F7F)

#if defined(__GNUC__) || defined(__clang__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define ALWAYS_INLINE inline
#endif

/* Number of trailing zero bits of x != 0. */
static inline int ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* Number of set bits of x (one instruction where the variant's target has popcnt). */
static ALWAYS_INLINE int popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* The eight bytes at p as a little-endian word (any alignment, any byte order). */
static ALWAYS_INLINE uint64_t load_le64(const uint8_t *p) {
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static ALWAYS_INLINE void store_le64(uint8_t *p, uint64_t x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* 0x80 in each byte of x that is zero, 0 in the others (exact for any bytes). */
static ALWAYS_INLINE uint64_t zero_bytes(uint64_t x) {
    return ~(((x & LOW7) + LOW7) | x) & HIGH;
}

/* -- tables (built once at import, read-only afterwards) ------------------------------- */

#define ATOM_SLOTS 1024   /* FNV-1a of a name -> atom, open addressing (> 2x the atoms) */
#define KEY_SLOTS 1024    /* an atom of at most eight bytes by its word */
#define KEY_SHIFT 54
#define KEY_MULTIPLIER UINT64_C(0x9E3779B97F4A7C15)
#define MAX_ATOMS 512

typedef struct {
    /* ditto/2 */
    uint8_t ascii_map[128];  /* A-Z -> a-z, ASCII whitespace -> 0x20 */
    uint32_t *table;         /* code point -> normalized code point, below table_len */
    size_t table_len;
    uint64_t *pairs;         /* FNV-1a 64 state after the two bytes i >> 8, i & 255 */
    uint64_t spread[256];    /* byte k of entry v is bit k of v */
    uint64_t compact[256];   /* the byte indices of mask v's set bits, first to last, then 0x80s */
    /* html-distance */
    int atom_count;
    const char *atom_name[MAX_ATOMS];
    int atom_len[MAX_ATOMS];
    uint64_t atom_word[MAX_ATOMS];  /* the first eight bytes, little-endian */
    int raw_of_atom[MAX_ATOMS];     /* the raw-text element number, or -1 */
    int16_t slots[ATOM_SLOTS];      /* FNV-1a of the lower-cased name & 1023; -1: empty */
    uint64_t key_words[KEY_SLOTS];  /* 0: empty */
    int16_t key_atoms[KEY_SLOTS];
    uint64_t *token_fresh;  /* FNV-1 of "<letter>:<atom>" per kind and atom + 1 */
    uint64_t attr_fresh[MAX_ATOMS + 1];  /* FNV-1 of "G:<atom>:" per atom + 1 */
} Tables;

extern Tables TABLES;

/* Token kinds; their prefix letters are "?FABCED"[kind]. */
enum { TK_TEXT = 1, TK_START = 2, TK_END = 3, TK_SELF = 4, TK_COMMENT = 5, TK_DOCTYPE = 6 };
#define TOKEN_ROW (MAX_ATOMS + 1)

/* Raw-text elements, in the order their numbers name them. */
#define RAW_COUNT 10
#define RAW_SCRIPT 5
#define RAW_PLAINTEXT 4
extern const char *const RAW_NAMES[RAW_COUNT];

/* Results of the html kernel besides 0 (done). */
#define HTML_NEEDS_PYTHON 1 /* the Python pipeline must do this page */
#define HTML_NO_MEMORY 2

/* -- work space ------------------------------------------------------------------------ */

typedef struct {
    int64_t totals[64];
    uint64_t planes[4];  /* ones, twos, fours, eights: bit-sliced digits carried between blocks */
    uint64_t block[BLOCK];
} Vote;

/* A growable byte buffer and a growable int64 array (the html features and attributes). */
typedef struct {
    uint8_t *data;
    size_t cap;
} Bytes;

typedef struct {
    int64_t *data;
    size_t cap;
} Int64s;

/* Grow *data (cap items of `item` bytes) to hold at least need items, doubling; 0 when
 * memory ran out (the old block stays). */
static inline int reserve(void **data, size_t *cap, size_t need, size_t item) {
    if (need <= *cap)
        return 1;
    size_t grown_cap = *cap ? *cap : 64;
    while (grown_cap < need)
        grown_cap *= 2;
    void *grown = realloc(*data, grown_cap * item);
    if (!grown)
        return 0;
    *data = grown;
    *cap = grown_cap;
    return 1;
}

static inline int bytes_reserve(Bytes *b, size_t need) {
    void *data = b->data;
    int ok = reserve(&data, &b->cap, need, 1);
    b->data = (uint8_t *)data;
    return ok;
}

static inline int int64s_reserve(Int64s *a, size_t need) {
    void *data = a->data;
    int ok = reserve(&data, &a->cap, need, sizeof(int64_t));
    a->data = (int64_t *)data;
    return ok;
}

/* The page's features, each hashed as written (shingle 3) or kept in order. */
typedef struct {
    Bytes feat;    /* feature bytes: one feature (hashing) or all of them */
    Int64s fstart; /* feature i is feat[fstart[i]:fstart[i + 1]] (not hashing) */
    Int64s attrs;  /* the tag's kept attributes: key start, key end, value start, value end */
} HtmlWork;

/* Pairs found by the join: lo < hi (indices into the fingerprints), d their distance. */
typedef struct {
    uint32_t *lo, *hi;
    uint8_t *d;
    size_t n, cap;
} JoinOut;

/* Append a pair to the growable output; 0 when memory ran out. */
static inline int push_pair(JoinOut *out, uint32_t a, uint32_t b, unsigned d) {
    if (out->n == out->cap) {
        size_t cap = out->cap ? 2 * out->cap : 4096;
        uint32_t *lo = (uint32_t *)realloc(out->lo, cap * sizeof(uint32_t));
        if (!lo)
            return 0;
        out->lo = lo;
        uint32_t *hi = (uint32_t *)realloc(out->hi, cap * sizeof(uint32_t));
        if (!hi)
            return 0;
        out->hi = hi;
        uint8_t *dd = (uint8_t *)realloc(out->d, cap);
        if (!dd)
            return 0;
        out->d = dd;
        out->cap = cap;
    }
    out->lo[out->n] = a < b ? a : b;
    out->hi[out->n] = a < b ? b : a;
    out->d[out->n] = (uint8_t)d;
    out->n++;
    return 1;
}

/* The table's key of x: the bits of mask, packed low (spans: offset, width). */
static ALWAYS_INLINE uint64_t table_key(uint64_t x, const int *spans, int count) {
    uint64_t key = 0;
    int shift = 0;
    for (int s = 0; s < count; s++) {
        int off = spans[2 * s], width = spans[2 * s + 1];
        uint64_t part = width == 64 ? x : (x >> off) & ((UINT64_C(1) << width) - 1);
        key |= part << shift;
        shift += width;
    }
    return key;
}

/* -- one instruction-set variant's entries (kernel.h) ---------------------------------- */

typedef struct {
    const char *name;
    /* Normalize data[0:n] into out[1:end] (out holds 3 n + 2 bytes); end, and *ascii. */
    size_t (*normalize)(const uint8_t *data, size_t n, uint8_t *out, int *ascii);
    /* The ditto/2 fingerprint of each span; work holds 3 * max(size) + 2 bytes. */
    void (*spans)(const uint8_t *data, const int64_t *offsets, const int64_t *sizes,
                  size_t count, int char_n, int word_n, uint64_t *out, uint8_t *work,
                  Vote *vote, uint64_t *states);
    /* The html-distance fingerprint (status 0) of a page; or with keep, its features. */
    int (*html)(const uint8_t *buf, size_t n, int shingle, int64_t max_tokens, int keep,
                HtmlWork *work, Vote *vote, uint64_t *states, int64_t *features,
                uint64_t *fp);
    /* Each bit's count over the hashes h[0:n] (counts: 64 words). */
    void (*vote_counts)(const uint64_t *h, size_t n, Vote *vote, int64_t *counts);
    /* The pairs of one join table (kernel_join.h); 0 when memory ran out. */
    int (*join_table)(const uint64_t *v, size_t n, int k, uint64_t mask, const uint64_t *test,
                      JoinOut *out);
    /* The stable order of keys[0:n] (a radix argsort); 0 when memory ran out. */
    int (*argsort)(const uint64_t *keys, size_t n, uint32_t *order);
} Kernel;

#endif
