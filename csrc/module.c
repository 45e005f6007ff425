/* ditto_tui.core.fingerprint._compiled: the ditto/2 and html-distance kernels, compiled ahead of time.
 *
 * Bit-identical to the numpy engine (ditto_tui/core/fingerprint/normalize.py, featurize.py,
 * html_structure.py), which stays the reference and the fallback. Each entry holds the
 * buffers it is given (bytes, bytearray, memoryview, numpy arrays) for the call and runs
 * without the GIL, so threads scale. Work space is allocated per call; nothing is cached
 * between calls, and every table is built once at import from data.h.
 *
 * On x86-64 with GCC or clang the kernels are compiled three times (portable C, AVX2,
 * AVX-512) and the best one this CPU and OS support is chosen at import
 * (__builtin_cpu_supports); elsewhere the portable C runs. All give the same results.
 */
#define PY_SSIZE_T_CLEAN
/* Py_LIMITED_API (the stable ABI of 3.11) comes from setup.py, except without the GIL. */
#include <Python.h>

#include "engine.h"
#include "data.h"
#include "shared.h"

Tables TABLES;
const char *const RAW_NAMES[RAW_COUNT] = {"iframe", "noembed", "noframes", "noscript",
                                          "plaintext", "script", "style", "textarea",
                                          "title", "xmp"};

/* -- the variants ---------------------------------------------------------------------- */

#define K(name) name##_portable
#define KATTR
#define KISA 0
static const char name_string_portable[] = "portable";
#include "kernel.h"
#undef K
#undef KATTR
#undef KISA

#if (defined(__x86_64__) || defined(__amd64__)) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_X86_VARIANTS 1
#include <immintrin.h>
typedef uint64_t u64x8 __attribute__((vector_size(64)));

#define K(name) name##_avx2
#define KATTR __attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt")))
#define KISA 1
static const char name_string_avx2[] = "avx2";
#include "kernel.h"
#undef K
#undef KATTR
#undef KISA

#define K(name) name##_avx512
#define KATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2,avx2,bmi,bmi2,popcnt,lzcnt")))
#define KISA 2
static const char name_string_avx512[] = "avx512";
#include "kernel.h"
#undef K
#undef KATTR
#undef KISA
#endif

/* The variants this CPU runs, best first; `current` is the one in use. */
static const Kernel *supported[3];
static int supported_count;
static const Kernel *current;

static void find_variants(void) {
#ifdef HAVE_X86_VARIANTS
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vbmi2"))
        supported[supported_count++] = &kernel_avx512;
    if (avx2)
        supported[supported_count++] = &kernel_avx2;
#endif
    supported[supported_count++] = &kernel_portable;
    current = supported[0];
}

/* -- tables ---------------------------------------------------------------------------- */

static uint64_t fnv1(const char *prefix, const char *name, const char *suffix) {
    uint64_t h = FNV_OFFSET;
    const char *parts[3] = {prefix, name, suffix};
    for (int p = 0; p < 3; p++)
        for (const unsigned char *c = (const unsigned char *)parts[p]; *c; c++)
            h = (h * FNV_PRIME) ^ *c;
    return h;
}

