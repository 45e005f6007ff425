"""Stored families (a Spark run's labels per k) listed without indexing: each listing,
star grouping and the near graph against brute force and against a NearIndex."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import Family
from ditto_tui.core.families.paths import chain_path, k_sweep
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.index.stored import IdsAt, StoredIndex
from tests.core.index_reference import (
    fingerprint_sets,
    ref_clusters,
    ref_diameter,
    ref_medoid,
    ref_pairs,
)
from tests.properties import examples

pytestmark = pytest.mark.property


class ListColumn:
    """A list of ids as the stored index's id column, counting the ids it names."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.named = 0

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, position: int) -> str:
        self.named += 1
        return self.ids[position]

    def take(self, positions: np.ndarray, *, remember: bool = False) -> list[str]:
        self.named += len(positions)
        return [self.ids[p] for p in positions.tolist()]

    def position(self, doc_id: str) -> int:
        return self.ids.index(doc_id)


def stored_labels(ids: list[str], fps: list[int], k: int) -> np.ndarray:
    """What a Spark run stores at k: each document's position of its family's smallest
    member (by brute-force single linkage)."""
    label = np.zeros(len(ids), np.int64)
    position = {doc: i for i, doc in enumerate(ids)}
    for group in ref_clusters(ids, fps, k, 1):
        for member in group:
            label[position[member]] = position[group[0]]
    return label


def stored_pairs(fps: list[int], max_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fingerprint pairs a run stores: each pair of distinct values within max_k once."""
    distinct = sorted(set(fps))
    pairs = ref_pairs(distinct, max_k)
    return (
        np.array([distinct[i] for i, _, _ in pairs], np.uint64),
        np.array([distinct[j] for _, j, _ in pairs], np.uint64),
        np.array([d for _, _, d in pairs], np.int64),
    )


def make(docs: dict[str, int], max_k: int, *, pairs: bool = True) -> tuple[StoredIndex, ListColumn]:
    ids = sorted(docs)
    fps = [docs[i] for i in ids]
    column = ListColumn(ids)
    labels = {k: stored_labels(ids, fps, k) for k in range(max_k + 1)}
    index = StoredIndex(
        column, np.array(fps, np.uint64), labels.__getitem__, max_k,
        pairs=(lambda: stored_pairs(fps, max_k)) if pairs else None,
    )
    return index, column


@st.composite
def corpora(draw: st.DrawFn) -> dict[str, int]:
    fps = draw(fingerprint_sets(max_size=40))
    names = draw(st.lists(st.text("abé/Z0", min_size=1, max_size=4), min_size=len(fps),
                          max_size=len(fps), unique=True))
    return dict(zip(names, fps, strict=True))


@settings(max_examples=examples(120), deadline=None)
@given(docs=corpora(), max_k=st.sampled_from([0, 2, 3, 5]))
def test_stored_chain_listings_equal_brute_force(docs: dict[str, int], max_k: int) -> None:
    index, _ = make(docs, max_k)
    for k in range(max_k + 1):
        expected = [
            Family(tuple(g), ref_medoid(g, docs), ref_diameter(g, docs))
            for g in ref_clusters(list(docs), list(docs.values()), k, 1)
        ]
        listing = index.family_listing(k)
        assert listing == expected
        assert listing.multi_count == sum(1 for f in expected if f.size > 1)
        assert [f.diameter_exact for f in listing] == [True] * len(expected)


@settings(max_examples=examples(120), deadline=None)
@given(docs=corpora(), max_k=st.sampled_from([1, 3, 4]), with_pairs=st.booleans())
def test_stored_star_listings_and_near_graph_equal_a_near_index(
    docs: dict[str, int], max_k: int, with_pairs: bool
) -> None:
    index, _ = make(docs, max_k, pairs=with_pairs)
    near = NearIndex(max_k)
    if docs:
        near.add_many(list(docs), list(docs.values()))
    for k in range(max_k + 1):
        assert index.family_listing(k, mode="star") == near.family_listing(k, mode="star")
    if not docs:
        return
    ours, theirs = index.near_graph(), near.near_graph()
    assert k_sweep(ours) == k_sweep(theirs)
    ids = sorted(docs)
    a, b = ids[0], ids[-1]
    mine = chain_path(ours, ours.node_of(a), ours.node_of(b))
    other = chain_path(theirs, theirs.node_of(a), theirs.node_of(b))
    assert mine.bottleneck == other.bottleneck
    assert [int(ours.fps[n]) for n in mine.nodes][:1] == [docs[a]] or not mine.nodes
    assert len(mine.hops) == len(other.hops)


def test_pairs_that_are_not_of_these_fingerprints_are_computed_again() -> None:
    docs = {"a": 0b0, "b": 0b1, "c": 0b111, "d": 0b1111 << 40}
    ids = sorted(docs)
    fps = [docs[i] for i in ids]
    wrong = (np.array([0], np.uint64), np.array([1 << 50], np.uint64), np.array([2], np.int64))
    index = StoredIndex(
        ListColumn(ids), np.array(fps, np.uint64),
        {k: stored_labels(ids, fps, k) for k in range(4)}.__getitem__, 3, pairs=lambda: wrong,
    )
    a, b, d = index.node_pairs()
    assert sorted(zip(a.tolist(), b.tolist(), d.tolist(), strict=True)) == [(0, 1, 1), (0, 2, 3), (1, 2, 2)]
    assert [f.members for f in index.family_listing(1, mode="star")][:1] == [("a", "b")]


def test_singletons_are_named_only_when_read() -> None:
    docs = {f"d{i:03d}": (i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(200)}
    docs["d000x"] = docs["d000"]  # one family of two identical documents
    index, column = make(docs, 2)
    listing = index.family_listing(2)
    assert listing.multi_count == 1
    assert column.named == 2  # the family's members only
    singles = listing.singles
    assert isinstance(singles, IdsAt)
    assert singles[0] == "d001" and list(singles[197:]) == ["d198", "d199"]
    assert listing[1] == Family(("d001",), "d001", 0)
    assert list(singles) == [i for i in sorted(docs) if i not in ("d000", "d000x")]
