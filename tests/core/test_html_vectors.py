"""The html-distance pipeline against the Go package's fingerprints, and its tokenizer.

tests/data/html-distance-vectors.jsonl holds 130 pages (100 real documentation pages, 30
synthetic edge cases) with the fingerprints Go's html-distance gives for shingle sizes 1,
2 and 3. ``go_html_reference`` is a literal, byte-at-a-time port of x/net/html's
tokenizer; the fast regex tokenizer must agree with it on every input.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import pickle
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.pipeline import Pipeline, make_pipeline
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.html import structure as html_structure
from ditto_tui.core.html.entities import unescape
from ditto_tui.core.html.features import token_features
from ditto_tui.core.html.structure import MAX_TOKENS, HtmlStructure, _fnv1_64_many, fnv1_64
from ditto_tui.core.html.tokenizer import (
    _KEYED_TOKEN,
    ERROR_INFO,
    TEXT_INFO,
    TokenType,
    _keys_before,
    describe_key,
    scan,
    token_keys,
    tokenize,
)
from tests.core.go_html_reference import go_tokens
from tests.each import check_each
from tests.properties import FULL, QUICK_SHARE, examples

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

VECTORS = Path(__file__).parents[1] / "data" / "html-distance-vectors.jsonl"
_ROWS = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
_PAGES = {row["id"]: base64.b64decode(row["b64"]) for row in _ROWS}
# 18 tokenizer edge cases with current x/net's fingerprints (see the README, Compatibility)
TOKENIZER_VECTORS = VECTORS.with_name("html-distance-tokenizer-vectors.jsonl")
_TOKENIZER_ROWS = [
    json.loads(line) for line in TOKENIZER_VECTORS.read_text().splitlines() if line.strip()
]


# The references are pure functions of their arguments; they are remembered because the
# byte-at-a-time port is slow and the same page is asked for again: by each kernel's run of
# the module (the vector pages, the fixed pages) and by several checks of one example.
@functools.lru_cache(maxsize=4096)
def _go_tokens(page: bytes, limit: int | None = None) -> tuple[tuple, ...]:
    return tuple(go_tokens(page, limit))


def _reference_features(page: bytes) -> list[bytes]:
    """Go's genFeatures, over the literal port's tokens (the oracle for the compiled kernel)."""
    return list(_reference_feature_tuple(page))


@functools.lru_cache(maxsize=4096)
def _reference_feature_tuple(page: bytes) -> tuple[bytes, ...]:
    features: list[bytes] = []
    for kind, _start, _end, name, attrs in _go_tokens(page, MAX_TOKENS):
        features += token_features((kind, name, attrs))
    return tuple(features)


@functools.lru_cache(maxsize=4096)
def _reference_fingerprint(page: bytes, shingle: int) -> int:
    """Go's html-distance, written plainly."""
    window = [b""] * shingle
    hashes = []
    for feature in _reference_feature_tuple(page):
        window = [*window[1:], feature]
        h = fnv1_64(b" ".join(window))
        if h == 0:
            break
        hashes.append(h)
    if not hashes:
        return 0xFFFFFFFFFFFFFFFF
    # bit b of every hash, one row per hash: the count of ones per bit is a column sum
    bits = np.array(hashes, dtype=np.uint64)[:, None] >> np.arange(64, dtype=np.uint64)
    ones = (bits & np.uint64(1)).sum(axis=0).tolist()
    return sum(1 << bit for bit in range(64) if 2 * ones[bit] >= len(hashes))


@pytest.mark.kernel_free
def test_the_vector_file_is_complete() -> None:
    assert len(_ROWS) == 130
    assert sum("source" in row for row in _ROWS) == 100
    assert len(_TOKENIZER_ROWS) == 18
    assert sum("gryffin_pin" in row for row in _TOKENIZER_ROWS) == 6


