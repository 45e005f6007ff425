"""The html-distance pipeline against the Go package's fingerprints, and its tokenizer.

tests/data/html-distance-vectors.jsonl holds 130 pages (100 real documentation pages, 30
synthetic edge cases) with the fingerprints Go's html-distance gives for shingle sizes 1,
2 and 3. ``go_html_reference`` is a literal, byte-at-a-time port of x/net/html's
tokenizer; the fast regex tokenizer must agree with it on every input.
"""

from __future__ import annotations

import base64
import json
import pickle
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.html_entities import unescape
from ditto_tui.core.html_structure import MAX_TOKENS, HtmlStructure, _fnv1_64_many, fnv1_64
from ditto_tui.core.html_tokenizer import TokenType, scan, tokenize
from ditto_tui.core.pipeline import Pipeline, make_pipeline
from ditto_tui.core.simhash import Fingerprint
from tests.core.go_html_reference import go_tokens

VECTORS = Path(__file__).parents[1] / "data" / "html-distance-vectors.jsonl"
_ROWS = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]
_PAGES = {row["id"]: base64.b64decode(row["b64"]) for row in _ROWS}


def test_the_vector_file_is_complete() -> None:
    assert len(_ROWS) == 130
    assert sum("source" in row for row in _ROWS) == 100


@pytest.mark.parametrize("shingle", [1, 2, 3])
@pytest.mark.parametrize("row", _ROWS, ids=[row["id"] for row in _ROWS])
def test_fingerprints_match_go(row: dict[str, str], shingle: int) -> None:
    fingerprint = HtmlStructure(shingle).fingerprint(_PAGES[row["id"]])
    assert isinstance(fingerprint, Fingerprint)
    assert fingerprint.hex == row[f"shingle{shingle}"]


@pytest.mark.parametrize("row", _ROWS, ids=[row["id"] for row in _ROWS])
def test_the_fast_tokenizer_agrees_with_the_literal_port_on_the_pages(row: dict) -> None:
    page = _PAGES[row["id"]]
    assert scan(page) == go_tokens(page)


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


@settings(max_examples=300, deadline=None)
@given(_HTMLISH)
def test_the_fast_tokenizer_agrees_with_the_literal_port(page: bytes) -> None:
    assert scan(page) == go_tokens(page)


@settings(max_examples=200, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=12), min_size=3, max_size=3))
def test_text_content_never_changes_the_fingerprint(words: list[str]) -> None:
    template = "<div class='c'><p>{}</p><span>{}</span><a href='/'>{}</a></div>"
    page = template.format(*words).encode()
    assert HtmlStructure().fingerprint(page) == HtmlStructure().fingerprint(
        template.format("q", "r", "s").encode()
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=90), max_size=80))
def test_vectorised_fnv_matches_the_plain_one(strings: list[bytes]) -> None:
    hashes = _fnv1_64_many(strings)
    assert hashes.tolist() == [fnv1_64(s) for s in strings]


@settings(max_examples=100, deadline=None)
@given(_HTMLISH, st.sampled_from([1, 2, 3, 4, 40]))
def test_shingle_counts_match_a_plain_count(page: bytes, shingle: int) -> None:
    features = [f.encode("utf-8", "surrogateescape") for f in HtmlStructure().features(page)]
    window = [b""] * shingle
    expected: Counter[int] = Counter()
    for feature in features:
        window = [*window[1:], feature]
        expected[fnv1_64(b" ".join(window))] += 1
    assert HtmlStructure(shingle).shingles(page) == dict(expected)
