"""The index's merge order, pairs and per-k family counts against brute force."""

from __future__ import annotations

from hypothesis import given, settings

from ditto_tui.core.index.near_index import NearIndex
from tests.properties import examples

from .index_reference import dist, fingerprint_sets, ref_clusters

MAX_K = 6


def components(nodes: set[int], edges: list[tuple[int, int]]) -> set[frozenset[int]]:
    parent = {n: n for n in nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    groups: dict[int, set[int]] = {}
    for n in nodes:
        groups.setdefault(find(n), set()).add(n)
    return {frozenset(g) for g in groups.values()}


@settings(max_examples=examples(60), deadline=None)
@given(fingerprint_sets())
def test_counts_pairs_and_merge_order_match_brute_force(fps: list[int]):
    ix = NearIndex(MAX_K)
    ids = [f"d{i:03d}" for i in range(len(fps))]
    for i, fp in zip(ids, fps, strict=True):
        ix.add(i, fp)
    counts = ix.family_counts()
    assert counts == [len(ref_clusters(ids, fps, k, 2)) for k in range(MAX_K + 1)]
    assert ix.family_counts("star") == [
        len(ix.families(k, mode="star", min_size=2)) for k in range(MAX_K + 1)
    ]
    distinct = sorted(set(fps))
    fa, fb, d = ix.distinct_pairs(4)
    got = sorted(zip(fa.tolist(), fb.tolist(), d.tolist(), strict=True))
    assert got == sorted(
        (a, b, dist(a, b))
        for i, a in enumerate(distinct)
        for b in distinct[i + 1 :]
        if 0 < dist(a, b) <= 4
    )
    merges = ix.merge_order()
    assert [m[0] for m in merges] == sorted(m[0] for m in merges)
    assert all(dist(a, b) == d for d, a, b in merges)
    assert len(merges) <= max(0, len(distinct) - 1)
    for k in range(MAX_K + 1):
        # the merges up to k join the distinct fingerprints exactly as families at k do
        edges = [(a, b) for d, a, b in merges if d <= k]
        expected = {
            frozenset(fps[ids.index(m)] for m in family)
            for family in ref_clusters(ids, fps, k, 1)
        }
        assert components(set(distinct), edges) == expected
