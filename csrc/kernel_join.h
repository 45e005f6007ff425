/* One table of the exact all-pairs Hamming join (part of kernel.h; the design, the bit
 * permutation and the tables are chosen in ditto_tui/core/index/pairs.py).
 *
 * The fingerprints (distinct, permuted) are sorted by their key in this table (the bits of
 * its chosen blocks: v & mask) with an LSD radix sort over the bytes the mask touches;
 * within each run of equal keys every pair is compared (popcount of the XOR), and a pair
 * within k is kept when this is the first table, in lexicographic order of block choices,
 * whose blocks all agree (the has-zero-field test of pairs._first_table), so each pair is
 * reported by exactly one table.
 */

/* Sort idx[0:n] (and keys[0:n] with them) by keys, LSD, one pass per byte of `mask` that
 * has bits, back and forth between the arrays and tmp_* (n entries each): after an odd
 * number of passes the sorted arrays are tmp_*, else keys/idx. */
static KATTR int K(radix_sort)(uint64_t *keys, uint32_t *idx, uint64_t *tmp_keys,
                               uint32_t *tmp_idx, size_t n, uint64_t mask) {
    size_t count[256];
    int passes = 0;
    for (int byte = 0; byte < 8; byte++) {
        int shift = 8 * byte;
        if (((mask >> shift) & 0xFF) == 0)
            continue;
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[(keys[i] >> shift) & 0xFF]++;
        if (n && count[(keys[0] >> shift) & 0xFF] == n)
            continue; /* every key has this byte: the order stays */
        passes++;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = count[(keys[i] >> shift) & 0xFF]++;
            tmp_keys[at] = keys[i];
            tmp_idx[at] = idx[i];
        }
        uint64_t *swap_keys = keys;
        keys = tmp_keys;
        tmp_keys = swap_keys;
        uint32_t *swap_idx = idx;
        idx = tmp_idx;
        tmp_idx = swap_idx;
    }
    return passes;
}

/* The stable order of keys[0:n] into order (a radix argsort over the bytes that differ);
 * 0 when memory ran out. */
static KATTR int K(argsort)(const uint64_t *keys, size_t n, uint32_t *order) {
    uint64_t *k2 = (uint64_t *)malloc(2 * (n ? n : 1) * sizeof(uint64_t));
    uint32_t *i2 = (uint32_t *)malloc((n ? n : 1) * sizeof(uint32_t));
    if (!k2 || !i2) {
        free(k2);
        free(i2);
        return 0;
    }
    memcpy(k2, keys, n * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    int passes = K(radix_sort)(k2, order, k2 + n, i2, n, ~UINT64_C(0));
    if (passes % 2)
        memcpy(order, i2, n * sizeof(uint32_t));
    free(k2);
    free(i2);
    return 1;
}

#define DIGIT_BITS 11

/* The pairs of one table (see the top of this file) appended to out; 0 when memory ran
 * out. v[0:n] are the (permuted, distinct) fingerprints; test: {others, low, high} of the
 * earlier-table test, or NULL when there is none. A key of at most 32 bits (the usual
 * case) is packed above the position in one word, and the words are sorted LSD 11 bits a
 * pass; a wider key sorts (key, position) a byte a pass (radix_sort). */
static KATTR int K(join_table)(const uint64_t *v, size_t n, int k, uint64_t mask,
                               const uint64_t *test, JoinOut *out) {
    if (n < 2)
        return 1;
    int spans[128], count = 0, bits = 0;
    for (int bit = 0; bit < 64;) {
        if (!((mask >> bit) & 1)) {
            bit++;
            continue;
        }
        int start = bit;
        while (bit < 64 && ((mask >> bit) & 1))
            bit++;
        spans[2 * count] = start;
        spans[2 * count + 1] = bit - start;
        bits += bit - start;
        count++;
    }
    uint64_t *words = (uint64_t *)malloc(2 * n * sizeof(uint64_t));
    uint32_t *idx = NULL;
    if (!words)
        return 0;
    const uint64_t *sorted; /* key above position (packed), or key alone (wide) */
    const uint32_t *pos;    /* positions, for a wide key */
    int packed = bits <= 32;
    if (packed) {
        uint64_t *src = words, *dst = words + n;
        for (size_t i = 0; i < n; i++)
            src[i] = (table_key(v[i], spans, count) << 32) | (uint64_t)i;
        size_t hist[1 << DIGIT_BITS];
        const uint64_t digit_mask = (UINT64_C(1) << DIGIT_BITS) - 1;
        for (int shift = 32; shift < 32 + bits; shift += DIGIT_BITS) {
            memset(hist, 0, sizeof hist);
            for (size_t i = 0; i < n; i++)
                hist[(src[i] >> shift) & digit_mask]++;
            size_t sum = 0;
            for (size_t b = 0; b < ((size_t)1 << DIGIT_BITS); b++) {
                size_t c = hist[b];
                hist[b] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++)
                dst[hist[(src[i] >> shift) & digit_mask]++] = src[i];
            uint64_t *swap = src;
            src = dst;
            dst = swap;
        }
        sorted = src;
        pos = NULL;
    } else {
        idx = (uint32_t *)malloc(2 * n * sizeof(uint32_t));
        if (!idx) {
            free(words);
            return 0;
        }
        for (size_t i = 0; i < n; i++) {
            words[i] = v[i] & mask;
            idx[i] = (uint32_t)i;
        }
        int passes = K(radix_sort)(words, idx, words + n, idx + n, n, mask);
        sorted = passes % 2 ? words + n : words;
        pos = passes % 2 ? idx + n : idx;
    }
    const uint64_t others = test ? test[0] : 0, low = test ? test[1] : 0, high = test ? test[2] : 0;
    const uint64_t key_mask = packed ? ~UINT64_C(0) << 32 : ~UINT64_C(0);
    int ok = 1;
    size_t s = 0;
    while (s < n && ok) {
        uint64_t key = sorted[s] & key_mask;
        size_t e = s + 1;
        while (e < n && (sorted[e] & key_mask) == key)
            e++;
        for (size_t a = s; a + 1 < e && ok; a++) {
            uint32_t ia = packed ? (uint32_t)sorted[a] : pos[a];
            uint64_t va = v[ia];
            for (size_t b = a + 1; b < e; b++) {
                uint32_t ib = packed ? (uint32_t)sorted[b] : pos[b];
                uint64_t x = va ^ v[ib];
                int d = popcount64(x);
                if (d > k)
                    continue;
                if (test) {
                    uint64_t y = ((x | others) - low) & high;
                    if ((y & x) != y)
                        continue; /* an earlier table reports it */
                }
                if (!push_pair(out, ia, ib, (unsigned)d)) {
                    ok = 0;
                    break;
                }
            }
        }
        s = e;
    }
    free(words);
    free(idx);
    return ok;
}