def _check_fingerprints(row: dict[str, str]) -> None:
    page = base64.b64decode(row["b64"])
    for shingle in (1, 2, 3):
        fingerprint = HtmlStructure(shingle).fingerprint(page)
        assert isinstance(fingerprint, Fingerprint)
        assert (shingle, fingerprint.hex) == (shingle, row[f"shingle{shingle}"])


def test_tokenizer_vectors_follow_current_x_net() -> None:
    """The 18 tokenizer edge cases, shingle sizes 1 to 3 (a failure names the case)."""
    cases = ((row["id"], row) for row in _TOKENIZER_ROWS)
    assert check_each(cases, _check_fingerprints) == 18


def test_fingerprints_match_go() -> None:
    """The 130 pages' fingerprints, shingle sizes 1 to 3 (a failure names the page)."""
    assert check_each(((row["id"], row) for row in _ROWS), _check_fingerprints) == 130


def _check_fast_tokenizer(page: bytes) -> None:
    assert scan(page) == list(_go_tokens(page))


@pytest.mark.kernel_free
def test_the_fast_tokenizer_agrees_with_the_literal_port_on_the_pages() -> None:
    assert check_each(_PAGES.items(), _check_fast_tokenizer) == 130


# -- the pipeline object ------------------------------------------------------------------


def test_identity_name_and_normalised_shingle() -> None:
    assert HtmlStructure().identity == "html-distance/1;shingle=3"
    assert HtmlStructure.name == "html"
    assert HtmlStructure(0) == HtmlStructure(1) == HtmlStructure(-4)
    assert HtmlStructure(0).identity == "html-distance/1;shingle=1"
    page = _PAGES["class-attr"]
    assert HtmlStructure(0).fingerprint(page) == HtmlStructure(1).fingerprint(page)
    with pytest.raises(TypeError):
        HtmlStructure("3")  # type: ignore[arg-type]


@pytest.mark.kernel_free
def test_make_pipeline_builds_it() -> None:
    pipeline = make_pipeline("html", shingle=2)
    assert pipeline == HtmlStructure(2)
    assert isinstance(pipeline, Pipeline)


def test_the_pipeline_pickles() -> None:
    pipeline = pickle.loads(pickle.dumps(HtmlStructure(2)))
    assert pipeline == HtmlStructure(2)
    assert pipeline.fingerprint(_PAGES["table"]).hex == next(
        row["shingle2"] for row in _ROWS if row["id"] == "table"
    )


@pytest.mark.kernel_free
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("index.html", True),
        ("a/B.HTM", True),
        ("x.XHTML", True),
        ("x.html.bak", False),
        ("notes.txt", False),
        ("html", False),
    ],
)
def test_accepts_html_files_only(name: str, expected: bool) -> None:
    assert HtmlStructure().accepts(name) is expected


@pytest.mark.kernel_free
def test_features_follow_the_spec() -> None:
    page = b"<!DOCTYPE html><DIV CLASS='card &amp; big' id=x><!-- c -->hi<br/></div z=1>"
    assert HtmlStructure().features(page) == [
        "D:",
        "A:div",
        "G:div:class:card & big",
        "G:div:id",
        "E:",
        "F:",
        "C:br",
        "B:div",
    ]
    assert HtmlStructure().features(b"<href><foo rel=a>") == ["A:href", "A:", "G::rel:a"]


def test_an_empty_page_is_all_ones() -> None:
    assert HtmlStructure().fingerprint(b"").hex == "ffffffffffffffff"
    assert HtmlStructure().fingerprint(b"<div").hex == "ffffffffffffffff"  # no token


def test_only_the_first_5000_tokens_count() -> None:
    head = b"<p>x</p>" * 1666 + b"<b><i>"  # 3 tokens per repeat, then 2: 5000 tokens
    assert len(scan(head)) == MAX_TOKENS
    pipeline = HtmlStructure()
    assert pipeline.shingles(head + b"<table>" * 50) == pipeline.shingles(head)
    assert pipeline.fingerprint(head + b"<table>" * 50) == pipeline.fingerprint(head)
    assert pipeline.shingles(head[:-3] + b"<u>") != pipeline.shingles(head)


