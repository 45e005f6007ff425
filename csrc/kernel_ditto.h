/* The ditto/2 kernel: decode, strip tags, lowercase, collapse, shingle, hash, vote
 * (part of kernel.h).
 *
 * One pass over the raw bytes writes the normalized UTF-8 text (the rules of
 * ditto_tui/core/fingerprint/normalize.py: tags are stripped on the bytes, each byte that does not
 * start a valid shortest-form sequence becomes one U+FFFD, the code point table maps
 * lowercase and whitespace to U+0020, spaces collapse). A second pass hashes every window
 * of char_n code points (and of word_n words) with FNV-1a 64 and votes. Plain ASCII text
 * (no '<', no byte >= 0x80, no whitespace after a space) is normalized 64 bytes a step
 * (KISA >= 1) or eight (portable), the rest byte by byte.
 */

/* -- plain ASCII, many bytes a step --------------------------------------------------- */

/* The eight bytes at data with A-Z lower-cased, and in *plain how many of them come
 * before the first that is not plain: a byte >= 0x80, below 0x20, '<', or a space after a
 * space (or after last = 0x20 for the first). Only the bytes before that one are sure to
 * be lower-cased rightly (a borrow or carry may cross from it into the bytes above). */
static KATTR ALWAYS_INLINE uint64_t K(plain_prefix)(const uint8_t *data, unsigned last, int *plain) {
    uint64_t x = load_le64(data);
    uint64_t bad = (x | (((x - 0x20 * ONES) | zero_bytes(x ^ (0x3C * ONES))) & ~x)) & HIGH;
    uint64_t spaces = zero_bytes(x ^ (0x20 * ONES));
    bad |= spaces & ((spaces << 8) | (last == 0x20 ? 0x80 : 0));
    uint64_t upper = (x + 0x3F * ONES) & ~(x + 0x25 * ONES) & HIGH;
    *plain = bad ? ctz64(bad) >> 3 : 8;
    return x | (upper >> 2);
}

#if KISA >= 1
/* Normalize the plain prefix of the 64 bytes at data into out + *o, collapsing whitespace
 * runs; how many input bytes that prefix holds (0-64). Plain: ASCII and no '<'. Whitespace
 * (tab, newline, vertical tab, form feed, carriage return, space) becomes one space after
 * a non-space (or after *last != 0x20 for the first byte) and nothing after a space. Up
 * to 64 bytes are written at out + *o; *o and *last (the byte before out + *o) move on.
 * Needs data[0:64]. */
static KATTR ALWAYS_INLINE int K(plain_wide)(const uint8_t *data, uint8_t *out, size_t *o,
                                             unsigned *last) {
#if KISA >= 2
    __m512i x = _mm512_loadu_si512((const void *)data);
    uint64_t stop = _mm512_movepi8_mask(x) | _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(0x3C));
    uint64_t space = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(0x20)) |
                     _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(9)),
                                            _mm512_set1_epi8(5));
    uint64_t upper = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(0x41)),
                                            _mm512_set1_epi8(26));
    __m512i mapped = _mm512_mask_blend_epi8(upper, x, _mm512_or_si512(x, _mm512_set1_epi8(0x20)));
    mapped = _mm512_mask_blend_epi8(space, mapped, _mm512_set1_epi8(0x20));
