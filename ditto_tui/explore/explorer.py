"""Explorer: the live corpus of one source and its near-duplicate index, for the UI.

A facade over the parts of the application layer, each with one concern:

- :mod:`~ditto_tui.explore.writer`: the one ordered writer (queue, apply, publish, warm);
  it owns the index, and every mutation goes through it.
- :mod:`~ditto_tui.explore.view_builder`: the thread that builds family views.
- :mod:`~ditto_tui.explore.source_runner`: scans, watching, replacing the source.
- :mod:`~ditto_tui.explore.pacing` and :mod:`~ditto_tui.explore.process_tuning`: when
  scan batches are applied, and the garbage collector's policy.
- :mod:`~ditto_tui.explore.review_service` and :mod:`~ditto_tui.explore.action_service`:
  the review (queued to the writer) and the file actions (for worker threads).

Everything the UI hears comes through ``on_event`` (called from the explorer's threads:
post a message, do not touch widgets); see :mod:`~ditto_tui.explore.events`. The explorer
never imports the UI.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.core.families.paths import NearGraph
from ditto_tui.core.families.tree import SweepRow
from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.core.index.near_index import Match
from ditto_tui.core.review.decisions import Decision
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.review import ReviewStore
from ditto_tui.explore.action_service import ActionService
from ditto_tui.explore.events import ExplorerEvent, Notice, WatchState
from ditto_tui.explore.pacing import ScanPacer
from ditto_tui.explore.policy import Change, SessionPolicy
from ditto_tui.explore.process_tuning import HeapPolicy, limit_arenas
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.review_service import FamilyMark, ReviewService
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource
from ditto_tui.explore.source_runner import SourceRunner, Toggled
from ditto_tui.explore.view import ViewRequest
from ditto_tui.explore.view_builder import ViewBuilder
from ditto_tui.explore.writer import IndexWriter


class Explorer:
    """The live corpus of one source and its index; thread-safe (see module docstring).

    ``max_k`` bounds k; ``watch`` starts watching (before the initial scan, so nothing
    written during it is missed); ``poll`` makes the watcher poll. Call :meth:`start`
    once, :meth:`close` at the end (it closes the sources the explorer opened itself by
    switching pipeline, never the one it was given).

    ``review``: a :class:`~ditto_tui.corpus.review.ReviewStore` the explorer then owns
    (closed by :meth:`close`), or None for no review (in-memory and Spark sources); see
    :func:`~ditto_tui.explore.review_service.open_review`. Every review change is queued to the
    writer, stored at once, and published as a ``ReviewChanged`` event. At start the
    writer rolls back unfinished action journals (a ``Notice`` says what it did).

    ``policy`` says what this session may change (:mod:`~ditto_tui.explore.policy`): a
    read-only explorer refuses every review change with a ``Notice``, its actions raise
    :class:`~ditto_tui.explore.policy.ReadOnlyError`, and it rolls nothing back at start.
    """

    def __init__(
        self,
        source: CorpusSource,
        *,
        max_k: int = 8,
        watch: bool = True,
        poll: bool = False,
        on_event: Callable[[ExplorerEvent], None] | None = None,
        review: ReviewStore | None = None,
        policy: SessionPolicy | None = None,
    ) -> None:
        self.max_k = max_k
        #: What this session may change (read by the UI before it opens a dialog).
        self.policy = policy if policy is not None else SessionPolicy()
        self.on_event: Callable[[ExplorerEvent], None] = on_event or (lambda _e: None)
        limit_arenas()  # (before the explorer's threads allocate: see process_tuning)
        heap, pacer = HeapPolicy(), ScanPacer()
        self._heap = heap
        self._views = ViewBuilder(review=lambda: self._review.state, on_event=self._emit)
        self._writer = IndexWriter(
            source, max_k=max_k, views=self._views, heap=heap, pacer=pacer,
            on_event=self._emit, on_publish=lambda: self._review.resolve(),
        )
        self._review = ReviewService(review, self._writer, on_event=self._emit,
                                     wake=self._views.wake)
        self._runner = SourceRunner(self._writer, watch=watch, poll=poll, heap=heap,
                                    pacer=pacer, on_event=self._emit)
        #: Acting on the documents decided duplicates (call from a worker thread).
        self.actions = ActionService(self._writer, self._review, self.policy)
        self._started = False
        self._closed = False

    def _emit(self, event: ExplorerEvent) -> None:
        self.on_event(event)

    # -- state -------------------------------------------------------------------------
    @property
    def source(self) -> CorpusSource:
        """The current source (replaced by :meth:`switch_pipeline`)."""
        return self._writer.source

    @property
    def snapshot(self) -> Snapshot:
        """The latest published snapshot (immutable)."""
        return self._writer.snapshot

    @property
    def scanning(self) -> bool:
        return self._writer.scanning

    @property
    def watch_state(self) -> WatchState:
        return self._runner.watch_state

    @property
    def watch(self) -> bool:
        """Whether the explorer watches (or will, after the scan that runs)."""
        return self._runner.watch

    @property
    def notices(self) -> list[str]:
        """Notices of the sources the explorer opened and closed itself."""
        return self._runner.notices

    @property
    def generation(self) -> int:
        """The generation of the latest snapshot."""
        return self._writer.snapshot.generation

    def fingerprint(self, doc_id: str) -> int:
        """The fingerprint of ``doc_id`` in the latest snapshot; KeyError when absent."""
        return self._writer.snapshot.fingerprint(doc_id)

    def ids(self) -> list[str]:
        """Every document id of the latest snapshot."""
        return list(self._writer.snapshot.fingerprints)

    def near(self, doc_id: str, k: int) -> list[Match]:
        """Every document within ``k`` of ``doc_id`` in the current snapshot (empty when
        ``doc_id`` is unknown). A vectorised scan: call from a worker."""
        snap = self._writer.snapshot
        if doc_id not in snap:
            return []
        return snap.near(snap.fingerprint(doc_id), k)

    # -- blocking questions (the index after everything queued; call from a worker) ----
    def near_graph(self) -> NearGraph:
        """The index's pairs and merge order (``core.families.paths.NearGraph``)."""
        return self._writer.near_graph()

    def sweep(self) -> tuple[SweepRow, ...]:
        """The figures of every k (``core.families.tree.sweep_stats``); blocking."""
        return self._writer.sweep()

    def families(self, k: int, mode: Mode = "chain") -> Sequence[Family]:
        """Every family at ``(k, mode)``."""
        return self._writer.families(k, mode)

    def call(self, fn: Callable[[], None], timeout: float | None = None) -> bool:
        """Run ``fn`` on the writer thread after everything queued before; wait for it
        (False when it did not run: timeout, or closed)."""
        return self._writer.call(fn, timeout)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no scan runs and the writer has applied everything queued (for
        tests and scripts); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._writer.scanning:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return self._writer.call(lambda: None, timeout=max(0.0, deadline - time.monotonic()))

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the writer, then watching (if asked) and the initial scan."""
        if self._started:
            return
        self._started = True
        if self.policy.refusal("act") is None:  # a roll-back moves files back
            self._writer.submit(self._review.recover)
        self._writer.start()
        self._views.start(self._writer)
        self._runner.begin_scan(self._writer.source, self._writer.epoch,
                                start_watch=self._runner.watch)

    def close(self) -> None:
        """Stop scanning and watching, stop the threads, close the sources opened here."""
        if self._closed:
            return
        self._closed = True
        self._runner.cancel()
        self._writer.stop()
        self._views.stop()
        self._writer.join(self._started)
        self._views.join()
        self._runner.close()
        if self._heap.loading:  # closed before everything was warm
            self._heap.settle(len(self._writer.snapshot))
        store = self._review.store
        if store is not None:
            with contextlib.suppress(Exception):  # closing must go on
                store.close()

    # -- scanning, watching, switching -----------------------------------------------
    def rescan(self) -> bool:
        """Scan the source again (F5); False when a scan already runs."""
        return self._runner.rescan()

    def toggle_watch(self) -> Toggled:
        """Pause watching if it runs, resume it if paused, start it if off."""
        return self._runner.toggle_watch()

    def can_switch(self) -> bool:
        return self._runner.can_switch()

    def switch_pipeline(self, pipeline: Pipeline) -> bool:
        """Re-index with ``pipeline`` in the background (False when it cannot now)."""
        return self._runner.switch_pipeline(pipeline)

    def can_change_options(self) -> bool:
        return self._runner.can_change_options()

    def change_options(self, options: ScanOptions) -> bool:
        """Rescan with other scan ``options`` in the background (False when it cannot)."""
        return self._runner.change_options(options)

    # -- views -------------------------------------------------------------------------
    def request_view(self, request: ViewRequest) -> None:
        """Ask for the family view of ``request`` (the newest request wins); it arrives as
        a ``ViewBuilt`` event, and again after every change of the index."""
        self._views.request_view(request)

    def set_keep(self, keep: str | None, identity: int | None) -> None:
        """The user's selection moved: later views (of the same request) locate ``keep``
        (else the family with ``identity``) for the UI. Triggers no rebuild."""
        self._views.set_keep(keep, identity)

    # -- review ------------------------------------------------------------------------
    @property
    def review(self) -> ReviewState:
        """The latest review state (immutable; inactive without a store)."""
        return self._review.state

    @property
    def review_store(self) -> ReviewStore | None:
        return self._review.store

    @property
    def journal_dir(self) -> Path | None:
        """Where the action journals of this root live (None without a store)."""
        return self._review.journal_dir

    def refresh_review(self) -> None:
        """Read the review store again if another process wrote it (queued to the writer;
        see :meth:`~ditto_tui.explore.review_service.ReviewService.refresh`). Cheap: call
        it every second or so (it leaves the scan batches the writer holds held)."""
        self._writer.submit(self._review.refresh, sees_held=False)

    def _allowed(self, change: Change) -> bool:
        refusal = self.policy.refusal(change)
        if refusal is not None:
            self._emit(Notice(refusal, "error", "Read-only"))
        return refusal is None

    def decide(self, ids: Sequence[str], value: Decision | None) -> None:
        """Record ``value`` (None clears) for the documents ``ids`` of the current
        snapshot (queued to the writer). Every review change here is refused, with a
        notice, when the policy is read-only."""
        if self._allowed("decide"):
            self._review.set_marks({i: value for i in ids})

    def set_marks(self, marks: Mapping[str, Decision | None]) -> None:
        """Record several decisions at once (id -> decision or None), in one transaction."""
        if self._allowed("decide"):
            self._review.set_marks(marks)

    def mark_family(self, members: Sequence[str], kind: FamilyMark, on: bool = True) -> None:
        """Mark the family of ``members`` ``reviewed`` or ``ignored`` ("fine"), or unmark."""
        if self._allowed("decide"):
            self._review.mark_family(members, kind, on)

    def ignore_pair(self, a: str, b: str, on: bool = True) -> None:
        """Record (or forget) "``a`` and ``b`` are not duplicates"."""
        if self._allowed("decide"):
            self._review.ignore_pair(a, b, on)