@pytest.mark.kernel_free
def test_shingle_hashes_are_fnv1_64_of_the_joined_window() -> None:
    assert fnv1_64(b"") == 0xCBF29CE484222325
    assert fnv1_64(b"a") == 0xAF63BD4C8601B7BE  # FNV-1 (not 1a) of "a"
    shingles = HtmlStructure(2).shingles(b"<p>x")
    assert shingles == {fnv1_64(b" A:p"): 1, fnv1_64(b"A:p F:"): 1}
    long_value = b"<div class='" + b"k" * 1000 + b"'>"
    expected = fnv1_64(b"A:div G:div:class:" + b"k" * 1000)
    assert HtmlStructure(2).shingles(long_value)[expected] == 1


def test_same_template_different_words_gives_the_same_fingerprint() -> None:
    a = b"<ul><li class='i'>apples</li><li class='i'>pears</li></ul>"
    b = b"<ul><li class='i'>Zebras &amp; co</li><li class='i'>x</li></ul>"
    assert HtmlStructure().fingerprint(a) == HtmlStructure().fingerprint(b)


# -- tokenizer edge cases (each checked against Go's token.go) -----------------------------


def _summary(data: bytes) -> list[tuple[str, bytes]]:
    return [(t.type.name, data[t.start : t.end]) for t in tokenize(data)]


@pytest.mark.kernel_free
@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (
            b"<script>a</b><p>c</SCRIPT >x",
            [
                ("START_TAG", b"<script>"),
                ("TEXT", b"a</b><p>c"),
                ("END_TAG", b"</SCRIPT >"),
                ("TEXT", b"x"),
            ],
        ),
        (
            b"<title>a<b></title x=1>",
            [("START_TAG", b"<title>"), ("TEXT", b"a<b>"), ("END_TAG", b"</title x=1>")],
        ),
        (
            b"<style>p{}</stylex></style>",
            [("START_TAG", b"<style>"), ("TEXT", b"p{}</stylex>"), ("END_TAG", b"</style>")],
        ),
        (b"<script/>a<b>", [("SELF_CLOSING_TAG", b"<script/>"), ("TEXT", b"a<b>")]),
        (
            b"<script><!--<script>x</script>y</script>z",
            [
                ("START_TAG", b"<script>"),
                ("TEXT", b"<!--<script>x</script>y"),
                ("END_TAG", b"</script>"),
                ("TEXT", b"z"),
            ],
        ),
        (
            b"<plaintext></plaintext><b>",
            [("START_TAG", b"<plaintext>"), ("TEXT", b"</plaintext><b>")],
        ),
        (b"<!-->x", [("COMMENT", b"<!-->"), ("TEXT", b"x")]),
        (b"<!--->x", [("COMMENT", b"<!--->"), ("TEXT", b"x")]),
        (b"<!-- a --!>x", [("COMMENT", b"<!-- a --!>"), ("TEXT", b"x")]),
        (b"<!-- unterminated", [("COMMENT", b"<!-- unterminated")]),
        (b"<?xml v?>x", [("COMMENT", b"<?xml v?>"), ("TEXT", b"x")]),
        (b"<!x>y", [("COMMENT", b"<!x>"), ("TEXT", b"y")]),
        (b"<![CDATA[x>y]]>", [("COMMENT", b"<![CDATA[x>"), ("TEXT", b"y]]>")]),
        (b"</>z", [("COMMENT", b"</>"), ("TEXT", b"z")]),
        (b"</ x>z", [("COMMENT", b"</ x>"), ("TEXT", b"z")]),
        (b"<!doctype html><!DOC", [("DOCTYPE", b"<!doctype html>"), ("COMMENT", b"<!DOC")]),
        (b"a < b <3 c", [("TEXT", b"a < b <3 c")]),
        (b"abc</", [("TEXT", b"abc"), ("TEXT", b"</")]),
        (b"abc<div class='x", [("TEXT", b"abc")]),  # a tag cut by the end is no token
        (
            b"<br/><p a=/><p\n/ >",
            [("SELF_CLOSING_TAG", b"<br/>"), ("START_TAG", b"<p a=/>"), ("START_TAG", b"<p\n/ >")],
        ),
    ],
)
def test_token_boundaries(page: bytes, expected: list[tuple[str, bytes]]) -> None:
    assert _summary(page) == expected


