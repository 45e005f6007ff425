"""Families that respect an ignore list: "these two documents are not duplicates".

Families are the connected components of the graph over *documents* whose edges join two
documents within ``k`` bits, minus the ignored pairs. Removing an edge only matters between
its two documents, so the graph stays small: every distinct fingerprint is one node for all
its documents that appear in no ignored pair (as in :mod:`ditto_tui.core.families.clusters`), and
each document that does appear in one is a node of its own. Edges come from the near pairs
of distinct fingerprints (:class:`~ditto_tui.core.index.pairs.UniquePairs` or ``unique_pairs``),
so the result at any ``k`` up to the pairs' ``k`` needs no new join. Pure numpy/scipy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["family_groups", "ignore_aware_labels"]


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered ``0..c-1`` in order of each component's first document."""
    if len(labels) == 0:
        return labels.astype(np.int64)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first), dtype=np.int64)
    return rank[inverse.reshape(-1)]


def ignore_aware_labels(
    doc_u: np.ndarray,
    n_unique: int,
    pi: np.ndarray,
    pj: np.ndarray,
    pd: np.ndarray,
    k: int,
    ignored_a: np.ndarray | None = None,
    ignored_b: np.ndarray | None = None,
) -> np.ndarray:
    """Family label of every document at distance ``k`` without the ignored pairs.

    ``doc_u[x]`` is document x's index into the ``n_unique`` distinct fingerprints;
    ``(pi, pj, pd)`` are near pairs of distinct fingerprints (indices into them, with their
    distances; pairs farther than ``k`` are left out here, so pairs computed for a larger k
    serve every smaller one). ``(ignored_a[t], ignored_b[t])`` are document indices never
    linked directly (either order; self pairs and duplicates are harmless). ``k < 0`` links
    nothing. Returns int64 labels numbered ``0..c-1`` by each family's first document, so
    equal inputs give equal labels.
    """
    from scipy.sparse import coo_matrix, csr_matrix, identity
    from scipy.sparse.csgraph import connected_components

    doc_u = np.asarray(doc_u, dtype=np.int64)
    n = len(doc_u)
    if n == 0:
        return np.empty(0, np.int64)
    if k < 0:
        return np.arange(n, dtype=np.int64)
    m = int(n_unique)
    keep = np.asarray(pd) <= k
    a = np.asarray(pi, dtype=np.int64)[keep]
    b = np.asarray(pj, dtype=np.int64)[keep]
    ia = np.asarray(ignored_a if ignored_a is not None else (), dtype=np.int64)
    ib = np.asarray(ignored_b if ignored_b is not None else (), dtype=np.int64)
    real = ia != ib
    ia, ib = ia[real], ib[real]

    if len(ia) == 0:
        graph = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(m, m)).tocsr()
        _, lab_u = connected_components(graph, directed=False)
        return _renumber(lab_u[doc_u])

    special = np.unique(np.concatenate([ia, ib]))
    s = len(special)
    slot = np.full(n, -1, np.int64)
    slot[special] = np.arange(s, dtype=np.int64)
    plain = slot < 0
    base_present = np.zeros(m, bool)
    base_present[doc_u[plain]] = True

    # Adjacency of distinct fingerprints within k, with the diagonal (distance 0).
    adj = coo_matrix((np.ones(len(a), np.int32), (a, b)), shape=(m, m)).tocsr()
    adj = (adj + adj.T + identity(m, dtype=np.int32, format="csr")).tocsr()
    sel = csr_matrix(
        (np.ones(s, np.int32), (np.arange(s), doc_u[special])), shape=(s, m)
    )
    reach = (sel @ adj).tocoo()  # special document -> fingerprints within k of it
    near_base = base_present[reach.col]
    sx = (sel @ adj @ sel.T).tocoo()  # special -> special within k
    pairs_ss = sx.row < sx.col
    sr, sc = sx.row[pairs_ss].astype(np.int64), sx.col[pairs_ss].astype(np.int64)
    if len(sr):
        lo = np.minimum(slot[ia], slot[ib])
        hi = np.maximum(slot[ia], slot[ib])
        banned = np.unique(lo * s + hi)
        allowed = ~np.isin(sr * s + sc, banned)
        sr, sc = sr[allowed], sc[allowed]

    both = base_present[a] & base_present[b]
    rows = np.concatenate([a[both], reach.row[near_base].astype(np.int64) + m, sr + m])
    cols = np.concatenate([b[both], reach.col[near_base].astype(np.int64), sc + m])
    graph = coo_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(m + s, m + s)).tocsr()
    _, lab = connected_components(graph, directed=False)
    node = np.where(plain, doc_u, m + slot)
    return _renumber(lab[node])


def family_groups(labels: np.ndarray, min_size: int = 2) -> list[np.ndarray]:
    """Document indices of each label with at least ``min_size`` members, in label order
    (indices ascending inside each group)."""
    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) == 0:
        return []
    order = np.argsort(labels, kind="stable")
    lab = labels[order]
    cuts = np.flatnonzero(lab[1:] != lab[:-1]) + 1
    return [g for g in np.split(order, cuts) if len(g) >= max(min_size, 1)]
