"""Relabelling after every update (the hierarchy laid out again family by family, the
cached labels patched) against brute-force single linkage, in every configuration."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.index import hierarchy
from ditto_tui.core.index.hierarchy import NONE, linkage_layout
from ditto_tui.core.index.near_index import NearIndex
from tests.properties import examples

from .index_reference import dist, fingerprint_sets, pick, ref_components

IDS = [f"d{i}" for i in range(30)]


@pytest.fixture(params=["compiled", "numpy"])
def kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "compiled" and engine.compiled() is None:
        pytest.skip("compiled engine not built")
    engine.select(request.param)
    try:
        yield request.param
    finally:
        engine.select(None)


@st.composite
def updates(draw: st.DrawFn) -> list[tuple[bool, str, int, int]]:
    """(add?, id, fingerprint, k asked afterwards): mostly adds near earlier ones."""
    pool = draw(fingerprint_sets(max_size=20)) or [0]
    out = []
    for _ in range(draw(st.integers(1, 50))):
        fp = pick(draw, pool)
        for bit in draw(st.lists(st.integers(0, 63), max_size=2)):
            fp ^= 1 << bit
        out.append((draw(st.booleans()) or draw(st.booleans()), draw(st.sampled_from(IDS)),
                    fp, draw(st.integers(0, 6))))
    return out


def partition(labels: np.ndarray, slots: list[int]) -> set[frozenset[int]]:
    groups: dict[int, set[int]] = {}
    for s in slots:
        groups.setdefault(int(labels[s]), set()).add(s)
    return {frozenset(g) for g in groups.values()}


def check_labels(ix: NearIndex, k: int) -> None:
    live = np.flatnonzero(ix._u_count[: ix._n_u] > 0).tolist()
    fps = [int(ix._u_fp[s]) for s in live]
    expected = {frozenset(live[p] for p in g) for g in ref_components(fps, min(k, ix.max_k))}
    assert partition(ix.labels(k), live) == expected


@pytest.mark.usefixtures("kernel")
@pytest.mark.parametrize("brute", [0, 384])
@pytest.mark.parametrize("limit", [2, 256])
@settings(max_examples=examples(60), deadline=None)
@given(ops=updates(), max_k=st.sampled_from([1, 3, 6]))
def test_labels_after_each_update_equal_brute_force(
    ops: list[tuple[bool, str, int, int]], max_k: int, brute: int, limit: int
) -> None:
    saved = hierarchy._BRUTE, hierarchy._HOLES_MIN
    hierarchy._BRUTE, hierarchy._HOLES_MIN = brute, 0  # the pair scan; holes closed at once
    try:
        ix = NearIndex(max_k)
        ix._scan_below = 0
        ix._pending_limit = 3
        ix._compact_min = 40  # rare: the hierarchy is mostly kept, not rebuilt
        ix._incremental_limit = limit
        ix._hierarchy.limit = limit
        ix.labels(0)
        for add, id, fp, k in ops:
            if add:
                ix.add(id, fp)
            else:
                ix.remove(id)
            check_labels(ix, k)
            check_labels(ix, k)  # the cached (patched) array again
            if ix._n_u and k % 2:
                check_labels(ix, (k + 1) % (max_k + 1))
    finally:
        hierarchy._BRUTE, hierarchy._HOLES_MIN = saved


def test_removing_a_bridge_splits_the_family_in_its_patched_labels() -> None:
    ix = NearIndex(4)
    ix.add_many([f"d{i}" for i in range(64)], [0xFFFF << 40 | i for i in range(64)])
    ix.add("a", 0)
    ix.add("bridge", 0b111)
    ix.add("b", 0b111111)
    first = ix.labels(3)
    a, bridge, b = (int(ix._doc_u[ix._ids["a"]]), int(ix._doc_u[ix._ids["bridge"]]),
                    int(ix._doc_u[ix._ids["b"]]))
    assert first[a] == first[bridge] == first[b]
    ix.remove("bridge")
    after = ix.labels(3)
    assert after[a] != after[b] and after[bridge] == bridge
    assert first[a] == first[b]  # the earlier array is a snapshot: not patched in place


@pytest.mark.usefixtures("kernel")
@settings(max_examples=examples(80), deadline=None)
@given(fps=fingerprint_sets(max_size=40), top=st.integers(1, 6))
def test_layout_makes_every_family_a_run(fps: list[int], top: int) -> None:
    u = sorted(set(fps))
    pairs = [(i, j, dist(u[i], u[j])) for i in range(len(u)) for j in range(i + 1, len(u))
             if 0 < dist(u[i], u[j]) <= top]
    pairs.sort(key=lambda p: p[2])
    a, b, d = (np.array([p[x] for p in pairs], np.int64) for x in range(3))
    order, join = linkage_layout(len(u), a, b, d, top)
    assert sorted(order.tolist()) == list(range(len(u)))
    assert len(u) == 0 or join[0] == NONE
    for k in range(1, top + 1):
        runs: list[set[int]] = []
        for p, node in enumerate(order.tolist()):
            if p == 0 or join[p] > k:
                runs.append(set())
            runs[-1].add(u[node])
        expected = {frozenset(u[p] for p in g) for g in ref_components(u, k)}
        assert {frozenset(r) for r in runs} == expected


def test_compiled_layout_refuses_bad_input() -> None:
    module = engine.compiled()
    if module is None:
        pytest.skip("compiled engine not built")
    a, b = np.array([0, 1], np.int32), np.array([1, 2], np.int32)
    with pytest.raises(ValueError):
        module.linkage_layout(3, a, b, np.array([2, 1], np.uint8))  # distances not sorted
    with pytest.raises(ValueError):
        module.linkage_layout(2, a, b, np.array([1, 2], np.uint8))  # node 2 outside
    with pytest.raises(TypeError):
        module.linkage_layout(3, a.astype(np.int64), b, np.array([1, 2], np.uint8))
    order, join = np.array([2, 0, -1], np.int32), np.array([NONE, 1, NONE], np.uint8)
    out = np.arange(3, dtype=np.int32)
    module.run_labels(order, join, 1, out)
    assert out.tolist() == [2, 1, 2]
    with pytest.raises(ValueError):
        module.run_labels(order, join, 1, np.zeros(2, np.int32))  # slot 2 outside


@pytest.mark.usefixtures("kernel")
def test_thousands_of_updates_keep_labels_and_families_equal_to_a_rebuild() -> None:
    """Real-looking families, a long chain, and updates of every kind: the labels (every
    k) and families after the incremental updates equal those of an index built afresh."""
    rng = np.random.default_rng(37)
    centres = rng.integers(0, 2**64, 40, dtype=np.uint64)
    fps = centres[rng.integers(0, 40, 1500)] ^ (
        np.uint64(1) << rng.integers(0, 64, 1500).astype(np.uint64)
    ) ^ (np.uint64(1) << rng.integers(0, 64, 1500).astype(np.uint64))
    chain = [int(fps[0])]
    for _ in range(120):
        chain.append(chain[-1] ^ (1 << int(rng.integers(0, 64))))
    docs = {f"d{i}": int(v) for i, v in enumerate(fps.tolist())}
    docs.update((f"c{j}", c) for j, c in enumerate(chain))
    saved = hierarchy._BRUTE, hierarchy._HOLES_MIN
    hierarchy._BRUTE, hierarchy._HOLES_MIN = 50, 64  # the pair scan and hole closing run
    try:
        ix = NearIndex(6)
        ix.add_many(list(docs), list(docs.values()))
        keys = list(docs)
        for step in range(600):
            r = rng.random()
            some = keys[int(rng.integers(len(keys)))]
            if r < 0.4:
                fp = docs.get(some, chain[0]) ^ (1 << int(rng.integers(0, 64)))
                ix.add(f"n{step}", fp)
                docs[f"n{step}"] = fp
                keys.append(f"n{step}")
            elif r < 0.8:
                assert ix.remove(some) == (docs.pop(some, None) is not None)
            else:
                fp = chain[int(rng.integers(len(chain)))] ^ 1
                ix.add(some, fp)
                docs[some] = fp
            if step % 60 == 59:
                fresh = NearIndex(6)
                fresh.add_many(list(docs), list(docs.values()))
                for k in (int(rng.integers(0, 7)), int(rng.integers(0, 7))):
                    assert [f.members for f in ix.families(k)] == [
                        f.members for f in fresh.families(k)
                    ]
                    check_labels(ix, k)
    finally:
        hierarchy._BRUTE, hierarchy._HOLES_MIN = saved


@pytest.mark.parametrize("rebuild_cost", [0.0, 1.0])
def test_a_batch_below_a_quarter_rebuilds_the_rest_when_adds_cost_more(
    monkeypatch: pytest.MonkeyPatch, rebuild_cost: float
) -> None:
    """add_many times its first adds of a mid-sized batch and rebuilds the index for the
    rest when that is cheaper (here forced: a rebuild costing nothing, or everything);
    either way the index equals one built afresh from the same documents."""
    rng = np.random.default_rng(11)
    base = rng.integers(0, 2**64, 60, dtype=np.uint64)
    fps = (base[rng.integers(0, 60, 900)] ^ (
        np.uint64(1) << rng.integers(0, 64, 900).astype(np.uint64))).tolist()
    docs = {f"d{i}": int(v) for i, v in enumerate(fps)}
    ix = NearIndex(5)
    ix.add_many(list(docs)[:700], list(docs.values())[:700])
    rebuilds: list[int] = []
    original = NearIndex._rebuild

    def counted(self: NearIndex, *args: object, **kwargs: object) -> None:
        rebuilds.append(len(self))
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(NearIndex, "_rebuild", counted)
    monkeypatch.setattr(NearIndex, "_probe_adds", 16)
    ix._rebuild_cost = rebuild_cost
    late = {f"d{i}": docs[f"d{i}"] ^ 1 for i in range(650, 700)}  # 50 replaced
    late.update((f"d{i}", docs[f"d{i}"]) for i in range(700, 820))  # and 120 new
    ix.add_many(list(late), list(late.values()))  # 170 < 870 // 4
    docs.update(late)
    kept = {i: docs[i] for i in list(docs)[:820]}
    assert bool(rebuilds) == (rebuild_cost == 0.0)
    fresh = NearIndex(5)
    fresh.add_many(list(kept), list(kept.values()))
    assert sorted(ix.ids()) == sorted(kept)
    assert all(ix.fingerprint(i) == v for i, v in kept.items())
    for k in (0, 2, 5):
        assert [f.members for f in ix.families(k)] == [f.members for f in fresh.families(k)]
