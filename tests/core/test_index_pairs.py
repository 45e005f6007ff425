"""all_pairs / clusters (ditto-compatible static functions) against brute force, through
the numpy join and the compiled one (each instruction set)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui.core.index.pairs as pairs_module
from ditto_tui.core.families.clusters import clusters, describe_family
from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.pairs import TableDesign, all_pairs, choose_design, unique_pairs
from tests.core.index_reference import (
    biased_fingerprints,
    dist,
    fingerprint_sets,
    ref_clusters,
    ref_diameter,
    ref_medoid,
    ref_pairs,
    ref_pairs_np,
)
from tests.properties import examples

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")


def as_triples(i: np.ndarray, j: np.ndarray, d: np.ndarray) -> list[tuple[int, int, int]]:
    return list(zip(i.tolist(), j.tolist(), d.tolist(), strict=True))


@settings(max_examples=examples(200), deadline=None)
@given(fps=fingerprint_sets(), k=st.integers(-1, 12))
def test_all_pairs_equals_brute_force(fps: list[int], k: int) -> None:
    got = as_triples(*all_pairs(np.array(fps, dtype=np.uint64), k))
    assert got == ref_pairs(fps, k)  # same set, sorted by (i, j), each pair once


@settings(max_examples=examples(100), deadline=None)
@given(fps=fingerprint_sets(max_size=80), k=st.integers(0, 10), extra=st.integers(0, 3))
def test_every_exact_table_design_finds_the_same_pairs(fps: list[int], k: int, extra: int) -> None:
    u = np.unique(np.array(fps, dtype=np.uint64))
    expected = sorted((a, b) for a, b, _ in ref_pairs(u.tolist(), k))
    for design in (None, TableDesign(k + 1, 1), TableDesign(k + 1 + extra, 1 + extra)):
        for dtype in (np.int64, np.int32):  # (int32: the index's own pairs, half the memory)
            a, b, d = unique_pairs(u, k, design, dtype=dtype)
            assert a.dtype == b.dtype == dtype and d.dtype == np.uint8
            assert sorted(zip(a.tolist(), b.tolist(), strict=True)) == expected
            assert (d == popcount64(u[a] ^ u[b])).all()


@st.composite
def layouts(draw: st.DrawFn, k: int) -> TableDesign:
    """An exact design with a random bit order and random block widths."""
    m = draw(st.integers(k + 1, min(k + 4, 64)))
    cuts = sorted(draw(st.sets(st.integers(1, 63), min_size=m - 1, max_size=m - 1)))
    widths = tuple(b - a for a, b in zip([0, *cuts], [*cuts, 64], strict=True))
    order = tuple(draw(st.permutations(range(64))))
    return TableDesign(m, m - k, widths, order)


@settings(max_examples=examples(150), deadline=None)
@given(fps=fingerprint_sets(max_size=80), k=st.integers(0, 10), data=st.data())
def test_permuted_designs_with_uneven_blocks_find_the_same_pairs(
    fps: list[int], k: int, data: st.DataObject
) -> None:
    u = np.unique(np.array(fps, dtype=np.uint64))
    design = data.draw(layouts(k))
    a, b, d = unique_pairs(u, k, design)
    got = sorted(zip(a.tolist(), b.tolist(), d.tolist(), strict=True))
    assert got == ref_pairs(u.tolist(), k)


@settings(max_examples=examples(150), deadline=None)
@given(fps=fingerprint_sets(max_size=120), k=st.integers(0, 12), short=st.integers(1, 6))
def test_long_runs_compared_as_rings_find_the_same_pairs(
    fps: list[int], k: int, short: int
) -> None:
    # runs longer than ``short`` take the ring path (normally only runs > 256 do)
    saved = pairs_module._ROW_RUN, pairs_module._ROW_BLOCK
    pairs_module._ROW_RUN, pairs_module._ROW_BLOCK = short, 7
    try:
        u = np.unique(np.array(fps, dtype=np.uint64))
        for design in (TableDesign(k + 1, 1), TableDesign(k + 2, 2)):
            a, b, d = unique_pairs(u, k, design)
            got = sorted(zip(a.tolist(), b.tolist(), d.tolist(), strict=True))
            assert got == ref_pairs(u.tolist(), k)
    finally:
        pairs_module._ROW_RUN, pairs_module._ROW_BLOCK = saved


@settings(max_examples=examples(300), deadline=None)
@given(x=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=20), data=st.data())
def test_first_table_test_equals_checking_every_earlier_block(
    x: list[int], data: st.DataObject
) -> None:
    k = data.draw(st.integers(0, 8))
    design = data.draw(layouts(k))
    chosen = data.draw(st.sampled_from(design.tables))
    blocks = design.blocks
    test = pairs_module._earlier_test(blocks, chosen)
    xs = np.array(x, dtype=np.uint64)
    expected = [
        all(
            (v >> off) & ((1 << w) - 1)
            for j, (off, w) in enumerate(blocks[: chosen[-1]])
            if j not in chosen
        )
        for v in x
    ]
    got = [True] * len(x) if test is None else pairs_module._first_table(xs, test).tolist()
    assert got == expected


@pytest.mark.parametrize("k", [3, 6, 8, 11])
@pytest.mark.parametrize("lopsided", [False, True])
def test_concentrated_fingerprints_give_exactly_the_brute_force_pairs(
    k: int, lopsided: bool
) -> None:
    # bits set with probability 0.8 or 0.2, some almost constant, some fair: the skewed
    # keys of real text. Lopsided: the low half is the skewed one, so contiguous blocks
    # are very unequal filters and the bits get dealt into balanced blocks instead.
    rng = np.random.default_rng(k)
    if lopsided:
        low = rng.choice([0.9, 0.97, 0.8, 0.1], size=32)
        p_one = np.concatenate([low, rng.choice([0.5, 0.2, 0.8], size=32)])
    else:
        p_one = rng.choice([0.8, 0.2, 0.8, 0.2, 0.97, 0.5], size=64)
    fps = biased_fingerprints(rng, 3000, p_one)
    fps[:300] = fps[300:600] ^ (np.uint64(1) << rng.integers(0, 64, 300).astype(np.uint64))
    fps[600:650] = fps[650:700]  # identical fingerprints
    if lopsided and k < 10:
        u = np.unique(fps)
        design = choose_design(len(u), k, u)
        assert design is not None and design.order is not None
    got = as_triples(*all_pairs(fps, k))
    assert got == ref_pairs_np(fps, k)
    assert len(got) > 300


def test_bits_that_never_differ_are_spread_over_the_blocks() -> None:
    rng = np.random.default_rng(11)
    p_one = np.where(np.arange(64) < 24, 0.5, 1.0)  # 40 constant bits
    u = np.unique(biased_fingerprints(rng, 5000, p_one))
    design = choose_design(len(u), 3, u)
    assert design is not None and design.order is not None
    varying = set(range(24))
    per_block = [
        sum(1 for j in range(off, off + w) if design.order[j] in varying)
        for off, w in design.blocks
    ]
    assert max(per_block) - min(per_block) <= 1
    got = as_triples(*unique_pairs(u, 3))
    assert sorted(got) == ref_pairs_np(u, 3)


def test_a_design_that_is_not_exact_is_refused() -> None:
    with pytest.raises(ValueError):
        unique_pairs(np.arange(10, dtype=np.uint64), 3, TableDesign(3, 1))


def test_wide_keys_are_chosen_for_large_inputs() -> None:
    # 9 tables of 7-bit keys would compare every fingerprint with ~1/128 of the others
    design = choose_design(100_000, 8)
    assert design is not None and design.m > 9
    assert choose_design(50, 8) is None  # tiny inputs: brute force


def test_planted_near_duplicates_are_found_among_many_random_fingerprints() -> None:
    rng = np.random.default_rng(7)
    fps = rng.integers(0, 2**63, 20_000, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    fps[:100] = fps[100:200] ^ np.uint64(0b1011)  # 3 bits apart
    i, j, d = all_pairs(fps, 3)
    found = set(zip(i.tolist(), j.tolist(), strict=True))
    assert {(p, p + 100) for p in range(100)} <= found
    assert all(dist(int(fps[a]), int(fps[b])) <= 3 for a, b in found)


@settings(max_examples=examples(200), deadline=None)
@given(fps=fingerprint_sets(), k=st.integers(-1, 10), min_size=st.integers(0, 4), data=st.data())
def test_clusters_equal_ditto_semantics(
    fps: list[int], k: int, min_size: int, data: st.DataObject
) -> None:
    # ids may repeat: duplicate ids are separate entries
    ids = [data.draw(st.sampled_from(["a", "b", "é", "Z", f"doc{i}"])) for i in range(len(fps))]
    got = clusters(ids, np.array(fps, dtype=np.uint64), k, min_size)
    assert got == ref_clusters(ids, fps, k, min_size)


def test_single_linkage_chains_documents_that_are_far_apart() -> None:
    a, b, c = 0, 0b11, 0b1111  # a-b 2 bits, b-c 2 bits, a-c 4 bits
    assert clusters(["A", "B", "C"], [a, b, c], 3) == [["A", "B", "C"]]
    assert clusters(["A", "B", "C"], [a, b, c], 1) == [["A"], ["B"], ["C"]]
    assert clusters(["A", "B", "C"], [a, b, c], 1, min_size=2) == []


def test_clusters_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError):
        clusters(["a"], [1, 2], 3)


@settings(max_examples=examples(150), deadline=None)
@given(fps=fingerprint_sets(max_size=30).filter(bool))
def test_describe_family_gives_medoid_and_diameter(fps: list[int]) -> None:
    docs = {f"m{i:02d}": fp for i, fp in enumerate(fps)}
    members = sorted(docs)
    centre, diameter, exact = describe_family(
        members, np.array([docs[m] for m in members], np.uint64)
    )
    assert exact
    assert centre == ref_medoid(members, docs)
    assert diameter == ref_diameter(members, docs)


def test_huge_families_get_an_approximate_centre_and_an_upper_bound_diameter(monkeypatch) -> None:
    # ditto_tui.core.families.clusters is also the name of the function re-exported by the package
    clusters_module = importlib.import_module("ditto_tui.core.families.clusters")
    monkeypatch.setattr(clusters_module, "EXACT_STATS_LIMIT", 4)
    rng = np.random.default_rng(5)
    fps = (np.uint64(0xFFFF) ^ (np.uint64(1) << rng.integers(0, 64, 40).astype(np.uint64))).tolist()
    docs = {f"m{i:02d}": fp for i, fp in enumerate(fps)}
    members = sorted(docs)
    centre, diameter, exact = describe_family(members, np.array(fps, np.uint64))
    assert not exact and centre in docs
    assert ref_diameter(members, docs) <= diameter <= 64


@settings(max_examples=examples(60), deadline=None)
@given(fps=fingerprint_sets(max_size=120), k=st.integers(0, 10), threads=st.integers(2, 4))
def test_the_join_on_several_threads_gives_the_same_arrays(
    fps: list[int], k: int, threads: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pairs_module, "_THREADS_FROM", 0)  # threads even for tiny inputs
        check_threaded_join(fps, k, threads)


def check_threaded_join(fps: list[int], k: int, threads: int) -> None:
    u = np.unique(np.array(fps, dtype=np.uint64))
    design = TableDesign(k + 2, 2)  # several tables to share
    one = unique_pairs(u, k, design)
    many = unique_pairs(u, k, design, threads=threads)
    for x, y in zip(one, many, strict=True):
        assert np.array_equal(x, y)  # same pairs, same order
    expected = sorted((a, b) for a, b, _ in ref_pairs(u.tolist(), k))
    assert sorted(zip(many[0].tolist(), many[1].tolist(), strict=True)) == expected


def test_a_failing_join_thread_fails_the_join(monkeypatch: pytest.MonkeyPatch,
                                              engine_kernel: str) -> None:
    monkeypatch.setattr(pairs_module, "_THREADS_FROM", 0)
    calls: list[int] = []
    if engine_kernel == "numpy":
        real = pairs_module._runs

        def runs(u, blocks, chosen):  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) == 2:
                raise MemoryError("no room")
            return real(u, blocks, chosen)

        monkeypatch.setattr(pairs_module, "_runs", runs)
    else:
        from ditto_tui.core.fingerprint import engine

        module = engine.compiled()
        assert module is not None

        class Failing:  # the extension's join, failing in its second table
            def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
                return getattr(module, name)

            def join_table(self, *args):  # type: ignore[no-untyped-def]
                calls.append(1)
                if len(calls) == 2:
                    raise MemoryError("no room")
                return module.join_table(*args)

        monkeypatch.setattr(engine, "compiled", Failing)
    u = np.unique(np.random.default_rng(1).integers(0, 2**63, 500, dtype=np.uint64))
    with pytest.raises(MemoryError):
        unique_pairs(u, 3, TableDesign(5, 2), threads=2)


@pytest.mark.parametrize("k", [3, 8])
def test_pairs_table_by_table_and_folded_components_equal_all_at_once(
    k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one text edited many times (the harshest shape): most pairs are within k, and the
    # components are folded in from many small chunks
    import ditto_tui.core.families.clusters as clusters_module
    from ditto_tui.core.families.clusters import components, components_of_chunks
    from ditto_tui.core.index.pairs import iter_unique_pairs

    rng = np.random.default_rng(k)
    base = np.uint64(int(rng.integers(0, 2**63)))
    flips = rng.integers(0, 64, (1500, 6)).astype(np.uint64)
    edits = base ^ np.bitwise_or.reduce(np.uint64(1) << flips, axis=1)
    u = np.unique(np.concatenate([edits, rng.integers(0, 2**63, 200).astype(np.uint64)]))
    a, b, d = unique_pairs(u, k)
    chunks = list(iter_unique_pairs(u, k))
    assert len(chunks) > 1  # one per table that found pairs
    got = np.concatenate([np.stack([np.minimum(x, y), np.maximum(x, y), z], 1).astype(np.int64)
                          for x, y, z in chunks])
    want = np.stack([a, b, d], 1).astype(np.int64)
    assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, want.tolist()))
    monkeypatch.setattr(clusters_module, "_FOLD", 97)
    folded = components_of_chunks(len(u), chunks)
    assert np.array_equal(folded, components(len(u), a, b))
    ids = [f"d{i}" for i in range(len(u))]
    assert clusters(ids, u, k) == ref_clusters(ids, u.tolist(), k, 1)
