"""The fast engine against a slow, obviously correct reference of the ditto/2 spec.

The reference below follows ``docs/spec/ditto2.md`` rule by rule in plain Python:
byte-by-byte UTF-8 decoding, a tag-depth loop over code points, a dict lowercase read
from the TSV, a split on the whitespace set, a dict of counts and per-bit sums (a numpy
column sum over the hashes' bits). It shares no code with ``ditto_tui.core`` except the
data files. The reference functions are pure, so they remember their results: each
kernel's run of the module asks for the same fixed documents again.
"""

from __future__ import annotations

import functools
import pickle
import sys
from contextlib import ExitStack
from importlib import resources
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ditto_tui.core import (
    PIPELINE_VERSION,
    Featurizer,
    Fingerprint,
    decode_go,
    distance,
    make_pipeline,
    normalize,
    similarity_percent,
)
from ditto_tui.core.fingerprint.featurize import _CHUNK
from ditto_tui.core.fingerprint.simhash import charikar_sum, popcount64
from tests.properties import examples

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

# --------------------------------------------------------------------------- reference

def _data_lines(name: str) -> list[str]:
    text = resources.files("ditto_tui.core.fingerprint.data").joinpath(name).read_text(encoding="ascii")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


REF_LOWER = {chr(int(a, 16)): chr(int(b, 16)) for a, b in (ln.split("\t") for ln in _data_lines("ditto2-lowercase.tsv"))}
REF_SPACE = {chr(int(line, 16)) for line in _data_lines("ditto2-whitespace.txt")}


@functools.lru_cache(maxsize=1024)
def ref_decode(data: bytes) -> str:
    """Go's decoding, from the Unicode table of well-formed UTF-8 byte sequences."""
    out = []
    i = 0
    while i < len(data):
        b0 = data[i]
        if b0 < 0x80:
            out.append(chr(b0))
            i += 1
            continue
        if 0xC2 <= b0 <= 0xDF:
            need, low, high = 1, 0x80, 0xBF
        elif b0 == 0xE0:
            need, low, high = 2, 0xA0, 0xBF
        elif b0 == 0xED:
            need, low, high = 2, 0x80, 0x9F
        elif 0xE1 <= b0 <= 0xEF:
            need, low, high = 2, 0x80, 0xBF
        elif b0 == 0xF0:
            need, low, high = 3, 0x90, 0xBF
        elif 0xF1 <= b0 <= 0xF3:
            need, low, high = 3, 0x80, 0xBF
        elif b0 == 0xF4:
            need, low, high = 3, 0x80, 0x8F
        else:
            need = -1
        tail = data[i + 1 : i + 1 + need] if need > 0 else b""
        ok = (
            need > 0
            and len(tail) == need
            and low <= tail[0] <= high
            and all(0x80 <= b <= 0xBF for b in tail[1:])
        )
        if ok:
            out.append(data[i : i + 1 + need].decode("utf-8"))
            i += 1 + need
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def ref_normalize(data: bytes) -> str:
    text = ref_decode(data)
    kept = []
    depth = 0
    for i, ch in enumerate(text):
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "<" and nxt != "" and ((nxt.isascii() and nxt.isalpha()) or nxt in "/!?"):
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
            kept.append(" ")
        elif depth == 0:
            kept.append(ch)
    lowered = [REF_LOWER.get(ch, ch) for ch in kept]
    words, word = [], []
    for ch in lowered:
        if ch in REF_SPACE:
            if word:
                words.append("".join(word))
            word = []
        else:
            word.append(ch)
    if word:
        words.append("".join(word))
    return " ".join(words)


