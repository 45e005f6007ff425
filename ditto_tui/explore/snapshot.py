"""Snapshot: one immutable state of the explorer's index, readable from any thread.

The explorer's writer publishes a new snapshot after every change it applies; readers
(the UI thread, view builders, neighbour look-ups) take the current one and keep using
it, so a reader never sees a half-applied change. ``generation`` grows with every
publication; ``epoch`` grows when the corpus source is replaced (pipeline switch).
Family listings computed by the writer for this generation are added to ``listings``
as they become known (the only cache of them), and the figures of every k to ``sweep``;
nothing else changes after publication.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.tree import SweepRow
from ditto_tui.core.fingerprint.simhash import Fingerprint, popcount64
from ditto_tui.core.index.near_index import Match
from ditto_tui.corpus.documents import Document, Skipped


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The index at ``generation``: ids and fingerprints, document metadata, skips.

    ``fingerprints`` and ``documents`` are read-only mappings that are never modified
    after publication. ``complete`` is True once a scan of the source (of this
    ``epoch``) has ended: the documents are then the whole corpus, not a part of it
    still growing (a rescan keeps it True; a failed scan ends it too). ``listings[(k, mode)]`` is every family at ``k``
    (singletons included, ditto's order) once the writer has computed it.
    """

    generation: int
    epoch: int
    max_k: int
    fingerprints: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    documents: Mapping[str, Document] = field(default_factory=lambda: MappingProxyType({}))
    skipped: Sequence[Skipped] = ()
    scanning: bool = False
    complete: bool = False
    listings: dict[tuple[int, str], FamilyListing] = field(default_factory=dict)
    #: the figures of every k (the k chart), once the writer has computed them (one entry)
    sweep: list[tuple[SweepRow, ...]] = field(default_factory=list)
    #: the ids (any fixed order) and their fingerprints as an array, made on first use
    #: unless the writer gave them
    _arrays: list[tuple[Sequence[str], np.ndarray]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __repr__(self) -> str:
        # short: a repr of every fingerprint and document (100,000s) is seconds of CPU, and
        # Textual writes one for each argument of a worker it starts
        return (
            f"Snapshot(generation={self.generation}, epoch={self.epoch}, "
            f"documents={len(self.fingerprints)}, scanning={self.scanning})"
        )

    def __len__(self) -> int:
        return len(self.fingerprints)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.fingerprints

    def fingerprint(self, doc_id: str) -> int:
        """The fingerprint of ``doc_id``; KeyError when absent."""
        return self.fingerprints[doc_id]

    def listing(self, k: int, mode: str) -> FamilyListing | None:
        """Every family at ``(k, mode)`` if the writer computed it for this generation."""
        return self.listings.get((k, mode))

    def near(self, fp: int, k: int) -> list[Match]:
        """Every document within ``k`` bits of ``fp``, sorted by ``(distance, id)``;
        equal to :meth:`NearIndex.near` (``k`` clamped to ``max_k``, ``k < 0`` gives
        ``[]``). A vectorised scan of this snapshot: no lock of the writer is taken."""
        if k < 0 or not self.fingerprints:
            return []
        k = min(k, self.max_k)
        ids, fps = self._id_arrays()
        dist = popcount64(fps ^ np.uint64(fp))
        hits = np.flatnonzero(dist <= k)
        out = [
            Match(ids[i], Fingerprint(int(fps[i])), int(dist[i])) for i in hits.tolist()
        ]
        out.sort(key=lambda m: (m.distance, m.id))
        return out

    def _id_arrays(self) -> tuple[Sequence[str], np.ndarray]:
        with self._lock:
            if not self._arrays:
                ids = list(self.fingerprints)
                fps = np.fromiter(self.fingerprints.values(), np.uint64, len(ids))
                self._arrays.append((ids, fps))
            return self._arrays[0]
