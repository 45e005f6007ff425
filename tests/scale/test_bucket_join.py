"""The numpy side of the Spark pairs join equals brute force, whatever the data's skew
(no Spark needed: the tests split the exploded rows into "partitions" themselves)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index.pairs import TableDesign
from ditto_tui.scale.bucket_join import (
    bucket_pairs,
    choose_spark_design,
    explode,
    hot_buckets,
    iter_bucket_pairs,
    replicate_hot,
)
from tests.core.index_reference import ref_pair_arrays
from tests.properties import examples


def _rows(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Pairs as rows (low, high, distance) in signed order, sorted: two sets of pairs are
    equal iff their sorted rows are."""
    low, high = np.minimum(a, b), np.maximum(a, b)
    rows = np.stack([low, high, d.astype(np.int64)], axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def _brute(u: np.ndarray, k: int) -> np.ndarray:
    """Every pair of distinct values within k, by comparing all pairs
    (``ref_pair_arrays``), as sorted rows."""
    s = u.view(np.int64)
    i, j, d = ref_pair_arrays(u, k)
    return _rows(s[i], s[j], d)


def _assert_exact(got: np.ndarray, u: np.ndarray, k: int) -> None:
    """``got`` holds each pair once and exactly the brute-force pairs."""
    assert not np.all(got[1:] == got[:-1], axis=1).any(), "each pair once"  # rows are sorted
    assert np.array_equal(got, _brute(u, k))


def _spark_like(u: np.ndarray, k: int, design: TableDesign, parts: int,
                split: int) -> np.ndarray:
    """Explode, hash-partition by bucket, verify each partition: the Spark job's dataflow.
    The pairs of every partition, as sorted rows."""
    bucket, fps = explode(u.view(np.int64), design)
    where = (bucket.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(60)
    found = []
    for p in range(16):
        sel = (where % np.uint64(parts)) == p
        found.append(bucket_pairs(bucket[sel], fps[sel], design, k, split=split))
    return _rows(*(np.concatenate([f[c] for f in found]) for c in range(3)))


def _skewed(rng: np.random.Generator, n: int) -> np.ndarray:
    """Many small edits of one fingerprint plus a few random ones; distinct."""
    base = int(rng.integers(0, 1 << 63, dtype=np.int64))
    vals = {base}
    while len(vals) < n:
        x = base
        for _ in range(int(rng.integers(1, 12))):
            x ^= 1 << int(rng.integers(0, 64))
        vals.add(x if rng.random() < 0.9 else int(rng.integers(0, 1 << 63, dtype=np.int64)))
    return np.array(sorted(vals), dtype=np.uint64)


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), k=st.integers(0, 9),
       extra=st.integers(0, 3), parts=st.integers(1, 5), split=st.sampled_from([8, 64, 4096]))
def test_buckets_give_exactly_the_brute_force_pairs(seed, n, k, extra, parts, split) -> None:
    rng = np.random.default_rng(seed)
    u = _skewed(rng, n) if seed % 2 else np.unique(rng.integers(0, 2**64 - 1, n, dtype=np.uint64))
    m = min(64, k + 1 + extra)
    design = TableDesign(m, m - k)
    _assert_exact(_spark_like(u, k, design, parts, split), u, k)


def test_a_hot_bucket_is_split_and_data_aware_designs_are_exact() -> None:
    rng = np.random.default_rng(5)
    u = _skewed(rng, 3000)
    for k in (3, 8):
        design = choose_spark_design(len(u), k, u[:1000])
        _assert_exact(_spark_like(u, k, design, 3, split=64), u, k)


def test_designs_look_at_the_data() -> None:
    rng = np.random.default_rng(1)
    random = np.unique(rng.integers(0, 2**64 - 1, 20000, dtype=np.uint64))
    # bits that never vary carry no information: a data-aware design moves them apart
    masked = random & np.uint64(0x0000FFFFFFFFFFFF)
    design = choose_spark_design(10**7, 3, masked)
    assert design.order is not None
    with pytest.raises(ValueError):
        choose_spark_design(10, 64)


def _spark_like_hot(u: np.ndarray, k: int, design: TableDesign, parts: int,
                    hot: dict[int, int], chunk: int) -> tuple[np.ndarray, int]:
    """The Spark job's dataflow with hot buckets replicated: explode, replicate, partition
    by (bucket, part), verify each partition in chunks. Sorted rows, and the largest chunk."""
    bucket, fps = explode(u.view(np.int64), design)
    rows, bucket, part = replicate_hot(bucket, hot)
    fps = fps[rows]
    mixed = bucket.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + part.astype(np.uint64)
    where = (mixed * np.uint64(0xBF58476D1CE4E5B9)) >> np.uint64(58)
    found, largest = [], 0
    for p in range(parts):
        sel = (where % np.uint64(parts)) == p
        for a, b, d in iter_bucket_pairs(bucket[sel], fps[sel], design, k,
                                         part=part[sel], hot=hot, chunk=chunk):
            largest = max(largest, len(a))
            found.append((fps[sel][a], fps[sel][b], d))
    if not found:
        return _rows(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint8)), 0
    return _rows(*(np.concatenate([f[c] for f in found]) for c in range(3))), largest


@pytest.mark.parametrize("k", [3, 8])
def test_hot_buckets_are_replicated_and_their_parts_give_each_pair_once(k) -> None:
    rng = np.random.default_rng(7)
    u = _skewed(rng, 3000)  # one text edited many times: a few buckets hold most fps
    design = TableDesign(k + 1, 1)
    hot = hot_buckets(u[::3], len(u), design, hot=200, comparisons=50_000)
    assert hot and max(hot.values()) >= 4  # the skew is seen, and split several ways
    got, largest = _spark_like_hot(u, k, design, 7, hot, chunk=5000)
    _assert_exact(got, u, k)
    assert largest <= 5000 + (1 << 18)  # a chunk, plus at most one block of offsets


def test_replicate_hot_copies_only_hot_rows() -> None:
    bucket = np.array([5, 9, 5, 7], np.int64)
    rows, b, part = replicate_hot(bucket, {5: 3})
    assert rows.tolist() == [0, 0, 0, 1, 2, 2, 2, 3]
    assert b.tolist() == [5, 5, 5, 9, 5, 5, 5, 7]
    assert part.tolist() == [0, 1, 2, 0, 0, 1, 2, 0]
    assert replicate_hot(bucket, {})[2].tolist() == [0, 0, 0, 0]