@functools.lru_cache(maxsize=1 << 16)  # a shingle comes back many times in one document
def ref_fnv(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return h


def ref_features(data: bytes, char_n: int, word_n: int) -> dict[int, int]:
    return dict(_ref_features(data, char_n, word_n))  # a copy: the caller may change it


@functools.lru_cache(maxsize=1024)
def _ref_features(data: bytes, char_n: int, word_n: int) -> tuple[tuple[int, int], ...]:
    norm = ref_normalize(data)
    counts: dict[int, int] = {}
    shingles = []
    if char_n > 0:
        shingles += [norm[i : i + char_n] for i in range(len(norm) - char_n + 1)]
    if word_n > 0:
        words = norm.split(" ")
        shingles += [" ".join(words[i : i + word_n]) for i in range(len(words) - word_n + 1)]
    if not shingles:
        shingles = [norm]
    for shingle in shingles:
        h = ref_fnv(shingle.encode("utf-8"))
        counts[h] = counts.get(h, 0) + 1
    return tuple(counts.items())


def ref_sum(features: dict[int, int]) -> int:
    total = sum(features.values())
    hashes = np.array(list(features), dtype=np.uint64)
    weights = np.array(list(features.values()), dtype=np.int64)  # counts: sums stay < total
    # one row per hash, one column per bit: bit b's weight is the sum of column b
    bits = (hashes.reshape(-1, 1) >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    sums = (bits.astype(np.int64) * weights.reshape(-1, 1)).sum(axis=0).tolist()
    fp = 0
    for bit in range(64):
        if 2 * sums[bit] > total:
            fp |= 1 << bit
    return fp


# --------------------------------------------------------------------------- inputs

TRAPS = [
    "a", "b", "Z", "x", "q", "1", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x00",
    "\x1c", "\x1d", "\x1e", "\x1f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a",
    "\u200b", "\u2028", "\u202f", "\u205f", "\u3000", "\ufeff", "İ", "ı", "\u212a", "\u212b",
    "Σ", "ς", "ß", "ẞ", "Ǆ", "ǅ", "Ⅻ", "Ⓐ", "Ａ", "Ω", "\u2126", "É", "e\u0301", "Д", "Ա",
    "\U00010400", "\U0001e900", "日本", "😀", "\ufffd", "<", ">", "<p>", "</p>", "<a href='x>y'>",
    "<!--", "-->", "<?xml?>", "< p>", "<3", "<é>", "<İ>", "<\u212a>", "&amp;", "<<b>>", "/", "!", "?",
]
BAD_BYTES = [
    b"\xe2\x82", b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf",
    b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf0\x9f\x98", b"\xc3", b"<\xc3",
]
fragments = st.one_of(st.sampled_from(TRAPS).map(str.encode), st.sampled_from(BAD_BYTES))
tricky_docs = st.lists(fragments, max_size=40).map(b"".join)
# valid UTF-8 whose mappings keep each code point's UTF-8 length (the in-place fast path)
SAME_LENGTH = [t for t in TRAPS if t not in ("İ", "\u212a", "\u212b", "\u2126")]
same_length_docs = st.lists(st.sampled_from(SAME_LENGTH), max_size=40).map(lambda p: "".join(p).encode())
any_docs = st.one_of(
    tricky_docs,
    same_length_docs,
    st.binary(max_size=200),
    st.text(max_size=80).map(lambda s: s.encode("utf-8", "surrogatepass")),
)
char_sizes = st.integers(min_value=-1, max_value=6)
word_sizes = st.integers(min_value=-1, max_value=3)


def small_chunks() -> ExitStack:
    """Shrink the engine's chunk sizes so short inputs cross every chunk boundary."""
    stack = ExitStack()
    stack.enter_context(mock.patch("ditto_tui.core.fingerprint.featurize._CHUNK", 3))
    stack.enter_context(mock.patch("ditto_tui.core.fingerprint.featurize._PY_TAIL", 2))
    stack.enter_context(mock.patch("ditto_tui.core.fingerprint.simhash._FIELD_MAX", 2))
    stack.enter_context(mock.patch("ditto_tui.core.fingerprint.simhash._DIRECT_MAX", 3))
    # by module object: the package attribute ``normalize`` is the function of that name
    stack.enter_context(mock.patch.object(sys.modules["ditto_tui.core.fingerprint.normalize"], "_DECODE_BLOCK", 2))
    return stack


# --------------------------------------------------------------------------- properties


@pytest.mark.kernel_free
@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=300) | tricky_docs)
def test_decode_go_matches_byte_by_byte_decoding(data: bytes) -> None:
    expected = ref_decode(data)
    assert decode_go(data) == expected
    with small_chunks():  # sequences cut by decoding blocks
        assert decode_go(data) == expected