@pytest.mark.kernel_free
def test_tag_names_and_attributes() -> None:
    (token,) = tokenize(b"<A HREF=x Class=\"Y\" a/b/ ==v c =w x=1 X=2 rel='&lt;&amp;&#x41;&#5'>")
    assert token.type is TokenType.START_TAG
    assert token.name == b"a"
    assert token.attrs == (
        (b"href", b"x"),
        (b"class", b"Y"),
        (b"a", b""),
        (b"b", b""),
        (b"=", b"v"),
        (b"c", b"w"),
        (b"x", b"1"),
        (b"rel", b"<&A&#5"),
    )
    (token,) = tokenize(b"<a x=1 x=y/>")  # the dropped duplicate does not own the '/'
    assert token.type is TokenType.SELF_CLOSING_TAG
    (token,) = tokenize(b"<div\x00X v='a\r\nb\x00'>")
    assert token.name == "div\ufffdx".encode()
    assert token.attrs == ((b"v", "a\nb\ufffd".encode()),)
    (token,) = tokenize(b"</DIV class=z>")
    assert (token.type, token.name, token.attrs) == (TokenType.END_TAG, b"div", ())


@pytest.mark.kernel_free
@pytest.mark.parametrize(
    ("raw", "attribute", "expected"),
    [
        (b"&amp;&lt&gt;", True, b"&<>"),
        (b"&amp=x", True, b"&amp=x"),  # attribute rule: name without ';' before '='
        (b"&notit;", False, "\u00acit;".encode()),  # text rule: longest legacy prefix
        (b"&notit;", True, b"&notit;"),
        (b"&#233;&#x41;&#X42", False, "\u00e9AB".encode()),
        (b"&#128;&#0;&#xD800;&#x110000;", False, "\u20ac\ufffd\ufffd\ufffd".encode()),
        (b"&#x;", False, "\ufffd".encode()),
        (b"&#;&#", False, b"&#;&#"),
        (b"&#4294967361;", False, b"A"),  # int32 wraparound, as in Go
        (b"&NotEqualTilde;", False, "\u2242\u0338".encode()),
        (b"a&", False, b"a&"),
    ],
)
def test_character_references(raw: bytes, attribute: bool, expected: bytes) -> None:
    assert unescape(raw, attribute) == expected


# -- properties ---------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        b"<",
        b">",
        b"/",
        b"!",
        b"-",
        b"?",
        b"=",
        b'"',
        b"'",
        b" ",
        b"\n",
        b"a",
        b"B",
        b"div",
        b"script",
        b"SCRIPT",
        b"style",
        b"title",
        b"textarea",
        b"plaintext",
        b"&",
        b"#",
        b";",
        b"amp",
        b"x",
        b"1",
        b"\x00",
        b"\r",
        b"[CDATA[",
        b"CLASS",
        b"Name",
        b"rel",
        b"\t",
        b"\x0c",
        b"blockquote",
        b"abcdefgh",
        b"\xc3\xa9",
        b"doctype",
        b"class",
        b"<!--",
        b"-->",
        b"</",
        b"</script>",
        b"<script>",
        b"\xff",
    ]
)
_HTMLISH = st.lists(_PIECES, max_size=40).map(b"".join)
_LONG = b"Some text, then more; x = 1 > 0 and Other Words in Capitals too " * 3
_TAIL = b"<p class=Tail>" + _LONG[:80] + b"</p>"


