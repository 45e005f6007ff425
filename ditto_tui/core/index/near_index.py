"""A live, exact near-duplicate index with families for every k at once.

``NearIndex`` holds documents (unique string ids, mapped to document slots by a packed
hash table, :class:`IdMap`) with 64-bit fingerprints. Identical fingerprints are
collapsed into one *distinct* entry with a count (its documents form a cycle), so a
corpus of thousands of empty files costs one entry. Over the distinct entries it keeps

* multi-index hash tables (Norouzi et al.): the 64 bits are cut into ``m`` blocks and
  block ``i`` is probed within ``r_i`` bits, with ``sum(r_i + 1) = max_k + 1`` so any
  fingerprint within ``max_k`` lands in at least one probe (pigeonhole). ``m`` is picked
  by a cost model; ``m = max_k + 1`` with ``r_i = 0`` is ditto's plain banding. Each table
  is a directory of buckets over the block's high bits plus, per entry, its low bits
  and slot (no Python object per entry); new entries wait in a small pending list that
  queries scan directly and that is merged in batches;
* every pair of distinct entries within ``max_k`` with its distance, bucketed by
  distance. Pairs are never recomputed when k changes: the first relabelling after a
  bulk load lays the single-linkage hierarchy for every k out at once (one pass over
  the kept pairs, see :class:`Hierarchy`), after which the labels for any k are a few
  O(n) passes, cached per ``(k, generation)``; later updates lay out again only the
  families they touch and patch the cached labels.

At 1M documents the whole index (id map, documents, distinct entries, tables, hierarchy
and one label array; not the pairs nor the id strings) holds about 62 bytes a document
(:meth:`NearIndex.memory`).

Adding, replacing or removing a document costs one neighbour query (for a fingerprint
not already present) plus amortised O(1) bookkeeping; families are computed lazily on
demand.
Removed distinct entries are tombstoned and garbage-collected in amortised O(1) when
they outnumber the live ones. ``NearIndex`` is not thread-safe: mutate and read it from
one thread (or guard it with a lock).
"""

from __future__ import annotations

import bisect
import itertools
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast, overload

import numpy as np

from ditto_tui.core.families.clusters import MODES, Family, Mode, describe_family
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.star import star_centres
from ditto_tui.core.families.stats import families_of_runs
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.simhash import Fingerprint, popcount64
from ditto_tui.core.index.hierarchy import Growable, Hierarchy, grow, merge_order
from ditto_tui.core.index.id_map import IdMap
from ditto_tui.core.index.pairs import (
    PairsLookup,
    UniquePairs,
    fingerprints_digest,
    group_positions,
)
from ditto_tui.core.index.probe import ProbeDesign, ProbeTable

if TYPE_CHECKING:
    from ditto_tui.core.families.paths import NearGraph
    from ditto_tui.core.families.tree import MergeLevels

__all__ = ["Match", "NearIndex", "ProbeDesign"]

_U64 = np.uint64
_MAX64 = (1 << 64) - 1
_LABEL_CACHE = 1  # label arrays kept (4 bytes a distinct fingerprint each)
_FAMILY_CACHE = 40  # listings kept for the current generation (every k, both modes)
_PATCH_LIMIT = 256  # at most this many changed documents: a listing is patched
_WALK = 32  # steps along a slot's cycle of documents before searching them all
_JOURNAL_LIMIT = 8192  # more changes than this since the listings: compute them afresh
# The all-pairs join of a rebuild runs its tables on this many threads (numpy and the
# compiled join release the GIL); with numpy up to this many distinct fingerprints (each
# thread holds its tables' arrays, about 50 bytes per fingerprint: beyond, memory matters
# more than the second core); the compiled join holds 32 bytes a fingerprint a thread.
_JOIN_THREADS = min(2, os.cpu_count() or 1)
_JOIN_THREADS_UPTO = 400_000


@dataclass(frozen=True, slots=True)
class Match:
    """One hit of :meth:`NearIndex.near`: a document id, its fingerprint and distance."""

    id: str
    fp: Fingerprint
    distance: int