@pytest.mark.kernel_free
@settings(max_examples=examples(300), deadline=None)
@given(any_docs)
def test_normalize_matches_reference(data: bytes) -> None:
    assert normalize(data) == ref_normalize(data)


@settings(max_examples=examples(300), deadline=None)
@given(any_docs, char_sizes, word_sizes)
def test_fingerprint_and_features_match_reference(data: bytes, char_n: int, word_n: int) -> None:
    featurizer = Featurizer(char_n=char_n, word_n=word_n)
    expected = ref_features(data, char_n, word_n)
    assert featurizer.features(data) == expected
    assert featurizer.fingerprint(data) == ref_sum(expected)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tricky_docs, min_size=1, max_size=4).map(b" ".join), char_sizes, word_sizes)
def test_fingerprint_is_the_same_across_chunk_boundaries(data: bytes, char_n: int, word_n: int) -> None:
    featurizer = Featurizer(char_n=char_n, word_n=word_n)
    with small_chunks():
        small = featurizer.fingerprint(data)
    assert small == featurizer.fingerprint(data) == ref_sum(ref_features(data, char_n, word_n))


@pytest.mark.kernel_free
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=(1 << 64) - 1), max_size=700))
def test_charikar_sum_is_the_per_bit_majority(hashes: list[int]) -> None:
    counts: dict[int, int] = {}
    for h in hashes:
        counts[h] = counts.get(h, 0) + 1
    expected = ref_sum(counts) if hashes else 0
    array = np.array(hashes, dtype=np.uint64)
    assert charikar_sum(array) == expected
    with small_chunks():  # the adder tree, from 4 hashes up
        assert charikar_sum(array) == expected
    assert [int(x) for x in array] == hashes  # the input is left unchanged


@pytest.mark.kernel_free
@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=(1 << 64) - 1), max_size=50))
def test_popcount64_counts_set_bits(values: list[int]) -> None:
    counts = popcount64(np.array(values, dtype=np.uint64))
    assert [int(c) for c in counts] == [v.bit_count() for v in values]


def test_long_mixed_document_spans_several_chunks() -> None:
    rng = np.random.default_rng(7)
    plain = [t for t in TRAPS if "<" not in t]  # no tag swallowing the rest
    pieces = [plain[i].encode() for i in rng.integers(0, len(plain), 60_000)]
    data = b" ".join(pieces)
    for char_n, word_n in ((4, 0), (3, 2)):
        expected = ref_features(data, char_n, word_n)
        assert sum(expected.values()) > _CHUNK  # more windows than one numpy pass
        assert Featurizer(char_n=char_n, word_n=word_n).fingerprint(data) == ref_sum(expected)


@pytest.mark.parametrize("windows", [1, 15, 16, 17, 3839, 3840, 3841, 2 * 3840 + 23])
def test_ascii_documents_of_any_window_count(windows: int) -> None:
    """Window counts around the compiled vote's groups of 16 and blocks of 3840."""
    rng = np.random.default_rng(windows)
    words = [bytes(rng.integers(97, 123, int(rng.integers(1, 9)), dtype=np.uint8)) for _ in range(windows)]
    data = b" ".join(words)[: windows + 3]
    for char_n, word_n in ((4, 0), (5, 0), (1, 2)):
        expected = ref_features(data, char_n, word_n)
        assert Featurizer(char_n=char_n, word_n=word_n).fingerprint(data) == ref_sum(expected)


