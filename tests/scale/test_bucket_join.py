"""The numpy side of the Spark pairs join equals brute force, whatever the data's skew
(no Spark needed: the tests split the exploded rows into "partitions" themselves)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index.pairs import TableDesign
from ditto_tui.scale.bucket_join import bucket_pairs, choose_spark_design, explode
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
