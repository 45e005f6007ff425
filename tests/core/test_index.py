"""NearIndex: live updates keep near() and families() equal to brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.index.near_index import Match, NearIndex
from tests.core.index_reference import (
    MAX64,
    dist,
    fingerprint_sets,
    pick,
    ref_clusters,
    ref_diameter,
    ref_medoid,
    ref_near,
)
from tests.properties import examples

IDS = [f"d{i}" for i in range(40)] + ["", "é", "Ω", "a/b", "Z"]


def small_index(max_k: int) -> NearIndex:
    """An index whose tables, pending merges and tombstone collection all trigger on
    tiny inputs, so the examples exercise every code path."""
    ix = NearIndex(max_k)
    ix._scan_below = 0
    ix._pending_limit = 3
    ix._compact_min = 2
    return ix


_KINDS = st.sampled_from(["add", "add", "add", "remove"])
_FLIPS = st.lists(st.integers(0, 63), max_size=2)
_IDS = st.sampled_from(IDS)


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, str, int]]:
    pool = draw(fingerprint_sets(max_size=30))
    pool = pool or [0]
    n = draw(st.integers(0, 60))
    ops: list[tuple[str, str, int]] = []
    for _ in range(n):
        kind = draw(_KINDS)
        fp = pick(draw, pool)
        for bit in draw(_FLIPS):
            fp ^= 1 << bit
        ops.append((kind, draw(_IDS), fp))
    return ops


def apply(ix: NearIndex, ops: list[tuple[str, str, int]]) -> dict[str, int]:
    docs: dict[str, int] = {}
    for kind, id_, fp in ops:
        if kind == "add":
            ix.add(id_, fp)
            docs[id_] = fp
        else:
            assert ix.remove(id_) == (id_ in docs)
            docs.pop(id_, None)
    return docs


@settings(max_examples=examples(200), deadline=None)
@given(ops=operations(), max_k=st.sampled_from([0, 1, 3, 5, 8]), queries=st.data())
def test_near_equals_brute_force_through_updates(ops, max_k, queries) -> None:
    ix = small_index(max_k)
    docs = apply(ix, ops)
    assert len(ix) == len(docs)
    assert ix.ids() == sorted(docs)
    assert all(ix.fingerprint(i) == fp and i in ix for i, fp in docs.items())
    probes = list(docs.values())[:3] + [queries.draw(st.integers(0, MAX64))]
    for fp in probes:
        k = queries.draw(st.integers(-1, max_k + 2))
        got = [(m.distance, m.id) for m in ix.near(fp, k)]
        assert got == ref_near(docs, fp, k, max_k)


@settings(max_examples=examples(150), deadline=None)
@given(ops=operations(), max_k=st.sampled_from([1, 3, 8]), min_size=st.integers(0, 3))
def test_chain_families_equal_clusters_through_updates(ops, max_k, min_size) -> None:
    ix = small_index(max_k)
    docs = apply(ix, ops)
    ids = list(docs)
    fps = [docs[i] for i in ids]
    for k in range(-1, max_k + 2):
        fams = ix.families(k, min_size=min_size)
        assert [list(f.members) for f in fams] == ref_clusters(
            ids, fps, min(k, max_k) if k >= 0 else -1, min_size
        )
        for f in fams:
            members = list(f.members)
            assert f.size == len(members)
            assert f.centre == ref_medoid(members, docs)
            assert f.diameter == ref_diameter(members, docs) and f.diameter_exact


@settings(max_examples=examples(150), deadline=None)
@given(ops=operations(), max_k=st.sampled_from([1, 3, 8]))
def test_star_families_partition_and_stay_within_k_of_their_centre(ops, max_k) -> None:
    ix = small_index(max_k)
    docs = apply(ix, ops)
    for k in range(0, max_k + 1):
        fams = ix.families(k, mode="star")
        seen = [m for f in fams for m in f.members]
        assert sorted(seen) == sorted(docs)  # a partition: everyone exactly once
        for f in fams:
            assert f.centre in f.members
            assert all(dist(docs[m], docs[f.centre]) <= k for m in f.members)
            assert f.diameter == ref_diameter(list(f.members), docs)
        assert [f.size for f in fams] == sorted((f.size for f in fams), reverse=True)
        # deterministic: an index built in another order gives the same families
        other = small_index(max_k)
        for i in sorted(docs, reverse=True):
            other.add(i, docs[i])
        assert other.families(k, mode="star") == fams


@settings(max_examples=examples(60), deadline=None)
@given(ops=operations(), max_k=st.sampled_from([2, 8]))
def test_bulk_load_matches_one_by_one(ops, max_k) -> None:
    docs = apply(small_index(max_k), ops)
    bulk = NearIndex(max_k)
    bulk.add_many(list(docs), np.array(list(docs.values()), dtype=np.uint64))
    single = small_index(max_k)
    for i, fp in docs.items():
        single.add(i, fp)
    for k in range(max_k + 1):
        assert bulk.families(k) == single.families(k)
        assert bulk.families(k, mode="star") == single.families(k, mode="star")
    bulk.add("late", 12345)  # the bulk-built index keeps accepting updates
    assert bulk.near(12345, 0)[0].id == "late"


def test_star_mode_breaks_a_chain_that_single_linkage_joins() -> None:
    ix = NearIndex(3)
    for i, fp in enumerate([0, 0b11, 0b1111, 0b111111]):  # 2 bits per step
        ix.add(f"c{i}", fp)
    chain = ix.families(2)
    assert [f.members for f in chain] == [("c0", "c1", "c2", "c3")]
    assert chain[0].diameter == 6
    assert chain[0].centre in ("c1", "c2") and chain[0].centre == "c1"  # medoid, tie -> smallest id
    star = ix.families(2, mode="star")
    assert sorted(f.members for f in star) == [("c0", "c1", "c2"), ("c3",)]
    assert star[0].centre == "c1" and star[0].diameter == 4


def test_near_returns_matches_with_fingerprints_sorted_by_distance_then_id() -> None:
    ix = NearIndex()
    ix.add_many(["b", "a", "c", "far"], [5, 5, 4, MAX64])
    got = ix.near(5, 3)
    assert got == [
        Match("a", Fingerprint(5), 0),
        Match("b", Fingerprint(5), 0),
        Match("c", Fingerprint(4), 1),
    ]
    assert isinstance(got[0].fp, Fingerprint)
    assert ix.near(5, -1) == []
    assert ix.near(5, 99) == ix.near(5, 8)  # clamped to max_k


def test_many_identical_documents_collapse_into_one_entry() -> None:
    ix = NearIndex()
    ix.add_many([f"empty{i:05d}" for i in range(5000)], np.zeros(5000, np.uint64))
    ix.add("one-bit", 1)
    assert ix.pair_count() == 1
    fams = ix.families(1, min_size=2)
    assert len(fams) == 1 and fams[0].size == 5001 and fams[0].centre == "empty00000"
    assert fams[0].diameter == 1


def test_replacing_and_removing_update_families_and_generation() -> None:
    ix = NearIndex(3)
    ix.add("a", 0)
    ix.add("b", 1)
    g = ix.generation
    assert [f.members for f in ix.families(3, min_size=2)] == [("a", "b")]
    ix.add("b", 1)  # same fingerprint: nothing changes
    assert ix.generation == g
    ix.add("b", MAX64)  # replace: now far away
    assert ix.generation > g
    assert ix.families(3, min_size=2) == []
    assert ix.fingerprint("b") == MAX64
    assert ix.remove("b") and not ix.remove("b") and "b" not in ix
    with pytest.raises(KeyError):
        ix.fingerprint("b")


def test_misuse_is_refused() -> None:
    with pytest.raises(ValueError):
        NearIndex(65)
    ix = NearIndex()
    with pytest.raises(ValueError):
        ix.add("x", -1)
    with pytest.raises(ValueError):
        ix.add("x", 1 << 64)
    with pytest.raises(TypeError):
        ix.add(3, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ix.families(3, mode="ring")
    with pytest.raises(ValueError):
        ix.add_many(["a"], [1, 2])
    assert len(ix) == 0


def test_labels_are_cached_per_k_and_generation() -> None:
    ix = NearIndex(4)
    ix.add_many([f"x{i}" for i in range(100)], np.arange(100, dtype=np.uint64) << np.uint64(8))
    first = ix.labels(4)
    assert ix.labels(4) is first
    ix.add("new", 1)
    assert ix.labels(4) is not first


def test_compaction_keeps_results_exact() -> None:
    ix = small_index(3)
    rng = np.random.default_rng(3)
    fps = rng.integers(0, 2**40, 300).tolist()
    for i, fp in enumerate(fps):
        ix.add(f"d{i}", fp)
        ix.add(f"d{i}-twin", fp ^ 0b101)
    for i in range(0, 300, 2):
        ix.remove(f"d{i}")
    docs = {f"d{i}": fp for i, fp in enumerate(fps) if i % 2} | {
        f"d{i}-twin": fp ^ 0b101 for i, fp in enumerate(fps)
    }
    assert ix._n_dead <= max(ix._compact_min, ix._n_u)
    ids = list(docs)
    assert [list(f.members) for f in ix.families(2, min_size=2)] == ref_clusters(
        ids, [docs[i] for i in ids], 2, 2
    )
    probe = fps[1]
    assert [(m.distance, m.id) for m in ix.near(probe, 3)] == ref_near(docs, probe, 3, 3)


@settings(max_examples=examples(100), deadline=None)
@given(ops=operations(), max_k=st.sampled_from([2, 5, 8]), data=st.data())
def test_families_stay_exact_when_asked_between_every_update(ops, max_k, data) -> None:
    # exercises the incremental hierarchy (new fingerprints merged in) and its rebuilds
    ix = small_index(max_k)
    docs: dict[str, int] = {}
    for op in ops:
        docs = {**docs, **apply(ix, [op])} if op[0] == "add" else docs
        if op[0] == "remove":
            ix.remove(op[1])
            docs.pop(op[1], None)
        k = data.draw(st.integers(0, max_k))
        ids = list(docs)
        got = [list(f.members) for f in ix.families(k, min_size=2)]
        assert got == ref_clusters(ids, [docs[i] for i in ids], k, 2)
