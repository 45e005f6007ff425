"""Single-linkage hierarchy ("merge order") over distinct fingerprints, for every k at once.

Pairs of distinct fingerprints within ``max_k`` are kept bucketed by distance
(:class:`Growable` arrays). :class:`Hierarchy` contracts the buckets level by level into the
single-linkage hierarchy (one components pass over the kept pairs), after which the
labels for any k are one O(n) scatter. Fingerprints added later are merged in
incrementally; a fingerprint that had pairs and disappears (it may have bridged two
families) forces a rebuild. :func:`merge_order` lists the merges themselves (Kruskal's
order) for explanations of why documents share a family.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ditto_tui.core.families.clusters import components
from ditto_tui.core.fingerprint import engine

__all__ = ["Growable", "Hierarchy", "level_labels", "merge_order"]

_U64 = np.uint64


class Growable:
    """An append-only int array with amortised O(1) appends."""

    __slots__ = ("data", "n")

    def __init__(self, dtype: type = np.uint32) -> None:
        self.data: np.ndarray = np.empty(16, dtype)
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        need = self.n + len(values)
        if need > len(self.data):
            grown = np.empty(max(need, 2 * len(self.data)), self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n : need] = values
        self.n = need

    def set(self, values: np.ndarray) -> None:
        self.data = np.array(values, dtype=self.data.dtype)
        if len(self.data) == 0:
            self.data = np.empty(16, self.data.dtype)
        self.n = len(values)

    def view(self) -> np.ndarray:
        return self.data[: self.n]


def grow(arr: np.ndarray, need: int, fill: int = 0) -> np.ndarray:
    if need <= len(arr):
        return arr
    grown = np.full(max(need, len(arr) + len(arr) // 4, 64), fill, arr.dtype)
    grown[: len(arr)] = arr
    return grown


def _contract(n: int, base: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Labels (smallest member) of the components of labelling ``base`` over ``n`` nodes
    (each label is the smallest node of its component) further joined by ``a -- b``."""
    if len(a) == 0:
        return base
    a, b = base[a], base[b]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    diff = lo != hi
    if not diff.any():
        return base
    packed = np.sort((lo[diff].astype(np.uint64) << _U64(32)) | hi[diff].astype(np.uint64))
    packed = packed[np.append(True, packed[1:] != packed[:-1])]  # distinct edges
    a = (packed >> _U64(32)).astype(np.int64)
    b = (packed & _U64(0xFFFFFFFF)).astype(np.int64)
    touched = np.zeros(n, bool)
    touched[a] = True
    touched[b] = True
    nodes = np.flatnonzero(touched)
    local = np.empty(n, np.int32)
    local[nodes] = np.arange(len(nodes), dtype=np.int32)
    comp = components(len(nodes), local[a], local[b])
    rep = np.full(int(comp.max()) + 1, n, np.int64)
    np.minimum.at(rep, comp, nodes)
    remap = np.arange(n, dtype=np.int32)
    remap[nodes] = rep[comp]
    merged: np.ndarray = remap[base]
    return merged


def level_labels(n: int, a: np.ndarray, b: np.ndarray, d: np.ndarray, top: int) -> np.ndarray:
    """Single-linkage labels of ``n`` nodes at every level 0..``top``: row ``j`` labels
    each node with the smallest node of its component in the graph of the edges
    ``a -- b`` with ``d <= j`` (for distinct fingerprints row 0 links nothing). Shape
    ``(top + 1, n)``, int32; one contraction per level over that level's edges only."""
    out = np.empty((max(top, 0) + 1, n), np.int32)
    cur = np.arange(n, dtype=np.int32)
    a, b, d = np.asarray(a), np.asarray(b), np.asarray(d).astype(np.int64)
    for j in range(0, max(top, 0) + 1):
        at = d <= 0 if j == 0 else d == j
        cur = _contract(n, cur, a[at].astype(np.int64), b[at].astype(np.int64))
        out[j] = cur
    return out


