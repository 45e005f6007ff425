"""A chain family as a tree by k, and what every k of a corpus looks like.

Single linkage nests: a chain family at k is a union of chain families at k - 1. The tree
of a family at k shows that nesting: its root is the family, and the children of a node
are its sub-families at the highest k below the node's own at which it splits (levels
where it stays whole are skipped: they would repeat the node, one line per k, with
nothing new to read). A node that never splits is a leaf: documents with one fingerprint
(a family at k = 0) or one document. Every node has its size, its diameter (the largest
distance between two of its documents) and its representative (the medoid, as
:func:`~ditto_tui.core.families.clusters.describe_family` chooses it). Nodes at level j are exactly
the chain families at k = j restricted to the root family.

The statistics come from the distances between the family's distinct fingerprints, each
pair looked at once for the whole tree: a node's diameter and its members' distance sums
are those of its children plus the pairs across children. As for
:func:`~ditto_tui.core.families.clusters.describe_family`, a node with more than
``EXACT_STATS_LIMIT`` distinct fingerprints gets an approximate representative and an
upper-bound diameter (``diameter_exact`` False).

:func:`sweep_stats` gives, for each k of an index's merge order, the families of at
least two documents, the documents in them, the largest family, the largest diameter and
how many families are too wide for their k (:func:`~ditto_tui.core.families.notes.chain_too_wide`).

Pure functions of ids and fingerprints (or of an index's :class:`MergeLevels`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from ditto_tui.core.families.clusters import EXACT_STATS_LIMIT, majority_fingerprint
from ditto_tui.core.families.notes import chain_too_wide
from ditto_tui.core.families.stats import run_diameters
from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.hierarchy import level_labels
from ditto_tui.core.index.pairs import unique_pairs

__all__ = ["SweepRow", "TreeNode", "family_forest", "family_tree", "sweep_stats"]

_U64 = np.uint64
_BLOCK = 1 << 20  # entries of one block of distances
_TAIL = 8  # children smaller than this are compared all together, not one by one


@dataclass(frozen=True, eq=False)
class TreeNode:
    """One family of the tree: at ``k``, ``size`` documents, ``diameter`` (an upper bound
    when ``diameter_exact`` is False), ``representative`` (one of them). ``children`` are
    its sub-families at the next k down where it splits, largest first (then by their
    first member); a leaf has none and holds its documents in ``leaf_members`` (sorted),
    which share ``fingerprint`` (None for an inner node)."""

    k: int
    size: int
    diameter: int
    diameter_exact: bool
    representative: str
    children: tuple[TreeNode, ...] = ()
    leaf_members: tuple[str, ...] = ()
    fingerprint: int | None = None

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def too_wide(self) -> bool:
        """Whether this node is a chain family too wide for its k (exact diameters only)."""
        return self.diameter_exact and self.size > 1 and chain_too_wide(self.diameter, self.k)

    @cached_property
    def members(self) -> tuple[str, ...]:
        """Every document of the node, sorted (code-point order)."""
        if not self.children:
            return self.leaf_members
        out: list[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.children:
                stack.extend(node.children)
            else:
                out.extend(node.leaf_members)
        out.sort()
        return tuple(out)

    def walk(self) -> Iterator[TreeNode]:
        """This node and every node below it, depth first (children in order)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    @property
    def node_count(self) -> int:
        return sum(1 for _ in self.walk())


@dataclass(frozen=True)
class SweepRow:
    """The chain families at ``k`` of a corpus: ``families`` of at least two documents,
    the ``documents`` in them, the ``largest`` family (documents; 0 without families),
    the largest ``diameter`` among them (an upper bound when ``diameter_exact`` is False,
    for a family of more than ``EXACT_STATS_LIMIT`` distinct fingerprints), and how many
    are ``too_wide`` for k (:func:`~ditto_tui.core.families.notes.chain_too_wide`, exact
    diameters only)."""

    k: int
    families: int
    documents: int
    largest: int
    diameter: int
    diameter_exact: bool
    too_wide: int


# --------------------------------------------------------------------------- distances


