"""The writer's maps of the corpus: id -> fingerprint and id -> document record, in step.

Copy on write: :meth:`Contents.publish` hands out read-only views that the snapshot keeps;
the next change copies the fingerprints first, so a published snapshot never changes and
publishing copies nothing. A snapshot's records are the record map seen through its own
fingerprints (:class:`_Aligned`: the same ids). The record map itself is copied only when
a record a snapshot may see is replaced: records of new ids are added in place (no
published snapshot has their ids), records of removed ids stay until the next copy
(hidden by the fingerprints). So a scan, which only adds, never copies the records: at a
million documents a copy is ~40 MB per publish. Records of a source's
:class:`~ditto_tui.corpus.documents.FixedDocuments` are looked up, not copied. Writer
thread only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from ditto_tui.corpus.documents import ChangeBatch, Document, FixedDocuments


class Contents:
    """Fingerprints and records of the documents in the index (see module docstring)."""

    def __init__(self) -> None:
        self._fps: dict[str, int] = {}
        self._docs: dict[str, Document] = {}
        self._fixed: FixedDocuments | None = None  # or every record, from the source
        self._published = False  # the fingerprints are the latest snapshot's: copy first
        self._records_shared = False  # a published snapshot sees the records: replace by copy
        self._hidden = 0  # records of removed ids kept (hidden) while the map is shared

    def __len__(self) -> int:
        return len(self._fps)

    @property
    def published(self) -> bool:
        """Whether the maps are shared with the latest snapshot (until the next change)."""
        return self._published

    @property
    def fingerprints(self) -> Mapping[str, int]:
        """id -> fingerprint now (the writer's own map: do not keep it)."""
        return self._fps

    def records(self) -> Mapping[str, Document]:
        """The records of the documents in :attr:`fingerprints`, read-only."""
        records = self._fixed if self._fixed is not None else self._docs
        return _Aligned(records, self._fps)

    def publish(self) -> tuple[Mapping[str, int], Mapping[str, Document]]:
        """Read-only views of both maps for a snapshot (shared until the next change)."""
        self._published = self._records_shared = True
        return MappingProxyType(self._fps), self.records()

    def removed(self, doc_id: str) -> None:
        self._own()
        self._fps.pop(doc_id, None)
        if not self._records_shared:
            self._docs.pop(doc_id, None)
        elif doc_id in self._docs:  # hidden by the fingerprints until the next copy
            self._hidden += 1
            if self._hidden > max(1024, len(self._fps) // 4):
                self._copy_records()

    def update(self, batch: ChangeBatch) -> bool:
        """Take the fingerprints of ``batch.added`` and ``batch.changed`` and the records
        it carries; True when it brought records of unchanged fingerprints."""
        records = batch.documents
        if isinstance(records, FixedDocuments):
            self._fixed = records
        elif not (batch.added or batch.changed or records):
            return False  # (nothing to copy the maps for)
        fps = self._own()
        for given in (batch.added, batch.changed):
            if not given:
                continue
            if isinstance(next(iter(given.values())), int):
                fps.update(given)  # the source's own values: shared, not copied
            else:
                fps.update({i: int(fp) for i, fp in given.items()})
        if isinstance(records, FixedDocuments):
            return False
        if self._records_shared and any(i in self._docs for i in records):
            self._copy_records()  # a record a snapshot may see is replaced (a scan only adds)
        self._docs.update(records)  # the records of these fingerprints
        return bool(records)

    def _copy_records(self) -> None:
        """A record map of this writer's own, without the hidden records."""
        fps = self._fps
        self._docs = {i: d for i, d in self._docs.items() if i in fps}
        self._records_shared = False
        self._hidden = 0

    def gone(self, ids: list[str]) -> dict[str, int]:
        """The fingerprints ``ids`` have now (those known)."""
        fps = self._fps
        return {i: fps[i] for i in ids if i in fps}

    def _own(self) -> dict[str, int]:
        if self._published:  # copy on write: the published snapshot keeps its own
            self._fps = dict(self._fps)
            self._published = False
        return self._fps


class _Aligned(Mapping[str, Document]):
    """The records of ``records`` restricted to the documents that have a fingerprint in
    ``fingerprints`` (same ids, no record copied). Neither map may change while this
    view is in use (the writer copies a published map before changing it)."""

    def __init__(self, records: Mapping[str, Document], fingerprints: Mapping[str, int]) -> None:
        self._records = records
        self._fps = fingerprints

    def __getitem__(self, doc_id: str) -> Document:
        if doc_id not in self._fps:
            raise KeyError(doc_id)
        return self._records[doc_id]

    def get(self, doc_id: str, default: Any = None) -> Any:  # (no KeyError on a miss)
        return self._records.get(doc_id, default) if doc_id in self._fps else default

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._fps

    def __iter__(self) -> Iterator[str]:
        return iter(self._fps)

    def __len__(self) -> int:
        return len(self._fps)