@settings(max_examples=examples(300), deadline=None)
@given(any_docs)
def test_the_compiled_normalizer_matches_reference(engine_kernel: str, data: bytes) -> None:
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    from ditto_tui.core.fingerprint import engine

    compiled = engine.ditto()
    assert compiled.normalize_utf8(data) == ref_normalize(data).encode("utf-8")


# mostly plain ASCII (the compiled normalizer takes it eight bytes at a time) with the
# bytes that must leave that path: capitals, runs of spaces, the ASCII whitespace
# 0x09-0x0D (spaces) and the control bytes on either side, tags, UTF-8
PLAIN_PIECES = ["prose", "Text", "QUIZ", "@[`{", "Z", "a", " ", "  ", "\t", "\n", "\x1f", "\x7f",
                "<p>", "<", ">", "a<b", "é", "Ж", "\x00", "12345678", "\r\n", "\x0b", "\x0c",
                "\r", "\x08", "\x0e", "line one\nline two\n"]
plain_docs = st.lists(st.sampled_from(PLAIN_PIECES), max_size=60).map(lambda p: "".join(p).encode())


@settings(max_examples=examples(300), deadline=None)
@given(plain_docs)
def test_plain_ascii_text_eight_bytes_at_a_time_matches_reference(engine_kernel: str, data: bytes) -> None:
    if engine_kernel != "numpy":
        from ditto_tui.core.fingerprint import engine

        assert engine.ditto().normalize_utf8(data) == ref_normalize(data).encode("utf-8")
    assert Featurizer().fingerprint(data) == ref_sum(ref_features(data, 4, 0))
    assert Featurizer(word_n=2).fingerprint(data) == ref_sum(ref_features(data, 4, 2))


def test_a_word_longer_than_any_chunk_is_hashed_whole() -> None:
    word = bytes(np.random.default_rng(3).integers(97, 123, 5000, dtype=np.uint8))
    data = b"short " + word + b" tail " + word.upper()
    features = Featurizer(char_n=0, word_n=1).features(data)
    assert features == ref_features(data, 0, 1)
    assert Featurizer(char_n=0, word_n=1).fingerprint(data) == ref_sum(features)


# --------------------------------------------------------------------------- units


def test_empty_whitespace_and_tag_only_documents_share_one_fingerprint() -> None:
    featurizer = Featurizer()
    for data in (b"", b" \t\r\n", b"<p></p>", b"<div class='x'>", "\u3000\u00a0".encode()):
        assert featurizer.fingerprint(data).hex == "cbf29ce484222325"


@pytest.mark.kernel_free
def test_fingerprint_hex_is_zero_padded_lowercase() -> None:
    fp = Fingerprint(0xABC)
    assert fp.hex == "0000000000000abc"
    assert str(fp) == "0000000000000abc"
    assert Fingerprint.from_hex("0000000000000ABC") == fp
    assert Fingerprint.from_hex("abc") == fp
    assert Fingerprint.from_hex("ffffffffffffffff") == (1 << 64) - 1


@pytest.mark.kernel_free
@pytest.mark.parametrize("bad", ["", "0x12", "g", " 12", "12 ", "+1", "-1", "1_0", "1" * 17, "１２"])
def test_from_hex_rejects_anything_but_hex_digits(bad: str) -> None:
    with pytest.raises(ValueError):
        Fingerprint.from_hex(bad)


@pytest.mark.kernel_free
@pytest.mark.parametrize("bad", [-1, 1 << 64])
def test_fingerprint_must_fit_64_unsigned_bits(bad: int) -> None:
    with pytest.raises(ValueError):
        Fingerprint(bad)


@pytest.mark.kernel_free
@pytest.mark.parametrize("bad", ["12", 1.5, None])
def test_fingerprint_is_built_from_integers_only(bad: object) -> None:
    with pytest.raises(TypeError):
        Fingerprint(bad)  # type: ignore[arg-type]
    assert Fingerprint(np.uint64(12)) == 12