class Hierarchy:
    """The single-linkage hierarchy over the slots that have pairs ("active" slots).

    ``levels[d - 1, i]`` is the smallest local index in the component of local node ``i``
    at distance ``d``; ``active[i]`` is the slot of local node ``i``; ``local[slot]`` is
    ``i`` or -1. Valid while ``ok``; slots created since are queued with their neighbours
    (up to ``limit``, beyond which a rebuild is cheaper) and merged in by :meth:`refresh`.
    """

    def __init__(self, max_k: int, limit: int = 256) -> None:
        self.max_k = max_k
        self.limit = limit
        self.ok = False
        self.queue: list[tuple[int, np.ndarray, np.ndarray]] = []
        self.removed: list[int] = []  # slots with pairs that lost their last document
        self.n_active = 0
        self.active = np.empty(0, np.int32)
        self.local = np.empty(0, np.int32)
        self.levels = np.empty((max_k, 0), np.int32)

    def invalidate(self) -> None:
        """Rebuild from the pairs at the next :meth:`refresh`."""
        self.ok = False

    def new_slot(self, slot: int, nbrs: np.ndarray, dists: np.ndarray) -> None:
        """A new slot with pairs to the older ``nbrs`` at ``dists``."""
        if not self.ok or not len(nbrs):
            return
        if len(self.queue) < self.limit:
            self.queue.append((slot, nbrs, dists))
        else:  # cheaper to rebuild at the next relabelling than to keep queueing
            self.ok = False
            self.queue = []

    def dead_slot(self, slot: int) -> None:
        """``slot`` lost its last document: it may have bridged families. Its component
        (at the largest distance) is worked out again at the next :meth:`refresh`, alone;
        past ``limit`` such slots, or for a slot still queued, the whole hierarchy is."""
        if not (self.ok and self.touches(slot)):
            return
        if len(self.removed) < self.limit and slot < len(self.local) and self.local[slot] >= 0:
            self.removed.append(slot)
        else:
            self.ok = False
            self.removed = []

    def touches(self, slot: int) -> bool:
        """Whether ``slot`` has pairs the hierarchy knows of or will merge in (a slot
        without pairs can disappear without changing any family but its own)."""
        if slot < len(self.local) and self.local[slot] >= 0:
            return True
        return any(s == slot or slot in nbrs for s, nbrs, _ in self.queue)

    def refresh(self, n_u: int, buckets: Callable[[], list[tuple[np.ndarray, np.ndarray]]],
                raw: Callable[[], tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]]
                ) -> None:
        """Bring the hierarchy up to date over ``n_u`` slots; ``buckets()`` gives the live
        pairs at each distance 1..max_k (called only for a rebuild), ``raw()`` the stored
        pairs at each distance (int32 views, dead slots included) and the mask of the live
        slots (called when slots died)."""
        if self.ok:
            for slot, nbrs, dists in self.queue:
                self._add(n_u, slot, nbrs, dists)
            if self.removed:
                self._split(*raw())
        else:
            self._build(n_u, buckets())
        self.queue = []
        self.removed = []

    def labels(self, k: int, n_u: int) -> np.ndarray:
        """Component label of every slot at ``k`` (1 <= k <= max_k, or 0: itself)."""
        got = np.arange(n_u, dtype=np.int32)
        n_a = self.n_active
        if k > 0 and n_a:
            active = self.active[:n_a]
            got[active] = active[self.levels[k - 1, :n_a]]
        return got

    def _build(self, n_u: int, buckets: list[tuple[np.ndarray, np.ndarray]]) -> None:
        touched = np.zeros(n_u, bool)
        for a, b in buckets:
            touched[a] = True
            touched[b] = True
        active = np.flatnonzero(touched).astype(np.int32)
        local = np.empty(n_u, np.int32)
        local[active] = np.arange(len(active), dtype=np.int32)
        local[~touched] = -1
        levels = np.empty((self.max_k, len(active)), np.int32)
        cur = np.arange(len(active), dtype=np.int32)
        for d, (a, b) in enumerate(buckets):
            cur = _contract(len(active), cur, local[a], local[b])
            levels[d] = cur
        self.active, self.local, self.levels = active, local, levels
        self.n_active = len(active)
        self.ok = True

    def _split(self, pairs: list[tuple[np.ndarray, np.ndarray]], live: np.ndarray) -> None:
        """Work out again, at every distance, the components that held the ``removed``
        slots (at the largest distance, and so at every smaller one, nothing else can
        change): the same contraction as :meth:`_build`, over their members and the live
        ``pairs`` between them (found in one pass over each distance's pairs, in C when
        the compiled engine runs). A removed slot has no live pair left: it ends alone."""
        n_a = self.n_active
        top = self.levels[self.max_k - 1, :n_a]
        roots = np.unique(top[self.local[np.array(self.removed, np.int64)]])
        inside = np.isin(top, roots)
        members = np.flatnonzero(inside).astype(np.int32)  # sorted: position order = local order
        pos = np.full(n_a, -1, np.int32)
        pos[members] = np.arange(len(members), dtype=np.int32)
        among = np.zeros(len(live), np.uint8)
        among[self.active[members]] = 1
        among &= live.astype(np.uint8)
        module = engine.compiled()
        cur = np.arange(len(members), dtype=np.int32)
        for d, (a, b) in enumerate(pairs):
            sel: np.ndarray
            if module is not None:
                sel = np.frombuffer(module.pairs_within(a, b, among), np.uint32)
            else:
                sel = np.flatnonzero(among[a] & among[b])
            cur = _contract(len(members), cur, pos[self.local[a[sel]]], pos[self.local[b[sel]]])
            self.levels[d, members] = members[cur]

    def _add(self, n_u: int, slot: int, nbrs: np.ndarray, dists: np.ndarray) -> None:
        """Merge a new slot and its pairs (to older slots) into the hierarchy."""
        self.local = grow(self.local, n_u, -1)
        fresh = [int(x) for x in nbrs.tolist() + [slot] if self.local[x] < 0]
        n_a = self.n_active
        need = n_a + len(fresh)
        if need > self.levels.shape[1]:
            cap = max(need, self.levels.shape[1] + self.levels.shape[1] // 4, 64)
            levels = np.empty((self.max_k, cap), np.int32)
            levels[:, :n_a] = self.levels[:, :n_a]
            self.levels = levels
            self.active = grow(self.active, cap)
        new_local = np.arange(n_a, need, dtype=np.int32)
        self.levels[:, n_a:need] = new_local
        self.active[n_a:need] = fresh
        self.local[fresh] = new_local
        self.n_active = n_a = need
        me = self.local[slot]
        them = self.local[nbrs]
        for d in range(1, self.max_k + 1):
            level = self.levels[d - 1, :n_a]
            roots = np.unique(level[np.append(them[dists <= d], me)])
            if len(roots) > 1:  # roots[0] is the smallest: it represents the union
                level[np.isin(level, roots[1:])] = roots[0]

    @property
    def nbytes(self) -> int:
        return self.levels.nbytes + self.active.nbytes + self.local.nbytes


def merge_order(
    n: int, a: np.ndarray, b: np.ndarray, d: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The merges of single linkage over ``n`` nodes with edges ``a -- b`` at distances
    ``d``: the edges (``a``, ``b``, ``d`` arrays) that join two different components when
    taken by increasing distance (ties by ``(a, b)``), in that order (Kruskal's order;
    at most ``n - 1`` of them). The families at k are the components of the merges with
    ``d <= k``."""
    order = np.lexsort((b, a, d))
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    keep = []
    a_list, b_list = a[order].tolist(), b[order].tolist()
    for i, (x, y) in enumerate(zip(a_list, b_list, strict=True)):
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)
            keep.append(i)
    sel = order[np.array(keep, dtype=np.int64)] if keep else np.empty(0, np.int64)
    return a[sel], b[sel], d[sel]
