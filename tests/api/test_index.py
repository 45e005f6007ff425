"""The public Index against brute force, and its file: round trip, pipeline check, damage."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui as dt
from ditto_tui._lib.indexfile import MAGIC
from tests.core.index_reference import fingerprint_sets, ref_clusters
from tests.properties import examples

ids_strategy = st.text(min_size=0, max_size=12)  # any code points, surrogates included


def _docs(fps: list[int]) -> dict[str, int]:
    return {f"d{i:03}": fp for i, fp in enumerate(fps)}


def brute_near(docs: dict[str, int], fp: int, k: int) -> list[tuple[int, str]]:
    """Every entry within k of fp, by distance then id: no build k, no clamping."""
    return sorted(((fp ^ v).bit_count(), i) for i, v in docs.items() if (fp ^ v).bit_count() <= k)


@settings(max_examples=examples(80), deadline=None)
@given(
    fingerprint_sets(max_size=50),
    st.integers(0, 6),
    st.integers(-1, 70),
    st.integers(0, 4),
    st.lists(st.integers(0, 2**64 - 1), max_size=3),
)
def test_near_and_chain_clusters_equal_brute_force(
    fps: list[int], k: int, q: int, min_size: int, extra: list[int]
) -> None:
    """At any k, below the build k or above it: near is exact, clusters is exact or refuses."""
    docs = _docs(fps)
    ix = dt.Index(k)
    for i, fp in docs.items():
        ix.add(i, fp)
    assert len(ix) == len(docs) and ix.k == k
    for probe in list(docs.values())[:5] + [0, (1 << 64) - 1] + extra:
        got = [(m.distance, m.id) for m in ix.near(probe, q)]
        assert got == brute_near(docs, probe, q)
    assert [(m.distance, m.id) for m in ix.near(0)] == brute_near(docs, 0, k)
    ids, values = list(docs), list(docs.values())
    if q <= k:
        got_clusters = [list(f.members) for f in ix.clusters(q, min_size)]
        assert got_clusters == ref_clusters(ids, values, q, min_size)
    else:
        for mode in ("chain", "star"):
            with pytest.raises(ValueError, match=f"clusters at k={q} .* built for k={k}"):
                ix.clusters(q, min_size, mode=mode)
        bigger = dt.Index(min(q, 64))  # what the error says to do answers exactly
        bigger.add_many(ids, values)
        got_clusters = [list(f.members) for f in bigger.clusters(q, min_size)]
        assert got_clusters == ref_clusters(ids, values, min(q, 64), min_size)


@settings(max_examples=examples(40), deadline=None)
@given(fingerprint_sets(max_size=300), st.integers(0, 4), st.integers(0, 64))
def test_near_above_the_build_k_scans_a_large_index(fps: list[int], k: int, q: int) -> None:
    """Past the index's own scan size (256 distinct fingerprints) too, with tombstones."""
    docs = _docs(fps)
    ix = dt.Index(k)
    ix.add_many(list(docs), list(docs.values()))
    gone = list(docs)[::7]
    for i in gone:
        ix.remove(i)
        del docs[i]
    for probe in list(docs.values())[:3] + [0]:
        assert [(m.distance, m.id) for m in ix.near(probe, q)] == brute_near(docs, probe, q)


def test_k_arguments_are_integers() -> None:
    ix = dt.Index(3)
    ix.add("a", 1)
    for bad in (2.0, "3", True, None):
        if bad is not None:
            with pytest.raises(TypeError, match="k must be an int"):
                ix.near(1, bad)  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="k must be an int"):
                ix.clusters(bad)  # type: ignore[arg-type]
            with pytest.raises(TypeError, match="k must be an int"):
                dt.Index(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="min_size"):
        ix.clusters(2, 1.5)  # type: ignore[arg-type]
    assert ix.near(1, np.int64(0)) == ix.near(1, 0)
    assert ix.near(1, -1) == [] and ix.near(2**64 - 1, 64)[0].id == "a"
    assert [f.members for f in ix.clusters(-1, 1)] == [("a",)]
    with pytest.raises(ValueError, match="0..64"):
        dt.Index(-1)
    assert dt.Index(64).clusters(100) == []  # at 64 every pair is within reach: exact


@settings(max_examples=examples(40), deadline=None)
@given(fingerprint_sets(max_size=40), st.integers(0, 5))
def test_star_clusters_partition_within_k_of_centre(fps: list[int], k: int) -> None:
    docs = _docs(fps)
    ix = dt.Index(k)
    ix.add_many(list(docs), list(docs.values()))
    families = ix.clusters(k, 1, mode="star")
    members = [m for f in families for m in f.members]
    assert sorted(members) == sorted(docs)
    for f in families:
        assert f.centre in f.members
        assert all(dt.distance(docs[m], docs[f.centre]) <= k for m in f.members)
    # chain families are unions of star families (star never joins what chain separates)
    chain_of = {m: i for i, f in enumerate(ix.clusters(k, 1)) for m in f.members}
    for f in families:
        assert len({chain_of[m] for m in f.members}) == 1


