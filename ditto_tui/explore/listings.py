"""Family listings of the published index: computed on request, and ahead ("warming");
and the figures of every k (:meth:`Listings.sweep`).

A listing is every family at one ``(k, mode)`` of the index as published, with its notes
(:func:`~ditto_tui.explore.view.listing_notes`); it is added to the snapshot of its
generation (``Snapshot.listings``, the one cache of them). When no change has arrived for
:data:`WARM_AFTER` seconds and the UI has asked for a view, the listings of the other k
are computed one at a time, nearest first, so a k step finds its listing ready; once all
are, the heap settles (:class:`~ditto_tui.explore.process_tuning.HeapPolicy`).
Writer thread only.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.tree import SweepRow, sweep_stats
from ditto_tui.explore.events import ExplorerEvent, ListingWarmed
from ditto_tui.explore.indexed import FamilyIndex
from ditto_tui.explore.process_tuning import HeapPolicy, trim_heap
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import ViewRequest, listing_notes

WARM_AFTER = 1.0  # seconds without changes before other k are precomputed


class Listings:
    """Computing and warming the listings of one index (see module docstring)."""

    def __init__(
        self, max_k: int, *, heap: HeapPolicy, on_event: Callable[[ExplorerEvent], None]
    ) -> None:
        self.max_k = max_k
        self._heap = heap
        self._on_event = on_event
        self._noted: dict[tuple[int, Mode], FamilyListing] = {}  # last listing, noted
        self._last_change = 0.0
        self._warm_more = True  # other listings may be worth precomputing
        self._settle_due = True  # listings were computed since the heap last settled

    @property
    def warming(self) -> bool:
        """Whether listings of other k may still be worth precomputing."""
        return self._warm_more

    def want_warm(self) -> None:
        """A new request or snapshot: look again for listings to precompute."""
        self._warm_more = True

    def changed(self) -> None:
        """The index changed: warming waits for ``WARM_AFTER`` without changes."""
        self._last_change = time.monotonic()
        self._warm_more = True
        self._settle_due = True

    def forget(self) -> None:
        """A new index (the source was replaced): no listing of the old one counts."""
        self._noted = {}

    def idle_timeout(self, request: ViewRequest | None, scanning: bool) -> float | None:
        """How long the writer may wait for work before warming (None: no warming due;
        while a scan runs, or before the UI asked for a view, there is nothing to warm,
        and a zero timeout would spin and starve the scan)."""
        if not self._warm_more or scanning or request is None:
            return None
        return 0.0 if time.monotonic() - self._last_change >= WARM_AFTER else 0.1

    def compute(self, index: FamilyIndex, snap: Snapshot, k: int, mode: Mode) -> bool:
        """Add the listing at ``(k, mode)`` to ``snap`` (the index as published); False
        when it was there already."""
        key = (max(0, min(k, self.max_k)), mode)
        if key in snap.listings:
            return False
        listing = index.family_listing(key[0], mode=mode)
        # its notes too (one pass over its families; those kept from the last listing of
        # this key keep theirs): a k step then builds its view in O(1) instead of
        # looking at every family (about 1 s at 1M documents)
        listing_notes(listing, key[0], mode, snap.documents, self._noted.get(key))
        self._noted[key] = listing
        snap.listings[key] = listing
        self._settle_due = True
        return True

    def sweep(self, index: FamilyIndex, snap: Snapshot) -> tuple[SweepRow, ...]:
        """The figures of every k (``core.families.tree.sweep_stats``, the k chart) of
        ``snap`` (the index as published), kept in it. On the writer thread, from the
        index's own arrays: never beside a listing (their temporaries would add up,
        ~100 MB each at a million documents)."""
        if not snap.sweep:
            snap.sweep.append(tuple(sweep_stats(index.merge_levels())))
            trim_heap()
        return snap.sweep[0]

    def warm_one(self, index: FamilyIndex, snap: Snapshot, request: ViewRequest) -> bool:
        """Compute one listing the user may ask for next (the request's k first, then the
        nearest ones, in its mode); settle the heap once all are warm. True when one was
        computed."""
        if time.monotonic() - self._last_change < WARM_AFTER:
            return False  # changes are arriving: keep the writer free for them
        k = request.k
        for kk in sorted(range(self.max_k + 1), key=lambda x: (abs(x - k), x)):
            if (kk, request.mode) not in snap.listings:
                self.compute(index, snap, kk, request.mode)
                trim_heap()  # (its temporaries: 1M documents, tens of MB a listing)
                self._on_event(ListingWarmed(kk, request.mode, snap.generation))
                return True
        self._warm_more = False
        if self._settle_due:  # (not after every key: a settle holds the GIL for a collection)
            self._settle_due = False
            self._heap.settle(len(snap))
        return False
