/* One table of the exact all-pairs Hamming join (part of kernel.h; the design, the bit
 * permutation and the tables are chosen in ditto_tui/core/pairs.py).
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

/* The pairs of one table (see the top of this file) appended to out; 0 when memory ran
 * out. test: {others, low, high} of the earlier-table test, or NULL when there is none. */
static KATTR int K(join_table)(const uint64_t *v, size_t n, int k, uint64_t mask,
                               const uint64_t *test, JoinOut *out) {
    if (n < 2)
        return 1;
    uint64_t *keys = (uint64_t *)malloc(2 * n * sizeof(uint64_t));
    uint32_t *idx = (uint32_t *)malloc(2 * n * sizeof(uint32_t));
    uint64_t *vs = (uint64_t *)malloc(n * sizeof(uint64_t));
    int ok = keys && idx && vs;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            keys[i] = v[i] & mask;
            idx[i] = (uint32_t)i;
        }
        /* the passes alternate between the two halves: an odd number ends in the second */
        int passes = K(radix_sort)(keys, idx, keys + n, idx + n, n, mask);
        const uint64_t *sk = passes % 2 ? keys + n : keys;
        const uint32_t *si = passes % 2 ? idx + n : idx;
        for (size_t i = 0; i < n; i++)
            vs[i] = v[si[i]];
        const uint64_t others = test ? test[0] : 0, low = test ? test[1] : 0,
                       high = test ? test[2] : 0;
        size_t s = 0;
        while (s < n && ok) {
            size_t e = s + 1;
            while (e < n && sk[e] == sk[s])
                e++;
            for (size_t a = s; a + 1 < e && ok; a++) {
                uint64_t va = vs[a];
                for (size_t b = a + 1; b < e; b++) {
                    uint64_t x = va ^ vs[b];
                    int d = popcount64(x);
                    if (d > k)
                        continue;
                    if (test) {
                        uint64_t y = ((x | others) - low) & high;
                        if ((y & x) != y)
                            continue; /* an earlier table reports it */
                    }
                    if (!push_pair(out, si[a], si[b], (unsigned)d)) {
                        ok = 0;
                        break;
                    }
                }
            }
            s = e;
        }
    }
    free(keys);
    free(idx);
    free(vs);
    return ok;
}
