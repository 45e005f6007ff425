/* The vote: per-bit counts of window hashes, bit-sliced (part of kernel.h).
 *
 * Hashes are gathered in blocks of at most BLOCK. From 384 hashes a block (KISA >= 1), a
 * multiple of 128 goes eight side by side through vector carry-save adders, counted in
 * the lanes' own nine-digit counts; the rest goes one word at a time through a
 * Harley-Seal tree into four digits carried from block to block (Vote.planes), whose
 * sixteens are spread into packed 8-bit counters.
 */

#define CSA(hi, lo, a, b, c)            \
    do {                                \
        uint64_t u_ = (a) ^ (b);        \
        uint64_t c_ = (c);              \
        (hi) = ((a) & (b)) | (u_ & c_); \
        (lo) = u_ ^ c_;                 \
    } while (0)

/* Add h[0:count] (count <= BLOCK) to the planes and totals, one word at a time. */
static KATTR void K(vote_scalar)(const uint64_t *h, size_t count, Vote *vote) {
    const uint64_t *spread = TABLES.spread;
    uint64_t ones = vote->planes[0], twos = vote->planes[1], fours = vote->planes[2],
             eights = vote->planes[3];
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    uint64_t twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
    size_t full = count - count % 16, i;
    for (i = 0; i < full; i += 16) {
        CSA(twos_a, ones, ones, h[i], h[i + 1]);
        CSA(twos_b, ones, ones, h[i + 2], h[i + 3]);
        CSA(fours_a, twos, twos, twos_a, twos_b);
        CSA(twos_a, ones, ones, h[i + 4], h[i + 5]);
        CSA(twos_b, ones, ones, h[i + 6], h[i + 7]);
        CSA(fours_b, twos, twos, twos_a, twos_b);
        CSA(eights_a, fours, fours, fours_a, fours_b);
        CSA(twos_a, ones, ones, h[i + 8], h[i + 9]);
        CSA(twos_b, ones, ones, h[i + 10], h[i + 11]);
        CSA(fours_a, twos, twos, twos_a, twos_b);
        CSA(twos_a, ones, ones, h[i + 12], h[i + 13]);
        CSA(twos_b, ones, ones, h[i + 14], h[i + 15]);
        CSA(fours_b, twos, twos, twos_a, twos_b);
        CSA(eights_b, fours, fours, fours_a, fours_b);
        CSA(sixteens, eights, eights, eights_a, eights_b);
        a0 += spread[sixteens & 0xFF];
        a1 += spread[(sixteens >> 8) & 0xFF];
        a2 += spread[(sixteens >> 16) & 0xFF];
        a3 += spread[(sixteens >> 24) & 0xFF];
        a4 += spread[(sixteens >> 32) & 0xFF];
        a5 += spread[(sixteens >> 40) & 0xFF];
        a6 += spread[(sixteens >> 48) & 0xFF];
        a7 += spread[sixteens >> 56];
    }
    for (; i < count; i++) { /* one at a time: a ripple through the digits */
        uint64_t carry = h[i], t;
        t = ones & carry; ones ^= carry; carry = t;
        t = twos & carry; twos ^= carry; carry = t;
        t = fours & carry; fours ^= carry; carry = t;
        t = eights & carry; eights ^= carry; carry = t;
        a0 += spread[carry & 0xFF];
        a1 += spread[(carry >> 8) & 0xFF];
        a2 += spread[(carry >> 16) & 0xFF];
        a3 += spread[(carry >> 24) & 0xFF];
        a4 += spread[(carry >> 32) & 0xFF];
        a5 += spread[(carry >> 40) & 0xFF];
        a6 += spread[(carry >> 48) & 0xFF];
        a7 += spread[carry >> 56];
    }
    vote->planes[0] = ones;
    vote->planes[1] = twos;
    vote->planes[2] = fours;
    vote->planes[3] = eights;
    if (full || count) {
        int64_t *totals = vote->totals;
        for (int k = 0; k < 8; k++) {
            int s = 8 * k;
            totals[k] += 16 * (int64_t)((a0 >> s) & 0xFF);
            totals[8 + k] += 16 * (int64_t)((a1 >> s) & 0xFF);
            totals[16 + k] += 16 * (int64_t)((a2 >> s) & 0xFF);
            totals[24 + k] += 16 * (int64_t)((a3 >> s) & 0xFF);
            totals[32 + k] += 16 * (int64_t)((a4 >> s) & 0xFF);
            totals[40 + k] += 16 * (int64_t)((a5 >> s) & 0xFF);
            totals[48 + k] += 16 * (int64_t)((a6 >> s) & 0xFF);
            totals[56 + k] += 16 * (int64_t)((a7 >> s) & 0xFF);
        }
    }
}

#if KISA >= 1
#define LANE_DIGITS 9 /* a lane's count: up to 511 (a block gives it 480 at most) */
#define LANE_ROWS 12  /* and three more digits for the lanes' sum (a block < 4,096) */

#define VCSA(hi, lo, a, b, c)           \
    do {                                \
        u64x8 u_ = (a) ^ (b);           \
        u64x8 c_ = (c);                 \
        (hi) = ((a) & (b)) | (u_ & c_); \
        (lo) = u_ ^ c_;                 \
    } while (0)

