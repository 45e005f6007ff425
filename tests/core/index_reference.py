"""Slow, obviously-correct references for the index tests, and fingerprint strategies."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from hypothesis import strategies as st

MAX64 = (1 << 64) - 1
T = TypeVar("T")


def dist(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def ref_pairs(fps: list[int], k: int) -> list[tuple[int, int, int]]:
    return [
        (i, j, dist(fps[i], fps[j]))
        for i in range(len(fps))
        for j in range(i + 1, len(fps))
        if dist(fps[i], fps[j]) <= k
    ]


def ref_components(fps: list[int], k: int) -> list[list[int]]:
    """Positions grouped by single linkage at k (union-find over all pairs)."""
    parent = list(range(len(fps)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in ref_pairs(fps, k):
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(fps)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def ref_clusters(ids: list[str], fps: list[int], k: int, min_size: int) -> list[list[str]]:
    groups = [sorted(ids[p] for p in g) for g in ref_components(fps, k)]
    groups = [g for g in groups if len(g) >= max(min_size, 1)]
    return sorted(groups, key=lambda g: (-len(g), g))


def ref_near(docs: dict[str, int], fp: int, k: int, max_k: int) -> list[tuple[int, str]]:
    if k < 0:
        return []
    k = min(k, max_k)
    return sorted((dist(v, fp), i) for i, v in docs.items() if dist(v, fp) <= k)


def ref_medoid(members: list[str], docs: dict[str, int]) -> str:
    return min(members, key=lambda m: (sum(dist(docs[m], docs[o]) for o in members), m))


def ref_diameter(members: list[str], docs: dict[str, int]) -> int:
    return max(dist(docs[a], docs[b]) for a in members for b in members)


@functools.cache
def _positions(n: int) -> st.SearchStrategy[int]:
    return st.sampled_from(tuple(range(n)))


def pick(draw: st.DrawFn, items: Sequence[T]) -> T:
    """``draw(st.sampled_from(items))`` for a list that changes from draw to draw: the same
    choice (an index, shrinking towards the first item) without building and validating a
    new strategy each time, which cost more than the rest of the example's drawing."""
    return items[draw(_positions(len(items)))]


_BASES = st.lists(
    st.one_of(st.integers(0, MAX64), st.sampled_from([0, MAX64])), min_size=1, max_size=4
)
_FLIPS = st.lists(st.integers(0, 63), max_size=4)
_FROM_EARLIER = st.booleans()


@st.composite
def fingerprint_sets(draw: st.DrawFn, max_size: int = 60) -> list[int]:
    """Fingerprints with duplicates and chains: a few random bases, each member made by
    flipping a few bits of an earlier member (so near-duplicate chains drift apart)."""
    bases = draw(_BASES)
    n = draw(st.integers(0, max_size))
    out: list[int] = []
    for _ in range(n):
        fp = pick(draw, out) if out and draw(_FROM_EARLIER) else pick(draw, bases)
        for bit in draw(_FLIPS):
            fp ^= 1 << bit
        out.append(fp)
    return out


# the set bits of every 16-bit value, counted from its binary digits
_BITS16 = np.array([bin(v).count("1") for v in range(1 << 16)], dtype=np.uint8)


def ref_pairs_np(fps: np.ndarray, k: int) -> list[tuple[int, int, int]]:
    """``ref_pairs`` for a few thousand fingerprints (see ``ref_pair_arrays``)."""
    i, j, d = ref_pair_arrays(fps, k)
    return list(zip(i.tolist(), j.tolist(), d.tolist(), strict=True))


def ref_pair_arrays(fps: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions i < j and distances of every pair within k, sorted by (i, j): each block
    of rows is XORed with every later fingerprint, and the set bits of an XOR are the sum
    of the set bits of its four 16-bit quarters (a table lookup each)."""
    u = np.asarray(fps, dtype=np.uint64)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for start in range(0, len(u), 128):
        rows = u[start : start + 128]
        x = rows[:, None] ^ u[None, start:]  # row r is fingerprint start + r
        quarters = _BITS16[x.view(np.uint16)].reshape(len(rows), -1, 4)
        d = quarters[..., 0] + quarters[..., 1] + quarters[..., 2] + quarters[..., 3]
        r, c = np.nonzero(d <= k)
        keep = c > r  # j > i: each pair once, none with itself
        parts.append((r[keep] + start, c[keep] + start, d[r[keep], c[keep]].astype(np.int64)))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    i, j, d = (np.concatenate(column) for column in zip(*parts, strict=True))
    return i, j, d


def biased_fingerprints(rng: np.random.Generator, n: int, p_one: np.ndarray) -> np.ndarray:
    """``n`` fingerprints whose bit ``b`` is set with probability ``p_one[b]``: the
    concentrated distributions of real text (unrelated documents 14-28 bits apart)."""
    bits = rng.random((n, 64)) < p_one
    return (bits.astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