def test_remove_replace_and_documents() -> None:
    p = dt.ditto()
    ix = dt.Index(3, p)
    a = ix.add_document("a", "the quick brown fox jumps over the lazy dog")
    b = ix.add_document("b", "the quick brown fox jumps over the lazy dog!")
    assert ix.fingerprint("a") == a == p.fingerprint("the quick brown fox jumps over the lazy dog")
    assert [m.id for m in ix.near(a)][0] == "a"
    assert [f.members for f in ix.clusters()] == ([("a", "b")] if dt.distance(a, b) <= 3 else [])
    ix.add("a", b)  # replaces: ids are unique
    assert len(ix) == 2 and ix.fingerprint("a") == b
    assert ix.remove("a") and not ix.remove("a") and "a" not in ix and len(ix) == 1
    with pytest.raises(ValueError):
        ix.add("x", 1 << 64)
    with pytest.raises(ValueError):
        ix.clusters(mode="ring")
    with pytest.raises(ValueError):
        dt.Index(65)
    with pytest.raises(TypeError):
        ix.add(3, 0)  # type: ignore[arg-type]


def test_identical_documents_cost_one_entry_but_all_are_found() -> None:
    ix = dt.Index(3)
    ix.add_many([f"copy{i:04}" for i in range(2000)], np.full(2000, 0x1234, np.uint64))
    assert len(ix) == 2000
    assert len(ix.near(0x1234)) == 2000
    (family,) = ix.clusters()
    assert family.size == 2000 and family.diameter == 0


def test_from_documents() -> None:
    ix = dt.Index.from_documents([("a", "hello world"), ("b", b"hello world")], k=2)
    assert ix.fingerprint("a") == ix.fingerprint("b")
    assert ix.clusters()[0].members == ("a", "b")


@settings(max_examples=examples(50), deadline=None)
@given(
    st.dictionaries(ids_strategy, st.integers(0, (1 << 64) - 1), max_size=30),
    st.integers(0, 8),
    st.sampled_from(["ditto/2;char=4;word=0", "ditto/2;char=0;word=3", "html-distance/1;shingle=2"]),
)
def test_save_load_round_trip(tmp_path_factory, docs: dict[str, int], k: int, identity: str) -> None:
    path = tmp_path_factory.mktemp("ix") / "index.ditto"
    p = dt.pipeline(identity)
    ix = dt.Index(k, p)
    ix.add_many(list(docs), list(docs.values()))
    size = ix.save(path)
    assert size == path.stat().st_size
    for loaded in (dt.load_index(path), dt.load_index(path, p), dt.Index.load(path, p)):
        assert loaded.k == k and loaded.pipeline == p and len(loaded) == len(docs)
        assert {i: int(loaded.fingerprint(i)) for i in loaded.ids()} == docs
        assert loaded.clusters(k, 1) == ix.clusters(k, 1)
    # deterministic bytes whatever the insertion order
    other = dt.Index(k, p)
    for i in reversed(list(docs)):
        other.add(i, docs[i])
    path2 = path.with_name("again.ditto")
    other.save(path2)
    assert path.read_bytes() == path2.read_bytes()


def _saved(tmp_path: Path, n: int = 50) -> Path:
    ix = dt.Index(3)
    ix.add_many([f"doc-{i}" for i in range(n)], np.arange(n, dtype=np.uint64) * 977)
    path = tmp_path / "ix.ditto"
    ix.save(path)
    return path