#else
    uint64_t stop = 0, space = 0;
    uint8_t mapped_bytes[64];
    for (int half = 0; half < 2; half++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(data + 32 * half));
        __m256i is_tag = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(0x3C));
        __m256i low = _mm256_sub_epi8(x, _mm256_set1_epi8(9)); /* whitespace: x - 9 <= 4 */
        __m256i is_space = _mm256_or_si256(
            _mm256_cmpeq_epi8(x, _mm256_set1_epi8(0x20)),
            _mm256_cmpeq_epi8(_mm256_min_epu8(low, _mm256_set1_epi8(4)), low));
        __m256i alpha = _mm256_sub_epi8(x, _mm256_set1_epi8(0x41)); /* A-Z: x - 0x41 <= 25 */
        __m256i is_upper = _mm256_cmpeq_epi8(_mm256_min_epu8(alpha, _mm256_set1_epi8(25)), alpha);
        __m256i mapped = _mm256_or_si256(x, _mm256_and_si256(is_upper, _mm256_set1_epi8(0x20)));
        mapped = _mm256_blendv_epi8(mapped, _mm256_set1_epi8(0x20), is_space);
        _mm256_storeu_si256((__m256i *)(mapped_bytes + 32 * half), mapped);
        int s = 32 * half;
        stop |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(x, is_tag)) << s;
        space |= (uint64_t)(uint32_t)_mm256_movemask_epi8(is_space) << s;
    }
#endif
    int k = stop ? ctz64(stop) : 64;
    uint64_t valid = k == 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1;
    uint64_t keep = valid & ~(space & ((space << 1) | (*last == 0x20)));
    if (!keep)
        return k; /* nothing, or whitespace after whitespace only */
#if KISA >= 2
    _mm512_storeu_si512((void *)(out + *o), _mm512_maskz_compress_epi8(keep, mapped));
    *o += (size_t)__builtin_popcountll(keep);
#else
    if (keep == valid) {
        memcpy(out + *o, mapped_bytes, 64);
        *o += (size_t)k;
    } else { /* eight bytes at a time, each group's kept bytes moved together */
        for (int g = 0; g < k; g += 8) {
            unsigned m = (unsigned)(keep >> g) & 0xFF;
            __m128i group = _mm_loadl_epi64((const __m128i *)(mapped_bytes + g));
            __m128i moved = _mm_shuffle_epi8(group, _mm_cvtsi64_si128((long long)TABLES.compact[m]));
            _mm_storel_epi64((__m128i *)(out + *o), moved);
            *o += (size_t)__builtin_popcount(m);
        }
    }
#endif
    *last = out[*o - 1];
    return k;
}
#endif

/* Write the ditto/2 normalized UTF-8 text of data[0:n] to out[1:end]; returns end, and in
 * *ascii whether the text is all ASCII. out holds 3 n + 2 bytes (one U+FFFD per byte). A
 * space is written only after a non-space (out[0] is a space sentinel), so runs collapse
 * and none leads; a trailing one is cut before returning. */
