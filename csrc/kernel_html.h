/* The html-distance kernel: Go's x/net/html tokenizer, features, FNV-1, vote (part of
 * kernel.h).
 *
 * The tokenizer is a port of golang.org/x/net/html's Tokenizer.Next with the structure of
 * the literal test oracle tests/core/go_html_reference.py (`re` is Go's z.raw.end; a read
 * at the end sets eof and leaves re alone). Each token's features ("A:div", "G:a:href",
 * ...) are written to a byte buffer; every window of `shingle` features (padded with
 * empty ones at the start) joined by spaces is hashed with FNV-1 64 and voted (bit i is 1
 * iff at least half of the window hashes have it). With shingle 3 each feature goes into
 * its three windows as soon as it is written (absorb), so the feature buffer holds one
 * feature at a time; other shingles hash the written features afterwards.
 *
 * Faster than byte by byte where it can be, with the same tokens: the ends of text, raw
 * bodies, quoted values and names are found 64 bytes a step (KISA >= 1; eight or one
 * portably); a tag or attribute name of up to eight bytes is read as one word, lower-cased
 * in it and looked up among the atoms by that word.
 *
 * Two rare cases are left to the Python pipeline (HTML_NEEDS_PYTHON): the value of a
 * class/name/rel attribute holding '&', CR or NUL (character references and newline rules
 * apply to it), and a window whose hash is 0 (Go stops summing there).
 */

/* Where the first of the 64 bytes at p that is a stop of `which` is (0-63; 64: none). */
static KATTR ALWAYS_INLINE int K(first_stop)(const uint8_t *p, int which) {
#if KISA >= 2
    __m512i x = _mm512_loadu_si512((const void *)p);
    uint64_t hit = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(' ')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\t')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\f')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\r')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('/')) |
                   _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('>'));
    if (which == STOP_KEY)
        hit |= _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('='));
    return hit ? ctz64(hit) : 64;
#elif KISA >= 1
    uint64_t hit = 0;
    for (int half = 0; half < 2; half++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + 32 * half));
        __m256i h = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(' ')),
                            _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\t'))),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\n')),
                            _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\f'))));
        h = _mm256_or_si256(h, _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\r')),
                                               _mm256_cmpeq_epi8(x, _mm256_set1_epi8('/'))));
        h = _mm256_or_si256(h, _mm256_cmpeq_epi8(x, _mm256_set1_epi8('>')));
        if (which == STOP_KEY)
            h = _mm256_or_si256(h, _mm256_cmpeq_epi8(x, _mm256_set1_epi8('=')));
        hit |= (uint64_t)(uint32_t)_mm256_movemask_epi8(h) << (32 * half);
    }
    return hit ? ctz64(hit) : 64;
#else
    for (int k = 0; k < 64; k++)
        if (STOPS[p[k]] & which)
            return k;
    return 64;
#endif
}

/* The first index from i whose byte is `byte`, many bytes a step; once too few bytes are
 * left for a step, the index where the search stopped (the caller's byte loop goes on). */
static KATTR ALWAYS_INLINE int64_t K(skip_to)(const uint8_t *buf, int64_t n, int64_t i, unsigned byte) {
#if KISA >= 2
    __m512i splat = _mm512_set1_epi8((char)byte);
    while (i + 64 <= n) {
        uint64_t hit = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void *)(buf + i)), splat);
        if (hit)
            return i + ctz64(hit);
        i += 64;
    }
#elif KISA >= 1
    __m256i splat = _mm256_set1_epi8((char)byte);
    while (i + 64 <= n) {
        uint64_t lo = (uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(buf + i)), splat));
        uint64_t hi = (uint32_t)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(buf + i + 32)), splat));
        uint64_t hit = lo | (hi << 32);
        if (hit)
            return i + ctz64(hit);
        i += 64;
    }
#else
    uint64_t splat = byte * ONES;
    while (i + 8 <= n) {
        uint64_t hit = zero_bytes(load_le64(buf + i) ^ splat);
        if (hit)
            return i + (ctz64(hit) >> 3);
        i += 8;
    }
#endif
    return i;
}

/* Go's readRawOrRCDATA for a raw element other than script. */
static KATTR int K(read_raw)(const uint8_t *buf, int64_t n, int64_t *re, int tag) {
    int eof = 0;
    for (;;) {
        *re = K(skip_to)(buf, n, *re, 0x3C);
        if (*re >= n)
            return 1;
        unsigned c = buf[(*re)++];
        if (c != 0x3C)
            continue;
        if (*re >= n)
            return 1;
        c = buf[(*re)++];
        if (c != 0x2F) {
            (*re)--;
            continue;
        }
        if (raw_end_tag(buf, n, re, tag, &eof) || eof)
            return eof;
    }
}