def test_loading_into_another_pipeline_is_a_clear_error(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    for other in (dt.html_distance(), dt.ditto(5), dt.ditto(4, 2)):
        with pytest.raises(dt.PipelineMismatchError, match="built with pipeline") as info:
            dt.load_index(path, other)
        assert info.value.expected == other.identity
        assert info.value.found == "ditto/2;char=4;word=0"
    assert isinstance(dt.PipelineMismatchError("x", expected=None, found=""), ValueError)


def test_every_truncation_is_a_clear_error(tmp_path: Path) -> None:
    path = _saved(tmp_path, 5)
    data = path.read_bytes()
    cut = tmp_path / "cut.ditto"
    for n in range(len(data)):
        cut.write_bytes(data[:n])
        with pytest.raises(dt.IndexFileError, match="truncated|bad magic"):
            dt.load_index(cut)


def test_damage_is_detected(tmp_path: Path) -> None:
    path = _saved(tmp_path, 5)
    data = bytearray(path.read_bytes())
    bad = tmp_path / "bad.ditto"
    header_end = 12 + int.from_bytes(data[8:12], "little")
    for pos in range(len(MAGIC) + 4, len(data)):
        flipped = bytearray(data)
        flipped[pos] ^= 0x40
        bad.write_bytes(bytes(flipped))
        # past the header only the checksum can tell; in it, the first check that fails
        expect = "checksum" if pos >= header_end else "checksum|header|format|truncated|unexpected"
        with pytest.raises(dt.IndexFileError, match=expect):
            dt.load_index(bad)
    bad.write_bytes(bytes(data) + b"\0")
    with pytest.raises(dt.IndexFileError, match="unexpected bytes"):
        dt.load_index(bad)
    bad.write_bytes(b"PK\x03\x04 definitely not an index")
    with pytest.raises(dt.IndexFileError, match="bad magic"):
        dt.load_index(bad)
    future = bytes(data).replace(b'"format": 1', b'"format": 9')
    bad.write_bytes(future)
    with pytest.raises(dt.IndexFileError, match="format 9 is not supported"):
        dt.load_index(bad)
    with pytest.raises(FileNotFoundError):
        dt.load_index(tmp_path / "missing.ditto")


def test_save_is_atomic_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    before = path.read_bytes()
    ix = dt.Index(3)
    ix.add("only", 7)
    ix.save(path)
    assert path.read_bytes() != before
    assert sorted(os.listdir(tmp_path)) == ["ix.ditto"]
    assert dt.load_index(path).ids() == ["only"]


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_any_damage_gives_a_clear_error_never_a_crash(tmp_path_factory, data: st.DataObject) -> None:
    ix = dt.Index(2)
    ix.add_many(["a", "bé", "c\x00d"], [1, 2**64 - 1, 12345])
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "ix.ditto"
    ix.save(path)
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    path.write_bytes(bytes(raw[:cut]) + data.draw(st.binary(max_size=8)))
    try:
        loaded = dt.load_index(path)
    except (dt.IndexFileError, dt.PipelineMismatchError) as exc:
        assert str(path) in str(exc) or "unknown pipeline identity" in str(exc)
    else:  # the mutation left the file intact (same byte written back, nothing cut)
        assert loaded.k == 2 and loaded.pipeline == dt.ditto()
        assert {i: int(loaded.fingerprint(i)) for i in loaded.ids()} == {
            "a": 1, "bé": 2**64 - 1, "c\x00d": 12345
        }


# -- fingerprints are checked the same way as everywhere -----------------------------
def test_fingerprints_as_printed_and_out_of_range() -> None:
    ix = dt.Index(3)
    fp = dt.Fingerprint(0xFF)
    ix.add("hex", "00000000000000ff")
    ix.add("fp", fp)
    ix.add("np", np.uint64(0xFE))
    ix.add_many(["list", "upper"], ["00000000000000fd", "00000000000000FC"])
    assert {i: int(ix.fingerprint(i)) for i in ix.ids()} == {
        "fp": 0xFF, "hex": 0xFF, "np": 0xFE, "list": 0xFD, "upper": 0xFC
    }
    assert [m.id for m in ix.near("00000000000000ff", 0)] == ["fp", "hex"]
    assert ix.near(fp.hex) == ix.near(fp) == ix.near(int(fp))
    before = {i: ix.fingerprint(i) for i in ix.ids()}
    for bad, error in ((-1, ValueError), (2**64, ValueError), ("ff", ValueError), (1.0, TypeError),
                       (b"\0" * 8, TypeError), (True, TypeError)):
        with pytest.raises(error):
            ix.add("x", bad)
        with pytest.raises(error):
            ix.near(bad)
        with pytest.raises(error):
            ix.add_many(["y", "z"], [1, bad])
    with pytest.raises(ValueError, match=r"fps\[1\] out of unsigned 64-bit range"):
        ix.add_many(["y", "z"], np.array([1, -1], np.int64))
    with pytest.raises(TypeError, match="float64"):
        ix.add_many(["y"], np.array([1.5]))
    with pytest.raises(ValueError, match="from_hex"):
        ix.add("x", "0xff")
    with pytest.raises(TypeError, match="ids must be a list of str, not one str"):
        ix.add_many("ab", [1, 2])
    assert {i: ix.fingerprint(i) for i in ix.ids()} == before  # nothing half-added


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=80))
def test_add_many_of_python_ints_is_never_lossy(values: list[int]) -> None:
    """numpy guesses float64 for [1, 2**64 - 1]: the values must come through exactly."""
    ix = dt.Index(2)
    ids = [f"d{i}" for i in range(len(values))]
    ix.add_many(ids, values)
    assert [int(ix.fingerprint(i)) for i in ids] == values
