"""The compiled engine, in every instruction set this CPU runs, against the numpy engine on
random bytes, random UTF-8 and random HTML: the same normalized text, the same ditto/2
fingerprints (several shingle sizes) and the same html-distance fingerprints.

The documents are also repeated and given a long tail, so that they cross the 64-byte
steps of the plain-text and tag searches and the 3,840-hash blocks of the vote.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.normalize import normalize_utf8
from ditto_tui.core.html.structure import MAX_TOKENS, HtmlStructure
from tests.properties import examples

pytestmark = pytest.mark.skipif(not engine.isas(), reason="the compiled engine is not installed")

GRAMS = [(4, 0), (3, 2), (1, 1), (0, 3), (5, 0), (2, 0), (7, 1)]
SHINGLES = [1, 2, 3, 4]

_pieces = st.sampled_from([
    b"a", b"B", b" ", b"  ", b"\n", b"\t\r\n", b"<", b">", b"<p>", b"</a>", b"<!-- x -->",
    b"<b class='A b'>", b"<a href=x/>", b"<script>if (a<b) x</script>", b"&amp;", b"\x00",
    "é".encode(), "İ".encode(), "Σ".encode(), "\u3000".encode(), "漢字".encode(),
    b"\xe2\x82", b"\xff", b"\xf0\x9f\x98\x80", b"word ", b"The Quick Brown ", b"x" * 70,
])
random_bytes = st.binary(max_size=300)
random_utf8 = st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass"))
random_html = st.lists(_pieces, max_size=60).map(b"".join)
documents = st.one_of(random_bytes, random_utf8, random_html)


def _numpy(data: bytes) -> tuple[bytes, list[int], list[int]]:
    engine.select("numpy")
    try:
        return (normalize_utf8(data),
                [int(Featurizer(char_n=c, word_n=w).fingerprint(data)) for c, w in GRAMS],
                [int(HtmlStructure(s).fingerprint(data)) for s in SHINGLES])
    finally:
        engine.select(None)


def _check(data: bytes) -> None:
    expected = _numpy(data)
    from ditto_tui.core.fingerprint import _compiled

    try:
        for isa in engine.isas():
            _compiled.use_isa(isa)
            ditto, html = engine.ditto(), engine.html()
            assert ditto is not None and html is not None
            assert ditto.normalize_utf8(data) == expected[0], isa
            got = [ditto.fingerprint(data, c, w) for c, w in GRAMS]
            assert got == expected[1], (isa, data)
            pages = [html.fingerprint(data, s, MAX_TOKENS) for s in SHINGLES]
            assert [p if p is not None else e for p, e in zip(pages, expected[2], strict=True)] \
                == expected[2], (isa, data)
    finally:
        _compiled.use_isa(engine.isas()[0])


@settings(max_examples=examples(400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_random_documents_get_the_same_answers_from_both_engines(data: bytes) -> None:
    _check(data)


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(documents, st.integers(2, 60), st.sampled_from([b"", b"x" * 200, b" a b" * 50]))
def test_long_documents_get_the_same_answers_from_both_engines(data: bytes, times: int,
                                                               tail: bytes) -> None:
    _check(data * times + tail)
