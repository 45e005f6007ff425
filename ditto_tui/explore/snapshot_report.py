"""The explorer's HTML report: one snapshot, as shown, written by a worker.

The report sees exactly what the screen showed: the snapshot's fingerprints, documents
and skips, the view's families at its k and mode, and its filter. Document text comes from
the source (through the corpus's confined reader). Nothing here runs on the UI thread.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.corpus.documents import Document, MailInfo, Skipped
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource
from ditto_tui.report.write import write_html_report

__all__ = ["write_snapshot_report"]


@dataclass(frozen=True)
class _SnapshotCorpus:
    """A :class:`~ditto_tui.report.gather.ReportMailCorpus` over one snapshot of a source."""

    source: CorpusSource
    snapshot: Snapshot

    @property
    def root(self) -> Path:
        return self.source.root

    @property
    def pipeline(self) -> Pipeline:
        return self.source.pipeline

    @property
    def documents(self) -> Mapping[str, Document]:
        return self.snapshot.documents

    @property
    def fingerprints(self) -> Mapping[str, int]:
        return self.snapshot.fingerprints

    @property
    def skipped(self) -> Sequence[Skipped]:
        return self.snapshot.skipped

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        return self.source.read_text(id, limit=limit)

    def mail_info(self, id: str) -> MailInfo | None:
        return self.source.mail_info(id)


def write_snapshot_report(
    source: CorpusSource,
    snapshot: Snapshot,
    dest: str | os.PathLike[str],
    *,
    families: Sequence[Family],
    k: int,
    mode: Mode,
    pattern: str = "",
    overwrite: bool = False,
) -> int:
    """Write the HTML report of ``families`` (the view at ``k``/``mode``, filtered by
    ``pattern``) to ``dest``; return the number of families in it.

    The per-k chart comes from an index built here over the snapshot's fingerprints
    (O(N) plus the pairs within the snapshot's ``max_k``: call it from a worker). Raises
    ``FileExistsError`` when ``dest`` exists and not ``overwrite``, ``OSError`` when it
    cannot be written; a failed write leaves no partial file.
    """
    index = NearIndex(snapshot.max_k)
    ids = list(snapshot.fingerprints)  # (keys and values of a mapping: the same order)
    index.add_many(ids, np.fromiter(snapshot.fingerprints.values(), np.uint64, len(ids)))
    report, _ = write_html_report(
        _SnapshotCorpus(source, snapshot),
        index,
        dest,
        k=k,
        mode=mode,
        pattern=pattern,
        families=families,
        overwrite=overwrite,
    )
    return len(report.families)
