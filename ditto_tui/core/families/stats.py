"""Statistics of many small families at once: :func:`group_stats`."""

from __future__ import annotations

import numpy as np

from ditto_tui.core.fingerprint.simhash import popcount64

__all__ = ["VECTOR_FAMILY", "group_stats"]

#: families up to this size get their statistics in one numpy pass (larger ones one by one,
#: with ``core.families.clusters.describe_family``)
VECTOR_FAMILY = 64


def group_stats(
    fps: np.ndarray, starts: np.ndarray, lens: np.ndarray, small: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Medoid position (within its group) and diameter of every group of ``fps`` (groups
    are ``lens`` consecutive entries from ``starts``), vectorised over all the groups
    marked ``small`` at once (others get 0, 0). The medoid minimises the sum of distances
    to the members, ties to the earliest member, exactly like ``describe_family``."""
    n_groups = len(starts)
    centre = np.zeros(n_groups, np.int64)
    diameter = np.zeros(n_groups, np.int64)
    if not small.any():
        return centre, diameter
    g_starts, g_lens = starts[small], lens[small]
    # members of the small groups, with their group's start and size
    member = np.repeat(g_starts, g_lens) + (
        np.arange(int(g_lens.sum())) - np.repeat(np.cumsum(g_lens) - g_lens, g_lens)
    )
    m_start = np.repeat(g_starts, g_lens)
    m_len = np.repeat(g_lens, g_lens)
    # every (member, other member of its group) pair
    left = np.repeat(np.arange(len(member)), m_len)
    other = np.repeat(m_start, m_len) + (
        np.arange(int(m_len.sum())) - np.repeat(np.cumsum(m_len) - m_len, m_len)
    )
    dist = popcount64(fps[member[left]] ^ fps[other]).astype(np.int64)
    sums = np.bincount(left, weights=dist, minlength=len(member)).astype(np.int64)
    m_first = np.cumsum(m_len) - m_len  # each member's first pair
    farthest = np.maximum.reduceat(dist, m_first)
    g_first = np.cumsum(g_lens) - g_lens  # each group's first member
    diameter[small] = np.maximum.reduceat(farthest, g_first)
    group_of = np.repeat(np.arange(len(g_starts)), g_lens)
    order = np.lexsort((member, sums, group_of))  # per group: smallest sum, then earliest
    best = order[g_first]
    centre[small] = member[best] - g_starts
    return centre, diameter