static KATTR size_t K(normalize)(const uint8_t *data, size_t n, uint8_t *out, int *ascii) {
    const uint8_t *ascii_map = TABLES.ascii_map;
    const uint32_t *table = TABLES.table;
    const size_t limit = TABLES.table_len;
    size_t o = 1, i = 0;
    unsigned last = 0x20; /* the byte at out[o - 1] */
    int64_t depth = 0;
    int high = 0; /* a non-ASCII code point was written */
    /* Plain text goes many bytes at a time, up to the first byte that is not plain; from
     * there `skip` bytes go one by one: one after a step that began plain, twice as many
     * after each that fails at once, up to 64 (text in other scripts rarely has a plain
     * byte). */
    size_t skip = 8;
    out[0] = 0x20;
    while (i < n) {
        if (depth == 0) {
            size_t first = i;
#if KISA >= 1
            while (i + 64 <= n) {
                int k = K(plain_wide)(data + i, out, &o, &last);
                i += (size_t)k;
                if (k < 64)
                    break;
            }
#endif
            while (i + 8 <= n) {
                int k;
                uint64_t y = K(plain_prefix)(data + i, last, &k);
                if (k) {
                    store_le64(out + o, y);
                    o += (size_t)k;
                    i += (size_t)k;
                    last = (unsigned)((y >> (8 * k - 8)) & 0xFF);
                }
                if (k < 8)
                    break;
            }
            skip = i == first ? (2 * skip < 64 ? 2 * skip : 64) : 1;
        }
        size_t stop = i + (depth == 0 ? skip : 64); /* a tag: up to its end, 64 at a time */
        if (stop > n)
            stop = n;
        while (i < stop) {
            unsigned b = data[i];
            if (b == 0x3C && i + 1 < n) { /* '<' opens a tag before a letter or / ! ? */
                unsigned nb = data[i + 1];
                if (((nb | 0x20) - 0x61u) < 26u || nb == 0x2F || nb == 0x21 || nb == 0x3F) {
                    depth++;
                    i++;
                    continue;
                }
            }
            if (depth > 0) {
                if (b == 0x3E) {
                    depth--;
                    out[o] = 0x20;
                    o += last != 0x20;
                    last = 0x20;
                    if (depth == 0) /* back to many bytes at a time */
                        stop = i + 1;
                }
                i++;
                continue;
            }
            if (b < 0x80) { /* branch-free collapse: a space advances only after a non-space */
                unsigned c = ascii_map[b];
                out[o] = (uint8_t)c;
                o += (c != 0x20) | (last != 0x20);
                last = c;
                i++;
                continue;
            }
            /* Fast paths: runs of valid 2- or 3-byte sequences whose mappings keep their
             * length (Cyrillic, Greek, CJK...), without going back to the dispatch above. */
            if (b >= 0xC2 && b <= 0xDF) {
                size_t from = i;
                while (i + 1 < n) {
                    unsigned c0 = data[i], c1 = data[i + 1];
                    if (c0 - 0xC2u > 0xDFu - 0xC2u || (c1 & 0xC0) != 0x80)
                        break;
                    uint32_t m = table[((c0 & 0x1F) << 6) | (c1 & 0x3F)]; /* < 0x800 <= limit */
                    if (m - 0x80u >= 0x800u - 0x80u)
                        break;
                    out[o] = (uint8_t)(0xC0 | (m >> 6));
                    out[o + 1] = (uint8_t)(0x80 | (m & 0x3F));
                    o += 2;
                    i += 2;
                }
                if (i > from) {
                    last = 0x80;
                    high = 1;
                    continue;
                }
            } else if (b >= 0xE1 && b <= 0xEF && b != 0xED) {
                size_t from = i;
                while (i + 2 < n) {
                    unsigned c0 = data[i], c1 = data[i + 1], c2 = data[i + 2];
                    if (c0 - 0xE1u > 0xEFu - 0xE1u || c0 == 0xED || (c1 & 0xC0) != 0x80 ||
                        (c2 & 0xC0) != 0x80)
                        break;
                    /* below 0x10000, which the table always covers */
                    uint32_t m = table[((c0 & 0x0F) << 12) | ((c1 & 0x3F) << 6) | (c2 & 0x3F)];
                    if (m - 0x800u >= 0x10000u - 0x800u)
                        break;
                    out[o] = (uint8_t)(0xE0 | (m >> 12));
                    out[o + 1] = (uint8_t)(0x80 | ((m >> 6) & 0x3F));
                    out[o + 2] = (uint8_t)(0x80 | (m & 0x3F));
                    o += 3;
                    i += 3;
                }
                if (i > from) {
                    last = 0x80;
                    high = 1;
                    continue;
                }
            }
            /* Go's decoding: a valid shortest-form sequence, else one U+FFFD for this byte */
            uint32_t cp = 0xFFFD;
            size_t size = 1;
            if (b >= 0xC2 && b <= 0xDF) {
                if (i + 1 < n && (data[i + 1] & 0xC0) == 0x80) {
                    cp = ((b & 0x1F) << 6) | (data[i + 1] & 0x3F);
                    size = 2;
                }
            } else if (b >= 0xE0 && b <= 0xEF) {
                if (i + 2 < n) {
                    unsigned b1 = data[i + 1], b2 = data[i + 2];
                    unsigned lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
                    if (b1 >= lo && b1 <= hi && (b2 & 0xC0) == 0x80) {
                        cp = ((b & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F);
                        size = 3;
                    }
                }
            } else if (b >= 0xF0 && b <= 0xF4 && i + 3 < n) {
                unsigned b1 = data[i + 1], b2 = data[i + 2], b3 = data[i + 3];
                unsigned lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
                if (b1 >= lo && b1 <= hi && (b2 & 0xC0) == 0x80 && (b3 & 0xC0) == 0x80) {
                    cp = ((b & 0x07) << 18) | ((b1 & 0x3F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F);
                    size = 4;
                }
            }
            i += size;
            uint32_t mapped = cp < limit ? table[cp] : cp;
            if (mapped == 0x20) {
                out[o] = 0x20;
                o += last != 0x20;
                last = 0x20;
                continue;
            }
            o = put_utf8(out, o, mapped);
            last = out[o - 1];
            if (mapped >= 0x80)
                high = 1;
        }
    }
    if (last == 0x20 && o > 1)
        o--;
    *ascii = !high;
    return o;
}

/* -- windows, hashes, vote ------------------------------------------------------------- */

/* Push one window hash; vote the block when it is full. */
#define PUSH(hash)                                         \
    do {                                                   \
        vote->block[filled++] = (hash);                    \
        if (filled == BLOCK) {                             \
            K(vote_block)(vote->block, BLOCK, vote);       \
            windows += BLOCK;                              \
            filled = 0;                                    \
        }                                                  \
    } while (0)

/* FNV-1a 64 of the windows of four bytes starting at part[0:count] (part holds count + 3
 * bytes) into dst: eight windows a step in vector multiplies (KISA 2), else one table
 * look-up for the first two bytes and two steps for the others. */
static KATTR ALWAYS_INLINE void K(hash4)(const uint8_t *part, size_t count, uint64_t *dst) {
    const uint64_t *pairs = TABLES.pairs;
    size_t j = 0;
#if KISA >= 2
    const __m512i prime = _mm512_set1_epi64((long long)FNV_PRIME);
    const __m512i offset = _mm512_set1_epi64((long long)FNV_OFFSET);
    for (; j + 8 <= count; j += 8) { /* reads part[j : j + 11], within count + 3 */
        __m512i b0 = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(part + j)));
        __m512i b1 = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(part + j + 1)));
        __m512i b2 = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(part + j + 2)));
        __m512i b3 = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(part + j + 3)));
        __m512i h = _mm512_mullo_epi64(_mm512_xor_si512(offset, b0), prime);
        h = _mm512_mullo_epi64(_mm512_xor_si512(h, b1), prime);
        h = _mm512_mullo_epi64(_mm512_xor_si512(h, b2), prime);
        h = _mm512_mullo_epi64(_mm512_xor_si512(h, b3), prime);
        _mm512_storeu_si512((void *)(dst + j), h);
    }
