"""How a chain family holds together: the path joining two members, its bridge documents,
and how families grow with k. Pure functions over a :class:`NearGraph`: a snapshot of an
index's pairs within its max k and their merge order.

A chain family at k is a connected component of the graph "distance <= k" over distinct
fingerprints (nodes; identical documents share one). ``chain_path`` finds the path a user
wants to see: the minimax path (its largest hop is as small as possible: the smallest k at
which the two are in one family, read from the merge order), and among those one with
the fewest hops (breadth-first search over the links up to that distance).
``split_points`` names the documents whose removal would split a family most
(articulation points of its k-graph, weighted by documents). ``k_sweep`` counts families
(of at least two documents) and documents in families for every k from the merge order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ditto_tui.core.fingerprint.simhash import popcount64

__all__ = ["ChainPath", "NearGraph", "SplitPoint", "chain_path", "family_nodes", "k_sweep", "split_points"]


@dataclass(frozen=True, eq=False)
class NearGraph:
    """A snapshot of an index's pairs and merge order (see ``NearIndex.near_graph``).

    Nodes are distinct fingerprints: ``fps[n]`` with ``counts[n]`` documents (0 for a
    dead node). ``a[e] < b[e]`` are the live pairs of nodes within ``max_k``, ``d[e]``
    their distances (1..max_k). ``labels[k][n]`` is the node representing ``n``'s
    family at k (the merge order, for k = 0..max_k). Document ``i`` is ``doc_ids[i]`` at
    node ``doc_node[i]``.
    """

    fps: np.ndarray
    counts: np.ndarray
    a: np.ndarray
    b: np.ndarray
    d: np.ndarray
    labels: tuple[np.ndarray, ...]
    doc_ids: Sequence[str]
    doc_node: np.ndarray
    max_k: int
    #: the position of an id in ``doc_ids`` (KeyError when absent), when the caller has a
    #: faster way than a dict of every id (made on the first look-up otherwise)
    locate: Callable[[str], int] | None = field(default=None, repr=False)
    _by_id: dict[str, int] = field(default_factory=dict, repr=False)
    _graphs: dict[tuple[int, int], tuple[np.ndarray, object]] = field(default_factory=dict, repr=False)

    def family_graph(self, node: int, k: int) -> tuple[np.ndarray, object]:
        """``(nodes, adjacency)``: the live nodes of ``node``'s family at ``k`` (sorted)
        and the scipy CSR matrix of their links within ``k`` (local indices), symmetric.
        The last few are cached (a snapshot never changes)."""
        k = max(0, min(k, self.max_k))
        key = (k, int(self.labels[k][node]))
        got = self._graphs.get(key)
        if got is None:
            nodes = family_nodes(self, node, k)
            got = (nodes, _subgraph(self, nodes, k))
            if len(self._graphs) >= 4:
                self._graphs.pop(next(iter(self._graphs)))
            self._graphs[key] = got
        return got

    def node_of(self, doc_id: str) -> int:
        """The node of ``doc_id``; ``KeyError`` if it is not in the snapshot."""
        if self.locate is not None:
            return int(self.doc_node[self.locate(doc_id)])
        if not self._by_id:
            self._by_id.update(zip(self.doc_ids, range(len(self.doc_ids)), strict=True))
        return int(self.doc_node[self._by_id[doc_id]])

    def documents_of(self, nodes: np.ndarray) -> list[list[str]]:
        """The document ids of each node in ``nodes`` (sorted, code-point order)."""
        where = {int(n): i for i, n in enumerate(np.asarray(nodes).tolist())}
        out: list[list[str]] = [[] for _ in where]
        hit = np.flatnonzero(np.isin(self.doc_node, np.asarray(nodes)))
        for i in hit.tolist():
            out[where[int(self.doc_node[i])]].append(self.doc_ids[i])
        for ids in out:
            ids.sort()
        return out


@dataclass(frozen=True)
class ChainPath:
    """The links joining two documents: ``nodes[0]`` is the source's node, ``nodes[-1]``
    the target's; ``hops[i]`` is the distance from ``nodes[i]`` to ``nodes[i + 1]``.
    ``bottleneck`` is the largest hop: the smallest k at which they share a family
    (0 for identical fingerprints). Empty ``nodes`` means not linked within max_k."""

    nodes: tuple[int, ...]
    hops: tuple[int, ...]
    bottleneck: int

    @property
    def linked(self) -> bool:
        return bool(self.nodes)


@dataclass(frozen=True)
class SplitPoint:
    """A node whose removal splits its family's k-graph into ``pieces`` (document
    counts, largest first); ``cut_off`` = documents no longer joined to the largest."""

    node: int
    pieces: tuple[int, ...]

    @property
    def cut_off(self) -> int:
        return sum(self.pieces[1:])


def _bottleneck(graph: NearGraph, src: int, dst: int) -> int | None:
    for k, labels in enumerate(graph.labels):
        if labels[src] == labels[dst]:
            return k
    return None


def family_nodes(graph: NearGraph, node: int, k: int) -> np.ndarray:
    """The live nodes of ``node``'s family at ``k`` (clamped to 0..max_k), sorted."""
    labels = graph.labels[max(0, min(k, graph.max_k))]
    return np.flatnonzero((labels == labels[node]) & (graph.counts > 0))


