"""Near-duplicate families: ditto-compatible clusters and per-family statistics.

``clusters`` reproduces ditto's ``Index.Clusters`` over positions (duplicate ids are
separate entries). ``Family`` is what the UI shows: members, a representative centre and
the diameter. The grouping itself works on the graph of *distinct* fingerprints, so
thousands of identical documents cost one node, not a quadratic clique.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.pairs import all_pairs, iter_unique_pairs

__all__ = [
    "MODES",
    "FamilyLike",
    "Mode",
    "as_mode",
    "EXACT_STATS_LIMIT",
    "Family",
    "all_pairs",
    "clusters",
    "components",
    "components_of_chunks",
    "describe_family",
    "family_diameter",
    "majority_fingerprint",
    "order_groups",
]


#: How near documents are grouped into families: ``chain`` (connected components: a
#: family holds every document reachable in steps of at most k bits, as ditto's
#: ``Clusters``) or ``star`` (each family within k of its centre).
Mode = Literal["chain", "star"]
MODES: tuple[Mode, ...] = ("chain", "star")


def as_mode(value: str) -> Mode:
    """``value`` as a :data:`Mode`; ValueError naming the modes otherwise."""
    for mode in MODES:
        if value == mode:
            return mode
    raise ValueError(f"mode must be one of {MODES}, got {value!r}")


class FamilyLike(Protocol):
    """What lists, exports and reports need of a family (:class:`Family` meets it)."""

    @property
    def members(self) -> tuple[str, ...]:
        """The member ids in code-point order (never empty)."""
        ...

    @property
    def centre(self) -> str: ...

    @property
    def diameter(self) -> int: ...

    @property
    def size(self) -> int: ...

#: Families with more distinct fingerprints than this get an approximate centre and an
#: upper-bound diameter (``Family.diameter_exact`` is False); below it both are exact.
EXACT_STATS_LIMIT = 4096

_U64 = np.uint64
_SMALL_FAMILY = 24  # below this, plain Python ints beat numpy's per-call overhead


@dataclass(frozen=True, slots=True)
class Family:
    """One near-duplicate family.

    ``members`` are sorted in code-point order and never empty; ``centre`` is one of
    them (the medoid in chain mode, the star centre in star mode); ``diameter`` is the
    maximum pairwise Hamming distance between members (an upper bound when
    ``diameter_exact`` is False, which happens only for families with more than
    ``EXACT_STATS_LIMIT`` distinct fingerprints).
    """

    members: tuple[str, ...]
    centre: str
    diameter: int
    diameter_exact: bool = field(default=True, compare=False)

    @property
    def size(self) -> int:
        return len(self.members)


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected-component label (int32, ``0..c-1``) of each of ``n`` nodes given edges
    ``a[i] -- b[i]``. Labels are numbered by smallest node, so they are deterministic."""
    if n == 0:
        return np.empty(0, np.int32)
    if len(a) == 0:
        return np.arange(n, dtype=np.int32)
    # scipy is imported here, not at module level: it costs ~0.25 s of start-up otherwise
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=False)
    found: np.ndarray = labels.astype(np.int32, copy=False)
    return found


#: Edges folded into the component labels at a time by :func:`components_of_chunks`.
_FOLD = 1 << 20


def components_of_chunks(
    n: int, chunks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]
) -> np.ndarray:
    """:func:`components` (same labels) of the edges ``a[i] -- b[i]`` given in chunks
    ``(a, b, _)``, folded into the labels :data:`_FOLD` edges at a time: memory is the
    labels plus one chunk, whatever the number of edges. An edge whose ends already
    share a label costs two lookups."""
    root = np.arange(n, dtype=np.int64)  # every node's component, as its smallest node
    remap = np.arange(n, dtype=np.int64)
    for a, b, _ in chunks:
        for s in range(0, len(a), _FOLD):
            ra, rb = root[a[s : s + _FOLD]], root[b[s : s + _FOLD]]
            apart = ra != rb
            if not apart.any():
                continue
            ends = np.concatenate((ra[apart], rb[apart]))
            nodes, inv = np.unique(ends, return_inverse=True)
            half = len(ends) // 2
            joined = components(len(nodes), inv[:half], inv[half:])
            smallest = np.full(int(joined.max()) + 1, n, np.int64)
            np.minimum.at(smallest, joined, nodes)
            remap[nodes] = smallest[joined]
            root = remap[root]
            remap[nodes] = nodes
    if n == 0:
        return np.empty(0, np.int32)
    _, labels = np.unique(root, return_inverse=True)
    found: np.ndarray = labels.astype(np.int32, copy=False)
    return found


def order_groups(groups: list[list[str]]) -> list[list[str]]:
    """Sort ids inside each group (code-point order), then groups by size descending and
    by their sorted id lists: ditto's deterministic cluster order. Sorts in place."""
    for g in groups:
        g.sort()
    groups.sort(key=lambda g: (-len(g), g))
    return groups