static KATTR int K(until_close_angle)(const uint8_t *buf, int64_t n, int64_t *re) {
    *re = K(skip_to)(buf, n, *re, 0x3E);
    for (;;) {
        if (*re >= n)
            return 1;
        if (buf[(*re)++] == 0x3E)
            return 0;
    }
}

/* Go's readMarkupDeclaration after "<!": the token kind. */
static KATTR int K(markup_declaration)(const uint8_t *buf, int64_t n, int64_t *re, int *eof) {
    int64_t data_start = *re;
    if (*re + 2 > n) {
        *re = n;
        *eof = 1;
        return TK_COMMENT;
    }
    if (buf[*re] == 0x2D && buf[*re + 1] == 0x2D) {
        *re += 2;
        *eof = read_comment(buf, n, re);
        return TK_COMMENT;
    }
    static const char doctype_name[] = "DOCTYPE";
    int doctype = 1;
    for (int k = 0; k < 7; k++) {
        if (*re >= n) {
            *re = data_start;
            doctype = 0;
            break;
        }
        unsigned c = buf[(*re)++], ch = (unsigned char)doctype_name[k];
        if (c != ch && c != ch + 32) {
            *re = data_start;
            doctype = 0;
            break;
        }
    }
    if (doctype) {
        skip_ws(buf, n, re, eof);
        if (*eof)
            return TK_DOCTYPE;
        *eof = K(until_close_angle)(buf, n, re);
        return TK_DOCTYPE;
    }
    *eof = K(until_close_angle)(buf, n, re);
    return TK_COMMENT;
}

/* Go's readTagAttrVal: the value is buf[*v0:*v1]. */
static KATTR ALWAYS_INLINE void K(attr_value)(const uint8_t *buf, int64_t n, int64_t *re, int *eof,
                                              int64_t *v0, int64_t *v1) {
    *v0 = *v1 = *re;
    if (*eof)
        return;
    skip_ws(buf, n, re, eof);
    if (*eof)
        return;
    unsigned c = buf[(*re)++];
    if (c == 0x2F)
        return;
    if (c != 0x3D) {
        (*re)--;
        return;
    }
    skip_ws(buf, n, re, eof);
    if (*eof)
        return;
    unsigned quote = buf[(*re)++];
    if (quote == 0x3E) {
        (*re)--;
        return;
    }
    if (quote == 0x27 || quote == 0x22) {
        *v0 = *re;
        *re = K(skip_to)(buf, n, *re, quote);
        for (;;) {
            if (*re >= n) {
                *v1 = *re;
                *eof = 1;
                return;
            }
            if (buf[(*re)++] == quote) {
                *v1 = *re - 1;
                return;
            }
        }
    }
    *v0 = *re - 1;
    for (;;) {
        if (*re >= n) {
            *v1 = *re;
            *eof = 1;
            return;
        }
        c = buf[(*re)++];
        if (is_ws(c)) {
            *v1 = *re - 1;
            return;
        }
        if (c == 0x3E) {
            *v1 = *re - 1;
            (*re)--;
            return;
        }
    }
}

/* Where the tag name that starts at re - 1 ends when '>' follows it at once (a tag
 * without attributes, the usual end tag), found 64 bytes a step; else -1. */
static KATTR ALWAYS_INLINE int64_t K(bare_name_end)(const uint8_t *buf, int64_t n, int64_t re) {
    if (re + 64 <= n) {
        int64_t end = re + K(first_stop)(buf + re, STOP_NAME);
        if (end < re + 64 && buf[end] == 0x3E)
            return end;
    }
    return -1;
}

/* Go's readTag (the tag name's first byte read). Kept attributes (with save) go to
 * attrs as (key start, key end, value start, value end); a repeated key keeps the first.
 * Returns how many were kept, or -1 when memory ran out. */
