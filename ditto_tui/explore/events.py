"""What the explorer tells the UI: :class:`ExplorerEvent` and its kinds.

Events are made on the explorer's threads (writer, view builder, scan, watcher) and
handed to ``on_event``; they are immutable values, safe to pass between threads. The
UI turns each into a message; it never touches widgets from the calling thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource
from ditto_tui.explore.view import FamilyView

#: How bad a notice is: ``warning`` notices are shown once and kept in the status line,
#: ``error`` notices are shown as errors and kept in the notices log only.
Severity = Literal["warning", "error"]

#: What keeps the index up to date: a scan runs, the source watches (or is paused, or
#: rescans after a lost event), or nothing (``off``).
WatchState = Literal["scanning", "watching", "paused", "rescanning", "off"]


@dataclass(frozen=True, slots=True)
class ExplorerEvent:
    """Something the UI should hear about."""


@dataclass(frozen=True, slots=True)
class ScanProgressed(ExplorerEvent):
    """``done`` of ``total`` documents (None until the walk has counted them) after
    ``elapsed`` seconds; at most ten a second."""

    done: int
    total: int | None
    elapsed: float


@dataclass(frozen=True, slots=True)
class IndexUpdated(ExplorerEvent):
    """A new snapshot; ``touched`` documents changed on disk (watch batches only): their
    fingerprint, or only their record (size, time, inode: re-read with the same
    fingerprint), so what was read of them (preview, excerpt) is stale."""

    snapshot: Snapshot
    touched: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ScanEnded(ExplorerEvent):
    """A scan ended (``error`` says why it failed, else None); ``switched`` when it was
    the first scan of a replaced source; the counts are those of its last snapshot."""

    error: str | None
    switched: bool = False
    documents: int = 0
    skipped: int = 0


@dataclass(frozen=True, slots=True)
class ViewBuilt(ExplorerEvent):
    """The family view of the latest request, for the latest snapshot."""

    view: FamilyView


@dataclass(frozen=True, slots=True)
class ListingWarmed(ExplorerEvent):
    """The listing of (``k``, ``mode``) at ``generation`` was computed ahead of a request
    (it is in that generation's snapshot now)."""

    k: int
    mode: Mode
    generation: int


@dataclass(frozen=True, slots=True)
class WatchStateChanged(ExplorerEvent):
    """The watch state changed (see :data:`WatchState`)."""

    state: WatchState


@dataclass(frozen=True, slots=True)
class Notice(ExplorerEvent):
    """A message for the user (``title`` may be empty)."""

    text: str
    severity: Severity = "warning"
    title: str = ""


@dataclass(frozen=True, slots=True)
class ReviewChanged(ExplorerEvent):
    """The review state changed (a decision, a mark, or the corpus it is matched to)."""

    state: ReviewState


@dataclass(frozen=True, slots=True)
class SourceReplaced(ExplorerEvent):
    """The source (and its pipeline) changed; the index restarts empty."""

    source: CorpusSource
    pipeline: Pipeline