def _blocks(f: np.ndarray, r0: int, r1: int, c0: int) -> Iterator[tuple[int, int, np.ndarray]]:
    """Distances from ``f[r0:r1]`` to ``f[c0:]`` in row blocks: ``(start, end, block)``."""
    cols = len(f) - c0
    step = max(1, _BLOCK // max(cols, 1))
    for s in range(r0, r1, step):
        e = min(r1, s + step)
        yield s, e, popcount64(f[s:e, None] ^ f[None, c0:])


def _merge(
    parts: Sequence[np.ndarray],
    fps: np.ndarray,
    weights: np.ndarray,
    diameters: Sequence[int],
    sums: Sequence[np.ndarray] | None,
) -> tuple[np.ndarray, np.ndarray | None, int]:
    """The union of ``parts`` (node index arrays, largest first) with their
    ``diameters`` and, when given, each node's distance ``sums`` to its part's documents
    (``weights`` documents per node): ``(nodes, sums over the union or None, diameter)``.
    Only the pairs across parts are measured: a part of ``_TAIL`` nodes or more against all
    the later ones; the small parts at the end together, all their pairs."""
    nodes = np.concatenate(parts)
    f = fps[nodes]
    w = weights[nodes].astype(np.int64)
    n = len(nodes)
    head = 0
    while head < len(parts) and len(parts[head]) >= _TAIL:
        head += 1
    starts = np.cumsum([0, *(len(p) for p in parts)]).tolist()
    tail = starts[head]
    out = np.zeros(n, np.int64) if sums is not None else None
    if out is not None and sums is not None and head:
        out[:tail] = np.concatenate(sums[:head])
    diameter = max(diameters[:head], default=0)
    for i in range(head):
        e = starts[i + 1]
        if e >= n:
            continue
        for s, t, block in _blocks(f, starts[i], e, e):
            diameter = max(diameter, int(block.max()))
            if out is not None:
                out[s:t] += block @ w[e:]
                out[e:] += w[s:t] @ block
    if tail < n:
        for s, t, block in _blocks(f, tail, n, tail):
            diameter = max(diameter, int(block.max()))
            if out is not None:
                out[s:t] += block @ w[tail:]
    return nodes, out, diameter


def _approximate(nodes: np.ndarray, fps: np.ndarray, weights: np.ndarray,
                 first: np.ndarray) -> tuple[int, int]:
    """``(centre node, diameter bound)`` of a large family, as ``describe_family`` does:
    the node nearest the bitwise-majority fingerprint (ties by first id), and twice the
    largest distance to it (at most 64)."""
    f = fps[nodes]
    dist = popcount64(f ^ majority_fingerprint(f, weights[nodes]))
    best = int(np.lexsort((first[nodes], dist))[0])
    radius = int(popcount64(f ^ f[best]).max())
    return int(nodes[best]), min(64, 2 * radius)


# --------------------------------------------------------------------------- trees


class _Forest:
    """Documents grouped into units (documents that are never apart: one fingerprint, and
    in no ignored pair), with the single-linkage labels of the units at every level."""

    def __init__(self, ids: Sequence[str], fps: np.ndarray, k: int,
                 ignored: Iterable[tuple[str, str]]) -> None:
        n = len(ids)
        self.ids = ids
        self.k = k
        order = sorted(range(n), key=ids.__getitem__)
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n, dtype=np.int64)
        u, doc_u = np.unique(fps, return_inverse=True)
        doc_u = doc_u.reshape(-1).astype(np.int64)
        a, b, d = unique_pairs(u, k)
        ia, ib = self._ignored(ids, ignored)
        self.unit_fp: np.ndarray = u
        if len(ia):
            unit = self._ignore_levels(doc_u, u, fps, a, b, d, ia, ib)
        else:
            unit = doc_u
            self.labels: np.ndarray = level_labels(len(u), a, b, d, k)
        # units in ascending order of their documents' ranks (ties cannot happen)
        by_unit = np.lexsort((rank, unit))
        units_sorted = unit[by_unit]
        cuts = np.flatnonzero(units_sorted[1:] != units_sorted[:-1]) + 1
        self.docs: list[list[int]] = [g.tolist() for g in np.split(by_unit, cuts)]  # per unit
        self.counts = np.bincount(unit, minlength=len(self.unit_fp)).astype(np.int64)
        self.first = np.full(len(self.unit_fp), n, np.int64)
        np.minimum.at(self.first, unit, rank)
        self.unit_ids = np.unique(unit)  # units that hold documents, ascending

    @staticmethod
    def _ignored(ids: Sequence[str], ignored: Iterable[tuple[str, str]]
                 ) -> tuple[np.ndarray, np.ndarray]:
        pairs = [(x, y) for x, y in ignored if x != y]
        if not pairs:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        pos = {doc_id: i for i, doc_id in enumerate(ids)}
        got = [(pos[x], pos[y]) for x, y in pairs if x in pos and y in pos]
        ia = np.array([p[0] for p in got], np.int64)
        ib = np.array([p[1] for p in got], np.int64)
        return ia, ib

    def _ignore_levels(self, doc_u: np.ndarray, u: np.ndarray, fps: np.ndarray,
                       a: np.ndarray, b: np.ndarray, d: np.ndarray, ia: np.ndarray,
                       ib: np.ndarray) -> np.ndarray:
        """Units when some documents are ignored with others: each of those is a unit of
        its own; labels per level from :func:`~ditto_tui.core.families.ignore_aware.ignore_aware_labels`."""
        from ditto_tui.core.families.ignore_aware import ignore_aware_labels

        n_u = len(u)
        special = np.unique(np.concatenate([ia, ib]))
        slot = np.full(len(doc_u), -1, np.int64)
        slot[special] = np.arange(len(special), dtype=np.int64)
        unit = np.where(slot < 0, doc_u, n_u + slot)
        n_units = n_u + len(special)
        self.unit_fp = np.concatenate([u, fps[special]])
        labels = np.zeros((self.k + 1, n_units), np.int64)
        labels[:] = np.arange(n_units)  # units without documents stay alone
        for j in range(self.k + 1):
            labels[j, unit] = ignore_aware_labels(doc_u, n_u, a, b, d, j, ia, ib)
        self.labels = labels
        return unit

    # ------------------------------------------------------------------ building

    def roots(self, min_size: int) -> list[tuple[np.ndarray, int]]:
        """Unit arrays of the families at k of at least ``min_size`` documents."""
        units = self.unit_ids
        lab = self.labels[self.k, units]
        order = np.argsort(lab, kind="stable")
        lab_sorted = lab[order]
        starts = np.flatnonzero(np.append(True, lab_sorted[1:] != lab_sorted[:-1]))
        ends = np.append(starts[1:], len(units))
        grouped = units[order]
        sizes = np.add.reduceat(self.counts[grouped], starts) if len(starts) else starts
        keep = np.flatnonzero(sizes >= max(min_size, 1)).tolist()
        return [(grouped[starts[i]:ends[i]], int(sizes[i])) for i in keep]

    def build(self, units: np.ndarray, level: int) -> tuple[TreeNode, np.ndarray, np.ndarray | None]:
        """The tree of ``units`` (one family at ``level``): ``(node, its units, the
        units' distance sums or None when approximate)``."""
        if len(units) > 1:
            sub = self.labels[:level, units]
            split = np.flatnonzero((sub != sub[:, :1]).any(axis=1)) if level else np.empty(0, np.int64)
        else:
            split = np.empty(0, np.int64)
        if not len(split):
            return self._leaf(units, level)
        below = int(split[-1])
        lab = self.labels[below, units]
        order = np.argsort(lab, kind="stable")
        lab_sorted = lab[order]
        cuts = np.flatnonzero(lab_sorted[1:] != lab_sorted[:-1]) + 1
        return self.join([self.build(g, below) for g in np.split(units[order], cuts)], level)

    def join(self, built: list[tuple[TreeNode, np.ndarray, np.ndarray | None]], level: int
             ) -> tuple[TreeNode, np.ndarray, np.ndarray | None]:
        """The node at ``level`` whose children are ``built`` (as :meth:`build` returns
        them): its statistics from theirs and the distances across them."""
        built.sort(key=lambda c: (-c[0].size, int(self.first[c[1]].min())))
        children = tuple(c[0] for c in built)
        size = sum(c.size for c in children)
        parts = [c[1] for c in built]
        child_sums = [c[2] for c in built]
        if sum(len(p) for p in parts) > EXACT_STATS_LIMIT or any(x is None for x in child_sums):
            nodes = np.concatenate(parts)
            centre, diameter = _approximate(nodes, self.unit_fp, self.counts, self.first)
            rep = self.ids[self.docs_of(centre)[0]]
            return TreeNode(level, size, diameter, False, rep, children), nodes, None
        nodes, sums, diameter = _merge(parts, self.unit_fp, self.counts,
                                       [c.diameter for c in children],
                                       [x for x in child_sums if x is not None])
        assert sums is not None
        best = int(nodes[np.lexsort((self.first[nodes], sums))[0]])
        rep = self.ids[self.docs_of(best)[0]]
        return TreeNode(level, size, diameter, True, rep, children), nodes, sums

    def docs_of(self, unit: int) -> list[int]:
        return self.docs[int(np.searchsorted(self.unit_ids, unit))]

    def _leaf(self, units: np.ndarray, level: int) -> tuple[TreeNode, np.ndarray, np.ndarray]:
        members = tuple(sorted(self.ids[i] for x in units.tolist() for i in self.docs_of(x)))
        fp = int(self.unit_fp[units[0]])
        node = TreeNode(level, len(members), 0, True, members[0], (), members, fp)
        return node, units, np.zeros(len(units), np.int64)


