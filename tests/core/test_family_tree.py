"""The family tree by k and the per-k statistics, against brute force over every pair.

The reference here knows nothing of the merge order: the families at j are the connected
components of the graph "distance <= j" over the documents (minus ignored pairs), found
by union-find over every pair, and a diameter is the largest distance over every pair.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui.core.families.tree as family_tree_module
from ditto_tui.core.families.clusters import describe_family
from ditto_tui.core.families.notes import chain_too_wide
from ditto_tui.core.families.tree import TreeNode, family_forest, family_tree, sweep_stats
from ditto_tui.core.index.hierarchy import level_labels
from ditto_tui.core.index.near_index import NearIndex
from tests.properties import examples

SEEDS = (0, 0xFFFF_0000_0000, 0x0F0F_0F0F_0000_0000)

# fingerprints near a few seeds (chains and identical copies form), duplicates allowed
_FPS = st.lists(
    st.tuples(st.integers(0, 2), st.lists(st.integers(0, 13), max_size=6)).map(
        lambda t: SEEDS[t[0]] ^ sum(1 << b for b in set(t[1]))
    ),
    min_size=1,
    max_size=40,
)


def _dist(x: int, y: int) -> int:
    return (x ^ y).bit_count()


def components(ids: list[str], fps: list[int], j: int,
               ignored: frozenset[frozenset[str]] = frozenset()) -> set[tuple[str, ...]]:
    """Brute force: the connected components of "distance <= j" (ignored pairs unlinked)."""
    parent = list(range(len(ids)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x in range(len(ids)):
        for y in range(x + 1, len(ids)):
            if _dist(fps[x], fps[y]) <= j and frozenset((ids[x], ids[y])) not in ignored:
                parent[find(x)] = find(y)
    groups: dict[int, list[str]] = {}
    for x, doc_id in enumerate(ids):
        groups.setdefault(find(x), []).append(doc_id)
    return {tuple(sorted(g)) for g in groups.values()}


def diameter(members: tuple[str, ...], fp: dict[str, int]) -> int:
    return max(_dist(fp[a], fp[b]) for a in members for b in members)


def level(root: TreeNode, j: int) -> set[tuple[str, ...]]:
    """The tree's families at k = j: a node stands for its family from the level of its
    children (exclusive) up to its own k."""
    out: set[tuple[str, ...]] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        below = node.children[0].k if node.children else -1
        if below < j <= node.k:
            out.add(node.members)
        else:
            stack.extend(node.children)
    return out


def check_tree(root: TreeNode, fp: dict[str, int], ignored: frozenset[frozenset[str]]) -> None:
    members = list(root.members)
    fps = [fp[m] for m in members]
    for j in range(root.k, -1, -1):
        assert level(root, j) == components(members, fps, j, ignored), j
    for node in root.walk():
        assert node.size == len(node.members) == len(set(node.members))
        centre, diam, exact = describe_family(list(node.members), [fp[m] for m in node.members])
        assert (node.representative, node.diameter, node.diameter_exact) == (centre, diam, exact)
        assert node.diameter == diameter(node.members, fp)
        assert node.too_wide == (node.size > 1 and chain_too_wide(node.diameter, node.k))
        if node.children:
            # each child is a family one level where the node splits: at least two of them,
            # lower k, together exactly the node, largest first
            assert len(node.children) >= 2
            assert all(c.k == node.children[0].k < node.k for c in node.children)
            assert sorted(m for c in node.children for m in c.members) == list(node.members)
            keys = [(-c.size, c.members[0]) for c in node.children]
            assert keys == sorted(keys)
            assert node.fingerprint is None and node.leaf_members == ()
        else:
            assert {fp[m] for m in node.members} == {node.fingerprint}
            assert node.leaf_members == node.members and node.diameter == 0


@settings(max_examples=examples(200), deadline=None)
@given(_FPS, st.integers(0, 8), st.data())
def test_tree_levels_are_the_chain_families_of_the_members(fps: list[int], k: int, data) -> None:
    ids = [f"d{i:02d}" for i in range(len(fps))]
    ignored: list[tuple[str, str]] = []
    if len(ids) > 1 and data.draw(st.booleans()):
        pick = st.sampled_from(ids)
        ignored = data.draw(st.lists(st.tuples(pick, pick), max_size=3))
    ignored_set = frozenset(frozenset(p) for p in ignored if p[0] != p[1])
    fp = dict(zip(ids, fps, strict=True))
    forest = family_forest(ids, fps, k, min_size=1, ignored=ignored)
    assert {t.members for t in forest} == components(ids, fps, k, ignored_set)
    assert [(-t.size, t.members) for t in forest] == sorted((-t.size, t.members) for t in forest)
    for root in forest:
        assert root.k == k
        check_tree(root, fp, ignored_set)
        # one family given alone gives the same tree
        alone = family_tree(list(root.members), [fp[m] for m in root.members], k, ignored=ignored)
        assert _shape(alone) == _shape(root)


@settings(max_examples=examples(60), deadline=None)
@given(_FPS, st.integers(0, 8))
def test_tree_is_exact_part_against_part(fps: list[int], k: int) -> None:
    """The same trees when every merge is measured part against part (no vectorised tail)."""
    ids = [f"d{i:02d}" for i in range(len(fps))]
    fp = dict(zip(ids, fps, strict=True))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(family_tree_module, "_TAIL", 1)
        for root in family_forest(ids, fps, k, min_size=1):
            check_tree(root, fp, frozenset())


def _shape(node: TreeNode) -> tuple:
    return (node.k, node.members, node.diameter, node.representative,
            tuple(_shape(c) for c in node.children))


def test_min_size_leaves_out_small_families() -> None:
    fps = [0, 1, 3, 0xFF00, 0xFF01, 0xF0_0000_0000]
    ids = ["a", "b", "c", "d", "e", "f"]
    assert [t.size for t in family_forest(ids, fps, 2)] == [3, 2]
    assert [t.size for t in family_forest(ids, fps, 2, min_size=3)] == [3]
    assert [t.size for t in family_forest(ids, fps, 2, min_size=1)] == [3, 2, 1]


def test_tree_of_a_chain_skips_levels_where_nothing_splits() -> None:
    # a - b at 1 bit, b - c at 3 bits; d identical to c
    fps = [0b0, 0b1, 0b1111, 0b1111]
    ids = ["a", "b", "c", "d"]
    root = family_tree(ids, fps, 5)
    assert (root.k, root.size, root.diameter) == (5, 4, 4)
    assert [(c.k, c.members) for c in root.children] == [(2, ("a", "b")), (2, ("c", "d"))]
    ab, cd = root.children
    assert [(c.k, c.members) for c in ab.children] == [(0, ("a",)), (0, ("b",))]
    assert cd.is_leaf and cd.fingerprint == 0b1111 and cd.diameter == 0
    assert [n.k for n in root.walk()] == [5, 2, 0, 0, 2]
    assert root.node_count == 5


def test_documents_that_are_not_one_family_get_a_root_holding_them() -> None:
    root = family_tree(["a", "b", "c"], [0, 1, 1 << 50 | 0xFFFF], 1)
    assert root.k == 1 and root.size == 3 and not root.is_leaf
    assert [c.members for c in root.children] == [("a", "b"), ("c",)]
    assert root.diameter == diameter(root.members, {"a": 0, "b": 1, "c": 1 << 50 | 0xFFFF})


def test_too_wide_nodes_are_flagged() -> None:
    # a drift: each step 3 bits, ends 12 bits apart
    fps = [0, 0b111, 0b111111, 0b111111111, 0b111111111111]
    root = family_tree([f"d{i}" for i in range(5)], fps, 3)
    assert root.diameter == 12 and root.too_wide
    assert not any(n.too_wide for n in root.walk() if n is not root)


def test_large_family_gets_an_approximate_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(family_tree_module, "EXACT_STATS_LIMIT", 6)
    fps = [(1 << i) - 1 for i in range(1, 12)]  # a drift of 11 distinct fingerprints
    ids = [f"d{i:02d}" for i in range(len(fps))]
    fp = dict(zip(ids, fps, strict=True))
    root = family_tree(ids, fps, 1)
    assert not root.diameter_exact and root.diameter >= diameter(root.members, fp)
    for node in root.walk():
        if len({fp[m] for m in node.members}) <= 6:
            assert node.diameter_exact and node.diameter == diameter(node.members, fp)


def test_level_labels_nest_and_name_the_smallest_node() -> None:
    a, b, d = np.array([0, 1, 3]), np.array([1, 2, 4]), np.array([1, 2, 1])
    labels = level_labels(5, a, b, d, 3)
    assert labels.tolist() == [[0, 1, 2, 3, 4], [0, 0, 2, 3, 3], [0, 0, 0, 3, 3], [0, 0, 0, 3, 3]]


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        family_forest(["a", "a"], [0, 1], 1)
    with pytest.raises(ValueError, match="fingerprints"):
        family_forest(["a", "b"], [0], 1)
    assert family_forest([], [], 3) == []


# --------------------------------------------------------------------------- sweep


def check_sweep(ids: list[str], fps: list[int], max_k: int) -> None:
    index = NearIndex(max_k)
    index.add_many(ids, fps)
    fp = dict(zip(ids, fps, strict=True))
    rows = sweep_stats(index.near_graph())
    assert sweep_stats(index.merge_levels()) == rows  # (the writer's lighter input)
    assert [r.k for r in rows] == list(range(max_k + 1))
    for r in rows:
        groups = [g for g in components(ids, fps, r.k) if len(g) >= 2]
        diams = [diameter(g, fp) for g in groups]
        assert (r.families, r.documents) == (len(groups), sum(map(len, groups)))
        assert r.largest == max(map(len, groups), default=0)
        assert (r.diameter, r.diameter_exact) == (max(diams, default=0), True)
        assert r.too_wide == sum(1 for d in diams if chain_too_wide(d, r.k))


@settings(max_examples=examples(120), deadline=None)
@given(_FPS, st.integers(0, 8))
def test_sweep_matches_brute_force(fps: list[int], max_k: int) -> None:
    check_sweep([f"d{i:02d}" for i in range(len(fps))], fps, max_k)


@settings(max_examples=examples(40), deadline=None)
@given(_FPS, st.integers(0, 8))
def test_sweep_matches_brute_force_part_against_part(fps: list[int], max_k: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(family_tree_module, "_SMALL_MERGE", 0)
        patch.setattr(family_tree_module, "_TAIL", 2)
        check_sweep([f"d{i:02d}" for i in range(len(fps))], fps, max_k)


def test_sweep_after_removals() -> None:
    ids = [f"d{i}" for i in range(6)]
    fps = [0, 1, 3, 7, 0xF0F0, 0xF0F1]
    index = NearIndex(4)
    index.add_many(ids, fps)
    index.remove("d1")  # the bridge between d0 and d2 at k=1
    rows = sweep_stats(index.near_graph())
    assert sweep_stats(index.merge_levels()) == rows
    kept = [i for i in ids if i != "d1"]
    fp = dict(zip(ids, fps, strict=True))
    for r in rows:
        groups = [g for g in components(kept, [fp[i] for i in kept], r.k) if len(g) >= 2]
        assert (r.families, r.largest) == (len(groups), max(map(len, groups), default=0))
        assert r.diameter == max((diameter(g, fp) for g in groups), default=0)


def test_sweep_of_an_empty_index() -> None:
    rows = sweep_stats(NearIndex(2).near_graph())
    assert [(r.k, r.families, r.largest, r.diameter) for r in rows] == [(0, 0, 0, 0), (1, 0, 0, 0), (2, 0, 0, 0)]