def _subgraph(graph: NearGraph, nodes: np.ndarray, k: int) -> Any:
    """CSR adjacency (scipy) of the links within ``k`` among ``nodes`` (local indices)."""
    from scipy.sparse import csr_matrix

    local = np.full(len(graph.fps), -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    la, lb = local[graph.a], local[graph.b]
    keep = (graph.d <= k) & (la >= 0) & (lb >= 0)
    la, lb = la[keep], lb[keep]
    n = len(nodes)
    rows = np.concatenate((la, lb))
    cols = np.concatenate((lb, la))
    return csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))


def chain_path(graph: NearGraph, src: int, dst: int) -> ChainPath:
    """The minimax path from node ``src`` to node ``dst``, with the fewest hops among them."""
    if src == dst:
        return ChainPath((src,), (), 0)
    bottleneck = _bottleneck(graph, src, dst)
    if bottleneck is None:
        return ChainPath((), (), -1)
    from scipy.sparse.csgraph import breadth_first_order

    nodes, adjacency = graph.family_graph(src, bottleneck)
    s, t = np.searchsorted(nodes, [src, dst]).tolist()
    # the adjacency is symmetric already: a directed search sees every link both ways
    _, pred_array = breadth_first_order(adjacency, s, directed=True, return_predecessors=True)
    pred = pred_array.tolist()
    path = [t]
    while path[-1] != s:
        path.append(pred[path[-1]])
    chain = nodes[np.array(path[::-1])]
    hops = popcount64(graph.fps[chain[1:]] ^ graph.fps[chain[:-1]]).astype(np.int64)
    return ChainPath(tuple(chain.tolist()), tuple(hops.tolist()), bottleneck)


def split_points(graph: NearGraph, nodes: np.ndarray, k: int, *, limit: int = 5) -> list[SplitPoint]:
    """The ``limit`` nodes of ``nodes`` (one family at ``k``) whose removal cuts off the
    most documents from the rest of the family, most first (articulation points of the
    family's k-graph; none for a family that stays whole whatever node goes)."""
    n = len(nodes)
    if n < 3:
        return []
    adjacency = _subgraph(graph, np.asarray(nodes), k)
    indptr, indices = adjacency.indptr.tolist(), adjacency.indices.tolist()
    weight = graph.counts[nodes].tolist()
    total = sum(weight)
    disc = [-1] * n
    low = [0] * n
    size = [0] * n  # documents in the DFS subtree
    cut: dict[int, list[int]] = {}  # node -> documents of the pieces it separates
    timer = 0
    for root in range(n):
        if disc[root] >= 0:
            continue
        disc[root] = low[root] = timer
        timer += 1
        size[root] = weight[root]
        stack = [(root, -1, indptr[root])]
        while stack:
            u, parent, pos = stack[-1]
            if pos < indptr[u + 1]:
                stack[-1] = (u, parent, pos + 1)
                v = indices[pos]
                if disc[v] < 0:
                    disc[v] = low[v] = timer
                    timer += 1
                    size[v] = weight[v]
                    stack.append((v, u, indptr[v]))
                elif v != parent:
                    low[u] = min(low[u], disc[v])
                continue
            stack.pop()
            if parent >= 0:
                low[parent] = min(low[parent], low[u])
                size[parent] += size[u]
                if low[u] >= disc[parent]:  # u's subtree hangs on parent alone
                    cut.setdefault(parent, []).append(size[u])
    out = []
    for u, pieces in cut.items():
        rest = total - weight[u] - sum(pieces)  # 0 for a DFS root
        if rest == 0 and len(pieces) < 2:  # a root with one child separates nothing
            continue
        all_pieces = sorted([*pieces, rest] if rest else pieces, reverse=True)
        out.append(SplitPoint(int(nodes[u]), tuple(all_pieces)))
    out.sort(key=lambda p: (-p.cut_off, int(graph.fps[p.node])))
    return out[:limit]


def k_sweep(graph: NearGraph) -> list[tuple[int, int, int]]:
    """``(k, families, documents)`` for k = 0..max_k: the number of families of at least
    two documents and how many documents they hold, from the merge order."""
    counts = graph.counts
    out = []
    for k, labels in enumerate(graph.labels):
        sizes = np.bincount(labels, weights=counts, minlength=len(counts))
        grouped = sizes >= 2
        out.append((k, int(np.count_nonzero(grouped)), int(sizes[grouped].sum())))
    return out