static int build_tables(void) {
    Tables *t = &TABLES;
    uint32_t top = 0;
    for (int i = 0; i < LOWER_PAIRS; i++)
        top = LOWER[i][0] > top ? LOWER[i][0] : top;
    for (int i = 0; i < SPACE_POINTS; i++)
        top = SPACES[i] > top ? SPACES[i] : top;
    /* at least every code point below 0x10000: the kernels look those up unchecked */
    t->table_len = (size_t)top + 1 > 0x10000 ? (size_t)top + 1 : 0x10000;
    t->table = (uint32_t *)malloc(t->table_len * sizeof(uint32_t));
    t->pairs = (uint64_t *)malloc(65536 * sizeof(uint64_t));
    t->token_fresh = (uint64_t *)malloc(7 * TOKEN_ROW * sizeof(uint64_t));
    if (!t->table || !t->pairs || !t->token_fresh)
        return 0;
    for (uint32_t cp = 0; cp < t->table_len; cp++)
        t->table[cp] = cp;
    for (int i = 0; i < LOWER_PAIRS; i++)
        t->table[LOWER[i][0]] = LOWER[i][1];
    for (int i = 0; i < SPACE_POINTS; i++)
        t->table[SPACES[i]] = 0x20;
    for (int b = 0; b < 128; b++)
        t->ascii_map[b] = (uint8_t)t->table[b];
    for (int a = 0; a < 256; a++) {
        uint64_t first = (FNV_OFFSET ^ (uint64_t)a) * FNV_PRIME;
        for (int b = 0; b < 256; b++)
            t->pairs[(a << 8) | b] = (first ^ (uint64_t)b) * FNV_PRIME;
    }
    for (int v = 0; v < 256; v++) {
        uint64_t spread = 0;
        for (int k = 0; k < 8; k++)
            spread |= (uint64_t)((v >> k) & 1) << (8 * k);
        t->spread[v] = spread;
        uint64_t compact = 0;
        int at = 0;
        for (int k = 0; k < 8; k++)
            if ((v >> k) & 1)
                compact |= (uint64_t)k << (8 * at++);
        for (; at < 8; at++)
            compact |= UINT64_C(0x80) << (8 * at); /* pshufb writes a zero there */
        t->compact[v] = compact;
    }
    /* html-distance's atoms */
    if (ATOM_COUNT > MAX_ATOMS)
        return 0;
    t->atom_count = ATOM_COUNT;
    memset(t->slots, 0xFF, sizeof t->slots);
    memset(t->key_words, 0, sizeof t->key_words);
    for (int i = 0; i < ATOM_COUNT; i++) {
        const char *name = ATOMS[i];
        size_t len = strlen(name);
        uint8_t word[8] = {0};
        memcpy(word, name, len < 8 ? len : 8);
        t->atom_name[i] = name;
        t->atom_len[i] = (int)len;
        t->atom_word[i] = load_le64(word);
        t->raw_of_atom[i] = -1;
        for (int r = 0; r < RAW_COUNT; r++)
            if (strcmp(RAW_NAMES[r], name) == 0)
                t->raw_of_atom[i] = r;
        uint64_t h = FNV_OFFSET;
        for (size_t k = 0; k < len; k++)
            h = (h ^ (unsigned char)name[k]) * FNV_PRIME;
        size_t s = h & (ATOM_SLOTS - 1);
        while (t->slots[s] != -1)
            s = (s + 1) & (ATOM_SLOTS - 1);
        t->slots[s] = (int16_t)i;
        if (len <= 8) {
            s = (size_t)((t->atom_word[i] * KEY_MULTIPLIER) >> KEY_SHIFT);
            while (t->key_words[s])
                s = (s + 1) & (KEY_SLOTS - 1);
            t->key_words[s] = t->atom_word[i];
            t->key_atoms[s] = (int16_t)i;
        }
    }
    static const char letters[7] = {'?', 'F', 'A', 'B', 'C', 'E', 'D'};
    for (int kind = 0; kind < 7; kind++) {
        char prefix[3] = {letters[kind], ':', 0};
        t->token_fresh[kind * TOKEN_ROW] = fnv1(prefix, "", "");
        for (int i = 0; i < ATOM_COUNT; i++)
            t->token_fresh[kind * TOKEN_ROW + i + 1] = fnv1(prefix, ATOMS[i], "");
    }
    t->attr_fresh[0] = fnv1("G:", "", ":");
    for (int i = 0; i < ATOM_COUNT; i++)
        t->attr_fresh[i + 1] = fnv1("G:", ATOMS[i], ":");
    return 1;
}

/* -- mbox ------------------------------------------------------------------------------ */

/* Whether data[q:n] starts with "From " (an mbox postmark when a line starts there). */
static int postmark_at(const uint8_t *data, int64_t n, int64_t q) {
    return q + 5 <= n && memcmp(data + q, "From ", 5) == 0;
}

/* The first line start q in [pos, hi) where a postmark line begins ("From " at the start
 * of the buffer or after a newline), or hi; newlines are looked for eight bytes a step. */
static int64_t next_postmark(const uint8_t *data, int64_t n, int64_t pos, int64_t hi) {
    if (pos == 0 && hi > 0 && postmark_at(data, n, 0))
        return 0;
    int64_t j = (pos > 1 ? pos : 1) - 1; /* a newline at j starts a line at j + 1 >= pos */
    int64_t end = hi - 1;                /* ... and that line must start before hi */
    while (j + 8 <= end) {
        uint64_t found = zero_bytes(load_le64(data + j) ^ (0x0A * ONES));
        if (!found) {
            j += 8;
            continue;
        }
        j += ctz64(found) >> 3; /* the first newline's byte */
        if (postmark_at(data, n, j + 1))
            return j + 1;
        j++;
    }
    for (; j < end; j++)
        if (data[j] == 0x0A && postmark_at(data, n, j + 1))
            return j + 1;
    return hi;
}

/* The messages whose postmark lines start in [pos, hi), as split_mbox gives them: each
 * is the bytes after its postmark line up to the next postmark (or hi), less the blank
 * line that ends it. Writes at most cap (offset, size) pairs; *next is then the line
 * start of the first postmark not written (hi when none is left). */