def _family_order(family: Family) -> tuple[int, str]:
    """ditto's order of disjoint families: size descending, then the first member."""
    return (-len(family.members), family.members[0])


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
    _incremental_limit = 256  # more queued slot changes than this: rebuild the hierarchy
    # add_many: a batch below a quarter of the index is added document by document, unless
    # the first ``_probe_adds`` of them, timed, say a rebuild of the whole is cheaper (a
    # rebuild costs about ``_rebuild_s_per_doc`` per document until one is timed: on
    # real text an add can cost 0.5 ms where families are large, 18,000 adds 8 s)
    _probe_adds = 64
    _rebuild_s_per_doc = 3e-6

    def __init__(self, max_k: int = 8) -> None:
        if not isinstance(max_k, int) or not 0 <= max_k <= 64:
            raise ValueError(f"max_k must be an int in 0..64, got {max_k!r}")
        self.max_k = max_k
        self.generation = 0
        # (digest, k) of pairs the last rebuild computed, while nothing changed since
        self._computed_pairs: tuple[str, int] | None = None
        self._design = ProbeDesign.choose(max_k)
        self._rebuild_cost: float | None = None  # seconds a document, the last rebuild
        self._clear()

    # -- storage -------------------------------------------------------------------------
    def _clear(self) -> None:
        # documents (slot-indexed); a free slot has doc_u == -1
        self._ids = IdMap()  # id -> document slot; ``_ids.names[slot]`` is the id
        self._doc_u = np.empty(0, np.int32)
        self._doc_next = np.empty(0, np.int32)  # the documents of a slot form a cycle
        self._free_docs: list[int] = []
        # distinct fingerprints (slot-indexed); a tombstone has count 0
        self._n_u = 0
        self._n_dead = 0
        self._u_fp = np.empty(0, _U64)
        self._u_count = np.empty(0, np.int32)
        self._u_head = np.empty(0, np.int32)
        self._tables = (
            [
                ProbeTable(off, width, r)
                for (off, width), r in zip(self._design.blocks, self._design.radii, strict=True)
            ]
            if self._design is not None
            else []
        )
        self._pending: list[int] = []
        # pairs of distinct slots (a < b) by distance 1..max_k
        self._pa = [Growable() for _ in range(self.max_k + 1)]
        self._pb = [Growable() for _ in range(self.max_k + 1)]
        self._labels: dict[int, np.ndarray] = {}
        self._labels_gen = -1
        self._families: dict[tuple[int, str, int], FamilyListing] = {}
        self._families_gen = -1
        # documents in id order (see _id_order) and the changes not yet applied to it
        self._ord_docs: np.ndarray | None = None
        self._ord_names: np.ndarray | None = None
        self._ord_add: dict[str, int] = {}
        self._ord_del: set[str] = set()
        # ids changed since each key's last listing (see _patch_chain)
        self._journal: list[str] = []
        self._last_listing: dict[tuple[int, str, int], tuple[FamilyListing, int]] = {}
        # single-linkage hierarchy over the slots that have pairs (see core.index.hierarchy)
        self._hierarchy = Hierarchy(self.max_k, self._incremental_limit)

    @property
    def _doc_id(self) -> list[str | None]:
        """The id of every document slot (``None``: free)."""
        return self._ids.names

    def _changed(self) -> None:
        self.generation += 1
        self._computed_pairs = None

    # -- queries -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, id: object) -> bool:
        return id in self._ids

    def ids(self) -> list[str]:
        """All document ids, sorted (code-point order)."""
        return sorted(i for i in self._ids.names if i is not None)

    def fingerprint(self, id: str) -> Fingerprint:
        """The fingerprint stored for ``id``; ``KeyError`` if absent."""
        return Fingerprint(int(self._u_fp[self._doc_u[self._ids[id]]]))

    def entries(self) -> tuple[list[str], np.ndarray]:
        """Every id in code-point order and its fingerprint (a uint64 array), without a
        lookup per id (what saving an index writes)."""
        docs, names = self._id_order()
        return names.tolist(), self._u_fp[self._doc_u[docs]]

    def _near_slots(self, fp: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distinct live slots within ``k`` of ``fp`` and their distances (``k`` above
        ``max_k``: a scan of every distinct slot)."""
        q = _U64(fp)
        if self._design is None or self._n_u <= self._scan_below or k > self.max_k:
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
        """The document slots of distinct ``slot`` (its cycle, from its head)."""
        head = int(self._u_head[slot])
        if head < 0:
            return []
        out = [head]
        nxt = self._doc_next
        d = int(nxt[head])
        while d != head:
            out.append(d)
            d = int(nxt[d])
        return out

    def near(self, fp: int, k: int, *, scan_above: bool = False) -> list[Match]:
        """Every document within ``k`` bits of ``fp`` (itself and exact duplicates
        included at distance 0), sorted by ``(distance, id)``. Exact: equal to a
        brute-force scan. ``k`` above ``max_k`` is clamped, or with ``scan_above``
        answered by a scan of every distinct fingerprint (O(distinct)); negative ``k``
        gives ``[]``."""
        fp = _as_fp(fp)
        if k < 0 or not self._ids:
            return []
        slots, dists = self._near_slots(fp, k if scan_above else min(k, self.max_k))
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
        doc = self._ids.get(id)
        if doc is not None:
            if int(self._u_fp[self._doc_u[doc]]) == fp:
                return
            self._unlink(doc)
        else:
            doc = self._new_doc(id)
        self._link(doc, self._slot_for(fp))
        self._journal.append(id)
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
        vectorised pass (sort-based all-pairs join); small ones go through :meth:`add`,
        unless its first adds, timed, say a rebuild is cheaper for the rest.
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
        if not all(issubclass(t, str) for t in set(map(type, ids))):
            raise TypeError("ids must be str")
        if len(ids) == 0:
            return
        if len(ids) < max(64, len(self) // 4):
            done = self._add_each(ids, arr)
            if done == len(ids):
                return
            ids, arr = ids[done:], arr[done:]  # a rebuild is cheaper for the rest
        if not self._ids:  # a first load: no merge unless an id repeats
            first = IdMap.build(list(ids))
            if first is not None:
                self._timed_rebuild(first, arr, pairs)
                return
        # the documents kept, then the new ones; no Python int per document (~80 MB at 1M)
        live = self._doc_u[: len(self._doc_id)] >= 0
        old_ids = cast("list[str]", list(itertools.compress(self._doc_id, live.tolist())))
        old_fps = self._u_fp[self._doc_u[: len(self._doc_id)][live]]
        together = IdMap.build([*old_ids, *ids])
        if together is not None:  # every id new: no document replaced
            del old_ids
            self._timed_rebuild(together, np.concatenate([old_fps, arr]), pairs)
            return
        merged = dict(zip(old_ids, old_fps.tolist(), strict=True))
        del old_ids, old_fps
        merged.update(zip(ids, arr.tolist(), strict=True))
        id_map = IdMap.build(list(merged))
        assert id_map is not None  # dict keys are distinct
        self._timed_rebuild(id_map, np.fromiter(merged.values(), _U64, len(merged)), pairs)

    def _add_each(self, ids: Sequence[str], fps: np.ndarray) -> int:
        """:meth:`add` the documents in turn; after the first ``_probe_adds`` (timed), stop
        when adding the rest would take longer than a rebuild. How many were added."""
        values = fps.tolist()
        start = time.perf_counter()
        for j, (i, v) in enumerate(zip(ids, values, strict=True)):
            self.add(i, v)
            if j + 1 == self._probe_adds and len(ids) > 2 * self._probe_adds:
                per_add = (time.perf_counter() - start) / (j + 1)
                rest = len(ids) - j - 1
                per_doc = self._rebuild_s_per_doc if self._rebuild_cost is None else self._rebuild_cost
                if per_add * rest > per_doc * (len(self) + rest):
                    return j + 1
        return len(ids)

    def _timed_rebuild(
        self, ids: IdMap, fps: np.ndarray, pairs: UniquePairs | PairsLookup | None
    ) -> None:
        start = time.perf_counter()
        self._rebuild(ids, fps, pairs)
        self._rebuild_cost = (time.perf_counter() - start) / max(1, len(fps))

    def remove(self, id: str) -> bool:
        """Remove ``id``; ``False`` (and no change) if it was not present."""
        doc = self._ids.discard(id)
        if doc is None:
            return False
        self._order_remove(id)
        self._unlink(doc)
        self._doc_id[doc] = None
        self._doc_u[doc] = -1
        self._free_docs.append(doc)
        self._journal.append(id)
        self._changed()
        self._maybe_compact()
        return True

    def _new_doc(self, id: str) -> int:
        names = self._ids.names
        if self._free_docs:
            doc = self._free_docs.pop()
            names[doc] = id
        else:
            doc = len(names)
            names.append(id)
            self._doc_u = grow(self._doc_u, doc + 1, -1)
            self._doc_next = grow(self._doc_next, doc + 1, -1)
        self._ids.insert(id, doc)
        self._order_insert(id, doc)
        return doc

    def _link(self, doc: int, slot: int) -> None:
        """Put ``doc`` in the cycle of ``slot``, right after its head."""
        head = int(self._u_head[slot])
        self._doc_u[doc] = slot
        if head < 0:
            self._doc_next[doc] = doc
            self._u_head[slot] = doc
        else:
            self._doc_next[doc] = self._doc_next[head]
            self._doc_next[head] = doc
        self._u_count[slot] += 1

    def _unlink(self, doc: int) -> None:
        """Take ``doc`` out of its slot's cycle: its predecessor is found by walking the
        cycle (a slot's documents are usually few) or, past ``_WALK`` steps, by one
        vectorised search for the document pointing at it."""
        slot = int(self._doc_u[doc])
        nxt = self._doc_next
        after = int(nxt[doc])
        if after == doc:
            self._u_head[slot] = -1
        else:
            prev, steps = after, 0
            while steps < _WALK and int(nxt[prev]) != doc:
                prev, steps = int(nxt[prev]), steps + 1
            if int(nxt[prev]) != doc:
                prev = int(np.flatnonzero(nxt[: len(self._doc_id)] == doc)[0])
            nxt[prev] = after
            if int(self._u_head[slot]) == doc:
                self._u_head[slot] = after
        nxt[doc] = -1
        self._u_count[slot] -= 1
        if self._u_count[slot] == 0:
            self._n_dead += 1
            self._hierarchy.dead_slot(slot)  # it may have bridged families: recompute

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
        self._u_fp = grow(self._u_fp, self._n_u)
        self._u_count = grow(self._u_count, self._n_u)
        self._u_head = grow(self._u_head, self._n_u, -1)
        self._u_fp[slot] = fp
        self._u_count[slot] = 0
        self._u_head[slot] = -1
        self._hierarchy.new_slot(slot, slots, dists)
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
        self._hierarchy.invalidate()
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
        changed since; handed over once. Made from the index's own pair lists when asked
        (the index does not hold a second copy of them meanwhile: 200 MB at 24M pairs)."""
        computed, self._computed_pairs = self._computed_pairs, None
        if computed is None:
            return None
        digest, k = computed
        dists = range(1, self.max_k + 1)
        none = np.empty(0, np.uint32)
        i = np.concatenate([none, *(self._pa[d].view() for d in dists)], dtype=np.int32)
        j = np.concatenate([none, *(self._pb[d].view() for d in dists)], dtype=np.int32)
        d = np.repeat(np.arange(1, self.max_k + 1, dtype=np.uint8),
                      [self._pa[x].n for x in dists])
        return UniquePairs(digest, k, i, j, d)

    def _rebuild(
        self, ids: IdMap | list[str], fps: np.ndarray,
        given: UniquePairs | PairsLookup | None = None,
    ) -> None:
        """Replace the whole content with ``ids`` (a list, or a map whose document slot
        ``i`` is ``names[i]``) and their ``fps``, vectorised: distinct values, pairs,
        tables. A list with a repeated id keeps its last occurrence (one entry an id)."""
        if isinstance(ids, IdMap):
            id_map = ids
        else:
            built = IdMap.build(list(ids))  # (the map keeps and extends its list)
            if built is None:
                last = dict(zip(ids, range(len(ids)), strict=True))
                keep = np.fromiter(last.values(), np.int64, len(last))
                built = IdMap.build(list(last))
                fps = fps[keep]
            assert built is not None  # dict keys are distinct
            id_map = built
        self._clear()
        n = len(id_map)
        # distinct values, and the documents grouped by value (one stable sort)
        u, order, starts, counts = group_positions(np.ascontiguousarray(fps, _U64))
        self._n_u = len(u)
        self._u_fp = u
        self._u_count = counts.astype(np.int32)
        self._ids = id_map
        self._doc_u = np.empty(n, np.int32)
        self._doc_u[order] = np.repeat(np.arange(len(u), dtype=np.int32), counts)
        self._u_head = order[starts].astype(np.int32)
        # each document points at the next of its group, the last one at the first
        nxt = np.empty(n, np.int32)
        nxt[:-1] = order[1:]
        nxt[starts + counts - 1] = self._u_head
        self._doc_next = np.empty(n, np.int32)
        self._doc_next[order] = nxt
        digest = fingerprints_digest(u)
        pairs = given(digest, self.max_k) if callable(given) else given
        computed = pairs is None or not pairs.fits(len(u), digest, self.max_k)
        if computed:
            near = len(u) <= _JOIN_THREADS_UPTO or engine.compiled() is not None
            threads = _JOIN_THREADS if near else 1
            pairs = UniquePairs.compute(u, self.max_k, digest, threads=threads)
        assert pairs is not None
        for dist in range(1, self.max_k + 1):
            sel = pairs.d == dist
            self._pa[dist].set(pairs.i[sel])
            self._pb[dist].set(pairs.j[sel])
        del pairs  # (before the tables are built: at 24M pairs 200 MB)
        self._build_tables()
        self._changed()
        self._computed_pairs = (digest, self.max_k) if computed else None

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

    def _raw_pairs(self) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """The stored pairs at each distance 1..max_k (int32 views, dead slots included)
        and the mask of the live slots."""
        pairs = [(self._pa[d].view(), self._pb[d].view()) for d in range(1, self.max_k + 1)]
        return pairs, self._u_count[: self._n_u] > 0

    def labels(self, k: int) -> np.ndarray:
        """Component label at ``k`` (clamped to ``0..max_k``) of every internal
        distinct-fingerprint slot: a slot of the same component (its representative).
        Slots are an implementation detail (use :meth:`families` for ids); this is
        exposed to measure and test the relabelling: two slots share a family iff their
        labels are equal.

        This is the relabelling run when the k slider moves. The single-linkage
        hierarchy for every k is kept between calls, laid out so every family at every
        k is a run (see :class:`Hierarchy`); any k then costs a few O(n) passes. After
        updates only the families (at ``max_k``) holding a new fingerprint, one of its
        neighbours or a fingerprint that lost its last document are laid out again
        (their pairs recomputed from the fingerprints when they are few), and the array
        of the k asked last (the one cached, per ``(k, generation)``) is patched there:
        the cost of those families plus one copy. Callers must not modify the array.
        """
        k = max(0, min(k, self.max_k))
        n_u = self._n_u
        if self._labels_gen != self.generation:
            hierarchy = self._hierarchy
            hierarchy.refresh(
                n_u, self._u_fp[:n_u], self._u_count[:n_u],
                lambda: [self._edges(d, d - 1) for d in range(1, self.max_k + 1)],
                self._raw_pairs,
            )
            old = self._labels.get(k)
            self._labels = {}
            self._labels_gen = self.generation
            if old is not None:  # only the families that changed are labelled again
                patched = hierarchy.patch(old, k, n_u)
                if patched is not None:
                    patched.flags.writeable = False
                    self._labels[k] = patched
        got = self._labels.pop(k, None)
        if got is None:
            got = self._hierarchy.labels(k, n_u)
            got.flags.writeable = False
            if len(self._labels) >= _LABEL_CACHE:
                self._labels.pop(next(iter(self._labels)))
        self._labels[k] = got  # most recently used last
        return got

    def families(self, k: int, *, mode: Mode = "chain", min_size: int = 1) -> list[Family]:
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
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if not self._ids:
            return []
        return list(self.family_listing(k, mode=mode, min_size=min_size))

    def family_listing(self, k: int, *, mode: Mode = "chain", min_size: int = 1) -> FamilyListing:
        """:meth:`families` as an immutable :class:`FamilyListing` shared with the index's
        family cache (the one cache of listings: every k and mode of the current
        generation). Singletons are held as ids (see :mod:`core.families.listing`)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if k < 0:
            if min_size > 1 or not self._ids:
                return FamilyListing()
            return FamilyListing((), self._id_order()[1].tolist())
        k = min(k, self.max_k)
        key = (k, mode, max(min_size, 1))
        if not self._ids:
            self._last_listing[key] = (FamilyListing(), len(self._journal))
            return FamilyListing()
        if self._families_gen != self.generation:
            self._families = {}
            self._families_gen = self.generation
        cached = self._families.get(key)
        if cached is not None:
            return cached
        if len(self._journal) > _JOURNAL_LIMIT:  # too many changes to patch any listing
            self._journal = []
            self._last_listing = {}
        last = self._last_listing.get(key)
        out = None
        if last is not None and mode == "chain" and key[2] == 1:
            touched = set(self._journal[last[1] :])
            if len(touched) <= _PATCH_LIMIT:
                out = self._patch_chain(last[0], touched, k)
        if out is None:
            lower = None
            if mode == "chain":  # the nearest listing below k of this generation, if any
                below = [kk for (kk, m, size) in self._families if m == mode and kk < k and size == key[2]]
                if below:
                    lower = self._families[(max(below), mode, key[2])]
            out = self._compute_families(k, mode, max(min_size, 1), lower)
        self._last_listing[key] = (out, len(self._journal))
        if len(self._families) >= _FAMILY_CACHE:
            self._families.pop(next(iter(self._families)))
        self._families[key] = out
        return out

    def _patch_chain(self, old: FamilyListing, touched: set[str], k: int) -> FamilyListing:
        """The chain listing at ``k`` from ``old`` (the listing at ``k`` before the
        documents ``touched`` were added, changed or removed): only the families that
        hold a touched document, before or after, are computed again (every other one is
        kept, the same object). Equal to a full computation (tested against one)."""
        labels = self.labels(k)
        fam_of = old.take_family_of()
        slot_of, doc_u = self._ids, self._doc_u
        doc_id = cast("list[str]", self._doc_id)
        affected: dict[int, Family] = {}  # old families recomputed (by object id)
        groups: dict[int, list[str]] = {}  # new components (label -> members)
        covered: set[str] = set()
        frontier = set(touched)
        while frontier:
            covered |= frontier
            wanted: set[int] = set()
            more: set[str] = set()
            for d in frontier:
                family = fam_of.get(d)
                if family is not None and id(family) not in affected:
                    affected[id(family)] = family
                    more.update(family.members)
                doc = slot_of.get(d)
                if doc is not None:
                    label = int(labels[doc_u[doc]])
                    if label not in groups:
                        wanted.add(label)
            if wanted:
                for label in wanted:
                    groups[label] = []
                slots = np.flatnonzero(np.isin(labels, np.fromiter(wanted, np.int64, len(wanted))))
                for s in slots.tolist():
                    members = groups[int(labels[s])]
                    for doc in self._docs_of(s):
                        members.append(doc_id[doc])
                more.update(m for label in wanted for m in groups[label])
            frontier = more - covered
        multi = [f for f in old.multi if id(f) not in affected]
        singles = list(old.singles)
        gone = touched.union(*(f.members for f in affected.values()))
        gone.update(m for members in groups.values() for m in members)
        for d in gone:
            at = bisect.bisect_left(singles, d)
            if at < len(singles) and singles[at] == d:
                del singles[at]
        for family in affected.values():
            for m in family.members:
                if fam_of.get(m) is family:
                    del fam_of[m]
        for members in groups.values():
            members.sort()
            if len(members) == 1:
                bisect.insort(singles, members[0])
                continue
            fps = self._u_fp[self._doc_u[np.fromiter((slot_of[m] for m in members), np.int64, len(members))]]
            centre, diameter, exact = describe_family(members, fps)
            family = Family(tuple(members), centre, diameter, exact)
            bisect.insort(multi, family, key=_family_order)
            for m in members:
                fam_of[m] = family
        out = FamilyListing(multi, singles)
        out._family_of = fam_of
        return out

    # -- pairs and merge order (for explanations) ----------------------------------------------
    def distinct_pairs(self, k: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of distinct fingerprints within ``k`` (default ``max_k``, clamped):
        ``(fp_a, fp_b, distance)`` arrays (uint64, uint64, int64), ``fp_a < fp_b``,
        ordered by (distance, fp_a, fp_b)."""
        k = self.max_k if k is None else max(0, min(k, self.max_k))
        a_parts, b_parts, d_parts = [], [], []
        for d in range(1, k + 1):
            a, b = self._edges(d, d - 1)
            a_parts.append(a)
            b_parts.append(b)
            d_parts.append(np.full(len(a), d, np.int64))
        if not a_parts:
            empty = np.empty(0, _U64)
            return empty, empty, np.empty(0, np.int64)
        fa = self._u_fp[np.concatenate(a_parts).astype(np.int64)]
        fb = self._u_fp[np.concatenate(b_parts).astype(np.int64)]
        dist = np.concatenate(d_parts)
        lo, hi = np.minimum(fa, fb), np.maximum(fa, fb)
        order = np.lexsort((hi, lo, dist))
        return lo[order], hi[order], dist[order]

    def merge_order(self) -> list[tuple[int, Fingerprint, Fingerprint]]:
        """The single-linkage merges over the distinct fingerprints, in the order they
        happen as k grows: ``(distance, fp_a, fp_b)`` for every pair that joins two
        families (Kruskal's order, ties by fingerprints). The families at ``k`` are the
        components of the merges with distance <= k (plus exact duplicates)."""
        fa, fb, dist = self.distinct_pairs()
        if not len(fa):
            return []
        values, inverse = np.unique(np.concatenate([fa, fb]), return_inverse=True)
        a, b = inverse[: len(fa)], inverse[len(fa) :]
        ma, mb, md = merge_order(len(values), a, b, dist)
        return [
            (int(d), Fingerprint(int(values[x])), Fingerprint(int(values[y])))
            for d, x, y in zip(md.tolist(), ma.tolist(), mb.tolist(), strict=True)
        ]

    def family_counts(self, mode: Mode = "chain") -> list[int]:
        """Number of families of 2+ documents at every k in ``0..max_k`` (the k sweep)."""
        if mode == "star":
            return [
                sum(1 for f in self.family_listing(k, mode="star", min_size=2))
                for k in range(self.max_k + 1)
            ]
        n_u = self._n_u
        count = self._u_count[:n_u].astype(np.int64)
        out = []
        for k in range(self.max_k + 1):
            sizes = np.bincount(self.labels(k), weights=count, minlength=n_u)
            out.append(int((sizes >= 2).sum()))
        return out

    def _id_order(self) -> tuple[np.ndarray, np.ndarray]:
        """Every live document slot in code-point order of its id, and those ids (an
        object array). Kept between listings and updated in place when documents come
        and go (a changed fingerprint keeps it), so a listing sorts no strings."""
        if self._ord_names is not None and (self._ord_add or self._ord_del):
            self._order_apply()
        if self._ord_docs is None or self._ord_names is None:
            self._ord_add, self._ord_del = {}, set()
            docs = np.flatnonzero(self._doc_u >= 0)
            doc_id = self._doc_id
            names = cast("list[str]", [doc_id[d] for d in docs.tolist()])
            order = sorted(range(len(names)), key=names.__getitem__)
            self._ord_docs = (docs[np.array(order, np.int64)] if order else docs).astype(np.int32)
            self._ord_names = np.empty(len(names), object)
            self._ord_names[:] = [names[i] for i in order]
        return self._ord_docs, self._ord_names

    def _order_insert(self, id: str, doc: int) -> None:
        if self._ord_names is not None:
            self._ord_add[id] = doc

    def _order_remove(self, id: str) -> None:
        if self._ord_names is not None and self._ord_add.pop(id, None) is None:
            self._ord_del.add(id)

    def _order_apply(self) -> None:
        """Apply the documents added and removed since the id order was last used (one
        O(n) pass whatever their number)."""
        docs, names = self._ord_docs, self._ord_names
        assert docs is not None and names is not None
        if self._ord_del:
            gone = np.empty(len(self._ord_del), object)
            gone[:] = sorted(self._ord_del)
            where = np.searchsorted(names, gone)
            if (where >= len(names)).any() or not all(
                names[w] == g for w, g in zip(where.tolist(), gone.tolist(), strict=True)
            ):
                self._ord_docs = self._ord_names = None  # out of step: sort again
                return
            names, docs = np.delete(names, where), np.delete(docs, where)
        if self._ord_add:
            items = sorted(self._ord_add.items())
            new = np.empty(len(items), object)
            new[:] = [i for i, _ in items]
            where = np.searchsorted(names, new)
            names = np.insert(names, where, new)
            docs = np.insert(docs, where, np.array([d for _, d in items], docs.dtype))
        self._ord_docs, self._ord_names = docs, names
        self._ord_add, self._ord_del = {}, set()

    def _compute_families(
        self, k: int, mode: str, min_size: int, lower: FamilyListing | None = None
    ) -> FamilyListing:
        """The listing at ``k`` computed afresh. ``lower``: the chain listing at a smaller
        k of the same content; a chain family at ``k`` with the same members as one of
        ``lower`` is that same object (chain families only grow with k, so the family of
        ``lower`` holding a family's first member is the same family iff it is as large;
        its centre and diameter depend on its members alone): listings of nearby k share
        most of their families (memory) and keep their identity."""
        reuse: dict[str, Family] = {}
        if lower is not None and mode == "chain":
            reuse = {f.members[0]: f for f in lower.multi}
        n_u = self._n_u
        group = self.labels(k) if mode == "chain" else self._star_centres(k)
        # every live document in code-point order of its id: members and singletons
        # come out sorted without a sort per family
        docs, names = self._id_order()
        doc_group = group[self._doc_u[docs]]
        doc_size = np.bincount(doc_group, minlength=n_u).astype(np.int32)[doc_group]
        # singletons need no statistics and sort by id alone, after every larger family
        singles: list[str] = []
        if min_size <= 1:
            singles = names[doc_size == 1].tolist()
        sel = np.flatnonzero(doc_size >= max(min_size, 2))
        out: list[Family] = []
        if len(sel):
            order = sel[np.argsort(doc_group[sel], kind="stable")]  # ids stay sorted
            docs, doc_group = docs[order], doc_group[order]
            doc_id = cast("list[str]", self._doc_id)

            def star_centre(slot: int) -> tuple[str, int]:
                return min(doc_id[d] for d in self._docs_of(slot)), int(self._u_fp[slot])

            out = families_of_runs(
                names[order].tolist(), self._u_fp[self._doc_u[docs]], doc_group, order,
                cast("Mode", mode), star_centre, reuse,
            )
        return FamilyListing(out, singles)

    def _star_centres(self, k: int) -> np.ndarray:
        """For every distinct slot, the slot of its star centre at ``k``."""
        a, b = self._edges(k)
        return star_centres(
            self._n_u,
            self._u_count,
            a,
            b,
            lambda s: min(str(self._doc_id[d]) for d in self._docs_of(s)),
        )

    # -- introspection -------------------------------------------------------------------
    def memory(self) -> dict[str, int]:
        """Bytes held, by structure (numpy buffers at capacity): ``id_map`` is the hash
        table and the list of ids (a pointer a document; the id strings are the caller's),
        ``labels`` the hierarchy and the cached label array, ``id_order`` the documents
        in id order kept once families were listed (0 before), ``pairs`` the pairs."""
        pairs = sum(g.data.nbytes for g in self._pa + self._pb)
        id_order = 0
        if self._ord_docs is not None and self._ord_names is not None:
            id_order = self._ord_docs.nbytes + self._ord_names.nbytes
        return {
            "documents": self._doc_u.nbytes + self._doc_next.nbytes,
            "distinct": self._u_fp.nbytes + self._u_count.nbytes + self._u_head.nbytes,
            "tables": sum(t.nbytes for t in self._tables),
            "labels": sum(v.nbytes for v in self._labels.values()) + self._hierarchy.nbytes,
            "id_map": self._ids.nbytes,
            "id_order": id_order,
            "pairs": pairs,
        }

    def near_graph(self) -> NearGraph:
        """A snapshot of the pairs and the merge order, for ``core.families.paths``."""
        from ditto_tui.core.families.paths import NearGraph

        a, b = self._edges(self.max_k)
        n, fps = self._n_u, self._u_fp[: self._n_u].copy()
        live = self._doc_u[: len(self._doc_id)] >= 0
        # the live ids in slot order (no int object per document on the way: ~40 MB at 1M)
        ids = cast("list[str]", list(itertools.compress(self._doc_id, live.tolist())))
        return NearGraph(
            fps, self._u_count[:n].astype(np.int64), a, b, popcount64(fps[a] ^ fps[b]).astype(np.int64),
            tuple(self.labels(k) for k in range(self.max_k + 1)),
            ids, self._doc_u[: len(self._doc_id)][live], self.max_k,
        )

    def merge_levels(self) -> MergeLevels:
        """The distinct fingerprints, their document counts and their labels at every k
        (made one k at a time), as views of the index: valid until it next changes, and
        far lighter than :meth:`near_graph` (no pairs, ids or copies)."""
        n = self._n_u
        return _Levels(self._u_fp[:n], self._u_count[:n], _LabelsByK(self, n))

    def pair_count(self, k: int | None = None) -> int:
        """Number of live distinct-fingerprint pairs within ``k`` (default ``max_k``)."""
        return len(self._edges(self.max_k if k is None else max(0, min(k, self.max_k)))[0])


@dataclass(frozen=True, slots=True)
class _Levels:
    """:class:`~ditto_tui.core.families.tree.MergeLevels` of a :class:`NearIndex`."""

    fps: np.ndarray
    counts: np.ndarray
    labels: Sequence[np.ndarray]


class _LabelsByK(Sequence[np.ndarray]):
    """``index.labels(k)`` for k = 0..max_k, computed when read (not all held at once)."""

    def __init__(self, index: NearIndex, n_u: int) -> None:
        self._index, self._n_u = index, n_u

    def __len__(self) -> int:
        return self._index.max_k + 1

    @overload
    def __getitem__(self, k: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, k: slice) -> Sequence[np.ndarray]: ...

    def __getitem__(self, k: int | slice) -> np.ndarray | Sequence[np.ndarray]:
        if isinstance(k, slice):
            return [self[i] for i in range(len(self))[k]]
        if not -len(self) <= k < len(self):
            raise IndexError(k)
        return self._index.labels(k % len(self))[: self._n_u]