/* Add the eight vectors x[0:8] to ones, twos, fours; the eights carry. */
#define ADD_EIGHT(carry, x)                        \
    do {                                           \
        u64x8 ta_, tb_, fa_, fb_;                  \
        VCSA(ta_, ones, ones, (x)[0], (x)[1]);     \
        VCSA(tb_, ones, ones, (x)[2], (x)[3]);     \
        VCSA(fa_, twos, twos, ta_, tb_);           \
        VCSA(ta_, ones, ones, (x)[4], (x)[5]);     \
        VCSA(tb_, ones, ones, (x)[6], (x)[7]);     \
        VCSA(fb_, twos, twos, ta_, tb_);           \
        VCSA(carry, fours, fours, fa_, fb_);       \
    } while (0)

/* Add the bits of h[0:count] (a multiple of 128, at most BLOCK) to totals: hash
 * i + 8 m + l goes to lane l, eight lanes side by side in vector carry-save adders. */
static KATTR void K(vote_lanes)(const uint64_t *h, size_t count, int64_t *totals) {
    u64x8 ones = {0}, twos = {0}, fours = {0}, eights = {0};
    u64x8 high[LANE_DIGITS - 4];
    for (int d = 0; d < LANE_DIGITS - 4; d++)
        high[d] = (u64x8){0};
    for (size_t i = 0; i < count; i += 128) {
        u64x8 x[16], eights_a, eights_b, carry;
        for (int k = 0; k < 16; k++)
            memcpy(&x[k], h + i + 8 * k, sizeof(u64x8));
        ADD_EIGHT(eights_a, x);
        ADD_EIGHT(eights_b, x + 8);
        VCSA(carry, eights, eights, eights_a, eights_b);
        for (int d = 0; d < LANE_DIGITS - 4; d++) { /* the sixteens ripple up */
            u64x8 digit = high[d];
            high[d] = digit ^ carry;
            carry = digit & carry;
        }
    }
    uint64_t lanes[LANE_ROWS][8];
    memcpy(lanes[0], &ones, sizeof(u64x8));
    memcpy(lanes[1], &twos, sizeof(u64x8));
    memcpy(lanes[2], &fours, sizeof(u64x8));
    memcpy(lanes[3], &eights, sizeof(u64x8));
    for (int d = 4; d < LANE_DIGITS; d++)
        memcpy(lanes[d], &high[d - 4], sizeof(u64x8));
    /* lanes 4-7 into 0-3 (ten digits), 2-3 into 0-1 (eleven), 1 into 0 (twelve) */
    int digits = LANE_DIGITS;
    for (int half = 4; half; half /= 2) {
        for (int lane = 0; lane < half; lane++) {
            uint64_t carry = 0;
            for (int d = 0; d < digits; d++) {
                uint64_t a = lanes[d][lane], b = lanes[d][lane + half], u = a ^ b;
                lanes[d][lane] = u ^ carry;
                carry = (a & b) | (u & carry);
            }
            lanes[digits][lane] = carry;
        }
        digits++;
    }
    for (int d = 0; d < digits; d++) {
        uint64_t word = lanes[d][0];
        while (word) {
            int k = ctz64(word);
            totals[k] += (int64_t)1 << d;
            word &= word - 1;
        }
    }
}
#endif

/* Add the bits of h[0:count] (count <= BLOCK) to the running per-bit counts. */
static KATTR void K(vote_block)(const uint64_t *h, size_t count, Vote *vote) {
    size_t first = 0;
#if KISA >= 1
    if (count >= 384) {
        first = count - count % 128;
        K(vote_lanes)(h, first, vote->totals);
    }
#endif
    K(vote_scalar)(h + first, count - first, vote);
}

static KATTR void K(vote_reset)(Vote *vote) {
    memset(vote->totals, 0, sizeof vote->totals);
    memset(vote->planes, 0, sizeof vote->planes);
}

/* Each bit's count over h[0:n], voted a block at a time (the tests' view of the vote). */
static KATTR void K(vote_counts)(const uint64_t *h, size_t n, Vote *vote, int64_t *counts) {
    K(vote_reset)(vote);
    for (size_t i = 0; i < n; i += BLOCK)
        K(vote_block)(h + i, n - i < BLOCK ? n - i : BLOCK, vote);
    for (int bit = 0; bit < 64; bit++) {
        counts[bit] = vote->totals[bit];
        for (int d = 0; d < 4; d++)
            counts[bit] += (int64_t)((vote->planes[d] >> bit) & 1) << d;
    }
}

/* The fingerprint whose bit i is 1 iff twice the count of bit i is at least need. */
static KATTR uint64_t K(majority)(const Vote *vote, int64_t need) {
    uint64_t fp = 0;
    for (int bit = 0; bit < 64; bit++) {
        int64_t count = vote->totals[bit];
        count += (int64_t)((vote->planes[0] >> bit) & 1);
        count += 2 * (int64_t)((vote->planes[1] >> bit) & 1);
        count += 4 * (int64_t)((vote->planes[2] >> bit) & 1);
        count += 8 * (int64_t)((vote->planes[3] >> bit) & 1);
        if (2 * count >= need)
            fp |= UINT64_C(1) << bit;
    }
    return fp;
}