static int64_t mbox_split(const uint8_t *data, int64_t n, int64_t pos, int64_t hi,
                          int64_t *offsets, int64_t *sizes, int64_t cap, int64_t *next) {
    int64_t count = 0, q = next_postmark(data, n, pos, hi);
    while (q < hi && count < cap) {
        int64_t nxt = next_postmark(data, n, q + 1, hi), body = q;
        while (body < nxt && data[body] != 0x0A)
            body++;
        if (body < nxt) /* past the newline (none before nxt: the buffer ends first) */
            body++;
        int64_t end = nxt, size = end - body;
        if ((size >= 4 && memcmp(data + end - 4, "\r\n\r\n", 4) == 0) ||
            (size == 2 && data[body] == 0x0D && data[body + 1] == 0x0A))
            end -= 2;
        else if ((size >= 2 && data[end - 2] == 0x0A && data[end - 1] == 0x0A) ||
                 (size == 1 && data[body] == 0x0A))
            end -= 1;
        offsets[count] = body;
        sizes[count] = end - body;
        count++;
        q = nxt;
    }
    *next = q;
    return count;
}

/* -- Python entries -------------------------------------------------------------------- */

/* A read-only byte view of obj. */
static int get_bytes(PyObject *obj, Py_buffer *view) {
    return PyObject_GetBuffer(obj, view, PyBUF_SIMPLE);
}

/* Views of two arrays (a, b: C-contiguous, their item size checked by the caller) and
 * of a bytes-like c; on failure none is held and an exception is set. */
static int get_pair_and_bytes(PyObject *a_obj, PyObject *b_obj, PyObject *c_obj, Py_buffer *a,
                              Py_buffer *b, Py_buffer *c) {
    if (PyObject_GetBuffer(a_obj, a, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (PyObject_GetBuffer(b_obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(a);
        return -1;
    }
    if (get_bytes(c_obj, c) < 0) {
        PyBuffer_Release(b);
        PyBuffer_Release(a);
        return -1;
    }
    return 0;
}

/* A C-contiguous view of obj with items of 8 bytes whose format is one of `formats`
 * (numpy's int64 is 'l' or 'q', uint64 'L' or 'Q'), writable if asked. */
static int get_words(PyObject *obj, Py_buffer *view, const char *formats, int writable,
                     const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                          (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    const char *format = view->format ? view->format : "B";
    if (*format == '<' || *format == '=' || *format == '@')
        format++;
    if (view->itemsize != 8 || strlen(format) != 1 || !strchr(formats, *format)) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous array of 64-bit %s", what,
                     strchr(formats, 'l') ? "signed integers" : "unsigned integers");
        return -1;
    }
    return 0;
}

static PyObject *py_isa(PyObject *self, PyObject *args) {
    return PyUnicode_FromString(current->name);
}

static PyObject *py_isas(PyObject *self, PyObject *args) {
    PyObject *names = PyTuple_New(supported_count);
    if (!names)
        return NULL;
    for (int i = 0; i < supported_count; i++) {
        PyObject *name = PyUnicode_FromString(supported[i]->name);
        if (!name || PyTuple_SetItem(names, i, name) < 0) {
            Py_DECREF(names);
            return NULL;
        }
    }
    return names;
}

static PyObject *py_use_isa(PyObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s:use_isa", &name))
        return NULL;
    for (int i = 0; i < supported_count; i++) {
        if (strcmp(supported[i]->name, name) == 0) {
            current = supported[i];
            Py_RETURN_NONE;
        }
    }
    PyErr_Format(PyExc_ValueError, "this CPU cannot run the %s kernel", name);
    return NULL;
}

/* Work space for ditto/2 documents of at most `largest` bytes: the vote, the window
 * states and the normalizer's buffer, in one block. */
typedef struct {
    Vote *vote;
    uint64_t *states;
    uint8_t *text;
} DittoWork;

static int ditto_work(DittoWork *work, size_t largest, int char_n) {
    size_t states = char_n > 1 ? (size_t)char_n : 1;
    size_t head = sizeof(Vote) + states * sizeof(uint64_t);
    if (largest > (SIZE_MAX - head - 2) / 3)
        return 0;
    char *block = (char *)malloc(head + 3 * largest + 2);
    if (!block)
        return 0;
    work->vote = (Vote *)block;
    work->states = (uint64_t *)(block + sizeof(Vote));
    work->text = (uint8_t *)(block + head);
    return 1;
}

static int check_grams(int char_n, int word_n) {
    if (char_n > 4096 || word_n > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "char_n or word_n is too large");
        return 0;
    }
    return 1;
}

static PyObject *py_ditto_fingerprint(PyObject *self, PyObject *args) {
    PyObject *obj;
    int char_n, word_n;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "Oii:ditto_fingerprint", &obj, &char_n, &word_n) ||
        !check_grams(char_n, word_n) || get_bytes(obj, &data) < 0)
        return NULL;
    DittoWork work;
    uint64_t fp = 0;
    int ok;
    const Kernel *kernel = current;
    int64_t offset = 0, size = (int64_t)data.len;
    Py_BEGIN_ALLOW_THREADS
    ok = ditto_work(&work, (size_t)data.len, char_n);
    if (ok) {
        kernel->spans((const uint8_t *)data.buf, &offset, &size, 1, char_n, word_n, &fp,
                      work.text, work.vote, work.states);
        free(work.vote);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (!ok)
        return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(fp);
}

