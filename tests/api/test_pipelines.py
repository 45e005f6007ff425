"""Pipelines through the public API: Go's vectors, identities, many-at-once, distance."""

from __future__ import annotations

import base64
import contextlib
import json
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui as dt
from ditto_tui.cli.main import main
from tests.properties import examples

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
        if c < 0 or w < 0 or c == w == 0:  # Go clamps these; the library refuses them
            with pytest.raises(ValueError, match="out of range|no features"):
                dt.ditto(c, w)
            continue  # (their fingerprints: tests/core/test_vectors.py)
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
    assert dt.ditto(0, 3).identity == "ditto/2;char=0;word=3"
    assert dt.html_distance(1).identity == "html-distance/1;shingle=1"


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


# -- one rule for pipeline parameters, shared with the command line ---------------------
BAD_DITTO = [(-1, 0), (4, -1), (-1, -2), (0, 0), (4097, 0), (4, (1 << 20) + 1)]
BAD_SHINGLE = [0, -1, 4097]


@pytest.mark.parametrize(("char", "word"), BAD_DITTO)
def test_ditto_parameters_go_clamps_are_refused(char: int, word: int, capfdbinary) -> None:
    with pytest.raises(ValueError, match="out of range|no features") as info:
        dt.ditto(char, word)
    message = str(info.value)
    assert ("char" in message) or ("word" in message)
    # the command line refuses the same values, with the same words about its flags
    code = main(["fingerprint", "--char", str(char), "--word", str(word), "-"])
    err = capfdbinary.readouterr().err.decode()
    assert code == 2 and err.count("\n") == 1, err
    reason = re.search(r" (is out of range: .*|leaves no features) ", message)
    assert reason and reason.group(1) in err


@pytest.mark.parametrize("shingle", BAD_SHINGLE)
def test_html_shingle_below_one_is_refused(shingle: int, capfdbinary) -> None:
    with pytest.raises(ValueError, match=f"shingle={shingle} is out of range"):
        dt.html_distance(shingle)
    code = main(["fingerprint", "--pipeline", "html", "--shingle", str(shingle), "-"])
    err = capfdbinary.readouterr().err.decode()
    assert code == 2 and f"--shingle {shingle} is out of range" in err, err


def test_parameter_types_and_the_stored_identities() -> None:
    for bad in (4.0, "4", True, None):
        with pytest.raises(TypeError, match="char must be an int"):
            dt.ditto(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="shingle must be an int"):
            dt.html_distance(bad)  # type: ignore[arg-type]
    assert dt.ditto(np.int64(5), np.uint8(2)) == dt.ditto(5, 2)  # numpy integers are ints
    assert dt.ditto(4096, 1 << 20).identity == "ditto/2;char=4096;word=1048576"
    assert dt.html_distance(4096).identity == "html-distance/1;shingle=4096"
    # an identity with refused parameters is not a pipeline either
    for identity in ("ditto/2;char=0;word=0", "html-distance/1;shingle=0", "ditto/2;char=5000;word=0"):
        with pytest.raises(dt.PipelineMismatchError, match="unsupported pipeline identity") as info:
            dt.pipeline(identity)
        assert info.value.found == identity


# -- fingerprint_many: many documents, never one taken apart ---------------------------
@pytest.mark.parametrize("one", ["abc", b"abc", bytearray(b"abc"), memoryview(b"abc")])
def test_fingerprint_many_refuses_a_single_document(one) -> None:
    for call in (dt.fingerprint_many, dt.ditto().fingerprint_many, dt.html_distance().fingerprint_many):
        with pytest.raises(TypeError, match=r"not one .*pass \[document\]"):
            call(one)


def test_fingerprint_many_names_the_bad_element_and_checks_threads() -> None:
    with pytest.raises(TypeError, match=r"documents\[2\]: a document is str or bytes, not int"):
        dt.fingerprint_many(["a", b"b", 3])
    with pytest.raises(TypeError, match=r"documents\[0\]"):
        dt.html_distance().fingerprint_many([None])
    for bad, error in ((0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="threads"):
            dt.fingerprint_many(["a"], threads=bad)
    assert dt.fingerprint_many([]).dtype == np.uint64 and len(dt.fingerprint_many(iter([]))) == 0


@contextlib.contextmanager
def kernel_in_use(name: str) -> Iterator[None]:
    from ditto_tui.core.fingerprint import engine

    if name == "compiled" and engine.isas() == ():
        pytest.skip("the compiled engine is not installed")
    engine.select(name)  # type: ignore[arg-type]
    try:
        yield
    finally:
        engine.select(None)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(st.one_of(st.text(max_size=300), st.binary(max_size=300)), max_size=40),
    st.sampled_from([None, 1, 2, 3]),
    st.sampled_from([1, 7, 1 << 20]),
)
@pytest.mark.parametrize("kernel", ["compiled", "numpy"])
def test_many_in_batches_and_threads_equals_one_by_one(
    kernel: str, texts: list, threads: int | None, batch_bytes: int
) -> None:
    """Small runs and a thread per byte force every path: several buffers, threads cut
    inside a run, empty documents, runs of one document."""
    from ditto_tui._lib import pipelines

    saved = pipelines._BATCH_BYTES, pipelines._THREAD_BYTES
    pipelines._BATCH_BYTES, pipelines._THREAD_BYTES = batch_bytes, 1
    try:
        with kernel_in_use(kernel):
            for p in (dt.ditto(), dt.ditto(3, 2), dt.html_distance()):
                want = [int(p.fingerprint(t)) for t in texts]
                assert p.fingerprint_many(texts, threads=threads).tolist() == want
                assert p.fingerprint_many(iter(texts), threads=threads).tolist() == want
    finally:
        pipelines._BATCH_BYTES, pipelines._THREAD_BYTES = saved