def _forest(ids: Sequence[str], fps: np.ndarray | Sequence[int], k: int,
            ignored: Iterable[tuple[str, str]]) -> _Forest:
    arr = np.asarray(fps, dtype=_U64) if not isinstance(fps, np.ndarray) else fps.astype(_U64, copy=False)
    if len(ids) != len(arr):
        raise ValueError(f"{len(ids)} ids but {len(arr)} fingerprints")
    return _Forest(list(ids), arr, max(0, min(k, 64)), ignored)


def family_forest(
    ids: Sequence[str],
    fps: np.ndarray | Sequence[int],
    k: int,
    *,
    min_size: int = 2,
    ignored: Iterable[tuple[str, str]] = (),
) -> list[TreeNode]:
    """Every chain family at ``k`` (0..64) of the documents ``ids`` with fingerprints
    ``fps`` that holds at least ``min_size`` documents, each as a tree of its
    sub-families down to k = 0, in ditto's order (size descending, then by members).
    ``ignored`` pairs of ids are never linked directly (the review's "not duplicates").
    Ids must be unique."""
    if not len(ids):
        return []
    if len(set(ids)) != len(ids):
        raise ValueError("the document ids are not unique")
    forest = _forest(ids, fps, k, ignored)
    trees = [forest.build(units, forest.k)[0] for units, _ in forest.roots(min_size)]
    trees.sort(key=lambda t: (-t.size, t.members[0]))
    return trees