static PyObject *py_ditto_spans(PyObject *self, PyObject *args) {
    PyObject *obj, *offsets_obj, *sizes_obj, *out_obj;
    int char_n, word_n;
    Py_buffer data, offsets, sizes, out;
    if (!PyArg_ParseTuple(args, "OOOOii:ditto_fingerprint_spans", &obj, &offsets_obj, &sizes_obj,
                          &out_obj, &char_n, &word_n) ||
        !check_grams(char_n, word_n))
        return NULL;
    if (get_bytes(obj, &data) < 0)
        return NULL;
    if (get_words(offsets_obj, &offsets, "lq", 0, "offsets") < 0)
        goto no_offsets;
    if (get_words(sizes_obj, &sizes, "lq", 0, "sizes") < 0)
        goto no_sizes;
    if (get_words(out_obj, &out, "LQ", 1, "out") < 0)
        goto no_out;
    Py_ssize_t count = offsets.len / 8;
    const int64_t *off = (const int64_t *)offsets.buf, *siz = (const int64_t *)sizes.buf;
    int64_t largest = 0;
    if (sizes.len / 8 != count || out.len / 8 != count) {
        PyErr_SetString(PyExc_ValueError, "offsets, sizes and out differ in length");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (off[i] < 0 || siz[i] < 0 || off[i] > (int64_t)data.len - siz[i]) {
            PyErr_SetString(PyExc_ValueError, "a span lies outside the data");
            goto fail;
        }
        largest = siz[i] > largest ? siz[i] : largest;
    }
    int ok = 1;
    if (count) {
        DittoWork work;
        const Kernel *kernel = current;
        Py_BEGIN_ALLOW_THREADS
        ok = ditto_work(&work, (size_t)largest, char_n);
        if (ok) {
            kernel->spans((const uint8_t *)data.buf, off, siz, (size_t)count, char_n, word_n,
                          (uint64_t *)out.buf, work.text, work.vote, work.states);
            free(work.vote);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&sizes);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    if (!ok)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
fail:
    PyBuffer_Release(&out);
no_out:
    PyBuffer_Release(&sizes);
no_sizes:
    PyBuffer_Release(&offsets);
no_offsets:
    PyBuffer_Release(&data);
    return NULL;
}

static PyObject *py_ditto_normalize(PyObject *self, PyObject *args) {
    PyObject *obj, *result = NULL;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "O:ditto_normalize", &obj) || get_bytes(obj, &data) < 0)
        return NULL;
    if ((size_t)data.len > (SIZE_MAX - 2) / 3) {
        PyBuffer_Release(&data);
        return PyErr_NoMemory();
    }
    uint8_t *out;
    size_t end = 0;
    const Kernel *kernel = current;
    Py_BEGIN_ALLOW_THREADS
    out = (uint8_t *)malloc(3 * (size_t)data.len + 2);
    if (out) {
        int ascii;
        end = kernel->normalize((const uint8_t *)data.buf, (size_t)data.len, out, &ascii);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    if (!out)
        return PyErr_NoMemory();
    result = PyBytes_FromStringAndSize((const char *)out + 1, (Py_ssize_t)(end - 1));
    free(out);
    return result;
}

static PyObject *py_mbox_split_into(PyObject *self, PyObject *args) {
    PyObject *obj, *offsets_obj, *sizes_obj, *state_obj, *result = NULL;
    Py_ssize_t pos, hi;
    Py_buffer data, offsets, sizes, state;
    if (!PyArg_ParseTuple(args, "OnnOOO:mbox_split_into", &obj, &pos, &hi, &offsets_obj,
                          &sizes_obj, &state_obj) ||
        get_bytes(obj, &data) < 0)
        return NULL;
    if (get_words(offsets_obj, &offsets, "lq", 1, "offsets") < 0)
        goto no_offsets;
    if (get_words(sizes_obj, &sizes, "lq", 1, "sizes") < 0)
        goto no_sizes;
    if (get_words(state_obj, &state, "lq", 1, "state") < 0)
        goto no_state;
    if (!(0 <= pos && pos <= hi && hi <= data.len) || sizes.len < offsets.len || state.len < 8) {
        PyErr_SetString(PyExc_ValueError, "bad arguments for the mbox splitter");
    } else {
        int64_t count;
        Py_BEGIN_ALLOW_THREADS
        count = mbox_split((const uint8_t *)data.buf, (int64_t)data.len, pos, hi,
                           (int64_t *)offsets.buf, (int64_t *)sizes.buf, offsets.len / 8,
                           (int64_t *)state.buf);
        Py_END_ALLOW_THREADS
        result = PyLong_FromLongLong(count);
    }
    PyBuffer_Release(&state);
no_state:
    PyBuffer_Release(&sizes);
no_sizes:
    PyBuffer_Release(&offsets);
no_offsets:
    PyBuffer_Release(&data);
    return result;
}