static KATTR ALWAYS_INLINE int64_t K(read_tag)(const uint8_t *buf, int64_t n, int64_t *re_, int save,
                                               Int64s *attrs, int *eof_, int64_t *name_start,
                                               int64_t *name_end) {
    int64_t count = 0, re = *re_;
    int eof = 0;
    /* readTagName */
    *name_start = re - 1;
    if (re + 64 <= n) /* to the first byte that ends the name, 64 a step; then as below */
        re += K(first_stop)(buf + re, STOP_NAME);
    for (;;) {
        if (re >= n) {
            eof = 1;
            *name_end = re;
            break;
        }
        unsigned c = buf[re++];
        if (is_ws(c)) {
            *name_end = re - 1;
            break;
        }
        if (c == 0x2F || c == 0x3E) {
            re--;
            *name_end = re;
            break;
        }
    }
    skip_ws(buf, n, &re, &eof);
    if (eof)
        goto done;
    for (;;) {
        if (re >= n) {
            eof = 1;
            break;
        }
        if (buf[re] == 0x3E) {
            re++;
            break;
        }
        /* readTagAttrKey */
        int64_t k0 = re, k1, v0, v1;
        if (re + 65 <= n && buf[re] != 0x2F) /* the first byte is the key's (even "=") */
            re += 1 + K(first_stop)(buf + re + 1, STOP_KEY);
        for (;;) {
            if (re >= n) {
                eof = 1;
                k1 = re;
                break;
            }
            unsigned c = buf[re++];
            if (c == 0x3D && k0 + 1 == re)
                continue;
            if (c == 0x3D || is_ws(c) || c == 0x2F || c == 0x3E) {
                re--;
                k1 = re;
                break;
            }
        }
        K(attr_value)(buf, n, &re, &eof, &v0, &v1);
        if (save && k0 != k1) {
            int fresh = 1;
            for (int64_t j = 0; j < count; j++) {
                if (same_key(buf, attrs->data[4 * j], attrs->data[4 * j + 1], k0, k1)) {
                    fresh = 0;
                    break;
                }
            }
            if (fresh) {
                if (!int64s_reserve(attrs, (size_t)(4 * count + 4)))
                    return -1;
                int64_t *row = attrs->data + 4 * count;
                row[0] = k0;
                row[1] = k1;
                row[2] = v0;
                row[3] = v1;
                count++;
            }
        }
        skip_ws(buf, n, &re, &eof);
        if (eof)
            break;
    }
done:
    *re_ = re;
    *eof_ = eof;
    return count;
}

/* Hash the feature feat[0:len] into the two open windows (chains: the states of the
 * windows opened two and one features ago) and open a new one, whose state after the
 * feature's first `known` bytes is `fresh` (from a table). The window it completes goes
 * to the block (voted when full). Returns 0, or -1 when that window's hash is 0. */
static KATTR ALWAYS_INLINE int K(absorb)(const uint8_t *feat, int64_t len, uint64_t *chains,
                                         Vote *vote, size_t *filled, uint64_t fresh, int64_t known) {
    uint64_t older = (chains[0] * FNV_PRIME) ^ 0x20;
    uint64_t newer = (chains[1] * FNV_PRIME) ^ 0x20;
    int64_t k = 0;
    for (; k < known; k++) {
        uint64_t c = feat[k];
        older = (older * FNV_PRIME) ^ c;
        newer = (newer * FNV_PRIME) ^ c;
    }
    for (; k < len; k++) {
        uint64_t c = feat[k];
        older = (older * FNV_PRIME) ^ c;
        newer = (newer * FNV_PRIME) ^ c;
        fresh = (fresh * FNV_PRIME) ^ c;
    }
    if (older == 0)
        return -1;
    vote->block[(*filled)++] = older;
    if (*filled == BLOCK) {
        K(vote_block)(vote->block, BLOCK, vote);
        *filled = 0;
    }
    chains[0] = newer;
    chains[1] = fresh;
    return 0;
}

/* The page's features in order: hashed as they come (hashing: shingle 3, chains set by
 * the caller; `filled` window hashes are left in the block), or written to work->feat
 * with their starts in work->fstart. Status 0, HTML_NEEDS_PYTHON or HTML_NO_MEMORY;
 * *count: how many features. */