@pytest.mark.kernel_free
@settings(max_examples=examples(300), deadline=None)
@given(_HTMLISH)
def test_the_fast_tokenizer_agrees_with_the_literal_port(page: bytes) -> None:
    assert scan(page) == list(_go_tokens(page))


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=200) | _HTMLISH)
def test_the_compiled_kernel_agrees_with_the_literal_port(engine_kernel: str, page: bytes) -> None:
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    _html_kernel = engine.html()

    # and again with 80 more bytes, so that names, keys and tags are read a word or a
    # 64-byte step at a time (those steps need the bytes to be there)
    for whole in (page, page + _TAIL):
        features = _html_kernel.feature_list(whole, MAX_TOKENS)
        if features is None:  # a class/name/rel value with '&', CR or NUL: Python's job
            assert re.search(rb"[&\r\0]", whole)
        else:
            assert features == _reference_features(whole)


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=120) | _HTMLISH, st.sampled_from([1, 2, 3, 4]))
def test_the_compiled_fingerprint_agrees_with_the_reference(engine_kernel: str, page: bytes,
                                                            shingle: int) -> None:
    """The fingerprint path (shingle 3: each feature hashed as it is read; others: the
    features written, then hashed) against Go's html-distance written plainly."""
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    for whole in (page, page + _TAIL):
        fingerprint = engine.html().fingerprint(whole, shingle, MAX_TOKENS)
        if fingerprint is None:
            assert re.search(rb"[&\r\0]", whole)
        else:
            assert fingerprint == _reference_fingerprint(whole, shingle)


@pytest.mark.property  # every case in CI's property step; a quarter in the quick run
def test_the_compiled_kernel_reads_names_and_keys_a_word_at_a_time(engine_kernel: str) -> None:
    """Tag names and attribute names of up to eight bytes are read as one word (atoms looked
    up by it, keys lower-cased in it): every length around eight, in any case, with NUL,
    non-ASCII and "=" bytes, after each whitespace byte, ending at every place near the end
    of the page; and names longer than a 64-byte step."""
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    names = [b"a", b"B", b"Li", b"DIV", b"nav", b"Span", b"TITLE", b"script", b"STYLE",
             b"section", b"NOSCRIPT", b"noframes", b"textarea", b"plaintext", b"blockquote",
             b"abcdefgh", b"abcdefghi", b"d\x00v", b"di\xc3\xa9", b"h1", b"x-y", b"\xffp"]
    keys = [b"class", b"CLASS", b"Class", b"name", b"NAME", b"rel", b"Rel", b"id", b"href",
            b"data-xy", b"abcdefgh", b"abcdefghi", b"cl\x00ss", b"=x", b"n\xc3\xa9", b"classy",
            b"na", b"relx", b"A"]
    spaces = (b" ", b"\t", b"\n", b"\x0c", b"\r")
    tags = []
    for name, key in itertools.product(names, keys):
        tags += [b"<%s %s=v1>" % (name, key), b"<%s>" % name, b"</%s>" % name,
                 b"<%s\t%s\x0c=\r'v'\n%s>" % (name, key, key), b"<%s\x0b%s>" % (name, key),
                 *(b"<%s%s%s%s>" % (name, space, key, space) for space in spaces),
                 b"<%s %s='q' %s>" % (name, key, key.upper()), b"<%s/>" % name,
                 b"</%s %s=x>" % (name, key)]
    for size in (62, 63, 64, 65, 66, 127, 128, 129):  # names past one 64-byte step
        name = (b"Ab" * size)[:size]
        tags += [b"<%s>" % name, b"</%s>" % name, b"<%s class=x>" % name, b"<p %s=y>" % name]
    pages = []
    for tag in sorted(set(tags)):
        # the tag ends 0-8 bytes before the page does, or 70 bytes before
        pages += [tag + b"z" * pad for pad in (0, 1, 2, 4, 6, 7, 8)]
        pages.append(b"<p>x" + tag + b"t" * 70 + b"</p>")
    wrong = []
    for page in pages if FULL else pages[::QUICK_SHARE]:
        compiled = engine.html()
        if compiled.feature_list(page, MAX_TOKENS) != _reference_features(page):
            wrong.append(page)
        if compiled.fingerprint(page, 3, MAX_TOKENS) not in (None, _reference_fingerprint(page, 3)):
            wrong.append(page)
    assert not wrong, wrong[:5]