#endif
    for (; j < count; j++) {
        uint64_t h = pairs[((size_t)part[j] << 8) | part[j + 1]];
        h = (h ^ part[j + 2]) * FNV_PRIME;
        dst[j] = (h ^ part[j + 3]) * FNV_PRIME;
    }
}

/* The windows of four ASCII bytes of text[0:n] (n >= 4), hashed and voted. */
static KATTR int64_t K(ascii_windows4)(const uint8_t *text, size_t n, Vote *vote) {
    size_t total = n - 3, done = 0;
    int64_t windows = 0;
    while (done < total) {
        size_t count = total - done < BLOCK ? total - done : BLOCK;
        K(hash4)(text + done, count, vote->block);
        K(vote_block)(vote->block, count, vote);
        windows += (int64_t)count;
        done += count;
    }
    return windows;
}

/* Vote every window of four code points of the valid UTF-8 text[0:n] (FNV-1a 64 of its
 * bytes); how many there were. One running FNV state per open window, in registers: each
 * code point goes into all four at once; the window opened at a code point of two or more
 * bytes starts from the pair table. A run of four or more ASCII bytes goes at once: the
 * three open windows take its first bytes, the windows inside it are hashed as in ASCII
 * text, and its last three bytes open the next windows. */
static KATTR int64_t K(code_point_windows4)(const uint8_t *text, size_t n, Vote *vote) {
    const uint64_t *pairs = TABLES.pairs;
    int64_t windows = 0;
    size_t filled = 0, p = 0;
    uint64_t w0 = FNV_OFFSET, w1 = FNV_OFFSET, w2 = FNV_OFFSET, w3 = FNV_OFFSET;
    int64_t seen = 0;
    while (p < n) {
        unsigned b0 = text[p];
        if (b0 < 0x80 && seen >= 3 && p + 4 <= n && text[p + 1] < 0x80) {
            size_t q = ascii_run_end(text, p, n);
            if (q - p >= 4) {
                unsigned b1 = text[p + 1], b2 = text[p + 2];
                if (filled > BLOCK - 4) { /* room for these three and the next window */
                    K(vote_block)(vote->block, filled, vote);
                    windows += (int64_t)filled;
                    filled = 0;
                }
                uint64_t *block = vote->block;
                block[filled] = (w0 ^ b0) * FNV_PRIME;
                block[filled + 1] = (((w1 ^ b0) * FNV_PRIME) ^ b1) * FNV_PRIME;
                block[filled + 2] = (((((w2 ^ b0) * FNV_PRIME) ^ b1) * FNV_PRIME) ^ b2) * FNV_PRIME;
                filled += 3;
                const uint8_t *run = text + p;
                size_t inside = q - p - 3, j = 0; /* windows wholly inside the run */
                while (j < inside) {
                    size_t count = inside - j < BLOCK - filled ? inside - j : BLOCK - filled;
                    K(hash4)(run + j, count, block + filled);
                    filled += count;
                    j += count;
                    if (filled == BLOCK) {
                        K(vote_block)(block, BLOCK, vote);
                        windows += BLOCK;
                        filled = 0;
                    }
                }
                unsigned c1 = text[q - 3], c2 = text[q - 2], c3 = text[q - 1];
                w0 = (pairs[(c1 << 8) | c2] ^ c3) * FNV_PRIME;
                w1 = pairs[(c2 << 8) | c3];
                w2 = (FNV_OFFSET ^ c3) * FNV_PRIME;
                seen += (int64_t)(q - p);
                p = q;
                continue;
            }
        }
        if (b0 < 0x80) {
            w0 = (w0 ^ b0) * FNV_PRIME;
            w1 = (w1 ^ b0) * FNV_PRIME;
            w2 = (w2 ^ b0) * FNV_PRIME;
            w3 = (w3 ^ b0) * FNV_PRIME;
            p++;
        } else {
            unsigned b1 = text[p + 1];
            w0 = (((w0 ^ b0) * FNV_PRIME) ^ b1) * FNV_PRIME;
            w1 = (((w1 ^ b0) * FNV_PRIME) ^ b1) * FNV_PRIME;
            w2 = (((w2 ^ b0) * FNV_PRIME) ^ b1) * FNV_PRIME;
            w3 = pairs[(b0 << 8) | b1];
            if (b0 >= 0xE0) { /* a third byte (three-byte code points), and a fourth */
                unsigned c = text[p + 2];
                w0 = (w0 ^ c) * FNV_PRIME;
                w1 = (w1 ^ c) * FNV_PRIME;
                w2 = (w2 ^ c) * FNV_PRIME;
                w3 = (w3 ^ c) * FNV_PRIME;
                if (b0 >= 0xF0) {
                    c = text[p + 3];
                    w0 = (w0 ^ c) * FNV_PRIME;
                    w1 = (w1 ^ c) * FNV_PRIME;
                    w2 = (w2 ^ c) * FNV_PRIME;
                    w3 = (w3 ^ c) * FNV_PRIME;
                }
            }
            p += utf8_size(b0);
        }
        seen++;
        if (seen >= 4)
            PUSH(w0);
        w0 = w1;
        w1 = w2;
        w2 = w3;
        w3 = FNV_OFFSET;
    }
    if (filled) {
        K(vote_block)(vote->block, filled, vote);
        windows += (int64_t)filled;
    }
    return windows;
}