static KATTR int K(features)(const uint8_t *buf, int64_t n, int64_t max_tokens, int hashing,
                             HtmlWork *work, uint64_t *chains, Vote *vote, size_t *filled,
                             int64_t *count_out) {
    int64_t nf = 0, used = 0, re = 0, tokens = 0;
    int eof = 0, raw_tag = -1, pending = 0; /* pending: the kind of the tag at re, when a
                                               text token ended at it */
    if (!hashing) {
        if (!int64s_reserve(&work->fstart, 1))
            return HTML_NO_MEMORY;
        work->fstart.data[0] = 0;
    }
    while (tokens < max_tokens) {
        /* -- Go's Next */
        int64_t raw_start = re, count = 0, name_start = 0, name_end = 0;
        int kind = 0, atom = -1;
        if (eof)
            break;
        if (raw_tag >= 0) {
            int64_t data_start = re;
            if (raw_tag == RAW_PLAINTEXT) {
                re = n;
                eof = 1;
            } else if (raw_tag == RAW_SCRIPT) {
                eof = read_script(buf, n, &re);
            } else {
                eof = K(read_raw)(buf, n, &re, raw_tag);
            }
            raw_tag = -1;
            if (re > data_start)
                kind = TK_TEXT;
        }
        if (kind == 0) {
            for (;;) {
                int tag_kind;
                unsigned c;
                if (pending) { /* the tag found at the end of the text token before */
                    tag_kind = pending;
                    pending = 0;
                    re += 2;
                    c = buf[re - 1];
                } else {
                    re = K(skip_to)(buf, n, re, 0x3C); /* text: many bytes a step up to a '<' */
                    if (re >= n) {
                        eof = 1;
                        break;
                    }
                    c = buf[re++];
                    if (c != 0x3C)
                        continue;
                    if (re >= n) {
                        eof = 1;
                        break;
                    }
                    c = buf[re++];
                    if (is_letter(c))
                        tag_kind = TK_START;
                    else if (c == 0x2F)
                        tag_kind = TK_END;
                    else if (c == 0x21 || c == 0x3F)
                        tag_kind = TK_COMMENT;
                    else {
                        re--;
                        continue;
                    }
                    int64_t x = re - 2;
                    if (raw_start < x) {
                        re = x;
                        kind = TK_TEXT;
                        pending = tag_kind;
                        break;
                    }
                }
                if (tag_kind == TK_START) {
                    name_end = K(bare_name_end)(buf, n, re);
                    if (name_end >= 0) { /* "<name>": what read_tag would return, at once */
                        name_start = re - 1;
                        re = name_end + 1;
                    } else {
                        count = K(read_tag)(buf, n, &re, 1, &work->attrs, &eof, &name_start,
                                            &name_end);
                        if (count < 0)
                            return HTML_NO_MEMORY;
                    }
                    if (eof) {
                        kind = -1;
                        break;
                    }
                    atom = atom_of(buf, n, name_start, name_end);
                    if (atom >= 0)
                        raw_tag = TABLES.raw_of_atom[atom]; /* a raw-text element, or -1 */
                    kind = TK_START;
                    if (buf[re - 2] == 0x2F &&
                        (count == 0 || re - 2 != work->attrs.data[4 * count - 1] - 1))
                        kind = TK_SELF;
                    break;
                }
                if (tag_kind == TK_END) {
                    if (re >= n) {
                        eof = 1;
                        break;
                    }
                    c = buf[re++];
                    if (c == 0x3E) {
                        kind = TK_COMMENT;
                        break;
                    }
                    if (is_letter(c)) {
                        name_end = K(bare_name_end)(buf, n, re);
                        if (name_end >= 0) {
                            name_start = re - 1;
                            re = name_end + 1;
                        } else {
                            count = K(read_tag)(buf, n, &re, 0, &work->attrs, &eof, &name_start,
                                                &name_end);
                        }
                        kind = eof ? -1 : TK_END;
                        atom = atom_of(buf, n, name_start, name_end);
                        break;
                    }
                    re--;
                    eof = K(until_close_angle)(buf, n, &re);
                    kind = TK_COMMENT;
                    break;
                }
                if (c == 0x21) {
                    kind = K(markup_declaration)(buf, n, &re, &eof);
                    break;
                }
                re--;
                eof = K(until_close_angle)(buf, n, &re);
                kind = TK_COMMENT;
                break;
            }
            if (kind == 0 && raw_start < re)
                kind = TK_TEXT;
        }
        if (kind <= 0)
            break;
        tokens++;
        /* -- the token's features (8 bytes of room to spare: words are written whole) */
        if (kind != TK_START && kind != TK_SELF && kind != TK_END)
            atom = -1;
        int64_t atom_len = atom >= 0 ? TABLES.atom_len[atom] : 0;
        if (!bytes_reserve(&work->feat, (size_t)(used + 10 + atom_len)) ||
            (!hashing && !int64s_reserve(&work->fstart, (size_t)(nf + count + 2))))
            return HTML_NO_MEMORY;
        uint8_t *feat = work->feat.data;
        feat[used] = PREFIX[kind];
        feat[used + 1] = 0x3A;
        used = put_atom(feat, used + 2, atom, atom_len);
        nf++;
        if (hashing) {
            uint64_t fresh = TABLES.token_fresh[kind * TOKEN_ROW + atom + 1];
            if (K(absorb)(feat, used, chains, vote, filled, fresh, used) < 0)
                return HTML_NEEDS_PYTHON;
            used = 0;
        } else {
            work->fstart.data[nf] = used;
        }
        for (int64_t j = 0; j < count; j++) {
            const int64_t *row = work->attrs.data + 4 * j;
            int64_t k0 = row[0], k1 = row[1], v0 = row[2], v1 = row[3];
            int whole;
            uint64_t key = key_word(buf, n, k0, k1, &whole);
            int valued = whole ? (key == WORD_CLASS || key == WORD_NAME || key == WORD_REL)
                               : valued_key(buf, k0, k1);
            if (valued) {
                for (int64_t k = v0; k < v1; k++) {
                    unsigned c = buf[k];
                    if (c == 0x26 || c == 0x0D || c == 0)
                        return HTML_NEEDS_PYTHON;
                }
            }
            int64_t need = 12 + atom_len + 3 * (k1 - k0) + (v1 - v0);
            if (!bytes_reserve(&work->feat, (size_t)(used + need)))
                return HTML_NO_MEMORY;
            feat = work->feat.data;
            feat[used] = 0x47; /* G */
            feat[used + 1] = 0x3A;
            used = put_atom(feat, used + 2, atom, atom_len);
            feat[used++] = 0x3A;
            if (whole) {
                store_le64(feat + used, key);
                used += k1 - k0;
            } else {
                for (int64_t k = k0; k < k1; k++) { /* lower-cased, NUL -> U+FFFD */
                    unsigned c = buf[k];
                    if (c == 0) {
                        feat[used] = 0xEF;
                        feat[used + 1] = 0xBF;
                        feat[used + 2] = 0xBD;
                        used += 3;
                    } else {
                        feat[used++] = (uint8_t)to_lower(c);
                    }
                }
            }
            if (valued) {
                feat[used++] = 0x3A;
                memcpy(feat + used, buf + v0, (size_t)(v1 - v0));
                used += v1 - v0;
            }
            nf++;
            if (hashing) {
                if (K(absorb)(feat, used, chains, vote, filled, TABLES.attr_fresh[atom + 1],
                              3 + atom_len) < 0)
                    return HTML_NEEDS_PYTHON;
                used = 0;
            } else {
                work->fstart.data[nf] = used;
            }
        }
    }
    *count_out = nf;
    return 0;
}

