"""A live, exact near-duplicate index with families for every k at once.

``NearIndex`` holds documents (unique string ids) with 64-bit fingerprints. Identical
fingerprints are collapsed into one *distinct* entry with a count, so a corpus of
thousands of empty files costs one entry. Over the distinct entries it keeps

* multi-index hash tables (Norouzi et al.): the 64 bits are cut into ``m`` blocks and
  block ``i`` is probed within ``r_i`` bits, with ``sum(r_i + 1) = max_k + 1`` so any
  fingerprint within ``max_k`` lands in at least one probe (pigeonhole). ``m`` is picked
  by a cost model; ``m = max_k + 1`` with ``r_i = 0`` is ditto's plain banding. Each table
  is a sorted key array plus a slot array (no Python object per entry), new entries wait
  in a small pending list that queries scan directly and that is merged in batches;
* every pair of distinct entries within ``max_k`` with its distance, bucketed by
  distance. Pairs are never recomputed when k changes: the first relabelling after a
  change contracts the buckets level by level into the single-linkage hierarchy for
  every k at once (one components pass over the kept pairs), after which the labels
  for any k are one O(n) scatter, cached per ``(k, generation)``.

Adding, replacing or removing a document costs one neighbour query (for a fingerprint
not already present) plus amortised O(1) bookkeeping; families are computed lazily on
demand.
Removed distinct entries are tombstoned and garbage-collected in amortised O(1) when
they outnumber the live ones. ``NearIndex`` is not thread-safe: mutate and read it from
one thread (or guard it with a lock).
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ditto_tui.core.clusters import Family, components, describe_family, family_diameter
from ditto_tui.core.pairs import PairsLookup, UniquePairs, fingerprints_digest
from ditto_tui.core.simhash import Fingerprint, popcount64

if TYPE_CHECKING:
    from ditto_tui.core.family_paths import Linkage

__all__ = ["Match", "NearIndex", "ProbeDesign"]

_U64 = np.uint64
_MAX64 = (1 << 64) - 1
_LABEL_CACHE = 2
_MODES = ("chain", "star")


@dataclass(frozen=True, slots=True)
class Match:
    """One hit of :meth:`NearIndex.near`: a document id, its fingerprint and distance."""

    id: str
    fp: Fingerprint
    distance: int


@dataclass(frozen=True, slots=True)
class ProbeDesign:
    """Multi-index hashing layout: ``m`` contiguous blocks, block ``i`` probed within
    ``radii[i]`` bits. Exact for distances up to ``sum(r + 1 for r in radii) - 1``."""

    m: int
    radii: tuple[int, ...]

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        return tuple(
            (i * 64 // self.m, (i + 1) * 64 // self.m - i * 64 // self.m) for i in range(self.m)
        )

    @property
    def probes(self) -> int:
        return sum(
            sum(math.comb(w, j) for j in range(r + 1))
            for (_, w), r in zip(self.blocks, self.radii, strict=True)
        )

    @classmethod
    def for_k(cls, max_k: int, m: int) -> ProbeDesign:
        q, rem = divmod(max_k + 1, m)
        return cls(m, tuple(q + (1 if i < rem else 0) - 1 for i in range(m)))

    @classmethod
    def choose(cls, max_k: int, n_ref: int = 1_000_000) -> ProbeDesign | None:
        """Cheapest design for ``max_k`` at about ``n_ref`` entries, with at most ~40 bytes
        of tables per entry; ``None`` means a linear scan is cheaper."""
        best: ProbeDesign | None = None
        best_cost = n_ref * 3e-9
        for m in range(1, max_k + 2):
            design = cls.for_k(max_k, m)
            if any(r < 0 for r in design.radii):
                continue
            probes = design.probes
            if probes > 50_000:
                continue
            width = min(w for _, w in design.blocks)
            key_bytes = _key_dtype(max(w for _, w in design.blocks)).itemsize
            if m * (key_bytes + 4) > 40:
                continue
            cost = m * 25e-6 + probes * 6e-8 + probes * n_ref / 2.0**width * 2e-8
            if cost < best_cost:
                best, best_cost = design, cost
        return best


def _key_dtype(width: int) -> np.dtype:
    if width <= 16:
        return np.dtype(np.uint16)
    if width <= 32:
        return np.dtype(np.uint32)
    return np.dtype(np.uint64)


def _variants(width: int, radius: int, dtype: np.dtype) -> np.ndarray:
    """All ``width``-bit masks with at most ``radius`` bits set."""
    out = [0]
    for r in range(1, radius + 1):
        out.extend(sum(1 << b for b in combo) for combo in itertools.combinations(range(width), r))
    return np.array(out, dtype=dtype)


class _Table:
    """One block's sorted keys and the distinct-entry slots they belong to."""

    __slots__ = ("dtype", "keys", "mask", "off", "slots", "variants")

    def __init__(self, off: int, width: int, radius: int) -> None:
        self.off = _U64(off)
        self.mask = _U64((1 << width) - 1)
        self.dtype = _key_dtype(width)
        self.variants = _variants(width, radius, self.dtype)
        self.keys = np.empty(0, self.dtype)
        self.slots = np.empty(0, np.uint32)

    def key(self, fps: np.ndarray) -> np.ndarray:
        return ((fps >> self.off) & self.mask).astype(self.dtype)

    def build(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.slots = slots[order].astype(np.uint32)

    def insert(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        where = np.searchsorted(self.keys, keys, side="right")
        self.keys = np.insert(self.keys, where, keys)
        self.slots = np.insert(self.slots, where, slots[order].astype(np.uint32))

    def candidates(self, fp: np.ndarray) -> np.ndarray:
        probes = self.key(fp) ^ self.variants
        lo = np.searchsorted(self.keys, probes, side="left")
        hi = np.searchsorted(self.keys, probes, side="right")
        lens = hi - lo
        total = int(lens.sum())
        if total == 0:
            return np.empty(0, np.uint32)
        if len(lens) == 1:
            return self.slots[int(lo[0]) : int(hi[0])]
        nz = lens > 0
        lo, lens = lo[nz], lens[nz]
        idx = np.arange(total) - np.repeat(np.cumsum(lens) - lens - lo, lens)
        return self.slots[idx]

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.slots.nbytes


class _Growable:
    """An append-only int array with amortised O(1) appends."""

    __slots__ = ("data", "n")

    def __init__(self, dtype: type = np.uint32) -> None:
        self.data = np.empty(16, dtype)
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


def _grow(arr: np.ndarray, need: int, fill: int = 0) -> np.ndarray:
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
    return remap[base]


def _as_fp(fp: int) -> int:
    value = int(fp)
    if not 0 <= value <= _MAX64:
        raise ValueError(f"fingerprint out of unsigned 64-bit range: {value}")
    return value


class NearIndex:
    """Live, exact near-duplicate index over documents with unique ids.

    Contract:

    * ``add(id, fp)`` inserts or replaces (ids are unique); ``remove`` returns whether the
      id was present. ``fp`` must be an int in ``[0, 2**64)`` (``ValueError`` otherwise).
    * ``near(fp, k)`` returns exactly what a brute-force scan returns: every document
      within ``k`` bits, sorted by ``(distance, id)``; ``k > max_k`` is clamped to
      ``max_k``, ``k < 0`` gives ``[]``.
    * ``families(k, ...)`` groups all documents for any ``k`` (clamped the same way;
      ``k < 0`` makes every document its own family) without recomputing pairs.
    * ``generation`` increases on every change that alters the content; results of
      ``labels``/``families`` are cached per ``(k, generation)``.
    """

    # Tuning knobs (instance-overridable, e.g. by tests): below ``_scan_below`` distinct
    # entries a query scans them all; ``_pending_limit`` new entries are merged into the
    # tables at once; tombstones are collected when they exceed
    # ``max(_compact_min, live entries)``.
    _scan_below = 256
    _pending_limit = 512
    _compact_min = 1024
    _incremental_limit = 256  # more queued new slots than this: rebuild the hierarchy

    def __init__(self, max_k: int = 8) -> None:
        if not isinstance(max_k, int) or not 0 <= max_k <= 64:
            raise ValueError(f"max_k must be an int in 0..64, got {max_k!r}")
        self.max_k = max_k
        self.generation = 0
        self._computed_pairs: UniquePairs | None = None
        self._design = ProbeDesign.choose(max_k)
        self._clear()

    # -- storage -------------------------------------------------------------------------
    def _clear(self) -> None:
        # documents (slot-indexed); a free slot has doc_u == -1
        self._slot_of: dict[str, int] = {}
        self._doc_id: list[str | None] = []
        self._doc_u = np.empty(0, np.int32)
        self._doc_next = np.empty(0, np.int32)
        self._doc_prev = np.empty(0, np.int32)
        self._free_docs: list[int] = []
        # distinct fingerprints (slot-indexed); a tombstone has count 0
        self._n_u = 0
        self._n_dead = 0
        self._u_fp = np.empty(0, _U64)
        self._u_count = np.empty(0, np.int32)
        self._u_head = np.empty(0, np.int32)
        self._tables = (
            [
                _Table(off, width, r)
                for (off, width), r in zip(self._design.blocks, self._design.radii, strict=True)
            ]
            if self._design is not None
            else []
        )
        self._pending: list[int] = []
        # pairs of distinct slots (a < b) by distance 1..max_k
        self._pa = [_Growable() for _ in range(self.max_k + 1)]
        self._pb = [_Growable() for _ in range(self.max_k + 1)]
        self._labels: dict[int, np.ndarray] = {}
        self._labels_gen = -1
        self._families: dict[tuple[int, str, int], list[Family]] = {}
        self._families_gen = -1
        # single-linkage hierarchy over the slots that have pairs ("active" slots):
        # _levels[d - 1, i] = smallest local index in the component of local node i at
        # distance d; _active[i] = slot of local node i; _local[slot] = i or -1.
        # Valid while _hier_ok; slots created since are queued in _hier_queue with their
        # neighbours and merged in on the next relabelling.
        self._hier_ok = False
        self._hier_queue: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._n_active = 0
        self._active = np.empty(0, np.int32)
        self._local = np.empty(0, np.int32)
        self._levels = np.empty((self.max_k, 0), np.int32)

    def _changed(self) -> None:
        self.generation += 1
        self._computed_pairs = None

    # -- queries -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, id: object) -> bool:
        return id in self._slot_of

    def ids(self) -> list[str]:
        """All document ids, sorted (code-point order)."""
        return sorted(self._slot_of)

    def fingerprint(self, id: str) -> Fingerprint:
        """The fingerprint stored for ``id``; ``KeyError`` if absent."""
        return Fingerprint(int(self._u_fp[self._doc_u[self._slot_of[id]]]))

    def _near_slots(self, fp: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distinct live slots within ``k`` (<= max_k) of ``fp`` and their distances."""
        q = _U64(fp)
        if self._design is None or self._n_u <= self._scan_below:
            cand = np.flatnonzero(self._u_count[: self._n_u] > 0)
        else:
            qa = np.array([q], _U64)
            parts = [t.candidates(qa) for t in self._tables]
            if self._pending:
                parts.append(np.array(self._pending, np.uint32))
            cand = np.unique(np.concatenate(parts)) if parts else np.empty(0, np.uint32)
            cand = cand[self._u_count[cand] > 0]
        dist = popcount64(self._u_fp[cand] ^ q)
        keep = dist <= k
        return cand[keep].astype(np.int64), dist[keep].astype(np.int64)

    def _docs_of(self, slot: int) -> list[int]:
        out = []
        d = int(self._u_head[slot])
        nxt = self._doc_next
        while d >= 0:
            out.append(d)
            d = int(nxt[d])
        return out

    def near(self, fp: int, k: int) -> list[Match]:
        """Every document within ``k`` bits of ``fp`` (itself and exact duplicates
        included at distance 0), sorted by ``(distance, id)``. Exact: equal to a
        brute-force scan. ``k`` above ``max_k`` is clamped; negative ``k`` gives ``[]``."""
        fp = _as_fp(fp)
        if k < 0 or not self._slot_of:
            return []
        slots, dists = self._near_slots(fp, min(k, self.max_k))
        out: list[Match] = []
        for s, d in zip(slots.tolist(), dists.tolist(), strict=True):
            value = Fingerprint(int(self._u_fp[s]))
            out.extend(Match(self._doc_id[doc], value, d) for doc in self._docs_of(s))  # type: ignore[arg-type]
        out.sort(key=lambda m: (m.distance, m.id))
        return out

    # -- updates -------------------------------------------------------------------------
    def add(self, id: str, fp: int) -> None:
        """Insert ``id`` with ``fp``, replacing any previous fingerprint of ``id``.
        Costs one neighbour query when ``fp`` is new to the index, O(1) otherwise."""
        if not isinstance(id, str):
            raise TypeError(f"id must be str, got {type(id).__name__}")
        fp = _as_fp(fp)
        doc = self._slot_of.get(id)
        if doc is not None:
            if int(self._u_fp[self._doc_u[doc]]) == fp:
                return
            self._unlink(doc)
        else:
            doc = self._new_doc(id)
        self._link(doc, self._slot_for(fp))
        self._changed()
        self._maybe_compact()

    def add_many(
        self,
        ids: Sequence[str],
        fps: Sequence[int] | np.ndarray,
        *,
        pairs: UniquePairs | PairsLookup | None = None,
    ) -> None:
        """Add or replace many documents; a later duplicate id in ``ids`` wins.

        Large batches (at least a quarter of the current size) rebuild the index in one
        vectorised pass (sort-based all-pairs join); small ones go through :meth:`add`.
        The join of a rebuild is skipped when ``pairs`` (stored :class:`UniquePairs`, or a
        lookup called with the digest of the new distinct fingerprints and ``max_k``)
        fits the new content (same digest and k, see :meth:`UniquePairs.fits`); otherwise
        it is computed, and :meth:`take_computed_pairs` then hands it over for storing.
        ``len(ids) != len(fps)`` raises ``ValueError``; an out-of-range value raises
        ``ValueError`` or ``OverflowError`` and leaves the index unchanged.
        """
        if len(ids) != len(fps):
            raise ValueError(f"{len(ids)} ids but {len(fps)} fingerprints")
        arr = np.asarray(fps, dtype=_U64) if not isinstance(fps, np.ndarray) else fps
        if arr.dtype != _U64:
            if arr.dtype.kind not in "iu" or (
                arr.dtype.kind == "i" and len(arr) and int(arr.min()) < 0
            ):
                raise ValueError("fingerprints must be unsigned 64-bit integers")
            arr = arr.astype(_U64)
        if any(not isinstance(i, str) for i in ids):
            raise TypeError("ids must be str")
        if len(ids) == 0:
            return
        if len(ids) < max(64, len(self) // 4):
            for i, v in zip(ids, arr.tolist(), strict=True):
                self.add(i, v)
            return
        merged: dict[str, int] = {}
        if self._slot_of:
            old_ids = list(self._slot_of)
            old_slots = np.fromiter(self._slot_of.values(), np.int64, len(old_ids))
            merged = dict(zip(old_ids, self._u_fp[self._doc_u[old_slots]].tolist(), strict=True))
        merged.update(zip(ids, arr.tolist(), strict=True))
        self._rebuild(list(merged), np.fromiter(merged.values(), _U64, len(merged)), pairs)

    def remove(self, id: str) -> bool:
        """Remove ``id``; ``False`` (and no change) if it was not present."""
        doc = self._slot_of.pop(id, None)
        if doc is None:
            return False
        self._unlink(doc)
        self._doc_id[doc] = None
        self._doc_u[doc] = -1
        self._free_docs.append(doc)
        self._changed()
        self._maybe_compact()
        return True

    def _new_doc(self, id: str) -> int:
        if self._free_docs:
            doc = self._free_docs.pop()
            self._doc_id[doc] = id
        else:
            doc = len(self._doc_id)
            self._doc_id.append(id)
            self._doc_u = _grow(self._doc_u, doc + 1, -1)
            self._doc_next = _grow(self._doc_next, doc + 1, -1)
            self._doc_prev = _grow(self._doc_prev, doc + 1, -1)
        self._slot_of[id] = doc
        return doc

    def _link(self, doc: int, slot: int) -> None:
        head = int(self._u_head[slot])
        self._doc_u[doc] = slot
        self._doc_prev[doc] = -1
        self._doc_next[doc] = head
        if head >= 0:
            self._doc_prev[head] = doc
        self._u_head[slot] = doc
        self._u_count[slot] += 1

    def _unlink(self, doc: int) -> None:
        slot = int(self._doc_u[doc])
        prev, nxt = int(self._doc_prev[doc]), int(self._doc_next[doc])
        if prev >= 0:
            self._doc_next[prev] = nxt
        else:
            self._u_head[slot] = nxt
        if nxt >= 0:
            self._doc_prev[nxt] = prev
        self._u_count[slot] -= 1
        if self._u_count[slot] == 0:
            self._n_dead += 1
            if self._hier_ok and self._in_hierarchy(slot):
                self._hier_ok = False  # the slot may have bridged families: recompute

    def _in_hierarchy(self, slot: int) -> bool:
        """Whether ``slot`` has pairs the hierarchy knows of or will merge in (a slot
        without pairs can disappear without changing any family but its own)."""
        if slot < len(self._local) and self._local[slot] >= 0:
            return True
        return any(s == slot or slot in nbrs for s, nbrs, _ in self._hier_queue)

    def _slot_for(self, fp: int) -> int:
        """The live distinct slot holding ``fp``, created (with its pairs) if needed."""
        slots, dists = (
            self._near_slots(fp, self.max_k) if self._n_u else (np.empty(0, np.int64),) * 2
        )
        same = slots[dists == 0]
        if len(same):
            return int(same[0])
        slot = self._n_u
        self._n_u += 1
        self._u_fp = _grow(self._u_fp, self._n_u)
        self._u_count = _grow(self._u_count, self._n_u)
        self._u_head = _grow(self._u_head, self._n_u, -1)
        self._u_fp[slot] = fp
        self._u_count[slot] = 0
        self._u_head[slot] = -1
        if self._hier_ok and len(slots):
            if len(self._hier_queue) < self._incremental_limit:
                self._hier_queue.append((slot, slots, dists))
            else:  # cheaper to rebuild at the next relabelling than to keep queueing
                self._hier_ok = False
                self._hier_queue = []
        if len(slots):
            for d in np.unique(dists).tolist():
                sel = slots[dists == d]
                self._pa[d].extend(sel)
                self._pb[d].extend(np.full(len(sel), slot))
        if self._tables:
            self._pending.append(slot)
            if len(self._pending) >= self._pending_limit:
                self._merge_pending()
        return slot

    def _merge_pending(self) -> None:
        slots = np.array(self._pending, np.uint32)
        fps = self._u_fp[slots]
        for t in self._tables:
            t.insert(fps, slots)
        self._pending = []

    def _maybe_compact(self) -> None:
        live = self._n_u - self._n_dead
        if self._n_dead > max(self._compact_min, live):
            self._compact()

    def _compact(self) -> None:
        """Drop tombstoned distinct slots: renumber slots, filter pairs, rebuild tables."""
        self._hier_ok = False
        alive = self._u_count[: self._n_u] > 0
        new_of = np.cumsum(alive, dtype=np.int64) - 1
        keep = np.flatnonzero(alive)
        self._u_fp = self._u_fp[keep].copy()
        self._u_count = self._u_count[keep].copy()
        self._u_head = self._u_head[keep].copy()
        self._n_u = len(keep)
        self._n_dead = 0
        used = self._doc_u >= 0
        self._doc_u[used] = new_of[self._doc_u[used]]
        for d in range(1, self.max_k + 1):
            a, b = self._pa[d].view(), self._pb[d].view()
            ok = alive[a] & alive[b]
            self._pa[d].set(new_of[a[ok]])
            self._pb[d].set(new_of[b[ok]])
        self._build_tables()

    def _build_tables(self) -> None:
        slots = np.arange(self._n_u, dtype=np.uint32)
        for t in self._tables:
            t.build(self._u_fp[: self._n_u], slots)
        self._pending = []

    def take_computed_pairs(self) -> UniquePairs | None:
        """The pairs the last bulk rebuild computed (not given), if the content has not
        changed since; handed over once (the index keeps no reference afterwards)."""
        pairs, self._computed_pairs = self._computed_pairs, None
        return pairs

    def _rebuild(
        self, ids: list[str], fps: np.ndarray, given: UniquePairs | PairsLookup | None = None
    ) -> None:
        """Replace the whole content, vectorised: distinct values, pairs, tables."""
        self._clear()
        n = len(ids)
        u, inv, counts = np.unique(fps, return_inverse=True, return_counts=True)
        self._n_u = len(u)
        self._u_fp = u.astype(_U64)
        self._u_count = counts.astype(np.int32)
        self._slot_of = dict(zip(ids, range(n), strict=True))
        self._doc_id = list(ids)
        self._doc_u = inv.astype(np.int32)
        order = np.argsort(inv, kind="stable")
        starts = np.cumsum(counts) - counts
        self._u_head = order[starts].astype(np.int32)
        same_next = np.append(inv[order][1:] == inv[order][:-1], False)
        nxt = np.where(same_next, np.append(order[1:], -1), -1)
        self._doc_next = np.empty(n, np.int32)
        self._doc_next[order] = nxt
        prv = np.where(np.insert(same_next[:-1], 0, False), np.insert(order[:-1], 0, -1), -1)
        self._doc_prev = np.empty(n, np.int32)
        self._doc_prev[order] = prv
        digest = fingerprints_digest(u)
        pairs = given(digest, self.max_k) if callable(given) else given
        computed = pairs is None or not pairs.fits(len(u), digest, self.max_k)
        if computed:
            pairs = UniquePairs.compute(u, self.max_k, digest)
        assert pairs is not None
        for dist in range(1, self.max_k + 1):
            sel = pairs.d == dist
            self._pa[dist].set(pairs.i[sel])
            self._pb[dist].set(pairs.j[sel])
        self._build_tables()
        self._changed()
        self._computed_pairs = pairs if computed else None

    # -- families ------------------------------------------------------------------------
    def _edges(self, k: int, above: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Live pairs of distinct slots with ``above < distance <= k`` (k <= max_k),
        tombstones filtered."""
        ks = range(above + 1, k + 1)
        if not ks:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        a = np.concatenate([self._pa[d].view() for d in ks])
        b = np.concatenate([self._pb[d].view() for d in ks])
        if self._n_dead:
            live = self._u_count[: self._n_u] > 0
            ok = live[a] & live[b]
            a, b = a[ok], b[ok]
        return a, b

    def labels(self, k: int) -> np.ndarray:
        """Component label at ``k`` (clamped to ``0..max_k``) of every internal
        distinct-fingerprint slot: a slot of the same component (its representative).
        Slots are an implementation detail (use :meth:`families` for ids); this is
        exposed to measure and test the relabelling: two slots share a family iff their
        labels are equal.

        This is the relabelling run when the k slider moves. The single-linkage
        hierarchy for every k is kept between calls (components only merge as k grows,
        so level d is level d-1 with the pairs at distance d contracted onto it). New
        fingerprints are merged into it incrementally (O(max_k * active slots) each);
        when a distinct fingerprint that had pairs disappears (it may have bridged two
        families) it is rebuilt with one components pass over the kept pairs. Then any k costs one O(n)
        scatter; the last few arrays are cached per ``(k, generation)``. Callers must
        not modify the array.
        """
        k = max(0, min(k, self.max_k))
        if self._labels_gen != self.generation:
            if self._hier_ok:
                for slot, nbrs, dists in self._hier_queue:
                    self._hier_add(slot, nbrs, dists)
            else:
                self._build_hierarchy()
            self._hier_queue = []
            self._labels = {}
            self._labels_gen = self.generation
        got = self._labels.pop(k, None)
        if got is None:
            got = np.arange(self._n_u, dtype=np.int32)
            n_a = self._n_active
            if k > 0 and n_a:
                active = self._active[:n_a]
                got[active] = active[self._levels[k - 1, :n_a]]
            got.flags.writeable = False
            if len(self._labels) >= _LABEL_CACHE:
                self._labels.pop(next(iter(self._labels)))
        self._labels[k] = got  # most recently used last
        return got

    def _build_hierarchy(self) -> None:
        buckets = [self._edges(d, d - 1) for d in range(1, self.max_k + 1)]
        touched = np.zeros(self._n_u, bool)
        for a, b in buckets:
            touched[a] = True
            touched[b] = True
        active = np.flatnonzero(touched).astype(np.int32)
        local = np.empty(self._n_u, np.int32)
        local[active] = np.arange(len(active), dtype=np.int32)
        local[~touched] = -1
        levels = np.empty((self.max_k, len(active)), np.int32)
        cur = np.arange(len(active), dtype=np.int32)
        for d, (a, b) in enumerate(buckets):
            cur = _contract(len(active), cur, local[a], local[b])
            levels[d] = cur
        self._active, self._local, self._levels = active, local, levels
        self._n_active = len(active)
        self._hier_ok = True

    def _hier_add(self, slot: int, nbrs: np.ndarray, dists: np.ndarray) -> None:
        """Merge a new slot and its pairs (to older slots) into the hierarchy."""
        self._local = _grow(self._local, self._n_u, -1)
        fresh = [int(x) for x in nbrs.tolist() + [slot] if self._local[x] < 0]
        n_a = self._n_active
        need = n_a + len(fresh)
        if need > self._levels.shape[1]:
            cap = max(need, self._levels.shape[1] + self._levels.shape[1] // 4, 64)
            levels = np.empty((self.max_k, cap), np.int32)
            levels[:, :n_a] = self._levels[:, :n_a]
            self._levels = levels
            self._active = _grow(self._active, cap)
        new_local = np.arange(n_a, need, dtype=np.int32)
        self._levels[:, n_a:need] = new_local
        self._active[n_a:need] = fresh
        self._local[fresh] = new_local
        self._n_active = n_a = need
        me = self._local[slot]
        them = self._local[nbrs]
        for d in range(1, self.max_k + 1):
            level = self._levels[d - 1, :n_a]
            roots = np.unique(level[np.append(them[dists <= d], me)])
            if len(roots) > 1:  # roots[0] is the smallest: it represents the union
                level[np.isin(level, roots[1:])] = roots[0]

    def families(self, k: int, *, mode: str = "chain", min_size: int = 1) -> list[Family]:
        """Group every document into families at distance ``k``.

        ``mode="chain"``: connected components of "distance <= k" (ditto's Clusters,
        single linkage); the centre is the medoid (minimum sum of distances to the
        members, ties by smallest id). ``mode="star"``: distinct fingerprints are taken
        in order of decreasing degree (documents within ``k``), ties by smallest id; each
        one not yet assigned becomes a centre and takes every unassigned document within
        ``k`` of it, so every member is within ``k`` of its centre and families partition
        the index; deterministic. Families smaller than ``min_size`` are left out. Order:
        size descending, then the sorted member lists (ditto's order). ``k`` is clamped
        to ``max_k``; ``k < 0`` puts every document alone. Unknown mode: ``ValueError``.
        The last few results are cached per ``(k, mode, min_size, generation)``; the
        returned list is the caller's to keep or modify.
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
        if not self._slot_of:
            return []
        if k < 0:
            if min_size > 1:
                return []
            return sorted((Family((i,), i, 0) for i in self._slot_of), key=lambda f: f.members)
        k = min(k, self.max_k)
        key = (k, mode, max(min_size, 1))
        if self._families_gen != self.generation:
            self._families = {}
            self._families_gen = self.generation
        cached = self._families.get(key)
        if cached is not None:
            return list(cached)
        out = self._compute_families(k, mode, max(min_size, 1))
        if len(self._families) >= _LABEL_CACHE:
            self._families.pop(next(iter(self._families)))
        self._families[key] = out
        return list(out)

    def _compute_families(self, k: int, mode: str, min_size: int) -> list[Family]:
        n_u = self._n_u
        count = self._u_count[:n_u]
        group = self.labels(k) if mode == "chain" else self._star_centres(k)
        sizes = np.bincount(group, weights=count, minlength=n_u).astype(np.int64)
        docs = np.flatnonzero(self._doc_u >= 0)
        doc_group = group[self._doc_u[docs]]
        doc_size = sizes[doc_group]
        doc_id = self._doc_id
        # singletons need no statistics and sort by id alone, after every larger family
        singles: list[str] = []
        if min_size <= 1:
            singles = sorted(doc_id[d] for d in docs[doc_size == 1].tolist())  # type: ignore[type-var]
        sel = doc_size >= max(min_size, 2)
        docs, doc_group = docs[sel], doc_group[sel]
        out: list[Family] = []
        if len(docs):
            order = np.argsort(doc_group, kind="stable")
            docs, doc_group = docs[order], doc_group[order]
            cuts = np.flatnonzero(doc_group[1:] != doc_group[:-1]) + 1
            keys = np.append(doc_group[:1], doc_group[cuts]).tolist()
            for chunk, key in zip(np.split(docs, cuts), keys, strict=True):
                out.append(self._family(chunk, key, mode))
            out.sort(key=lambda f: (-f.size, f.members))
        out.extend(Family((i,), i, 0) for i in singles)
        return out

    def _family(self, docs: np.ndarray, centre_slot: int, mode: str) -> Family:
        """The Family of document slots ``docs`` (star mode: centred on ``centre_slot``)."""
        doc_id = self._doc_id
        fps = self._u_fp[self._doc_u[docs]]
        pairs = sorted(zip([doc_id[d] for d in docs.tolist()], fps.tolist(), strict=True))
        members = tuple(p[0] for p in pairs)
        member_fps = [p[1] for p in pairs]
        if mode == "chain":
            centre, diameter, exact = describe_family(members, member_fps)  # type: ignore[arg-type]
        else:
            centre = min(doc_id[d] for d in self._docs_of(centre_slot))  # type: ignore[type-var]
            diameter, exact = family_diameter(
                np.array(member_fps, _U64), int(self._u_fp[centre_slot])
            )
        return Family(members, centre, diameter, exact)  # type: ignore[arg-type]

    def _star_centres(self, k: int) -> np.ndarray:
        """For every distinct slot, the slot of its star centre at ``k``."""
        n_u = self._n_u
        count = self._u_count[:n_u].astype(np.int64)
        centre = np.arange(n_u)
        a, b = self._edges(k)
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
        min_id = {s: min(self._doc_id[d] for d in self._docs_of(s)) for s in nodes.tolist()}
        rank = sorted(range(len(nodes)), key=lambda i: (-deg[nodes[i]], min_id[int(nodes[i])]))
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

    # -- introspection -------------------------------------------------------------------
    def memory(self) -> dict[str, int]:
        """Bytes held, by structure (numpy buffers at capacity; ``id_map`` estimates the
        id dict and slot list without the id strings, which the caller owns)."""
        pairs = sum(g.data.nbytes for g in self._pa + self._pb)
        return {
            "documents": self._doc_u.nbytes + self._doc_next.nbytes + self._doc_prev.nbytes,
            "distinct": self._u_fp.nbytes + self._u_count.nbytes + self._u_head.nbytes,
            "tables": sum(t.nbytes for t in self._tables),
            "labels": sum(v.nbytes for v in self._labels.values())
            + self._levels.nbytes
            + self._active.nbytes
            + self._local.nbytes,
            "id_map": sys.getsizeof(self._slot_of)
            + sys.getsizeof(self._doc_id)
            + sum(sys.getsizeof(v) for v in self._slot_of.values() if v > 256),
            "pairs": pairs,
        }

    def linkage(self) -> Linkage:
        """A snapshot of the pairs and the merge order, for ``core.family_paths``."""
        from ditto_tui.core.family_paths import Linkage

        a, b = self._edges(self.max_k)
        n, fps = self._n_u, self._u_fp[: self._n_u].copy()
        docs = np.flatnonzero(self._doc_u >= 0)
        return Linkage(
            fps, self._u_count[:n].astype(np.int64), a, b, popcount64(fps[a] ^ fps[b]).astype(np.int64),
            tuple(self.labels(k) for k in range(self.max_k + 1)),
            [self._doc_id[d] for d in docs.tolist()], self._doc_u[docs].copy(), self.max_k,  # type: ignore[misc]
        )

    def pair_count(self, k: int | None = None) -> int:
        """Number of live distinct-fingerprint pairs within ``k`` (default ``max_k``)."""
        return len(self._edges(self.max_k if k is None else max(0, min(k, self.max_k)))[0])