@pytest.mark.kernel_free
def test_signed_storage_round_trips() -> None:
    for value in (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1):
        fp = Fingerprint(value)
        assert -(1 << 63) <= fp.to_signed() < 1 << 63
        assert Fingerprint.from_signed(fp.to_signed()) == fp


@pytest.mark.kernel_free
def test_distance_similarity_and_near() -> None:
    a, b = Fingerprint(0b1011), Fingerprint(0b0001)
    assert distance(a, b) == a.distance(b) == 2
    assert a.similarity(b) == pytest.approx(1 - 2 / 64)
    assert similarity_percent(2) == "96.88%"
    assert similarity_percent(0) == "100.00%"
    assert similarity_percent(64) == "0.00%"
    assert a.near(b, 2) and not a.near(b, 1) and not a.near(a, -1)
    assert distance(0, (1 << 64) - 1) == 64


@pytest.mark.kernel_free
def test_featurizer_identity_is_picklable_and_canonical() -> None:
    featurizer = Featurizer(char_n=5, word_n=2)
    assert featurizer.identity == f"{PIPELINE_VERSION};char=5;word=2"
    assert Featurizer().identity == "ditto/2;char=4;word=0"
    assert Featurizer(char_n=-3).identity == "ditto/2;char=0;word=0"
    assert pickle.loads(pickle.dumps(featurizer)) == featurizer
    assert featurizer.accepts("anything.bin")


def test_fingerprint_many_keeps_order_and_dtype() -> None:
    docs = [b"alpha beta gamma", b"", b"<p>delta</p>"]
    many = Featurizer().fingerprint_many(docs)
    assert many.dtype == np.uint64
    assert [int(x) for x in many] == [Featurizer().fingerprint(d) for d in docs]


@pytest.mark.kernel_free
def test_make_pipeline_builds_featurizers_and_rejects_unknown_names() -> None:
    pipeline = make_pipeline("ditto", char_n=5, word_n=1)
    assert pipeline == Featurizer(char_n=5, word_n=1)
    assert pipeline.identity == "ditto/2;char=5;word=1"
    with pytest.raises(ValueError, match="unknown pipeline"):
        make_pipeline("nope")


@pytest.mark.kernel_free
def test_make_pipeline_html_uses_the_structure_pipeline() -> None:
    pytest.importorskip("ditto_tui.core.html.structure")
    pipeline = make_pipeline("html", shingle=3)
    assert pipeline.name == "html"
    assert pipeline.identity.startswith("html-distance/1")


@pytest.mark.kernel_free
@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("a < b", "a < b"),
        ("<3 you", "<3 you"),
        ("< p>x", "< p>x"),
        ("<é>", "<é>"),
        ("x > y", "x > y"),
        ("<!-- a > b -->c", "b -->c"),
        ("<p>one</p><p>two</p>", "one two"),
        ("<a title='x>y'>z</a>", "y'>z"),
        ("<a <b> c> d", "d"),  # nested: '<b' opens a second level inside the first
        ("<a<b>>c", "c"),
        ("keep <p unclosed swallows the rest", "keep"),
        ("x<İ>y", "x<i>y"),  # tags are stripped before lowercasing
        ("&amp; <b>&lt;</b>", "&amp; &lt;"),
    ],
)
def test_tag_stripping_follows_the_depth_rules(html: str, expected: str) -> None:
    assert normalize(html) == expected == ref_normalize(html.encode())


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_fingerprint_spans_equal_one_fingerprint_per_part(threads: int) -> None:
    rng = np.random.default_rng(threads)
    plain = [t.encode() for t in TRAPS]
    data = b"".join(plain[i] for i in rng.integers(0, len(plain), 3000))
    cuts = np.sort(rng.integers(0, len(data), 40))
    spans = [(int(a), int(b - a)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    featurizer = Featurizer(char_n=3, word_n=1)
    expected = [int(featurizer.fingerprint(data[a : a + n])) for a, n in spans]
    assert featurizer.fingerprint_spans(data, spans, threads=threads) == expected
    assert featurizer.fingerprint_spans(data, [], threads=threads) == []