def family_tree(
    ids: Sequence[str],
    fps: np.ndarray | Sequence[int],
    k: int,
    *,
    ignored: Iterable[tuple[str, str]] = (),
) -> TreeNode:
    """The tree of one chain family at ``k``: ``ids`` (unique, at least one) with their
    ``fps``. Documents that are not one family at ``k`` get a root at ``k`` that holds them
    all, with their families at ``k`` as its children."""
    if not len(ids):
        raise ValueError("a family has at least one document")
    forest = _forest(ids, fps, k, ignored)
    built = [forest.build(units, forest.k) for units, _ in forest.roots(1)]
    return built[0][0] if len(built) == 1 else forest.join(built, forest.k)[0]


# --------------------------------------------------------------------------- sweep


class MergeLevels(Protocol):
    """An index's merge order: distinct fingerprints ``fps`` (nodes) with ``counts``
    documents each (0: a dead node) and ``labels[k][n]``, the node representing ``n``'s
    family at k, for k = 0..max_k (a :class:`~ditto_tui.core.families.paths.NearGraph`
    is one; an index may give the labels one k at a time)."""

    @property
    def fps(self) -> np.ndarray: ...

    @property
    def counts(self) -> np.ndarray: ...

    @property
    def labels(self) -> Sequence[np.ndarray]: ...


def sweep_stats(graph: MergeLevels) -> list[SweepRow]:
    """One :class:`SweepRow` per k = 0..max_k of ``graph`` (the index's merge order).

    Diameters are carried up the merge order: a family that did not merge at k keeps its
    diameter; one that did is the largest of its parts' diameters and the distances
    across its parts (each pair of distinct fingerprints measured once over all k), or,
    beyond ``EXACT_STATS_LIMIT`` distinct fingerprints, the bound of ``describe_family``."""
    fps = np.asarray(graph.fps, dtype=_U64)
    counts = np.asarray(graph.counts, dtype=np.int64)
    n = len(fps)
    # only nodes of a family at max_k: the others are alone at every k (saves memory)
    levels = graph.labels
    if len(levels):
        widest = np.asarray(levels[-1])
        grouped = np.bincount(widest, weights=counts, minlength=n)[widest] >= 2
        live = np.flatnonzero((counts > 0) & grouped)
    else:
        live = np.flatnonzero(counts > 0)
    diameter = np.zeros(n, np.int64)
    exact = np.ones(n, bool)
    first = np.arange(n, dtype=np.int64)  # ties of the approximate centre: by node
    rows: list[SweepRow] = []
    prev: np.ndarray | None = None
    for k in range(len(levels)):
        cur = np.asarray(levels[k])[live]
        if prev is not None and len(live):
            _merge_level(cur, prev, live, fps, counts, first, diameter, exact)
        prev = cur
        sizes = np.bincount(cur, weights=counts[live], minlength=n).astype(np.int64) if len(live) else np.zeros(0, np.int64)
        fam = np.flatnonzero(sizes >= 2)
        if not len(fam):
            rows.append(SweepRow(k, 0, 0, 0, 0, True, 0))
            continue
        d, ex = diameter[fam], exact[fam]
        top = int(d.max())
        # the rule of the family list, asked once per distinct diameter (at most 65)
        values = np.unique(d)
        flagged = values[[chain_too_wide(int(v), k) for v in values.tolist()]]
        wide = ex & np.isin(d, flagged)
        rows.append(SweepRow(
            k, len(fam), int(sizes[fam].sum()), int(sizes[fam].max()), top,
            bool((ex & (d == top)).any()), int(np.count_nonzero(wide)),
        ))
    return rows


