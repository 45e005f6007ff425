"""The compiled kernels on documents of any size, kind and buffer type, in any order and
from several threads at once (each call has its own work space): the numpy code's
fingerprints, through every instruction set this CPU runs."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.html.structure import MAX_TOKENS, HtmlStructure


@pytest.fixture(scope="module", params=engine.isas())
def engines(request: pytest.FixtureRequest):
    engine.select("compiled")
    engine.use_isa(request.param)
    try:
        ditto, html = engine.ditto(), engine.html()
        assert ditto is not None and html is not None
        yield ditto, html
    finally:
        engine.use_isa(engine.isas()[0])
        engine.select(None)


def _numpy_fingerprints(docs: list[bytes], pages: list[bytes],
                        shingle: int = 3) -> tuple[list[int], list[int]]:
    engine.select("numpy")
    try:
        featurizer, structure = Featurizer(), HtmlStructure(shingle=shingle)
        return ([int(featurizer.fingerprint(d)) for d in docs],
                [int(structure.fingerprint(p)) for p in pages])
    finally:
        engine.select("compiled")


def _document(rng: random.Random, size: int) -> bytes:
    words = ["alpha", "Beta", "déjà", "ПРИВЕТ", "漢字", "x", "\t", "\n\n", "naïve", "end."]
    parts, total = [], 0
    while total < size:
        word = rng.choice(words)
        parts.append(word)
        total += len(word.encode()) + 1
    return " ".join(parts).encode()[:size]


def _page(rng: random.Random, tags: int, attrs: int = 2) -> bytes:
    parts = ["<html><body>"]
    for i in range(tags):
        attributes = " ".join(f'a{j}="v{rng.randrange(9)}"' for j in range(attrs))
        parts.append(f"<div class=c{i % 7} {attributes}><p>text {i}</p></div>")
    return ("".join(parts) + "</body></html>").encode()


def test_documents_of_changing_size_and_kind_get_the_numpy_fingerprints(engines) -> None:
    ditto, _html = engines
    rng = random.Random(7)
    sizes = [0, 1, 5000, 10, 6_000_000, 20, 1_500_000, 7, 400_000, 3]
    docs = [_document(rng, size) for size in sizes]
    expected, _ = _numpy_fingerprints(docs, [])
    for kind in (bytes, bytearray, memoryview):
        got = [ditto.fingerprint(kind(d), 4, 0) for d in docs]
        assert got == expected, kind
    import numpy as np

    buf = np.frombuffer(b"".join(docs), dtype=np.uint8)
    ends = np.cumsum([len(d) for d in docs])
    got = ditto.fingerprint_array(buf, ends - [len(d) for d in docs], np.diff(ends, prepend=0),
                                  4, 0)
    assert got.tolist() == expected  # one call, one work space for all


@pytest.mark.parametrize("shingle", [3, 2, 5])
def test_pages_of_changing_size_and_shape_get_the_numpy_fingerprints(engines, shingle) -> None:
    _ditto, html = engines
    rng = random.Random(11)
    pages = [b"", b"<p>x</p>", _page(rng, 3), _page(rng, 40_000), _page(rng, 5),
             _page(rng, 2, attrs=300),  # more attributes than the first scratch holds
             _page(rng, 2), _page(rng, 8_000), b"<p>" * 20,
             b"<div class='" + b"x" * 20_000 + b"'>"]  # one feature larger than the first room
    _, expected = _numpy_fingerprints([], pages, shingle)
    for kind in (bytes, bytearray, memoryview):
        got = []
        for page in pages:
            fp = html.fingerprint(kind(page), shingle, MAX_TOKENS)
            got.append(fp if fp is not None else int(HtmlStructure(shingle).fingerprint(page)))
        assert got == expected, kind


def test_threads_fingerprint_at_once(engines) -> None:
    ditto, html = engines
    rng = random.Random(3)
    docs = [_document(rng, rng.choice([30, 3000, 300_000])) for _ in range(60)]
    pages = [_page(rng, rng.choice([1, 50, 2000])) for _ in range(60)]
    expected_docs, expected_pages = _numpy_fingerprints(docs, pages)
    _, expected_pages_2 = _numpy_fingerprints([], pages, 2)
    with ThreadPoolExecutor(max_workers=4) as pool:
        got_docs = list(pool.map(lambda d: ditto.fingerprint(d, 4, 0), docs))
        got_pages = list(pool.map(lambda p: html.fingerprint(p, 3, MAX_TOKENS), pages))
        got_pages_2 = list(pool.map(lambda p: html.fingerprint(p, 2, MAX_TOKENS), pages))
    assert got_docs == expected_docs
    assert got_pages == expected_pages
    assert got_pages_2 == expected_pages_2