def test_the_compiled_kernel_finds_each_byte_it_skips_to_at_every_position(engine_kernel: str) -> None:
    """Text, style bodies, quoted values and tags are searched 64 bytes a step for the
    byte that ends them: put that byte at every position of a step and just after one."""
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    templates = [
        b"<p>{}</p><b>x</b>",  # text up to '<'
        b"<p>{}< p {}<i>y</i>",  # a '<' that opens nothing, then more text
        b"<style>{}</style><div class=a>z</div>",  # a raw body up to '</'
        b"<div class='{}' id=\"{}\"><a href=x>l</a></div>",  # quoted values up to the quote
        b"<!DOCTYPE {}><p title={}>t</p>",  # a declaration up to '>'
        b"<p>{}",  # text to the end of the page
    ]
    tail = b"<em class=tail>" + _LONG[:70] + b"</em>"  # so the byte is found by a 64-byte step
    wrong = []
    for template in templates:
        for size in [*range(0, 72), 127, 128, 129]:  # every place in a 64-byte step
            filler = _LONG[:size]
            page = template.replace(b"{}", filler)
            page += tail if template != b"<p>{}" else b""
            features = engine.html().feature_list(page, MAX_TOKENS)
            if features != _reference_features(page):
                wrong.append((template, size))
    assert not wrong, wrong


@settings(max_examples=examples(150), deadline=None)
@given(_HTMLISH)
def test_the_compiled_kernel_grows_its_work_space_when_a_page_needs_more(
    engine_kernel: str, page: bytes
) -> None:
    """A tag with 300 attributes and features longer than the page's first guess."""
    if engine_kernel == "numpy":
        pytest.skip("the compiled kernel only")
    _html_kernel = engine.html()
    many = b"<p " + b" ".join(b"a%d=%d" % (i, i) for i in range(300)) + b">x</p>" + page
    features = _html_kernel.feature_list(many, MAX_TOKENS)
    if features is not None:
        assert features == _reference_features(many)
        for shingle in (1, 3):
            fingerprint = _html_kernel.fingerprint(many, shingle, MAX_TOKENS)
            assert fingerprint in (None, _reference_fingerprint(many, shingle))


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=200) | _HTMLISH)
def test_tokens_tile_the_input_and_the_fingerprint_is_deterministic(page: bytes) -> None:
    tokens = scan(page)
    offset = 0
    for _type, start, end, _name, _attrs in tokens:
        assert start == offset < end
        offset = end
    if offset < len(page):  # only a tag cut by the end of the input is left over
        assert page[offset : offset + 1] == b"<"
    assert scan(page, 3) == tokens[:3]
    pipeline = HtmlStructure()
    assert pipeline.fingerprint(page) == pipeline.fingerprint(bytes(page))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=12), min_size=3, max_size=3))
def test_text_content_never_changes_the_fingerprint(words: list[str]) -> None:
    template = "<div class='c'><p>{}</p><span>{}</span><a href='/'>{}</a></div>"
    page = template.format(*words).encode()
    assert HtmlStructure().fingerprint(page) == HtmlStructure().fingerprint(
        template.format("q", "r", "s").encode()
    )


@pytest.mark.kernel_free
@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.binary(max_size=90), max_size=80))
def test_vectorised_fnv_matches_the_plain_one(strings: list[bytes]) -> None:
    hashes = _fnv1_64_many(strings)
    assert hashes.tolist() == [fnv1_64(s) for s in strings]