/* The fingerprint of the normalized text buf[0:len]: Charikar's sum over every
 * char_n-code-point window and every word_n-word window, FNV-1a 64 each; the hash of the
 * whole text when there is no window at all. ascii: no byte >= 0x80. states holds
 * max(char_n, 1) words of work space. */
static KATTR uint64_t K(vote_text)(const uint8_t *buf, size_t len, int ascii, int char_n,
                                   int word_n, Vote *vote, uint64_t *states) {
    const uint64_t *pairs = TABLES.pairs;
    size_t filled = 0;
    int64_t windows = 0;
    K(vote_reset)(vote);
    if (char_n > 0 && len >= (size_t)char_n) {
        if (ascii && char_n == 4) {
            windows += K(ascii_windows4)(buf, len, vote);
        } else if (ascii) {
            for (size_t s = 0; s + (size_t)char_n <= len; s++) {
                uint64_t h = FNV_OFFSET;
                for (size_t k = s; k < s + (size_t)char_n; k++)
                    h = (h ^ buf[k]) * FNV_PRIME;
                PUSH(h);
            }
        } else if (char_n == 4) { /* the default */
            windows += K(code_point_windows4)(buf, len, vote);
        } else {
            /* One running FNV state per open window: each code point goes into all of
             * them at once. */
            int slot = 0; /* the state of the window starting at the current code point */
            int64_t seen = 0;
            size_t p = 0;
            while (p < len) {
                states[slot] = FNV_OFFSET;
                size_t stop = p + utf8_size(buf[p]);
                for (; p < stop; p++) {
                    unsigned c = buf[p];
                    for (int t = 0; t < char_n; t++)
                        states[t] = (states[t] ^ c) * FNV_PRIME;
                }
                seen++;
                if (++slot == char_n)
                    slot = 0;
                if (seen >= char_n) /* the window that started char_n - 1 code points ago */
                    PUSH(states[slot]);
            }
        }
    }
    if (word_n > 0) {
        size_t spaces = 0;
        for (size_t k = 0; k < len; k++)
            spaces += buf[k] == 0x20;
        size_t words = spaces + 1; /* strings.Split: k separators give k + 1 fields */
        if (words >= (size_t)word_n) {
            /* The window of words first .. first + word_n - 1 is buf[s:e]: s starts its
             * first word, e is the space (or the end) after its last; both only move on. */
            size_t s = 0, e = 0;
            for (int w = 0; w < word_n; w++) {
                if (w)
                    e++;
                while (e < len && buf[e] != 0x20)
                    e++;
            }
            for (size_t first = 0; first + (size_t)word_n <= words; first++) {
                if (first) {
                    while (buf[s] != 0x20)
                        s++;
                    s++;
                    e++;
                    while (e < len && buf[e] != 0x20)
                        e++;
                }
                size_t k = s;
                uint64_t h = FNV_OFFSET;
                if (e - k >= 2) {
                    h = pairs[((size_t)buf[k] << 8) | buf[k + 1]];
                    k += 2;
                }
                for (; k < e; k++)
                    h = (h ^ buf[k]) * FNV_PRIME;
                PUSH(h);
            }
        }
    }
    if (filled) {
        K(vote_block)(vote->block, filled, vote);
        windows += (int64_t)filled;
    }
    if (windows == 0) {
        uint64_t h = FNV_OFFSET;
        for (size_t k = 0; k < len; k++)
            h = (h ^ buf[k]) * FNV_PRIME;
        return h;
    }
    return K(majority)(vote, windows + 1);
}

#undef PUSH

static KATTR void K(spans)(const uint8_t *data, const int64_t *offsets, const int64_t *sizes,
                           size_t count, int char_n, int word_n, uint64_t *out, uint8_t *work,
                           Vote *vote, uint64_t *states) {
    for (size_t i = 0; i < count; i++) {
        int ascii;
        size_t end = K(normalize)(data + offsets[i], (size_t)sizes[i], work, &ascii);
        out[i] = K(vote_text)(work + 1, end - 1, ascii, char_n, word_n, vote, states);
    }
}
