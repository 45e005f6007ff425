"""Families computed elsewhere, shown as they are: :class:`StoredIndex`.

A Spark run stores, for every document in id order, its fingerprint and, for every k up
to its K, the family it belongs to (a label: the position of the family's smallest
member). :class:`StoredIndex` turns those arrays into the listings the explorer shows
(:class:`~ditto_tui.core.families.listing.FamilyListing`, equal to what a
:class:`~ditto_tui.core.index.near_index.NearIndex` of the same fingerprints lists) without
indexing the fingerprints again: a listing is a few O(n) numpy passes over the labels,
and only the families of 2+ members become Python objects (singletons stay positions in
the id column, named when read). Star grouping and the near graph (explanations, the
family tree) need the pairs: the stored ones when given, else the pairs of the distinct
fingerprints computed here, once, when first asked for. Read-only; not thread-safe (the
explorer's writer thread is its only user).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, overload

import numpy as np

from ditto_tui.core.families.clusters import MODES, Family, Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.star import star_centres
from ditto_tui.core.families.stats import families_of_runs
from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.pairs import unique_pairs

if TYPE_CHECKING:
    from ditto_tui.core.families.paths import NearGraph

__all__ = ["IdColumn", "IdsAt", "StoredIndex", "StoredPairs", "distinct_nodes"]

_LISTINGS = 24  # listings kept (every k of both modes, for K up to 11)
_CHUNK = 1 << 16  # ids named at a time when a sequence of them is iterated

#: Fingerprint pairs a run stored: ``(fp_a, fp_b, distance)`` (uint64, uint64, ints), every
#: pair of distinct fingerprints within the run's K once; None when none were stored.
StoredPairs = Callable[[], "tuple[np.ndarray, np.ndarray, np.ndarray] | None"]


def distinct_nodes(fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of ``fps`` (sorted), the first position of each, and each
    position's node (positions as int32 below 2**31 documents)."""
    u, first, inv = np.unique(fps, return_index=True, return_inverse=True)
    position = np.int32 if len(fps) < 2**31 else np.int64
    return u, first.astype(position), inv.reshape(-1).astype(position)


class IdColumn(Protocol):
    """Document ids in code-point order, read by position (e.g. an Arrow string array)."""

    def __len__(self) -> int: ...

    def __getitem__(self, position: int) -> str: ...

    def take(self, positions: np.ndarray, *, remember: bool = False) -> list[str]:
        """The ids at ``positions`` (in that order); ``remember``: they will be looked up
        by name (the column may keep their positions)."""
        ...

    def position(self, doc_id: str) -> int:
        """The position of ``doc_id``; KeyError when absent."""
        ...


class IdsAt(Sequence[str]):
    """The ids of ``column`` at ``positions`` (every id, in order, by default) as a
    read-only sequence, named when read (4 or 8 bytes a position, or nothing, instead of
    a reference and a string)."""

    __slots__ = ("_column", "_positions")

    def __init__(self, column: IdColumn, positions: np.ndarray | range | None = None) -> None:
        self._column = column
        self._positions = range(len(column)) if positions is None else positions

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> IdsAt: ...

    def __getitem__(self, index: int | slice) -> str | IdsAt:
        if isinstance(index, slice):
            return IdsAt(self._column, self._positions[index])
        return self._column[int(self._positions[index])]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self._positions), _CHUNK):
            chunk = self._positions[start : start + _CHUNK]
            yield from self._column.take(np.asarray(chunk))

    def __repr__(self) -> str:
        return f"IdsAt({len(self)} ids)"


