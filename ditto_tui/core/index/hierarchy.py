"""Single-linkage hierarchy ("merge order") over distinct fingerprints, for every k at once.

Pairs of distinct fingerprints within ``max_k`` are kept bucketed by distance
(:class:`Growable` arrays). :class:`Hierarchy` lays the single-linkage hierarchy out as
one dendrogram order (:func:`linkage_layout`: every family at every k is a run of
positions, a byte per position says at which distance it joins the previous one), after
which the labels for any k are a few O(n) passes. An update lays out again only the
families (at ``max_k``) it touches, and the cached labels are patched there. :func:`merge_order`
lists the merges themselves (Kruskal's order) for explanations of why documents share a
family.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ditto_tui.core.families.clusters import components
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.simhash import popcount64

__all__ = ["Growable", "Hierarchy", "level_labels", "linkage_layout", "merge_order"]

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
    grown = np.full(max(need, len(arr) + len(arr) // 16, 64), fill, arr.dtype)
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


NONE = 255  # ``join`` where a family of the whole graph starts (and at a hole)
_BRUTE = 384  # up to this many slots to redo, their pairs are recomputed, not looked up
_HOLES_MIN = 4096  # holes are closed when more than this and half the positions


def _bits(bits: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Bits ``at`` of the little-endian bitmap ``bits`` (bool)."""
    got: np.ndarray = (bits[at >> 3] >> (at & 7).astype(np.uint8)) & 1 == 1
    return got


def _set_bits(bits: np.ndarray, at: np.ndarray, value: bool) -> None:
    """Set (or clear) bits ``at`` of the little-endian bitmap ``bits`` in place."""
    masks = np.left_shift(np.uint8(1), (at & 7).astype(np.uint8))
    if value:
        np.bitwise_or.at(bits, at >> 3, masks)
    else:
        np.bitwise_and.at(bits, at >> 3, ~masks)


def _set_run_labels(got: np.ndarray, order: np.ndarray, join: np.ndarray, k: int) -> None:
    """``got[slot]`` = the slot that starts its run at ``k``, for every slot of a block of
    the layout (``order``, ``join``; the block starts a family, holes are skipped): one
    pass in C, else four numpy passes and a scatter (a hole writes ``got[-1]``)."""
    module = engine.compiled()
    if module is not None:
        module.run_labels(order, join, k, got)
        return
    idx = np.arange(len(join), dtype=np.int32)
    np.multiply(idx, join > k, out=idx)
    np.maximum.accumulate(idx, out=idx)
    got[order] = np.take(order, idx, out=idx)