@pytest.mark.kernel_free
@settings(max_examples=examples(100), deadline=None)
@given(_HTMLISH, st.sampled_from([1, 2, 3, 4, 40]))
def test_shingle_counts_match_a_plain_count(page: bytes, shingle: int) -> None:
    features = [f.encode("utf-8", "surrogateescape") for f in HtmlStructure().features(page)]
    window = [b""] * shingle
    expected: Counter[int] = Counter()
    for feature in features:
        window = [*window[1:], feature]
        expected[fnv1_64(b" ".join(window))] += 1
    assert HtmlStructure(shingle).shingles(page) == dict(expected)


# -- the fast path (token keys, memoised features and shingle hashes) ----------------------


def _expand_keys(keys: list[bytes], limit: int) -> list[tuple] | None:
    infos: list[tuple] = []
    for key in keys:
        described = describe_key(key)
        if described is None:
            return None
        info, text_follows = described
        if info is ERROR_INFO:
            assert key is keys[-1]
            break
        infos += [info, TEXT_INFO] if text_follows else [info]
    return infos[:limit]


# One pipeline for all examples, so that each one meets the memo the earlier ones left.
_SHARED = {shingle: HtmlStructure(shingle) for shingle in (1, 2, 3, 4)}
_TAGGY = st.lists(
    st.sampled_from(
        [b"<a", b"<DIV", b"<title", b" ", b"\t", b"class", b"CLASS", b"rel", b"name", b"id"]
        + [b"=", b'"', b"'", b"&amp;", b"&lt", b"x", b"/", b">", b"\x00", b"\r\n", b"</a>"]
        + [b' class="', b' rel="a"', b" x='y'", b'"c"', b"<!-- ", b"<!x", b"<?"]
    ),
    max_size=30,
).map(b"".join)
_SCRIPTY = st.lists(
    st.sampled_from([b"<script>", b"</script>", b"<!--", b"-->", b"<script ", b"x", b"<", b"/"]),
    max_size=12,
).map(b"".join)


@pytest.mark.kernel_free
@settings(max_examples=examples(300), deadline=None)
@given(_HTMLISH | _SCRIPTY | _TAGGY, st.sampled_from([1, 2, 3, 5, 40, MAX_TOKENS]))
def test_token_keys_describe_the_literal_ports_tokens(page: bytes, limit: int) -> None:
    # Small limits make token_keys read the page in several parts.
    expected = [(kind, name, attrs) for kind, _s, _e, name, attrs in _go_tokens(page, limit)]
    infos = _expand_keys(token_keys(page, limit), limit)
    if infos is not None:  # None: script text that needs the full tokenizer
        assert infos == expected


@settings(max_examples=examples(300), deadline=None)
@given(_HTMLISH | _SCRIPTY | _TAGGY | st.binary(max_size=120), st.sampled_from([1, 2, 3, 4]))
def test_fingerprints_match_a_plain_reference_with_a_shared_memo(page: bytes, shingle: int) -> None:
    assert _SHARED[shingle].fingerprint(page) == _reference_fingerprint(page, shingle)


_AWKWARD = [
    b"ab</<a>",  # "</" right before a cut
    b"<title>ab<b>cd</title>",  # a cut inside raw text
    b"<a title='<b>'>x</a>",  # a cut inside a tag
    b"<!-- a <b> c -->",  # a cut inside a comment
    b"<script>a<b>c</script>",
    b"<style>a</sty<b>le></style>",
    b"<p>q<!x<i>y<?z<u>",
]


@pytest.mark.kernel_free
@pytest.mark.parametrize("limit", range(1, 25))
def test_token_keys_read_in_parts_like_in_one(limit: int) -> None:
    # token_keys reads a long page in parts cut before "<" + letter, about 8 bytes per
    # wanted token; these pages put such a "<" inside every kind of token.
    for first in range(len(_AWKWARD)):
        page = b"".join(_AWKWARD[first:] + _AWKWARD[:first]) * 3
        expected = [(kind, name, attrs) for kind, _s, _e, name, attrs in _go_tokens(page, limit)]
        assert _expand_keys(token_keys(page, limit), limit) == expected