/* Run the html kernel on obj: status, and the fingerprint or the features. */
static int run_html(PyObject *obj, int shingle, int64_t max_tokens, int keep, HtmlWork *work,
                    int64_t *features, uint64_t *fp, Py_buffer *data) {
    if (get_bytes(obj, data) < 0)
        return -1;
    int status;
    const Kernel *kernel = current;
    size_t states = shingle > 2 ? (size_t)shingle : 2;
    Py_BEGIN_ALLOW_THREADS
    Vote *vote = (Vote *)malloc(sizeof(Vote) + states * sizeof(uint64_t));
    if (vote) {
        status = kernel->html((const uint8_t *)data->buf, (size_t)data->len, shingle,
                              max_tokens, keep, work, vote, (uint64_t *)(vote + 1), features, fp);
        free(vote);
    } else {
        status = HTML_NO_MEMORY;
    }
    Py_END_ALLOW_THREADS
    if (status == HTML_NO_MEMORY) {
        PyBuffer_Release(data);
        PyErr_NoMemory();
        return -1;
    }
    return status;
}

static void free_html_work(HtmlWork *work) {
    free(work->feat.data);
    free(work->fstart.data);
    free(work->attrs.data);
}

static PyObject *py_html_fingerprint(PyObject *self, PyObject *args) {
    PyObject *obj;
    int shingle;
    long long max_tokens;
    if (!PyArg_ParseTuple(args, "OiL:html_fingerprint", &obj, &shingle, &max_tokens))
        return NULL;
    if (shingle < 1 || shingle > 4096) {
        PyErr_SetString(PyExc_ValueError, "shingle must be 1-4096");
        return NULL;
    }
    HtmlWork work;
    memset(&work, 0, sizeof work);
    Py_buffer data;
    int64_t features;
    uint64_t fp = 0;
    int status = run_html(obj, shingle, max_tokens, 0, &work, &features, &fp, &data);
    free_html_work(&work);
    if (status < 0)
        return NULL;
    PyBuffer_Release(&data);
    if (status == HTML_NEEDS_PYTHON)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(fp);
}

static PyObject *py_html_features(PyObject *self, PyObject *args) {
    PyObject *obj, *result = NULL;
    long long max_tokens;
    if (!PyArg_ParseTuple(args, "OL:html_features", &obj, &max_tokens))
        return NULL;
    HtmlWork work;
    memset(&work, 0, sizeof work);
    Py_buffer data;
    int64_t count = 0;
    uint64_t fp;
    int status = run_html(obj, 1, max_tokens, 1, &work, &count, &fp, &data);
    if (status < 0)
        goto done;
    PyBuffer_Release(&data);
    if (status == HTML_NEEDS_PYTHON) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = PyList_New((Py_ssize_t)count);
    for (int64_t i = 0; result && i < count; i++) {
        int64_t lo = work.fstart.data[i], hi = work.fstart.data[i + 1];
        PyObject *item = PyBytes_FromStringAndSize((const char *)work.feat.data + lo, hi - lo);
        if (!item || PyList_SetItem(result, (Py_ssize_t)i, item) < 0) {
            Py_CLEAR(result);
        }
    }
done:
    free_html_work(&work);
    return result;
}

static PyObject *py_vote_counts(PyObject *self, PyObject *args) {
    PyObject *obj, *counts_obj;
    Py_buffer hashes, counts;
    if (!PyArg_ParseTuple(args, "OO:vote_counts", &obj, &counts_obj))
        return NULL;
    if (get_words(obj, &hashes, "LQ", 0, "hashes") < 0)
        return NULL;
    if (get_words(counts_obj, &counts, "lq", 1, "counts") < 0) {
        PyBuffer_Release(&hashes);
        return NULL;
    }
    int ok = counts.len == 64 * 8;
    if (ok) {
        const Kernel *kernel = current;
        Py_BEGIN_ALLOW_THREADS
        Vote *vote = (Vote *)malloc(sizeof(Vote));
        ok = vote != NULL;
        if (ok) {
            kernel->vote_counts((const uint64_t *)hashes.buf, (size_t)(hashes.len / 8), vote,
                                (int64_t *)counts.buf);
            free(vote);
        }
        Py_END_ALLOW_THREADS
        if (!ok)
            PyErr_NoMemory();
    } else {
        PyErr_SetString(PyExc_ValueError, "counts must hold 64 items");
    }
    PyBuffer_Release(&counts);
    PyBuffer_Release(&hashes);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* bytes of the first n items of buf (size bytes each), then buf freed. */
static PyObject *take_bytes(void *buf, size_t n, size_t size) {
    PyObject *out = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)(n * size));
    free(buf);
    return out;
}

