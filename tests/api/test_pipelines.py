"""Pipelines through the public API: Go's vectors, identities, many-at-once, distance."""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ditto_tui as dt

DATA = Path(__file__).parent.parent / "data"


def _ditto_vectors() -> list[dict]:
    with open(DATA / "ditto2-vectors.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _raw(v: dict) -> bytes:
    return base64.b64decode(v["b64"]) if v.get("text") is None else v["text"].encode()


def test_ditto_vectors_bit_for_bit_one_and_many() -> None:
    vectors = _ditto_vectors()
    by_params: dict[tuple[int, int], list[dict]] = {}
    for v in vectors:
        by_params.setdefault((v["charN"], v["wordN"]), []).append(v)
    for (c, w), group in by_params.items():
        p = dt.ditto(c, w)
        docs = [_raw(v) for v in group]
        want = [int(v["fp"], 16) for v in group]
        assert [int(p.fingerprint(d)) for d in docs] == want
        many = p.fingerprint_many(docs)
        assert many.dtype == np.uint64
        assert many.tolist() == want
        assert dt.fingerprint_many(docs, p).tolist() == want


def test_html_vectors_through_the_api() -> None:
    with open(DATA / "html-distance-vectors.jsonl", encoding="utf-8") as f:
        vectors = [json.loads(line) for line in f][:40]
    for s in (1, 2, 3):
        p = dt.html_distance(s)
        docs = [base64.b64decode(v["b64"]) for v in vectors]
        assert p.fingerprint_many(docs).tolist() == [int(v[f"shingle{s}"], 16) for v in vectors]


def test_default_pipeline_is_go_default() -> None:
    assert dt.ditto().identity == "ditto/2;char=4;word=0"
    assert dt.html_distance().identity == "html-distance/1;shingle=3"
    assert dt.fingerprint("abc") == dt.ditto().fingerprint(b"abc")
    assert dt.ditto(0, -1).identity == "ditto/2;char=0;word=0"
    assert dt.html_distance(0).identity == "html-distance/1;shingle=1"


@pytest.mark.parametrize("p", [dt.ditto(), dt.ditto(5, 2), dt.html_distance(1), dt.html_distance()])
def test_identity_round_trips_and_pickles(p: dt.Pipeline) -> None:
    assert dt.pipeline(p.identity) == p
    clone = pickle.loads(pickle.dumps(p))
    assert clone == p and clone.fingerprint(b"<p>x</p>") == p.fingerprint(b"<p>x</p>")


@pytest.mark.parametrize("bad", ["ditto/3;char=4;word=0", "ditto/2", "html-distance/1;shingle=x", ""])
def test_unknown_identity_is_a_clear_error(bad: str) -> None:
    with pytest.raises(dt.PipelineMismatchError, match="unknown pipeline identity") as info:
        dt.pipeline(bad)
    assert info.value.found == bad and info.value.expected is None


def test_documents_must_be_text_or_bytes() -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        dt.fingerprint(12)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        dt.ditto("4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1-D"):
        dt.fingerprint_many(np.array([["a"]]))


@given(st.lists(st.text(max_size=40), max_size=12))
def test_many_equals_one_by_one_for_every_input_kind(texts: list[str]) -> None:
    p = dt.ditto(3, 1)
    want = [int(p.fingerprint(t)) for t in texts]
    assert p.fingerprint_many(texts).tolist() == want
    assert p.fingerprint_many(iter(texts)).tolist() == want
    assert p.fingerprint_many(np.array(texts, dtype=object)).tolist() == want
    if texts and all("\x00" not in t for t in texts):
        assert p.fingerprint_many(np.array(texts)).tolist() == want  # dtype <U
    assert p.fingerprint_many([t.encode("utf-8", "surrogatepass") for t in texts]).tolist() == want


def test_str_and_its_utf8_bytes_agree() -> None:
    text = "Ünïcödé \u03a3 text <b>bold</b>"
    for p in (dt.ditto(), dt.html_distance()):
        assert p.fingerprint(text) == p.fingerprint(text.encode("utf-8"))


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_distance_and_similarity(a: int, b: int) -> None:
    d = bin(a ^ b).count("1")
    assert dt.distance(a, b) == d
    assert dt.similarity(a, b) == 1 - d / 64
    arr = np.array([a, b, a ^ b], dtype=np.uint64)
    assert dt.distance(arr, a).tolist() == [0, d, bin(b).count("1")]


def test_accepts() -> None:
    assert dt.ditto().accepts("x.bin")
    assert dt.html_distance().accepts("Page.HTML") and not dt.html_distance().accepts("a.txt")
