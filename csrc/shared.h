/* Helpers of the kernels that no instruction set changes (included once, before the
 * variants of kernel.h; they inline into each). */
#ifndef DITTO_SHARED_H
#define DITTO_SHARED_H

#include "engine.h"

/* -- ditto/2 --------------------------------------------------------------------------- */

/* UTF-8 encode cp at out[o]; the new end. */
static ALWAYS_INLINE size_t put_utf8(uint8_t *out, size_t o, uint32_t cp) {
    if (cp < 0x80) {
        out[o] = (uint8_t)cp;
        return o + 1;
    }
    if (cp < 0x800) {
        out[o] = (uint8_t)(0xC0 | (cp >> 6));
        out[o + 1] = (uint8_t)(0x80 | (cp & 0x3F));
        return o + 2;
    }
    if (cp < 0x10000) {
        out[o] = (uint8_t)(0xE0 | (cp >> 12));
        out[o + 1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[o + 2] = (uint8_t)(0x80 | (cp & 0x3F));
        return o + 3;
    }
    out[o] = (uint8_t)(0xF0 | (cp >> 18));
    out[o + 1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[o + 2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[o + 3] = (uint8_t)(0x80 | (cp & 0x3F));
    return o + 4;
}

/* Length of the valid UTF-8 sequence starting with byte lead. */
static ALWAYS_INLINE size_t utf8_size(unsigned lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

/* The first index q >= p of text[0:n] with a byte >= 0x80, or n; eight bytes a step. */
static ALWAYS_INLINE size_t ascii_run_end(const uint8_t *text, size_t p, size_t n) {
    size_t q = p;
    while (q + 8 <= n) {
        uint64_t high = load_le64(text + q) & HIGH;
        if (high)
            return q + (size_t)(ctz64(high) >> 3);
        q += 8;
    }
    while (q < n && text[q] < 0x80)
        q++;
    return q;
}

/* -- html-distance --------------------------------------------------------------------- */

#define STOP_NAME 1 /* " \t\n\f\r/>": where a tag name ends */
#define STOP_KEY 2  /* ... and "=": where an attribute name ends (not at its first byte) */

/* Which stops (STOP_NAME, STOP_KEY) each byte is: the portable search for them. */
static const uint8_t STOPS[256] = {
    ['\t'] = 3, ['\n'] = 3, ['\f'] = 3, ['\r'] = 3, [' '] = 3, ['/'] = 3, ['>'] = 3, ['='] = 2,
};

static ALWAYS_INLINE int is_ws(unsigned c) {
    return c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x0C;
}

static ALWAYS_INLINE int is_letter(unsigned c) { return ((c | 0x20) - 0x61u) < 26u; }

static ALWAYS_INLINE unsigned to_lower(unsigned c) { return c - 0x41u < 26u ? c + 32 : c; }

/* Skip whitespace from *re (unless *eof); sets *eof at the end of the input. */
static ALWAYS_INLINE void skip_ws(const uint8_t *buf, int64_t n, int64_t *re, int *eof) {
    if (*eof)
        return;
    while (*re < n) {
        if (!is_ws(buf[*re]))
            return;
        (*re)++;
    }
    *eof = 1;
}

/* Go's readRawEndTag after "</": whether the raw element `tag` ends here. */
static int raw_end_tag(const uint8_t *buf, int64_t n, int64_t *re, int tag, int *eof) {
    const char *name = RAW_NAMES[tag];
    int64_t length = (int64_t)strlen(name);
    for (int64_t i = 0; i < length; i++) {
        if (*re >= n) {
            *eof = 1;
            return 0;
        }
        unsigned c = buf[(*re)++], t = (unsigned char)name[i];
        if (c != t && c != t - 32) {
            (*re)--;
            return 0;
        }
    }
    if (*re >= n) {
        *eof = 1;
        return 0;
    }
    unsigned c = buf[(*re)++];
    if (is_ws(c) || c == 0x2F || c == 0x3E) {
        *re -= 3 + length;
        return 1;
    }
    (*re)--;
    return 0;
}

/* Go's readScript: where the script text ends (*re); whether the input ended. */
static int read_script(const uint8_t *buf, int64_t n, int64_t *re_) {
    /* states: 0 data, 1 lt, 2 endopen, 3 escstart, 4 escstartdash, 5 esc, 6 escdash,
     * 7 escdashdash, 8 esclt, 9 escendopen, 10 dblstart, 11 dbl, 12 dbldash,
     * 13 dbldashdash, 14 dbllt, 15 dblend */
    int state = 0, eof = 0;
    int64_t re = *re_;
    const char *script = RAW_NAMES[RAW_SCRIPT];
    for (;;) {
        if (state == 2 || state == 9) {
            int ok = raw_end_tag(buf, n, &re, RAW_SCRIPT, &eof);
            if (ok || eof)
                break;
            state = state == 2 ? 0 : 5;
            continue;
        }
        if (state == 15) {
            int ok = raw_end_tag(buf, n, &re, RAW_SCRIPT, &eof);
            if (ok) {
                re += 9;
                state = 5;
                continue;
            }
            if (eof)
                break;
            state = 11;
            continue;
        }
        if (state == 10) {
            re--;
            state = 11;
            for (int i = 0; i < 6; i++) {
                if (re >= n) {
                    eof = 1;
                    break;
                }
                unsigned c = buf[re++], t = (unsigned char)script[i];
                if (c != t && c != t - 32) {
                    re--;
                    state = 5;
                    break;
                }
            }
            if (eof)
                break;
            if (state == 5)
                continue;
            if (re >= n) {
                eof = 1;
                break;
            }
            unsigned c = buf[re++];
            if (!(is_ws(c) || c == 0x2F || c == 0x3E)) {
                re--;
                state = 5;
            }
            continue;
        }
        if (re >= n) {
            eof = 1;
            break;
        }
        unsigned c = buf[re++];
        switch (state) {
        case 0:
            if (c == 0x3C)
                state = 1;
            break;
        case 1:
            if (c == 0x2F)
                state = 2;
            else if (c == 0x21)
                state = 3;
            else {
                re--;
                state = 0;
            }
            break;
        case 3:
        case 4:
            if (c == 0x2D)
                state = state == 3 ? 4 : 7;
            else {
                re--;
                state = 0;
            }
            break;
        case 5:
        case 6:
        case 7:
            if (c == 0x2D)
                state = state == 5 ? 6 : 7;
            else if (c == 0x3C)
                state = 8;
            else if (c == 0x3E && state == 7)
                state = 0;
            else
                state = 5;
            break;
        case 8:
            if (c == 0x2F)
                state = 9;
            else if (is_letter(c))
                state = 10;
            else {
                re--;
                state = 0;
            }
            break;
        case 11:
        case 12:
        case 13:
            if (c == 0x2D)
                state = state == 11 ? 12 : 13;
            else if (c == 0x3C)
                state = 14;
            else if (c == 0x3E && state == 13)
                state = 0;
            else
                state = 11;
            break;
        default: /* 14: dbllt */
            if (c == 0x2F)
                state = 15;
            else {
                re--;
                state = 11;
            }
        }
    }
    *re_ = re;
    return eof;
}

static int read_comment(const uint8_t *buf, int64_t n, int64_t *re) {
    int dash = 0, beginning = 1;
    for (;;) {
        if (*re >= n)
            return 1;
        unsigned c = buf[(*re)++];
        if (c == 0x2D) {
            dash++;
            continue;
        }
        if (c == 0x3E) {
            if (dash >= 2 || beginning)
                return 0;
        } else if (c == 0x21 && dash >= 2) {
            if (*re >= n)
                return 1;
            c = buf[(*re)++];
            if (c == 0x3E)
                return 0;
            if (c == 0x2D) {
                dash = 1;
                beginning = 0;
                continue;
            }
        }
        dash = 0;
        beginning = 0;
    }
}

static ALWAYS_INLINE int same_key(const uint8_t *buf, int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
    if (a1 - a0 != b1 - b0)
        return 0;
    for (int64_t k = 0; k < a1 - a0; k++)
        if (to_lower(buf[a0 + k]) != to_lower(buf[b0 + k]))
            return 0;
    return 1;
}

/* The atom equal to the lower-cased buf[a:b] (FNV-1a probing), or -1. */
static int atom_probe(const uint8_t *buf, int64_t a, int64_t b) {
    uint64_t h = FNV_OFFSET;
    for (int64_t k = a; k < b; k++)
        h = (h ^ to_lower(buf[k])) * FNV_PRIME;
    size_t s = h & (ATOM_SLOTS - 1);
    while (TABLES.slots[s] != -1) {
        int i = TABLES.slots[s];
        if (TABLES.atom_len[i] == b - a) {
            const char *name = TABLES.atom_name[i];
            int64_t k = 0;
            while (k < b - a && (unsigned char)name[k] == to_lower(buf[a + k]))
                k++;
            if (k == b - a)
                return i;
        }
        s = (s + 1) & (ATOM_SLOTS - 1);
    }
    return -1;
}

/* buf[a:b] lower-cased (A-Z only) as a little-endian word, when it has 1-8 bytes, none
 * of them NUL, and eight bytes can be read at a; *whole says whether it was. */
static ALWAYS_INLINE uint64_t key_word(const uint8_t *buf, int64_t n, int64_t a, int64_t b, int *whole) {
    int64_t length = b - a;
    *whole = 0;
    if (length < 1 || length > 8 || a + 8 > n)
        return 0;
    uint64_t mask = ~UINT64_C(0) >> (64 - 8 * length);
    uint64_t word = load_le64(buf + a) & mask;
    if (zero_bytes(word | ~mask))
        return 0;
    uint64_t low = word & LOW7;
    *whole = 1;
    return word | (((low + 0x3F * ONES) & ~(low + 0x25 * ONES) & ~word & HIGH) >> 2);
}

/* The atom equal to the lower-cased buf[a:b], or -1: a name of up to eight bytes by
 * its word, a longer one by atom_probe. */
static ALWAYS_INLINE int atom_of(const uint8_t *buf, int64_t n, int64_t a, int64_t b) {
    int whole;
    uint64_t word = key_word(buf, n, a, b, &whole);
    if (!whole)
        return atom_probe(buf, a, b);
    if (word & HIGH) /* not ASCII: no atom */
        return -1;
    size_t s = (size_t)((word * KEY_MULTIPLIER) >> KEY_SHIFT);
    for (;;) {
        uint64_t key = TABLES.key_words[s];
        if (key == word)
            return TABLES.key_atoms[s];
        if (key == 0)
            return -1;
        s = (s + 1) & (KEY_SLOTS - 1);
    }
}

/* Write the atom's name at feat + used (eight bytes at once when it is that short: feat
 * has room for them); the index after the name. */
static ALWAYS_INLINE int64_t put_atom(uint8_t *feat, int64_t used, int atom, int64_t atom_len) {
    if (atom_len <= 8) {
        if (atom_len)
            store_le64(feat + used, TABLES.atom_word[atom]);
    } else {
        memcpy(feat + used, TABLES.atom_name[atom], (size_t)atom_len);
    }
    return used + atom_len;
}

#define WORD_CLASS UINT64_C(0x7373616C63) /* "class" */
#define WORD_NAME UINT64_C(0x656D616E)     /* "name" */
#define WORD_REL UINT64_C(0x6C6572)        /* "rel" */

/* Whether lower-cased buf[a:b] is class, name or rel (a key that is not one word). */
static int valued_key(const uint8_t *buf, int64_t a, int64_t b) {
    static const char *const names[3] = {"class", "name", "rel"};
    for (int v = 0; v < 3; v++) {
        int64_t len = (int64_t)strlen(names[v]), k = 0;
        if (len != b - a)
            continue;
        while (k < len && (unsigned char)names[v][k] == to_lower(buf[a + k]))
            k++;
        if (k == len)
            return 1;
    }
    return 0;
}

static const uint8_t PREFIX[7] = {'?', 'F', 'A', 'B', 'C', 'E', 'D'}; /* kind -> letter */


#endif