static PyObject *py_join_table(PyObject *self, PyObject *args) {
    PyObject *obj, *test_obj;
    int k;
    unsigned long long mask;
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "OiKO:join_table", &obj, &k, &mask, &test_obj))
        return NULL;
    uint64_t test[3];
    int has_test = test_obj != Py_None;
    if (has_test) {
        unsigned long long t0, t1, t2;
        if (!PyArg_ParseTuple(test_obj, "KKK", &t0, &t1, &t2))
            return NULL;
        test[0] = t0;
        test[1] = t1;
        test[2] = t2;
    }
    if (k < 0 || k > 64) {
        PyErr_SetString(PyExc_ValueError, "k must be 0-64");
        return NULL;
    }
    if (get_words(obj, &v, "LQ", 0, "fingerprints") < 0)
        return NULL;
    size_t n = (size_t)(v.len / 8);
    if (n > UINT32_MAX) {
        PyBuffer_Release(&v);
        PyErr_SetString(PyExc_ValueError, "more than 2**32 fingerprints");
        return NULL;
    }
    JoinOut out;
    memset(&out, 0, sizeof out);
    int ok;
    const Kernel *kernel = current;
    Py_BEGIN_ALLOW_THREADS
    ok = kernel->join_table((const uint64_t *)v.buf, n, k, mask, has_test ? test : NULL, &out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (!ok) {
        free(out.lo);
        free(out.hi);
        free(out.d);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    PyObject *lo = take_bytes(out.lo, out.n, 4), *hi = take_bytes(out.hi, out.n, 4),
             *d = take_bytes(out.d, out.n, 1);
    if (lo && hi && d)
        result = PyTuple_Pack(3, lo, hi, d);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(d);
    return result;
}

static PyObject *py_argsort(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_buffer keys;
    if (!PyArg_ParseTuple(args, "O:argsort", &obj) || get_words(obj, &keys, "LQ", 0, "keys") < 0)
        return NULL;
    size_t n = (size_t)(keys.len / 8);
    if (n > UINT32_MAX) {
        PyBuffer_Release(&keys);
        PyErr_SetString(PyExc_ValueError, "more than 2**32 keys");
        return NULL;
    }
    uint32_t *order = (uint32_t *)malloc((n ? n : 1) * sizeof(uint32_t));
    int ok = order != NULL;
    const Kernel *kernel = current;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        ok = kernel->argsort((const uint64_t *)keys.buf, n, order);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&keys);
    if (!ok) {
        free(order);
        return PyErr_NoMemory();
    }
    return take_bytes(order, n, 4);
}

static PyObject *py_pairs_within(PyObject *self, PyObject *args) {
    PyObject *a_obj, *b_obj, *mask_obj;
    Py_buffer a, b, mask;
    if (!PyArg_ParseTuple(args, "OOO:pairs_within", &a_obj, &b_obj, &mask_obj))
        return NULL;
    if (get_pair_and_bytes(a_obj, b_obj, mask_obj, &a, &b, &mask) < 0)
        return NULL;
    PyObject *result = NULL;
    if (a.itemsize != 4 || b.itemsize != 4 || a.len != b.len) {
        PyErr_SetString(PyExc_TypeError, "a and b must be int32 arrays of one length");
    } else {
        size_t n = (size_t)(a.len / 4), found = 0, limit = (size_t)mask.len;
        const int32_t *pa = (const int32_t *)a.buf, *pb = (const int32_t *)b.buf;
        const uint8_t *m = (const uint8_t *)mask.buf;
        uint32_t *at = (uint32_t *)malloc((n ? n : 1) * sizeof(uint32_t));
        int bad = 0;
        if (at) {
            Py_BEGIN_ALLOW_THREADS
            for (size_t i = 0; i < n; i++) {
                uint32_t x = (uint32_t)pa[i], y = (uint32_t)pb[i];
                if (x >= limit || y >= limit) {
                    bad = 1;
                    break;
                }
                if (m[x] & m[y])
                    at[found++] = (uint32_t)i;
            }
            Py_END_ALLOW_THREADS
            if (bad) {
                free(at);
                PyErr_SetString(PyExc_ValueError, "a slot lies outside the mask");
            } else {
                result = take_bytes(at, found, 4);
            }
        } else {
            PyErr_NoMemory();
        }
    }
    PyBuffer_Release(&mask);
    PyBuffer_Release(&b);
    PyBuffer_Release(&a);
    return result;
}

/* linkage_layout(n, a, b, d) -> (order, join): the single-linkage dendrogram of n nodes
   laid out so that every component at every level is a run. Edges a[i] -- b[i] (int32
   nodes below n) at distance d[i] (uint8) come sorted by distance. Kruskal's merges
   concatenate the two components' lists; join[p] is the distance of the merge that put
   order[p] right after order[p - 1], 255 where a component of the whole graph starts
   (components in order of their root, the smallest-index node never attached below
   another). order is int32, join uint8, both of n entries. */