def clusters(
    ids: Sequence[str], fps: np.ndarray | Sequence[int], k: int, min_size: int = 1
) -> list[list[str]]:
    """ditto's ``Clusters(k, min)`` over positions: connected components of the graph
    "distance <= k" (single linkage), groups of at least ``min_size`` members, ids sorted
    in each group, groups by size descending then by their sorted id lists.

    Duplicate ids are separate entries (an id listed twice appears twice). ``k < 0``
    links nothing (every entry is its own group). ``len(ids) != len(fps)`` raises
    ``ValueError``.
    """
    arr = (
        np.asarray(fps, dtype=_U64)
        if not isinstance(fps, np.ndarray)
        else fps.astype(_U64, copy=False)
    )
    if len(ids) != len(arr):
        raise ValueError(f"{len(ids)} ids but {len(arr)} fingerprints")
    n = len(arr)
    if n == 0:
        return []
    u, inv = np.unique(arr, return_inverse=True)
    if k >= 0:  # the pairs are folded in table by table, never all held at once
        labels = components_of_chunks(len(u), iter_unique_pairs(u, min(k, 64)))[inv]
    else:
        labels = np.arange(n, dtype=np.int32)
    sizes = np.bincount(labels)
    keep = sizes[labels] >= max(min_size, 1)
    pos = np.flatnonzero(keep)
    if len(pos) == 0:
        return []
    pos = pos[np.argsort(labels[pos], kind="stable")]
    lab = labels[pos]
    cuts = np.flatnonzero(lab[1:] != lab[:-1]) + 1
    ids_list = list(ids)
    groups = [[ids_list[p] for p in chunk.tolist()] for chunk in np.split(pos, cuts)]
    return order_groups(groups)


#: distinct fingerprints whose bits are counted at once for the majority (8 MB a block;
#: a family of a million would otherwise take 512 MB)
_MAJORITY_BLOCK = 1 << 14


def majority_fingerprint(u: np.ndarray, weights: np.ndarray) -> np.uint64:
    """The bitwise majority of fingerprints ``u`` (uint64), ``u[i]`` counted
    ``weights[i]`` times: a bit is set when more than half the weight has it."""
    ones = np.zeros(64, np.int64)  # the weight with each bit set, a block at a time
    shifts = np.arange(64, dtype=_U64)
    w = np.asarray(weights, np.int64)
    for s in range(0, len(u), _MAJORITY_BLOCK):
        bits = ((u[s : s + _MAJORITY_BLOCK, None] >> shifts) & _U64(1)).astype(np.int64)
        ones += w[s : s + _MAJORITY_BLOCK] @ bits
    majority = _U64(0)
    for bit in np.flatnonzero(2 * ones > int(w.sum())).tolist():
        majority |= _U64(1) << _U64(bit)
    return majority


def describe_family(
    members: Sequence[str], fps: np.ndarray | Sequence[int]
) -> tuple[str, int, bool]:
    """Centre (medoid), diameter and exactness for a family.

    ``members`` must be sorted (code-point order) and ``fps[i]`` is ``members[i]``'s
    fingerprint. The medoid minimises the sum of distances to all members (counting
    identical fingerprints with their multiplicity); ties go to the smallest id. Up to
    ``EXACT_STATS_LIMIT`` distinct fingerprints everything is exact; above it the
    centre is the member nearest to the bitwise-majority fingerprint and the diameter is
    the triangle-inequality bound ``min(64, 2 * max distance to the centre)``.
    """
    if len(members) == 0:
        raise ValueError("empty family")
    if len(members) != len(fps):
        raise ValueError(f"{len(members)} members but {len(fps)} fingerprints")
    if len(members) <= _SMALL_FAMILY:
        values = [int(v) for v in fps]
        small_sums = [sum((v ^ w).bit_count() for w in values) for v in values]
        diameter = max((v ^ w).bit_count() for v in values for w in values)
        best = min(range(len(values)), key=lambda i: (small_sums[i], i))
        return members[best], diameter, True
    fps = np.asarray(fps, dtype=_U64)
    # first occurrence in sorted-id order = smallest id holding that fingerprint
    u, first, counts = np.unique(fps, return_index=True, return_counts=True)
    if len(u) == 1:
        return members[0], 0, True
    if len(u) <= EXACT_STATS_LIMIT:
        sums = np.zeros(len(u), np.int64)
        diameter = 0
        step = max(1, 2_000_000 // len(u))
        w = counts.astype(np.int64)
        for s in range(0, len(u), step):
            block = popcount64(u[s : s + step, None] ^ u[None, :]).astype(np.int64)
            sums[s : s + step] = block @ w
            diameter = max(diameter, int(block.max()))
        best = np.lexsort((first, sums))[0]
        return members[int(first[best])], diameter, True
    dist = popcount64(u ^ majority_fingerprint(u, counts))
    best = np.lexsort((first, dist))[0]
    radius = int(popcount64(u ^ u[best]).max())
    return members[int(first[best])], min(64, 2 * radius), False


def family_diameter(fps: np.ndarray, centre_fp: int) -> tuple[int, bool]:
    """Maximum pairwise distance among ``fps`` and whether it is exact.

    Exact up to ``EXACT_STATS_LIMIT`` distinct fingerprints; above it, the bound
    ``min(64, 2 * max distance to centre_fp)`` with ``False``.
    """
    u = np.unique(np.asarray(fps, dtype=_U64))
    if len(u) <= 1:
        return 0, True
    if len(u) <= EXACT_STATS_LIMIT:
        diameter = 0
        step = max(1, 2_000_000 // len(u))
        for s in range(0, len(u), step):
            diameter = max(diameter, int(popcount64(u[s : s + step, None] ^ u[None, :]).max()))
        return diameter, True
    return min(64, 2 * int(popcount64(u ^ _U64(centre_fp)).max())), False
