"""What the index writer owns of one source: :class:`IndexedCorpus`.

Either the source's documents arrive as batches and are indexed here (a
:class:`~ditto_tui.core.index.near_index.NearIndex` and the
:class:`~ditto_tui.explore.contents.Contents` maps), or the source brings families
computed elsewhere (:class:`~ditto_tui.explore.source.StoredFamilies`, a Spark results
folder): then its :class:`~ditto_tui.core.index.stored.StoredIndex` answers the listings
and the near graph, and its own read-only maps are published, so nothing is indexed
again and no per-document object is made. Writer thread only.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.paths import NearGraph
from ditto_tui.core.families.tree import MergeLevels
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.index.stored import IdsAt, StoredIndex
from ditto_tui.corpus.documents import ChangeBatch, Document
from ditto_tui.explore.contents import Contents
from ditto_tui.explore.source import CorpusSource, PairStore, StoredFamilies


class FamilyIndex(Protocol):
    """What listings, explanations and the k sweep need of an index (``NearIndex``,
    ``StoredIndex``)."""

    def family_listing(self, k: int, *, mode: Mode = ...) -> FamilyListing: ...

    def near_graph(self) -> NearGraph: ...

    def merge_levels(self) -> MergeLevels: ...


#: What a snapshot publishes: fingerprints and records of one moment, and optionally the
#: ids (in any fixed order) and fingerprints as arrays, ready for vectorised scans.
Published = tuple[Mapping[str, int], Mapping[str, Document], tuple[Sequence[str], np.ndarray] | None]


class IndexedCorpus:
    """The index and maps of the writer's current source (see module docstring)."""

    def __init__(self, max_k: int) -> None:
        self.max_k = max_k
        self._index = NearIndex(max_k)
        self._contents = Contents()
        self._stored: tuple[StoredIndex, CorpusSource] | None = None

    def __len__(self) -> int:
        if self._stored is not None:
            return len(self._stored[0])
        return len(self._contents)

    @property
    def index(self) -> FamilyIndex:
        """The index listings are computed from."""
        return self._stored[0] if self._stored is not None else self._index

    @property
    def contents(self) -> Contents:
        """The maps of the documents indexed here (empty with stored families)."""
        return self._contents

    @property
    def stored(self) -> bool:
        """Whether the families are the source's stored ones."""
        return self._stored is not None

    def use_stored(self, source: CorpusSource) -> bool:
        """Show the stored families of ``source`` if it has them (its scan delivered no
        batch then); True when it does."""
        if self._stored is None and isinstance(source, StoredFamilies):
            stored = source.stored_index()
            if stored is not None:
                self._stored = (stored, source)
        return self._stored is not None

    def apply(self, batch: ChangeBatch, source: CorpusSource) -> bool:
        """Apply one batch to the index and the maps; True if anything changed."""
        index, contents = self._index, self._contents
        changed = False
        for doc_id in batch.removed:
            if index.remove(doc_id):
                contents.removed(doc_id)
                changed = True
        n_new = len(batch.added) + len(batch.changed)
        if n_new > 32:  # one array, no per-document copies (a scan may bring millions)
            ids = [*batch.added, *batch.changed]  # a later duplicate wins, as in add_many
            lookup = source.load_pairs if isinstance(source, PairStore) else None
            values = np.fromiter(
                itertools.chain(batch.added.values(), batch.changed.values()), np.uint64, n_new
            )
            index.add_many(ids, values, pairs=lookup)
        else:
            for given in (batch.added, batch.changed):
                for doc_id, fp in given.items():
                    index.add(doc_id, int(fp))
        return contents.update(batch) or changed or bool(n_new)

    def gone(self, removed: list[str]) -> dict[str, int]:
        """The fingerprints the ids ``removed`` have now (those known)."""
        return self._contents.gone(removed)

    def publish(self) -> Published:
        """The maps for a new snapshot (shared until the next change)."""
        if self._stored is not None:
            stored, source = self._stored
            return source.fingerprints, source.documents, (IdsAt(stored.ids), stored.fps)
        fingerprints, documents = self._contents.publish()
        return fingerprints, documents, None

    def fingerprints(self) -> Mapping[str, int]:
        """id -> fingerprint now (do not keep it)."""
        if self._stored is not None:
            return self._stored[1].fingerprints
        return self._contents.fingerprints

    def records(self) -> Mapping[str, Document]:
        """The records of the documents in :meth:`fingerprints`, read-only."""
        if self._stored is not None:
            return self._stored[1].documents
        return self._contents.records()

    def take_computed_pairs(self) -> UniquePairs | None:
        """The pairs the last bulk rebuild computed, for storing (None with stored
        families: nothing was computed)."""
        return None if self._stored is not None else self._index.take_computed_pairs()