def _merge_level(cur: np.ndarray, prev: np.ndarray, live: np.ndarray, fps: np.ndarray,
                 counts: np.ndarray, first: np.ndarray, diameter: np.ndarray,
                 exact: np.ndarray) -> None:
    """Diameters (by label) of the families at this level that merged families of the
    level below (labels ``prev``); a family's label is its smallest node, so one that did
    not merge keeps its label and its diameter. Small merged families are measured all
    together (every pair, in one vectorised pass); larger ones part against part."""
    order = np.lexsort((prev, cur))
    c, p = cur[order], prev[order]
    new_part = np.append(True, (c[1:] != c[:-1]) | (p[1:] != p[:-1]))
    fam_starts = np.flatnonzero(np.append(True, c[1:] != c[:-1]))
    fam_ends = np.append(fam_starts[1:], len(c))
    parts_per = np.add.reduceat(new_part.astype(np.int64), fam_starts)
    merged = np.flatnonzero(parts_per > 1)
    if not len(merged):
        return
    sizes = fam_ends[merged] - fam_starts[merged]
    # a merge of exact parts whose nodes are few: every pair at once
    part_exact = exact[p[new_part]]
    fam_of_part = np.cumsum(np.append(True, c[1:] != c[:-1]))[new_part] - 1
    all_exact = np.ones(len(fam_starts), bool)
    np.logical_and.at(all_exact, fam_of_part, part_exact)
    small = (sizes <= _SMALL_MERGE) & all_exact[merged]
    if small.any():
        _small_merges(fam_starts[merged[small]], sizes[small], c, order, live, fps, diameter, exact)
    for f_i in merged[~small].tolist():
        s, e = int(fam_starts[f_i]), int(fam_ends[f_i])
        part_starts = (np.flatnonzero(new_part[s:e]) + s).tolist()
        bounds = [*part_starts, e]
        parts = [live[order[x:y]] for x, y in zip(bounds[:-1], bounds[1:], strict=True)]
        labels_p = [int(p[x]) for x in part_starts]
        label = int(c[s])
        total = e - s
        if total > EXACT_STATS_LIMIT or not all(exact[q] for q in labels_p):
            _, bound = _approximate(np.concatenate(parts), fps, counts, first)
            diameter[label], exact[label] = bound, False
            continue
        ranked = sorted(zip(parts, labels_p, strict=True), key=lambda t: -len(t[0]))
        _, _, d = _merge([q for q, _ in ranked], fps, counts,
                         [int(diameter[q]) for _, q in ranked], None)
        diameter[label], exact[label] = d, True


_SMALL_MERGE = 48  # merged families of at most this many distinct fingerprints: vectorised


def _small_merges(starts: np.ndarray, sizes: np.ndarray, c: np.ndarray, order: np.ndarray,
                  live: np.ndarray, fps: np.ndarray, diameter: np.ndarray,
                  exact: np.ndarray) -> None:
    """The exact diameters of the merged families starting at ``starts`` (positions in
    the sorted order, ``sizes`` nodes each): the largest distance over all their pairs
    (measured a bounded number of pairs at a time: :func:`run_diameters`)."""
    first = np.cumsum(sizes) - sizes  # each family's first node in ``f``
    pos = np.repeat(starts, sizes) + (np.arange(int(sizes.sum())) - np.repeat(first, sizes))
    f = fps[live[order[pos]]]
    best = run_diameters(f, first, sizes)
    labels = c[starts]
    diameter[labels] = best
    exact[labels] = True
