"""Star families: greedy centres by degree, every member within k of its centre."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["star_centres"]


def star_centres(
    n_u: int,
    count: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    min_id: Callable[[int], str],
) -> np.ndarray:
    """For every one of ``n_u`` distinct slots (``count`` documents each; ``a -- b`` the
    pairs within k, each pair once), the slot of its star centre: slots taken by
    decreasing degree (documents within k), ties by their smallest id (``min_id(slot)``);
    each one not yet assigned becomes a centre and takes every unassigned neighbour.
    Deterministic. Memory: the adjacency in both directions (scipy CSR, 4 bytes a pair
    each way), nothing per pair in Python objects, so tens of millions of pairs fit."""
    count = count[:n_u].astype(np.int64)
    centre = np.arange(n_u)
    if len(a) == 0:
        return centre
    # scipy is imported here, not at module level: it costs ~0.25 s of start-up otherwise
    from scipy.sparse import csr_matrix

    a, b = np.asarray(a), np.asarray(b)
    deg = (
        count
        - 1
        + np.bincount(a, weights=count[b], minlength=n_u)
        + np.bincount(b, weights=count[a], minlength=n_u)
    )
    ones = np.ones(len(a), np.int8)
    ahead = csr_matrix((ones, (a, b)), shape=(n_u, n_u))  # each slot's neighbours above it
    behind = csr_matrix((ones, (b, a)), shape=(n_u, n_u))  # and below it
    del ones
    ap, ai, bp, bi = ahead.indptr, ahead.indices, behind.indptr, behind.indices
    nodes = np.flatnonzero((np.diff(ap) > 0) | (np.diff(bp) > 0)).tolist()
    node_deg = deg[nodes].tolist()
    ids = [min_id(s) for s in nodes]
    rank = sorted(range(len(nodes)), key=lambda i: (-node_deg[i], ids[i]))
    assigned = np.full(n_u, -1, np.int64)
    for i in rank:
        s = nodes[i]
        if assigned[s] >= 0:
            continue
        assigned[s] = s
        for near in (ai[ap[s] : ap[s + 1]], bi[bp[s] : bp[s + 1]]):
            assigned[near[assigned[near] < 0]] = s
    free = assigned < 0
    assigned[free] = centre[free]
    return assigned