def test_fingerprint_many_packs_short_documents_into_one_compiled_call(monkeypatch) -> None:
    """ditto hands the short documents of each thread's share to the compiled engine's
    batch entry in one call (never one call each), and the long ones one call each
    where they are (a copy would cost more than the call)."""
    from ditto_tui._lib import pipelines
    from ditto_tui.core.fingerprint import engine

    compiled = engine.ditto()
    if compiled is None:
        pytest.skip("the batch entry is the compiled engine's")
    batches: list[int] = []
    singles: list[int] = []
    real_array, real_one = compiled.fingerprint_array, compiled.fingerprint

    def array(buf, offsets, sizes, char_n, word_n):
        batches.append(len(offsets))
        return real_array(buf, offsets, sizes, char_n, word_n)

    def one(data, char_n, word_n):
        singles.append(len(data))
        return real_one(data, char_n, word_n)

    monkeypatch.setattr(compiled, "fingerprint_array", array)
    monkeypatch.setattr(compiled, "fingerprint", one)
    long = pipelines._PACK_BELOW
    docs = [f"short document {i} " * 50 for i in range(400)]  # about 1 KB each
    for at in (0, 150, 399):
        docs.insert(at, f"a long one {at} " * (long // 10))
    want = [int(real_one(d.encode(), 4, 0)) for d in docs]
    assert dt.fingerprint_many(docs, threads=1).tolist() == want
    assert batches == [400] and len(singles) == 3 and min(singles) >= long
    batches.clear()
    singles.clear()
    assert dt.fingerprint_many(docs, threads=2).tolist() == want
    assert len(batches) == 2 and sum(batches) == 400 and len(singles) == 3


# -- distance and similarity check their arguments, never wrap -----------------------
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_distance_takes_printed_fingerprints(a: int, b: int) -> None:
    d = bin(a ^ b).count("1")
    fa, fb = dt.Fingerprint(a), dt.Fingerprint(b)
    for x, y in ((fa.hex, fb.hex), (str(fa), b), (a, fb.hex.upper()), (np.uint64(a), fb)):
        assert dt.distance(x, y) == d
        assert dt.similarity(x, y) == 1 - d / 64
    assert fa.distance(fb.hex) == d and fa.near(fb.hex, d) and fa.similarity(b) == 1 - d / 64
    arr = np.array([a, b], dtype=np.uint64)
    assert dt.distance(arr, fb.hex).tolist() == [d, 0]
    assert dt.similarity(arr, b).tolist() == [1 - d / 64, 1.0]


@pytest.mark.parametrize("bad", [-1, 2**64, 2**70, -(2**63), np.int64(-1)])
def test_distance_refuses_out_of_range_values(bad) -> None:
    for call in (dt.distance, dt.similarity):
        with pytest.raises(ValueError, match="out of unsigned 64-bit range"):
            call(bad, 0)
        with pytest.raises(ValueError, match="out of unsigned 64-bit range"):
            call(0, bad)
    for method in ("distance", "similarity"):
        with pytest.raises(ValueError, match="out of unsigned 64-bit range"):
            getattr(dt.Fingerprint(0), method)(bad)
    with pytest.raises(ValueError, match="out of unsigned 64-bit range"):
        dt.distance(np.array([1, int(bad) if -(2**63) <= bad < 0 else -5]), 0)


@pytest.mark.parametrize(
    ("bad", "error", "needle"),
    [
        ("ff", ValueError, "Fingerprint.from_hex"),
        ("0x00000000000000ff", ValueError, "Fingerprint.from_hex"),
        ("00000000000000fg", ValueError, "16 hex digits"),
        ("000000000000000ff", ValueError, "16 hex digits"),
        (" 00000000000000ff", ValueError, "16 hex digits"),
        ("255", ValueError, "Fingerprint.from_hex"),
        (1.0, TypeError, "float"),
        (True, TypeError, "bool"),
        (b"\0" * 8, TypeError, "bytes"),
        (None, TypeError, "NoneType"),
        ([1, 2], TypeError, "list"),
    ],
)
def test_distance_refuses_what_is_not_a_fingerprint(bad, error, needle: str) -> None:
    with pytest.raises(error, match=needle) as info:
        dt.distance(bad, 0)
    assert repr(bad) in str(info.value) or isinstance(bad, bool)
    with pytest.raises(error, match=needle):
        dt.similarity(0, bad)
    with pytest.raises(error):
        dt.Fingerprint(7).distance(bad)
    if isinstance(bad, str):
        with pytest.raises(TypeError, match="from_hex"):
            dt.Fingerprint(bad)  # type: ignore[arg-type]


def test_distance_arrays_are_checked_not_cast() -> None:
    with pytest.raises(TypeError, match="float64"):
        dt.distance(np.array([1.0, 2.0]), 0)
    with pytest.raises(TypeError, match="bool"):
        dt.distance(np.array([True]), 0)
    assert dt.distance(np.array([3], np.int8), np.array([0], np.uint16)).tolist() == [2]
    strings = np.array(["00000000000000ff", "0000000000000000"])
    assert dt.distance(strings, 0).tolist() == [8, 0]
