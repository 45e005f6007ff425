"""Chain paths, split points and the k sweep against brute force over every pair."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import clusters
from ditto_tui.core.families.paths import chain_path, family_nodes, k_sweep, split_points
from ditto_tui.core.index.near_index import NearIndex
from tests.properties import examples

MAX_K = 4


def _dist(x: int, y: int) -> int:
    return (x ^ y).bit_count()


# fingerprints near a few seeds (so chains form), duplicates allowed
_FPS = st.lists(
    st.tuples(st.integers(0, 2), st.lists(st.integers(0, 11), max_size=5)).map(
        lambda t: [0, 0xFFFF_0000_0000, 0x0F0F_0F0F_0000_0000][t[0]] ^ sum(1 << b for b in set(t[1]))
    ),
    min_size=1,
    max_size=30,
)


def _index(fps: list[int]) -> tuple[NearIndex, list[str]]:
    ids = [f"d{i:02d}" for i in range(len(fps))]
    index = NearIndex(MAX_K)
    index.add_many(ids, fps)
    return index, ids


def _hops(fps: list[int], src: int, t: int) -> dict[int, int]:
    """Brute-force BFS hop counts from document src over links of distance <= t."""
    seen = {src: 0}
    queue = deque([src])
    while queue:
        u = queue.popleft()
        for v in range(len(fps)):
            if v not in seen and _dist(fps[u], fps[v]) <= t:
                seen[v] = seen[u] + 1
                queue.append(v)
    return seen


@settings(max_examples=examples(120), deadline=None)
@given(_FPS, st.data())
def test_chain_path_is_minimax_then_fewest_hops(fps: list[int], data: st.DataObject) -> None:
    index, ids = _index(fps)
    graph = index.near_graph()
    i = data.draw(st.integers(0, len(fps) - 1))
    j = data.draw(st.integers(0, len(fps) - 1))
    path = chain_path(graph, graph.node_of(ids[i]), graph.node_of(ids[j]))
    reach = [t for t in range(MAX_K + 1) if j in _hops(fps, i, t)]
    if not reach:
        assert not path.linked
        return
    best = reach[0]
    assert path.bottleneck == best
    nodes = path.nodes
    assert int(graph.fps[nodes[0]]) == fps[i] and int(graph.fps[nodes[-1]]) == fps[j]
    assert list(path.hops) == [_dist(int(graph.fps[u]), int(graph.fps[v])) for u, v in zip(nodes, nodes[1:], strict=False)]
    assert max(path.hops, default=0) == best
    # fewest hops over distinct fingerprints (identical documents are one node)
    distinct = sorted(set(fps))
    assert len(path.hops) == _hops(distinct, distinct.index(fps[i]), best)[distinct.index(fps[j])]


@settings(max_examples=examples(80), deadline=None)
@given(_FPS, st.integers(1, MAX_K), st.data())
def test_split_points_match_removing_each_node(fps: list[int], k: int, data: st.DataObject) -> None:
    index, ids = _index(fps)
    graph = index.near_graph()
    start = graph.node_of(ids[data.draw(st.integers(0, len(fps) - 1))])
    nodes = family_nodes(graph, start, k)
    members = [f for f in fps if int(f) in {int(graph.fps[n]) for n in nodes}]
    expected = {}
    for n in nodes.tolist():
        gone = int(graph.fps[n])
        rest = [f for f in members if f != gone]
        pieces = [len(g) for g in clusters([str(x) for x in range(len(rest))], rest, k)]
        if len(pieces) > 1:
            expected[n] = tuple(sorted(pieces, reverse=True))
    got = split_points(graph, nodes, k, limit=len(nodes) + 1)
    assert {p.node: p.pieces for p in got} == expected
    assert [p.cut_off for p in got] == sorted((p.cut_off for p in got), reverse=True)


@settings(max_examples=examples(80), deadline=None)
@given(_FPS)
def test_k_sweep_counts_families_like_clusters(fps: list[int]) -> None:
    index, ids = _index(fps)
    for k, families, documents in k_sweep(index.near_graph()):
        groups = clusters(ids, fps, k, 2)
        assert (families, documents) == (len(groups), sum(map(len, groups)))


def test_unlinked_documents_have_no_path() -> None:
    index, ids = _index([0, 0xFFFF_FFFF])
    graph = index.near_graph()
    path = chain_path(graph, graph.node_of("d00"), graph.node_of("d01"))
    assert not path.linked and path.bottleneck == -1
    same = chain_path(graph, graph.node_of("d00"), graph.node_of("d00"))
    assert same.linked and same.hops == () and same.bottleneck == 0


def test_documents_of_nodes_and_removed_documents() -> None:
    index, ids = _index([0, 0, 1, 3, 7])
    index.remove("d02")
    graph = index.near_graph()
    node = graph.node_of("d00")
    assert graph.documents_of(np.array([node])) == [["d00", "d01"]]
    with pytest.raises(KeyError):
        graph.node_of("d02")
    # removing d02 (fp 1) splits 0 from 3-7 at k=1
    assert chain_path(graph, node, graph.node_of("d04")).bottleneck == 2


def test_a_chain_splits_at_its_middle_documents() -> None:
    index, _ = _index([0, 1, 3, 7, 15, 15])  # a path 0-1-3-7-15 (15 twice) at k=1
    graph = index.near_graph()
    nodes = family_nodes(graph, graph.node_of("d00"), 1)
    got = split_points(graph, nodes, 1)
    assert [(int(graph.fps[p.node]), p.pieces) for p in got] == [(3, (3, 2)), (7, (3, 2)), (1, (4, 1))]