@pytest.mark.kernel_free
@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(_AWKWARD) | _HTMLISH, max_size=6).map(b"".join))
def test_a_part_cut_before_any_tag_start_loses_no_token(page: bytes) -> None:
    whole = _KEYED_TOKEN.findall(page)
    for cut in (m.start() for m in re.finditer(rb"(?<!^)<[A-Za-z]", page)):
        keys, next_start = _keys_before(page, 0, cut)
        assert next_start <= cut
        assert keys + _KEYED_TOKEN.findall(page, next_start) == whole


def test_pages_read_in_parts_and_cut_at_5000_tokens_match_the_reference() -> None:
    body = b"".join(
        b"<div class='c%d'><p>t &amp; x</p><script>a<b</script><!-- n --></div z=1>\n" % (i % 7)
        for i in range(900)
    )
    page = b"<!DOCTYPE html><title>T</title>" + body + b"<a href='x"
    assert len(_go_tokens(page)) > MAX_TOKENS
    pipeline = HtmlStructure()
    for cut in (len(page), 60_000, 50_003):
        assert pipeline.fingerprint(page[:cut]) == _reference_fingerprint(page[:cut], 3)


@pytest.mark.parametrize(
    "page",
    [
        b'<a class="x&amp;y" rel="a&lt;b" name="n"><a class="x" id="&amp;" CLASS="z">',
        b"<a name='n\r\nm\x00'><a rel='y' REL=\"z\">",
        b'<a b="x"/><a b="x" /><a b=x/><a b="x"c="d"><a  B = "x" ><a b="x>y" c>',
        b'<DIV\x00 a="1" b><p class="" rel><br/ ><td a=\'"\' b="\'">',
        b"<p>a</p><script><!--<script>x</script>y</script>z<b>",  # Go's script state machine
        b"<title>x</title><style>p<q</style><plaintext><b>",
        b"<textarea></textarea><xmp>a</xmp ><iframe>",
        b"<div>" * 4999 + b"<title>x</title>",  # the 5000-token cut splits a raw-text key
        b"<title>x</title>" * 2000,  # 4000 keys, 6000 tokens
        b"<div><a href='x",  # the input ends inside a tag
    ],
)
def test_raw_text_and_stop_pages_match_the_reference(page: bytes) -> None:
    pipeline = HtmlStructure()
    expected = [f.decode("utf-8", "surrogateescape") for f in _reference_features(page)]
    for _ in range(2):  # cold, then with the memo the first call left
        assert pipeline.features(page) == expected
        assert pipeline.fingerprint(page) == _reference_fingerprint(page, 3)


def test_the_memo_starts_afresh_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_structure, "_MEMO_LIMIT", 50)
    pipeline = HtmlStructure()
    for row in _ROWS[:12]:
        assert pipeline.fingerprint(_PAGES[row["id"]]).hex == row["shingle3"]
    assert pipeline._memo.memo.size < 50 + 5 * MAX_TOKENS


def test_a_pickled_pipeline_carries_no_memo() -> None:
    pipeline = HtmlStructure()
    pipeline.shingles(_PAGES["table"])  # fills the memo, whichever kernel fingerprints
    copy = pickle.loads(pickle.dumps(pipeline))
    assert copy._memo.memo.size < pipeline._memo.memo.size
    assert copy.fingerprint(_PAGES["table"]) == pipeline.fingerprint(_PAGES["table"])


def test_threads_sharing_a_pipeline_get_the_same_fingerprints() -> None:
    pages = [_PAGES[row["id"]] for row in _ROWS]
    expected = [row["shingle3"] for row in _ROWS]
    pipeline = HtmlStructure()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(2):  # cold memo, then warm
            assert [fp.hex for fp in pool.map(pipeline.fingerprint, pages)] == expected