class StoredIndex:
    """The stored families of ``len(ids)`` documents (see module docstring).

    ``ids`` are the documents in code-point order, ``fps[i]`` the fingerprint of
    ``ids[i]``; ``labels(k)`` gives, for ``0 <= k <= max_k``, every document's family
    label at ``k`` in chain grouping (the position of the family's smallest member: equal
    labels, one family). ``pairs`` loads the stored pairs (see :data:`StoredPairs`).
    The labels are trusted: callers check them against the fingerprints when they read
    them (``scale.results``)."""

    def __init__(
        self,
        ids: IdColumn,
        fps: np.ndarray,
        labels: Callable[[int], np.ndarray],
        max_k: int,
        *,
        pairs: StoredPairs | None = None,
        nodes: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        if len(ids) != len(fps):
            raise ValueError(f"{len(ids)} ids but {len(fps)} fingerprints")
        self.ids = ids
        self.fps = np.ascontiguousarray(fps, dtype=np.uint64)
        self.max_k = max_k
        self._labels = labels
        self._stored_pairs = pairs
        self._listings: dict[tuple[int, Mode], FamilyListing] = {}
        self._distinct = nodes or (lambda: distinct_nodes(self.fps))
        self._nodes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._graph: NearGraph | None = None

    def __len__(self) -> int:
        return len(self.fps)

    # -- listings --------------------------------------------------------------------------
    def family_listing(self, k: int, *, mode: Mode = "chain") -> FamilyListing:
        """Every family at ``k`` (clamped to ``0..max_k``) in ditto's order, singletons
        included (as positions); equal to ``NearIndex.family_listing`` of the same
        fingerprints. Kept for the next call."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        k = max(0, min(k, self.max_k))
        got = self._listings.get((k, mode))
        if got is None:
            if not len(self.fps):
                got = FamilyListing()
            elif mode == "chain":
                got = self._listing(np.asarray(self._labels(k)), mode, self._nearest_chain(k))
            else:
                _, first, inv = self.nodes()
                got = self._listing(first[self._star_centres(k)][inv], mode)
            if len(self._listings) >= _LISTINGS:
                self._listings.pop(next(iter(self._listings)))
            self._listings[(k, mode)] = got
        return got

    def _nearest_chain(self, k: int) -> dict[str, Family]:
        """First member -> family of the kept chain listing nearest ``k`` (empty if none).

        Chain families nest: each family at one k lies inside one family at every larger
        k. So a family at ``k`` holding the first member of a family at another k, with
        as many members, is that family: it is listed as the same object (listings of
        nearby k share most families, and the explorer sees a family that did not change
        with k as unchanged)."""
        kept = [kk for (kk, mode) in self._listings if mode == "chain"]
        if not kept:
            return {}
        nearest = min(kept, key=lambda kk: (abs(kk - k), kk))
        return {f.members[0]: f for f in self._listings[(nearest, "chain")].multi}

    def _listing(
        self, group: np.ndarray, mode: Mode, reuse: dict[str, Family] | None = None
    ) -> FamilyListing:
        """The listing of documents grouped by ``group`` (per document, the position of a
        document naming the group: in chain mode its smallest member, in star mode its
        centre); a family of ``reuse`` (first member -> family) with the same members is
        listed as that object."""
        n = len(group)
        sizes = np.bincount(group, minlength=n)
        doc_size = sizes[group]
        position = np.int32 if n < 2**31 else np.int64
        singles = IdsAt(self.ids, np.flatnonzero(doc_size == 1).astype(position))
        sel = np.flatnonzero(doc_size >= 2)
        if not len(sel):
            return FamilyListing((), singles)
        order = sel[np.argsort(group[sel], kind="stable")]  # ids stay sorted in a family

        def star_centre(label: int) -> tuple[str, int]:
            return self.ids[label], int(self.fps[label])

        families = families_of_runs(
            self.ids.take(order, remember=True), self.fps[order], group[order], order, mode,
            star_centre, reuse,
        )
        return FamilyListing(families, singles)

    # -- distinct fingerprints and their pairs -----------------------------------------------
    def nodes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct fingerprints (sorted), the first document of each, and each
        document's node (:func:`distinct_nodes`, or the ``nodes`` given; once)."""
        if self._nodes is None:
            self._nodes = self._distinct()
        return self._nodes

    def node_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs ``a < b`` of nodes within ``max_k`` and their distances: the stored pairs
        when they name these fingerprints, else computed here (once)."""
        if self._pairs is None:
            u = self.nodes()[0]
            found = self._from_stored(u)
            if found is None:
                a, b, d = unique_pairs(u, self.max_k)
                found = (a.astype(np.int64), b.astype(np.int64), d.astype(np.int64))
            self._pairs = found
        return self._pairs

    def _from_stored(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        stored = self._stored_pairs() if self._stored_pairs is not None else None
        if stored is None or not len(u):
            return None
        fa = np.asarray(stored[0], np.uint64)
        fb = np.asarray(stored[1], np.uint64)
        d = np.asarray(stored[2], np.int64)
        keep = d <= self.max_k
        fa, fb, d = fa[keep], fb[keep], d[keep]
        a = np.searchsorted(u, fa)
        b = np.searchsorted(u, fb)
        cap = len(u) - 1
        if (
            (a > cap).any()
            or (b > cap).any()
            or (u[np.minimum(a, cap)] != fa).any()
            or (u[np.minimum(b, cap)] != fb).any()
            or (popcount64(fa ^ fb) != d).any()
        ):
            return None  # not the pairs of these fingerprints: computed here instead
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return lo.astype(np.int64), hi.astype(np.int64), d

    def _star_centres(self, k: int) -> np.ndarray:
        u, first, inv = self.nodes()
        a, b, d = self.node_pairs()
        within = d <= k
        counts = np.bincount(inv, minlength=len(u))
        return star_centres(len(u), counts, a[within], b[within], lambda s: self.ids[int(first[s])])

    def merge_levels(self) -> NearGraph:
        """The merge order for the k sweep (``core.families.tree.sweep_stats``): the near
        graph, made once (its labels are stored)."""
        return self.near_graph()

    def near_graph(self) -> NearGraph:
        """The pairs and merge order of every document, for ``core.families.paths``
        (the node of a family at k is the node of its label). Made once: the stored
        families never change."""
        if self._graph is None:
            from ditto_tui.core.families.paths import NearGraph

            u, first, inv = self.nodes()
            a, b, d = self.node_pairs()
            counts = np.bincount(inv, minlength=len(u)).astype(np.int64)
            labels = tuple(
                inv[np.asarray(self._labels(k))[first]] for k in range(self.max_k + 1)
            )
            ids = IdsAt(self.ids)
            self._graph = NearGraph(
                u, counts, a, b, d, labels, ids, inv, self.max_k, locate=self.ids.position
            )
        return self._graph