/* The html-distance fingerprint of buf[0:n] in *fp (status 0), or with keep its
 * features in work (their number in *features); states holds max(shingle, 1) words. */
static KATTR int K(html)(const uint8_t *buf, size_t size, int shingle, int64_t max_tokens, int keep,
                         HtmlWork *work, Vote *vote, uint64_t *states, int64_t *features,
                         uint64_t *fp) {
    int64_t n = (int64_t)size, nf = 0;
    size_t filled = 0;
    K(vote_reset)(vote);
    /* The default shingle: each feature is hashed as it is read (absorb). */
    int fused = shingle == 3 && !keep;
    if (fused) {
        states[0] = (FNV_OFFSET * FNV_PRIME) ^ 0x20; /* the window opened at the two empty */
        states[1] = FNV_OFFSET; /* features before the first (two spaces and one to come) */
    }
    int status = K(features)(buf, n, max_tokens, fused, work, states, vote, &filled, &nf);
    *features = nf;
    if (status != 0 || keep)
        return status;
    if (nf == 0) {
        *fp = ~UINT64_C(0);
        return 0;
    }
    if (!fused) {
        const uint8_t *feat = work->feat.data;
        const int64_t *fstart = work->fstart.data;
        int slot = 0; /* the state of the window opening at the current feature */
        for (int64_t j = 1 - shingle; j < nf; j++) {
            for (int t = 0; t < shingle; t++)
                if (t != slot)
                    states[t] = (states[t] * FNV_PRIME) ^ 0x20;
            states[slot] = FNV_OFFSET;
            if (j >= 0) {
                for (int64_t k = fstart[j]; k < fstart[j + 1]; k++) {
                    uint64_t c = feat[k];
                    for (int t = 0; t < shingle; t++)
                        states[t] = (states[t] * FNV_PRIME) ^ c;
                }
            }
            if (++slot == shingle)
                slot = 0;
            if (j >= 0) { /* the window that opened at feature j - shingle + 1 is complete */
                uint64_t h = states[slot];
                if (h == 0)
                    return HTML_NEEDS_PYTHON;
                vote->block[filled++] = h;
                if (filled == BLOCK) {
                    K(vote_block)(vote->block, BLOCK, vote);
                    filled = 0;
                }
            }
        }
    }
    if (filled)
        K(vote_block)(vote->block, filled, vote);
    *fp = K(majority)(vote, nf);
    return 0;
}