static int32_t find_root(int32_t *parent, int32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static PyObject *py_linkage_layout(PyObject *self, PyObject *args) {
    Py_ssize_t n_arg;
    PyObject *a_obj, *b_obj, *d_obj;
    Py_buffer a, b, d;
    if (!PyArg_ParseTuple(args, "nOOO:linkage_layout", &n_arg, &a_obj, &b_obj, &d_obj))
        return NULL;
    if (n_arg < 0 || n_arg > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "n must be 0 .. 2**31 - 1");
        return NULL;
    }
    if (get_pair_and_bytes(a_obj, b_obj, d_obj, &a, &b, &d) < 0)
        return NULL;
    PyObject *result = NULL;
    size_t n = (size_t)n_arg, m = (size_t)(a.len / 4);
    if (a.itemsize != 4 || b.itemsize != 4 || a.len != b.len || (size_t)d.len != m) {
        PyErr_SetString(PyExc_TypeError, "a and b must be int32 arrays and d uint8, one length");
        goto done;
    }
    int32_t *parent = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    int32_t *size = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    int32_t *head = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    int32_t *tail = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    int32_t *next = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    uint8_t *level = (uint8_t *)malloc(n ? n : 1);
    int32_t *order = (int32_t *)malloc((n ? n : 1) * sizeof(int32_t));
    uint8_t *join = (uint8_t *)malloc(n ? n : 1);
    int err = 0;
    if (!parent || !size || !head || !tail || !next || !level || !order || !join) {
        err = 1;
    } else {
        const int32_t *pa = (const int32_t *)a.buf, *pb = (const int32_t *)b.buf;
        const uint8_t *pd = (const uint8_t *)d.buf;
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < n; i++) {
            parent[i] = head[i] = tail[i] = (int32_t)i;
            size[i] = 1;
            next[i] = -1;
            level[i] = 255;
        }
        for (size_t i = 0; i < m && !err; i++) {
            uint32_t x = (uint32_t)pa[i], y = (uint32_t)pb[i];
            if (x >= n || y >= n || (i && pd[i] < pd[i - 1])) {
                err = 2;
                break;
            }
            int32_t rx = find_root(parent, (int32_t)x), ry = find_root(parent, (int32_t)y);
            if (rx == ry)
                continue;
            if (ry < rx) { /* the list of the smaller root first: deterministic */
                int32_t t = rx;
                rx = ry;
                ry = t;
            }
            next[tail[rx]] = head[ry];
            level[head[ry]] = pd[i];
            int32_t h = head[rx], t = tail[ry];
            if (size[rx] < size[ry]) { /* union by size; the root keeps the list ends */
                parent[rx] = ry;
                size[ry] += size[rx];
                head[ry] = h;
                tail[ry] = t;
            } else {
                parent[ry] = rx;
                size[rx] += size[ry];
                head[rx] = h;
                tail[rx] = t;
            }
        }
        size_t at = 0;
        for (size_t i = 0; i < n && !err; i++) {
            if (parent[i] != (int32_t)i)
                continue;
            int32_t x = head[i];
            join[at] = 255;
            order[at++] = x;
            for (x = next[x]; x >= 0; x = next[x]) {
                join[at] = level[x];
                order[at++] = x;
            }
        }
        Py_END_ALLOW_THREADS
    }
    if (err == 1) {
        PyErr_NoMemory();
    } else if (err == 2) {
        PyErr_SetString(PyExc_ValueError, "a node lies outside 0..n-1 or d is not sorted");
    } else {
        PyObject *o = take_bytes(order, n, 4), *j = take_bytes(join, n, 1);
        order = NULL;
        join = NULL;
        if (o && j)
            result = PyTuple_Pack(2, o, j);
        Py_XDECREF(o);
        Py_XDECREF(j);
    }
    free(parent);
    free(size);
    free(head);
    free(tail);
    free(next);
    free(level);
    free(order);
    free(join);
done:
    PyBuffer_Release(&d);
    PyBuffer_Release(&b);
    PyBuffer_Release(&a);
    return result;
}

/* run_labels(order, join, k, out): for every position p of a linkage layout (order int32,
   -1 a hole; join uint8), out[order[p]] = the slot starting p's run at k (the last
   position at or before p with join > k); holes are skipped. out is int32, writable. */
