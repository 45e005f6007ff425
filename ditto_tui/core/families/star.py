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
    pairs within k), the slot of its star centre: slots taken by decreasing degree
    (documents within k), ties by their smallest id (``min_id(slot)``); each one not yet
    assigned becomes a centre and takes every unassigned neighbour. Deterministic."""
    count = count[:n_u].astype(np.int64)
    centre = np.arange(n_u)
    if len(a) == 0:
        return centre
    deg = (
        count
        - 1
        + np.bincount(a, weights=count[b], minlength=n_u)
        + np.bincount(b, weights=count[a], minlength=n_u)
    )
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    nodes = np.unique(src)
    starts = np.searchsorted(src, nodes, side="left").tolist()
    ends = np.searchsorted(src, nodes, side="right").tolist()
    dst_list = dst.tolist()
    ids = {s: min_id(s) for s in nodes.tolist()}
    rank = sorted(range(len(nodes)), key=lambda i: (-deg[nodes[i]], ids[int(nodes[i])]))
    assigned = np.full(n_u, -1, np.int64)
    node_list = nodes.tolist()
    for i in rank:
        s = node_list[i]
        if assigned[s] >= 0:
            continue
        assigned[s] = s
        for v in dst_list[starts[i] : ends[i]]:
            if assigned[v] < 0:
                assigned[v] = s
    free = assigned < 0
    assigned[free] = centre[free]
    return assigned