def linkage_layout(n: int, a: np.ndarray, b: np.ndarray, d: np.ndarray, top: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Single linkage of ``n`` nodes over the edges ``a -- b`` at distances ``d`` (1..``top``,
    sorted ascending), laid out so that every component at every level is a run:
    ``(order, join)``, ``order`` a permutation of the nodes (int32), ``join[p]`` the
    distance at which ``order[p]`` joins ``order[p - 1]`` (``NONE`` where a component of
    the whole graph starts; uint8). In C when the compiled engine runs (Kruskal's merges
    concatenate lists), else from the labels of every level and one lexsort."""
    a32 = np.ascontiguousarray(a, np.int32)
    b32 = np.ascontiguousarray(b, np.int32)
    d8 = np.ascontiguousarray(d, np.uint8)
    module = engine.compiled()
    if module is not None:
        order_b, join_b = module.linkage_layout(n, a32, b32, d8)
        return np.frombuffer(order_b, np.int32).copy(), np.frombuffer(join_b, np.uint8).copy()
    rows = level_labels(n, a32, b32, d8, top)
    keys = (np.arange(n), *[rows[j] for j in range(1, top + 1)])
    order = np.lexsort(keys).astype(np.int32)  # the top level first, then each below
    join = np.full(n, NONE, np.uint8)
    for j in range(top, 0, -1):  # the smallest level at which neighbours agree wins
        row = rows[j][order]
        join[1:][row[1:] == row[:-1]] = j
    return order, join


class Hierarchy:
    """The single-linkage hierarchy over the slots that have pairs, for every k at once,
    laid out so that every family at every k is a run of positions (a dendrogram order).

    ``order[p]`` is the slot at position ``p`` (-1: a hole), ``join[p]`` the distance at
    which it joins position ``p - 1`` (``NONE``: it starts a family of ``max_k``, or is a
    hole); bit ``slot`` of ``placed`` says whether a slot is laid out (a slot without live
    pairs is not: alone at every k). 5 bytes a slot with pairs plus a bit a slot, instead
    of an int32 label per slot and k.

    Valid while ``ok``. New slots (with their neighbours) and slots that lost their last
    document are queued; :meth:`refresh` recomputes only the families of ``max_k`` that
    hold one of them (their pairs recomputed from the fingerprints when they are few)
    and lays them out again, in place or at the end (leaving holes, dropped when they
    are many); past ``limit`` queued changes it rebuilds everything. ``changed`` then
    lists the slots whose labels may differ (``None``: any) for :meth:`patch`.
    """

    def __init__(self, max_k: int, limit: int = 256) -> None:
        self.max_k = max_k
        self.limit = limit
        self.ok = False
        self.queue: list[tuple[int, np.ndarray]] = []  # new slots and their neighbours
        self.removed: list[int] = []  # slots that lost their last document
        self.n_pos = 0
        self.n_holes = 0
        self.order = np.empty(0, np.int32)
        self.join = np.empty(0, np.uint8)
        self.placed = np.empty(0, np.uint8)  # bit ``slot`` set: the slot is laid out
        self.changed: np.ndarray | None = None
        self.block = (0, 0)  # positions laid out by the last refresh

    def invalidate(self) -> None:
        """Rebuild from the pairs at the next :meth:`refresh`."""
        self.ok = False
        self.queue = []
        self.removed = []

    def new_slot(self, slot: int, nbrs: np.ndarray, dists: np.ndarray) -> None:
        """A new slot with pairs to the older ``nbrs`` at ``dists``."""
        if not self.ok or not len(nbrs):
            return
        if len(self.queue) + len(self.removed) < self.limit:
            self.queue.append((slot, nbrs))
        else:  # cheaper to rebuild at the next relabelling than to keep queueing
            self.invalidate()

    def dead_slot(self, slot: int) -> None:
        """``slot`` lost its last document: it may have bridged families. Its family (at
        the largest distance) is worked out again at the next :meth:`refresh`."""
        if not (self.ok and self.touches(slot)):
            return
        if len(self.queue) + len(self.removed) < self.limit:
            self.removed.append(slot)
        else:
            self.invalidate()

    def touches(self, slot: int) -> bool:
        """Whether ``slot`` has pairs the hierarchy knows of or will lay out (a slot
        without pairs can disappear without changing any family but its own)."""
        if slot >> 3 < len(self.placed) and self.placed[slot >> 3] >> (slot & 7) & 1:
            return True
        return any(s == slot or slot in nbrs for s, nbrs in self.queue)

    def refresh(self, n_u: int, fps: np.ndarray, counts: np.ndarray,
                buckets: Callable[[], list[tuple[np.ndarray, np.ndarray]]],
                raw: Callable[[], tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]]
                ) -> None:
        """Bring the hierarchy up to date over ``n_u`` slots with fingerprints ``fps`` and
        document ``counts`` (0: dead); ``buckets()`` gives the live pairs at each distance
        1..max_k (called for a rebuild), ``raw()`` the stored pairs at each distance
        (int32 views, dead slots included) and the mask of the live slots (called to
        redo a family too large to recompute its pairs)."""
        self.placed = grow(self.placed, (n_u + 7) >> 3)
        if not self.ok:
            self._build(n_u, buckets())
            self.changed = None
            return
        seeds = self.removed + [s for s, _ in self.queue]
        nbrs = [n for _, n in self.queue]
        self.queue, self.removed = [], []
        if not seeds:
            self.changed = np.empty(0, np.int64)
            self.block = (0, 0)
            return
        all_seeds = np.unique(np.concatenate([np.array(seeds, np.int64), *nbrs]).astype(np.int64))
        self._redo(all_seeds, fps, counts, raw)

    def labels(self, k: int, n_u: int) -> np.ndarray:
        """Component label of every slot at ``k`` (1 <= k <= max_k, or 0: itself): the
        slot that starts its run."""
        got = np.arange(n_u + 1, dtype=np.int32)  # holes (-1) write the extra last cell
        n = self.n_pos
        if k > 0 and n:
            _set_run_labels(got, self.order[:n], self.join[:n], k)
        return got[:n_u]

    def patch(self, old: np.ndarray, k: int, n_u: int) -> np.ndarray | None:
        """The labels at ``k`` from ``old`` (those of the state before the last
        :meth:`refresh`) by changing only the ``changed`` slots; ``None`` if any may."""
        if self.changed is None:
            return None
        got = np.empty(n_u + 1, np.int32)
        m = min(len(old), n_u)
        got[:m] = old[:m]
        got[m:] = np.arange(m, n_u + 1, dtype=np.int32)
        got[self.changed] = self.changed
        b0, b1 = self.block
        if k > 0 and b1 > b0:
            _set_run_labels(got, self.order[b0:b1], self.join[b0:b1], k)
        return got[:n_u]

    def _build(self, n_u: int, buckets: list[tuple[np.ndarray, np.ndarray]]) -> None:
        touched = np.zeros(n_u, bool)
        for a, b in buckets:
            touched[a] = True
            touched[b] = True
        active = np.flatnonzero(touched).astype(np.int32)
        local = np.full(n_u, -1, np.int32)
        local[active] = np.arange(len(active), dtype=np.int32)
        a = np.concatenate([local[x] for x, _ in buckets]) if buckets else np.empty(0, np.int32)
        b = np.concatenate([local[y] for _, y in buckets]) if buckets else np.empty(0, np.int32)
        d = np.repeat(np.arange(1, len(buckets) + 1, dtype=np.uint8), [len(x) for x, _ in buckets])
        order, join = linkage_layout(len(active), a, b, d, self.max_k)
        self.order, self.join = active[order], join
        self.n_pos, self.n_holes = len(order), 0
        self.placed = np.packbits(touched, bitorder="little")
        self.block = (0, len(order))
        self.ok = True

    def _family_range(self, p: int) -> tuple[int, int]:
        """The positions ``[start, stop)`` of the family of ``max_k`` holding position
        ``p`` (searched a growing window at a time: the cost of the family's size)."""
        join, n = self.join, self.n_pos
        hi, step = p + 1, 64
        while True:
            lo = max(0, hi - step)
            hits = np.flatnonzero(join[lo:hi] == NONE)
            if len(hits):
                start = lo + int(hits[-1])
                break
            hi, step = lo, step * 4
        lo, step = p + 1, 64
        stop = n
        while lo < n:
            hi = min(n, lo + step)
            hits = np.flatnonzero(join[lo:hi] == NONE)
            if len(hits):
                stop = lo + int(hits[0])
                break
            lo, step = hi, step * 4
        return start, stop

    def _redo(self, seeds: np.ndarray, fps: np.ndarray, counts: np.ndarray,
              raw: Callable[[], tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]]
              ) -> None:
        """Lay out again the families of ``max_k`` holding a slot of ``seeds`` (new slots,
        their neighbours, dead slots): the only ones that can change."""
        at = np.empty(0, np.int64)
        if _bits(self.placed, seeds).any():  # where those laid out are (one pass)
            mark = np.zeros(len(self.placed) * 8 + 1, bool)  # (the last cell: holes)
            mark[seeds] = True
            at = np.flatnonzero(mark[self.order[: self.n_pos]])
        ranges: list[tuple[int, int]] = []
        for p in at[at >= 0].tolist():
            if ranges and p < ranges[-1][1]:
                continue  # in the family just found
            ranges.append(self._family_range(p))
        old = np.concatenate([self.order[s:e] for s, e in ranges]) if ranges else np.empty(0, np.int32)
        slots = np.union1d(old.astype(np.int64), seeds)
        _set_bits(self.placed, slots, False)
        for s, e in ranges:  # holes until laid out again
            self.order[s:e] = -1
            self.join[s:e] = NONE
        members = slots[counts[slots] > 0]
        a, b, d = self._pairs_among(members, fps, raw)
        linked = np.zeros(len(members), bool)
        linked[a] = True
        linked[b] = True
        if not linked.all():  # slots left without pairs leave the layout
            local = np.cumsum(linked) - 1
            members, a, b = members[linked], local[a], local[b]
        order, join = linkage_layout(len(members), a, b, d, self.max_k)
        self.n_holes += sum(e - s for s, e in ranges)
        if ranges and len(order) <= ranges[0][1] - ranges[0][0]:
            b0 = ranges[0][0]  # fits where the first family was
            self.n_holes -= len(order)
        else:
            b0 = self.n_pos
            self._reserve(b0 + len(order))
            self.n_pos = b0 + len(order)
        b1 = b0 + len(order)
        self.order[b0:b1] = members[order]
        self.join[b0:b1] = join
        _set_bits(self.placed, members, True)
        self.changed, self.block = slots, (b0, b1)
        if self.n_holes > max(_HOLES_MIN, self.n_pos // 2):
            self._drop_holes()

    def _pairs_among(self, members: np.ndarray, fps: np.ndarray,
                     raw: Callable[[], tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of ``members`` (distinct live slots) within ``max_k``, as local
        indices and distances, sorted by distance: recomputed from the fingerprints for
        a few members, else looked up among the stored pairs (one pass over them)."""
        m = len(members)
        if m <= _BRUTE:
            i, j = np.triu_indices(m, 1)
            f = fps[members]
            d = popcount64(f[i] ^ f[j]).astype(np.int64)
            keep = d <= self.max_k
            i, j, d = i[keep], j[keep], d[keep]
        else:
            pairs, live = raw()
            among = np.zeros(len(live), np.uint8)
            among[members] = 1
            among &= live.astype(np.uint8)
            local = np.full(len(live), -1, np.int64)
            local[members] = np.arange(m)
            module = engine.compiled()
            parts_i, parts_j, parts_d = [], [], []
            for dist, (pa, pb) in enumerate(pairs, start=1):
                sel: np.ndarray
                if module is not None:
                    sel = np.frombuffer(module.pairs_within(pa, pb, among), np.uint32)
                else:
                    sel = np.flatnonzero(among[pa] & among[pb])
                parts_i.append(local[pa[sel]])
                parts_j.append(local[pb[sel]])
                parts_d.append(np.full(len(sel), dist, np.int64))
            i, j, d = (np.concatenate(x) if x else np.empty(0, np.int64)
                       for x in (parts_i, parts_j, parts_d))
        by = np.argsort(d, kind="stable")
        return i[by], j[by], d[by]

    def _reserve(self, need: int) -> None:
        if need > len(self.order):
            cap = max(need, len(self.order) + len(self.order) // 8, 64)
            self.order = grow(self.order, cap, -1)
            self.join = grow(self.join, cap, NONE)

    def _drop_holes(self) -> None:
        """Close the holes (the layout keeps its order; the last block moves back)."""
        n = self.n_pos
        keep = self.order[:n] >= 0
        b0, b1 = self.block
        shift = b0 - int(np.count_nonzero(keep[:b0]))
        self.block = (b0 - shift, b1 - shift)
        self.order = self.order[:n][keep].copy()
        self.join = self.join[:n][keep].copy()
        self.n_pos, self.n_holes = len(self.order), 0

    @property
    def nbytes(self) -> int:
        return self.order.nbytes + self.join.nbytes + self.placed.nbytes


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