static PyObject *py_run_labels(PyObject *self, PyObject *args) {
    PyObject *order_obj, *join_obj, *out_obj;
    int k;
    Py_buffer order, join, out;
    if (!PyArg_ParseTuple(args, "OOiO:run_labels", &order_obj, &join_obj, &k, &out_obj))
        return NULL;
    if (PyObject_GetBuffer(order_obj, &order, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (get_bytes(join_obj, &join) < 0) {
        PyBuffer_Release(&order);
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&join);
        PyBuffer_Release(&order);
        return NULL;
    }
    PyObject *result = NULL;
    size_t n = (size_t)(order.len / 4), limit = (size_t)(out.len / 4);
    if (order.itemsize != 4 || out.itemsize != 4 || (size_t)join.len != n) {
        PyErr_SetString(PyExc_TypeError, "order and out must be int32 arrays, join uint8 of order's length");
    } else {
        const int32_t *po = (const int32_t *)order.buf;
        const uint8_t *pj = (const uint8_t *)join.buf;
        int32_t *pout = (int32_t *)out.buf, rep = -1;
        int bad = 0;
        Py_BEGIN_ALLOW_THREADS
        for (size_t p = 0; p < n; p++) {
            int32_t slot = po[p];
            if (pj[p] > k || rep < 0)
                rep = slot;
            if (slot < 0)
                continue;
            if ((size_t)slot >= limit) {
                bad = 1;
                break;
            }
            pout[slot] = rep;
        }
        Py_END_ALLOW_THREADS
        if (bad) {
            PyErr_SetString(PyExc_ValueError, "a slot lies outside out");
        } else {
            Py_INCREF(Py_None);
            result = Py_None;
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&join);
    PyBuffer_Release(&order);
    return result;
}

static PyMethodDef methods[] = {
    {"run_labels", py_run_labels, METH_VARARGS,
     "run_labels(order, join, k, out): out[order[p]] = the slot that starts position p's run "
     "at k in a linkage layout (order int32 with -1 holes, join uint8; out int32)."},
    {"linkage_layout", py_linkage_layout, METH_VARARGS,
     "linkage_layout(n, a, b, d) -> (order, join): single linkage of n nodes over the "
     "edges a -- b (int32) at distances d (uint8, sorted), laid out so every component at "
     "every level is a run: order (int32) and join (uint8, 255 where a component starts)."},
    {"pairs_within", py_pairs_within, METH_VARARGS,
     "pairs_within(a, b, mask) -> bytes: the positions i (uint32) where mask[a[i]] and "
     "mask[b[i]] are both non-zero (a, b int32 slot arrays, mask uint8 per slot)."},
    {"argsort", py_argsort, METH_VARARGS,
     "argsort(keys) -> bytes: the stable order of the uint64 keys, as uint32 (radix sort)."},
    {"join_table", py_join_table, METH_VARARGS,
     "join_table(v, k, mask, test) -> (lo, hi, d): the pairs within k of one table of the "
     "all-pairs join over the distinct fingerprints v (uint64): uint32, uint32 and uint8 "
     "bytes; test is (others, low, high) of the earlier-table test, or None."},
    {"vote_counts", py_vote_counts, METH_VARARGS,
     "vote_counts(hashes, counts): counts[i] = how many of the uint64 hashes have bit i "
     "(the kernels' vote, a block at a time; for tests)."},
    {"isa", py_isa, METH_NOARGS, "The instruction set of the kernels in use."},
    {"isas", py_isas, METH_NOARGS, "The instruction sets this CPU runs, best first."},
    {"use_isa", py_use_isa, METH_VARARGS, "Use the kernels for this instruction set (tests)."},
    {"ditto_fingerprint", py_ditto_fingerprint, METH_VARARGS,
     "ditto_fingerprint(data, char_n, word_n) -> int: the ditto/2 fingerprint of raw bytes."},
    {"ditto_fingerprint_spans", py_ditto_spans, METH_VARARGS,
     "ditto_fingerprint_spans(data, offsets, sizes, out, char_n, word_n): out[i] is the "
     "fingerprint of data[offsets[i]:offsets[i] + sizes[i]] (int64, int64, uint64 arrays)."},
    {"ditto_normalize", py_ditto_normalize, METH_VARARGS,
     "ditto_normalize(data) -> bytes: the ditto/2 normalized text, as UTF-8."},
    {"mbox_split_into", py_mbox_split_into, METH_VARARGS,
     "mbox_split_into(buf, pos, hi, offsets, sizes, state) -> count: the messages whose "
     "postmarks start in [pos, hi), at most len(offsets); state[0] is where to go on."},
    {"html_fingerprint", py_html_fingerprint, METH_VARARGS,
     "html_fingerprint(data, shingle, max_tokens) -> int | None: the html-distance "
     "fingerprint, or None when the Python pipeline must do the page."},
    {"html_features", py_html_features, METH_VARARGS,
     "html_features(data, max_tokens) -> list[bytes] | None: the page's features in order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_compiled",
    "The ditto/2 and html-distance kernels, compiled ahead of time.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__compiled(void) {
    if (!TABLES.table && !build_tables())
        return PyErr_NoMemory();
    if (!current)
        find_variants();
    PyObject *m = PyModule_Create(&module);
#ifdef Py_GIL_DISABLED
    if (m)
        PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED);
#endif
    return m;
}
