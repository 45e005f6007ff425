"""The changes on disk since the last family view, counted for the "corpus changed" line.

The writer notes every watch batch it applies (:meth:`PendingChanges.note`); the view
builder takes the counts into the next view it delivers (:func:`with_counts`) and starts
a fresh :class:`PendingChanges`. Both do so under the view builder's condition lock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ditto_tui.corpus.documents import ChangeBatch
from ditto_tui.explore.view import FamilyView, ViewDelta, pair_renames


class PendingChanges:
    """Ids added and removed (with the fingerprint they had) and how many were modified
    since the last view. A document removed and added back under the same id counts as
    modified; see :func:`~ditto_tui.explore.view.pair_renames` for renames."""

    def __init__(self) -> None:
        self.added: dict[str, int] = {}
        self.removed: dict[str, int] = {}
        self.modified: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.modified)

    def note(self, batch: ChangeBatch, gone: Mapping[str, int]) -> None:
        """Fold in one applied watch batch; ``gone`` holds the fingerprints its removed
        documents had."""
        for doc_id in batch.removed:
            if self.added.pop(doc_id, None) is None:
                self.modified.discard(doc_id)
                self.removed[doc_id] = int(gone.get(doc_id, 0))
        for doc_id, fp in batch.added.items():
            if self.removed.pop(doc_id, None) is not None:
                self.modified.add(doc_id)
            else:
                self.added[doc_id] = int(fp)
        for doc_id in batch.changed:
            if doc_id in self.added:
                self.added[doc_id] = int(batch.changed[doc_id])
            else:
                self.modified.add(doc_id)

    def renames(self) -> dict[str, str]:
        """Old id -> new id of the documents that only moved."""
        return pair_renames(self.removed, self.added)


def with_counts(view: FamilyView, pending: PendingChanges, renames: Mapping[str, str]) -> FamilyView:
    """``view`` whose delta also counts the documents of ``pending`` (renames apart)."""
    delta = view.delta or ViewDelta()
    delta = dataclasses.replace(
        delta,
        added=len(pending.added) - len(renames),
        modified=len(pending.modified),
        removed=len(pending.removed) - len(renames),
        renamed=len(renames),
        renames=dict(renames),
    )
    return dataclasses.replace(view, delta=delta)
