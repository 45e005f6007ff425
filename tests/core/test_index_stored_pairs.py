"""Reopening an unchanged corpus: stored near pairs replace the all-pairs join exactly."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui.core.index.near_index as index_module
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.index.pairs import UniquePairs, fingerprints_digest, unique_pairs
from tests.properties import examples


def corpus(seed: int = 1, n: int = 300) -> tuple[list[str], np.ndarray]:
    """Families of near fingerprints (1-3 flipped bits) plus exact duplicates."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2**63, n // 6, dtype=np.uint64)
    parts = [base]
    for _ in range(4):
        flips = np.zeros(len(base), np.uint64)
        for _ in range(int(rng.integers(1, 4))):
            flips |= np.uint64(1) << rng.integers(0, 64, len(base)).astype(np.uint64)
        parts.append(base ^ flips)
    parts.append(base[: n // 12])  # duplicates
    fps = np.concatenate(parts)
    return [f"doc{i:04}" for i in range(len(fps))], fps


def count_joins(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = index_module.UniquePairs.compute

    def counting(u, k, digest=None, **options):
        calls.append(len(u))
        return real(u, k, digest, **options)

    monkeypatch.setattr(index_module.UniquePairs, "compute", staticmethod(counting))
    return calls


def computed_pairs(ids: list[str], fps: np.ndarray, max_k: int) -> UniquePairs:
    index = NearIndex(max_k)
    index.add_many(ids, fps)
    pairs = index.take_computed_pairs()
    assert pairs is not None
    return pairs


def same_content(a: NearIndex, b: NearIndex, probes: np.ndarray) -> None:
    for k in range(a.max_k + 1):
        for mode in ("chain", "star"):
            assert a.families(k, mode=mode) == b.families(k, mode=mode)
    for fp in probes.tolist():
        assert a.near(fp, a.max_k) == b.near(fp, b.max_k)


def test_computed_pairs_are_what_unique_pairs_returns_for_the_distinct_fingerprints() -> None:
    ids, fps = corpus()
    pairs = computed_pairs(ids, fps, 8)
    u = np.unique(fps)
    assert pairs.digest == fingerprints_digest(u) and pairs.k == 8
    assert (pairs.i.dtype, pairs.j.dtype, pairs.d.dtype) == (np.int32, np.int32, np.uint8)
    a, b, d = unique_pairs(u, 8)
    want = sorted(zip(a.tolist(), b.tolist(), d.tolist(), strict=True))
    assert sorted(zip(pairs.i.tolist(), pairs.j.tolist(), pairs.d.tolist(), strict=True)) == want
    assert len(pairs) > len(u)  # the corpus really has near pairs


def test_stored_pairs_give_the_same_index_without_a_join(monkeypatch) -> None:
    ids, fps = corpus()
    pairs = computed_pairs(ids, fps, 8)
    fresh = NearIndex(8)
    fresh.add_many(ids, fps)
    calls = count_joins(monkeypatch)
    reused = NearIndex(8)
    reused.add_many(ids[::-1], fps[::-1], pairs=pairs)  # order of documents is irrelevant
    assert calls == []
    assert reused.take_computed_pairs() is None  # nothing new to store
    same_content(fresh, reused, fps[:40])
    looked_up: list[tuple[str, int]] = []

    def lookup(digest: str, k: int) -> UniquePairs | None:
        looked_up.append((digest, k))
        return pairs

    by_lookup = NearIndex(8)
    by_lookup.add_many(ids, fps, pairs=lookup)
    assert calls == [] and looked_up == [(pairs.digest, 8)]
    same_content(fresh, by_lookup, fps[:40])


def test_pairs_of_other_fingerprints_or_another_k_are_ignored(monkeypatch) -> None:
    ids, fps = corpus()
    pairs = computed_pairs(ids, fps, 8)
    fresh = NearIndex(8)
    fresh.add_many(ids, fps)
    other_k = computed_pairs(ids, fps, 6)
    calls = count_joins(monkeypatch)
    for wrong in (
        dataclasses.replace(pairs, digest="0" * 32),  # other fingerprints
        dataclasses.replace(pairs, k=7),
        other_k,  # honest pairs at k=6: an index with max_k=8 must not take them
        dataclasses.replace(pairs, j=pairs.j[:-1]),  # truncated
        dataclasses.replace(pairs, j=pairs.j + 10_000),  # out of range
    ):
        index = NearIndex(8)
        index.add_many(ids, fps, pairs=wrong)
        same_content(fresh, index, fps[:10])
        again = index.take_computed_pairs()
        assert again is not None and again.digest == pairs.digest and len(again) == len(pairs)
    assert len(calls) == 5
    # stored pairs of the old content do not fit after a change: computed again
    changed = fps.copy()
    changed[0] ^= np.uint64(1 << 40)
    index = NearIndex(8)
    index.add_many(ids, changed, pairs=pairs)
    assert len(calls) == 6
    assert index.take_computed_pairs().digest != pairs.digest


def test_computed_pairs_are_handed_over_once_and_only_for_the_current_content() -> None:
    ids, fps = corpus()
    index = NearIndex(8)
    index.add_many(ids, fps)
    assert index.take_computed_pairs() is not None
    assert index.take_computed_pairs() is None
    index.add_many(ids, fps)
    index.add("late", 12345)  # the content moved on: the pairs no longer describe it
    assert index.take_computed_pairs() is None


@settings(max_examples=examples(100), deadline=None)
@given(
    fps=st.lists(st.integers(0, 2**64 - 1), min_size=64, max_size=120),
    flips=st.lists(st.integers(0, 63), min_size=1, max_size=3),
    k=st.integers(0, 10),
)
def test_reused_pairs_equal_computed_ones_for_any_content(
    fps: list[int], flips: list[int], k: int
) -> None:
    mask = sum(1 << b for b in set(flips))
    values = np.array(fps + [v ^ mask for v in fps[:30]], dtype=np.uint64)
    ids = [f"d{i}" for i in range(len(values))]
    pairs = computed_pairs(ids, values, k)
    fresh, reused = NearIndex(k), NearIndex(k)
    fresh.add_many(ids, values)
    reused.add_many(ids, values, pairs=pairs)
    assert reused.take_computed_pairs() is None
    same_content(fresh, reused, values[:5])
