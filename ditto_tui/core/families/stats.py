"""Families from runs of grouped documents: :func:`families_of_runs`, with the statistics
of many small families at once (:func:`group_stats`, :func:`run_diameters`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from ditto_tui.core.families.clusters import Family, Mode, describe_family, family_diameter
from ditto_tui.core.fingerprint.simhash import popcount64

__all__ = ["PAIRS_AT_ONCE", "VECTOR_FAMILY", "families_of_runs", "group_stats", "run_diameters"]

#: families up to this size get their statistics in one numpy pass (larger ones one by one,
#: with ``core.families.clusters.describe_family``)
VECTOR_FAMILY = 64


#: Families whose Python values :func:`families_of_runs` makes at once
_FAMILIES_AT_ONCE = 1 << 15

#: Member pairs measured at once by :func:`group_stats` and :func:`run_diameters` (a few
#: arrays of 8 bytes each: about 6 MB a pass, whatever the number of families)
PAIRS_AT_ONCE = 1 << 17


def group_stats(
    fps: np.ndarray, starts: np.ndarray, lens: np.ndarray, small: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Medoid position (within its group) and diameter of every group of ``fps`` (groups
    are ``lens`` consecutive entries from ``starts``), vectorised over the groups marked
    ``small`` (others get 0, 0), :data:`PAIRS_AT_ONCE` member pairs at a time. The
    medoid minimises the sum of distances to the members, ties to the earliest member,
    exactly like ``describe_family``."""
    n_groups = len(starts)
    centre = np.zeros(n_groups, np.int64)
    diameter = np.zeros(n_groups, np.int64)
    chosen = np.flatnonzero(small)
    if not len(chosen):
        return centre, diameter
    for part in _passes(chosen, lens):
        centre[part], diameter[part] = _stats_of(fps, starts[part], lens[part])
    return centre, diameter


def run_diameters(fps: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The diameter (largest distance between two members) of every group of ``fps``
    (``lens`` consecutive entries from ``starts``), :data:`PAIRS_AT_ONCE` member pairs at
    a time. Meant for small groups: a group of n members costs n*n pairs."""
    diameter = np.zeros(len(starts), np.int64)
    for part in _passes(np.arange(len(starts)), lens):
        g_starts, g_lens = starts[part], lens[part]
        _, m_len, _, dist = _pair_distances(fps, g_starts, g_lens)
        farthest = np.maximum.reduceat(dist, np.cumsum(m_len) - m_len)  # per member
        diameter[part] = np.maximum.reduceat(farthest, np.cumsum(g_lens) - g_lens)
    return diameter


def _passes(chosen: np.ndarray, lens: np.ndarray) -> Iterator[np.ndarray]:
    """``chosen`` (group indices) cut into consecutive parts of about
    :data:`PAIRS_AT_ONCE` member pairs (a group larger than that is a part alone)."""
    pairs = np.cumsum(lens[chosen].astype(np.int64) ** 2)
    begin = 0
    while begin < len(chosen):
        done = int(pairs[begin - 1]) if begin else 0
        end = max(begin + 1, int(np.searchsorted(pairs, done + PAIRS_AT_ONCE, side="right")))
        yield chosen[begin:end]
        begin = end


def _offsets(lens: np.ndarray) -> np.ndarray:
    """0, 1, ..., lens[0]-1, 0, 1, ..., lens[1]-1, ...: each entry's place in its group."""
    offsets: np.ndarray = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    return offsets


def _members(g_starts: np.ndarray, g_lens: np.ndarray) -> np.ndarray:
    """The positions of every member of the groups, group after group."""
    members: np.ndarray = np.repeat(g_starts, g_lens) + _offsets(g_lens)
    return members


def _pair_distances(
    fps: np.ndarray, g_starts: np.ndarray, g_lens: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (member, other member of its group) pair of the groups, member after
    member: the members' positions, each member's group size (its pairs), each pair's
    member (an index into the members) and distance."""
    member = _members(g_starts, g_lens)
    m_len = np.repeat(g_lens, g_lens)
    left = np.repeat(np.arange(len(member)), m_len)
    other = np.repeat(np.repeat(g_starts, g_lens), m_len) + _offsets(m_len)
    dist = popcount64(fps[member[left]] ^ fps[other]).astype(np.int64)
    return member, m_len, left, dist


def _stats_of(
    fps: np.ndarray, g_starts: np.ndarray, g_lens: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Medoid position and diameter of the groups ``g_starts``/``g_lens`` in one pass."""
    member, m_len, left, dist = _pair_distances(fps, g_starts, g_lens)
    sums = np.bincount(left, weights=dist, minlength=len(member)).astype(np.int64)
    m_first = np.cumsum(m_len) - m_len  # each member's first pair
    farthest = np.maximum.reduceat(dist, m_first)
    g_first = np.cumsum(g_lens) - g_lens  # each group's first member
    diameter = np.maximum.reduceat(farthest, g_first)
    group_of = np.repeat(np.arange(len(g_starts)), g_lens)
    order = np.lexsort((member, sums, group_of))  # per group: smallest sum, then earliest
    centre = member[order[g_first]] - g_starts
    return centre, diameter


def families_of_runs(
    names: Sequence[str],
    fps: np.ndarray,
    group: np.ndarray,
    rank: np.ndarray,
    mode: Mode,
    star_centre: Callable[[int], tuple[str, int]],
    reuse: Mapping[str, Family] | None = None,
) -> list[Family]:
    """The families of 2+ members formed by runs of equal ``group`` values, in ditto's order.

    ``names[i]`` (sorted within each run), ``fps[i]`` and ``group[i]`` describe entry
    ``i``; entries of one family are consecutive. ``rank[i]`` orders the families of one
    size by their first entry (its position in id order). In chain mode a family's centre
    is its medoid; in star mode ``star_centre(g)`` gives the id and fingerprint of the
    centre of group ``g``. A family of ``reuse`` (first member -> family) with as many
    members as the run starting with that member is listed as that same object: callers
    pass families of nested groupings (chain families at another k), where that means
    the same members."""
    if not len(names):
        return []
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lens = np.diff(np.r_[starts, len(names)])
    small = lens <= VECTOR_FAMILY
    centre_at, diameter = group_stats(fps, starts, lens, small)
    group_at = group[starts]
    out: list[Family] = []
    # ditto's order: size descending, then the sorted member lists, which for disjoint
    # families is the order of their first (smallest) members; Python values are made a
    # slice of families at a time (a whole listing's would be ~40 MB at a million)
    order = np.lexsort((rank[starts], -lens))
    for lo in range(0, len(order), _FAMILIES_AT_ONCE):
        part = order[lo : lo + _FAMILIES_AT_ONCE]
        for s, size, is_small, centre_i, diam, g in zip(
            starts[part].tolist(), lens[part].tolist(), small[part].tolist(),
            centre_at[part].tolist(), diameter[part].tolist(), group_at[part].tolist(),
            strict=True,
        ):
            if reuse:
                same = reuse.get(names[s])
                if same is not None and len(same.members) == size:
                    out.append(same)
                    continue
            members = tuple(names[s : s + size])
            if mode == "chain":
                if is_small:
                    out.append(Family(members, members[centre_i], diam))
                else:
                    centre, d, exact = describe_family(members, fps[s : s + size])
                    out.append(Family(members, centre, d, exact))
            else:
                centre, centre_fp = star_centre(g)
                if is_small:
                    out.append(Family(members, centre, diam))
                else:
                    d, exact = family_diameter(fps[s : s + size], centre_fp)
                    out.append(Family(members, centre, d, exact))
    return out
