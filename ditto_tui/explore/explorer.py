"""Explorer: one ordered writer over a corpus source and its live near-duplicate index.

Every mutation of the index goes through one queue and is applied, in order, by one
writer thread: the batches of the initial scan and of every rescan, the batches of the
watcher, the replacement of the source (pipeline switch). Sources hand over their batches
in the order their own state changed (see :mod:`ditto_tui.explore.source`), so the last
write on disk is the last write in the index. The writer owns the :class:`NearIndex`
(nobody else touches it, so it needs no lock) and publishes an immutable
:class:`~ditto_tui.explore.snapshot.Snapshot` after each change; it also computes family
listings on request and, when idle, for every other k ("warming").

A second thread builds :class:`~ditto_tui.explore.view.FamilyView` s: the family list
for the latest :class:`~ditto_tui.explore.view.ViewRequest`, rebuilt whenever a newer
request or a newer snapshot arrives. Results for a superseded request or an older
source are dropped, never delivered.

Everything the UI hears comes through ``on_event`` (called from the explorer's threads:
post a message, do not touch widgets). The explorer never imports the UI.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from ditto_tui.core.index import NearIndex
from ditto_tui.corpus.documents import ChangeBatch, Document, FixedDocuments, ScanProgress
from ditto_tui.explore.review import (
    ActionTargets,
    ReviewState,
    identity,
    key_of,
    leave_stars,
    split_ignored,
)
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, PairStore, PipelineSwitchable
from ditto_tui.explore.view import (
    FamilyView,
    ViewDelta,
    ViewRequest,
    build_view,
    listing_notes,
    pair_renames,
)

MODES = ("chain", "star")
PROGRESS_INTERVAL = 0.1
PUBLISH_INTERVAL = 0.2  # while scanning: at most this often a new snapshot
VIEW_INTERVAL = 0.25  # while scanning: at most this often a rebuilt view
NOTICE_POLL = 0.5
WARM_AFTER = 1.0  # seconds without changes before other k are precomputed
HOLD_MAX = 2.0  # while scanning: scan batches wait at most this long to be applied
HOLD_BULK = 10_000  # held documents from which waiting for a scan's end pays (see _hold)
GC_BULK_FULL = 100  # while a scan loads: young collections between two full ones (default 10)


# -- events -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ExplorerEvent:
    """Something the UI should hear about."""


@dataclass(frozen=True, slots=True)
class ScanProgressed(ExplorerEvent):
    done: int
    total: int | None
    elapsed: float


@dataclass(frozen=True, slots=True)
class IndexUpdated(ExplorerEvent):
    """A new snapshot; ``touched`` documents changed on disk (watch batches only)."""

    snapshot: Snapshot
    touched: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ScanEnded(ExplorerEvent):
    error: str | None
    switched: bool = False
    documents: int = 0
    skipped: int = 0


@dataclass(frozen=True, slots=True)
class ViewBuilt(ExplorerEvent):
    view: FamilyView


@dataclass(frozen=True, slots=True)
class ListingWarmed(ExplorerEvent):
    """The listing of (``k``, ``mode``) at ``generation`` was computed ahead of a request
    (it is in that generation's snapshot now)."""

    k: int
    mode: str
    generation: int


@dataclass(frozen=True, slots=True)
class WatchStateChanged(ExplorerEvent):
    state: str


@dataclass(frozen=True, slots=True)
class Notice(ExplorerEvent):
    text: str
    severity: str = "warning"
    title: str = ""


@dataclass(frozen=True, slots=True)
class ReviewChanged(ExplorerEvent):
    """The review state changed (a decision, a mark, or the corpus it is matched to)."""

    state: ReviewState


@dataclass(frozen=True, slots=True)
class SourceReplaced(ExplorerEvent):
    """The source (and its pipeline) changed; the index restarts empty."""

    source: Any
    pipeline: Any


# -- writer operations ------------------------------------------------------------------
@dataclass(slots=True)
class _Batch:
    epoch: int
    batch: ChangeBatch
    watch: bool
    merged: bool = False  # a batch of our own, made by folding several (may be extended)


@dataclass(slots=True)
class _ScanDone:
    epoch: int
    error: str | None
    switched: bool


@dataclass(slots=True)
class _Replace:
    source: Any


@dataclass(slots=True)
class _Listing:
    k: int
    mode: str


class ExplorerStopped(RuntimeError):
    """A blocking question was asked of an explorer whose writer has stopped (closing)."""


@dataclass(slots=True)
class _Call:
    """Run ``fn`` on the writer thread (in queue order)."""

    fn: Callable[[], None]
    done: threading.Event = field(default_factory=threading.Event)


_STOP = object()


class Explorer:
    """The live corpus of one source and its index; thread-safe, see module docstring.

    ``max_k`` bounds k; ``watch`` starts watching (before the initial scan, so nothing
    written during it is missed); ``poll`` makes the watcher poll. Call :meth:`start`
    once, :meth:`close` at the end (it closes the sources the explorer opened itself by
    switching pipeline, never the one it was given).

    ``review``: a :class:`~ditto_tui.corpus.review.ReviewStore` the explorer then owns
    (closed by :meth:`close`), or None for no review (in-memory and Spark sources); see
    :func:`open_review`. Every review mutation (:meth:`decide`, :meth:`mark_family`,
    :meth:`ignore_pair`, :meth:`set_marks`) is queued to the writer, stored at once, and
    published as :class:`ReviewChanged`. At start the writer rolls back unfinished action
    journals (a :class:`Notice` says what it did).
    """

    def __init__(
        self,
        source: CorpusSource,
        *,
        max_k: int = 8,
        watch: bool = True,
        poll: bool = False,
        on_event: Callable[[ExplorerEvent], None] | None = None,
        review: Any = None,
    ) -> None:
        self._source: Any = source
        self.review_store: Any = review
        self._review = ReviewState(active=review is not None)
        self._split_cache: tuple[Any, Sequence[Any]] | None = None
        self._key_cache: dict[int, tuple[Any, str]] = {}  # view thread: family keys
        self._key_cache_for: tuple[int, int] = (-1, -1)  # (epoch, generation) it holds
        self.max_k = max_k
        self.watch = watch
        self.poll = poll
        self.on_event: Callable[[ExplorerEvent], None] = on_event or (lambda _e: None)
        self.notices: list[str] = []  # notices of the sources closed by the explorer
        self._created: list[Any] = []
        self._epoch = 0
        self._index = NearIndex(max_k)
        self._fps: dict[str, int] = {}
        self._docs: dict[str, Document] = {}  # the records of the documents in _fps
        self._fixed: FixedDocuments | None = None  # or every record, from the source
        self._fps_published = False  # _fps, _docs are the latest snapshot's: copy first
        self._noted: dict[tuple[int, str], Any] = {}  # last listing per (k, mode), noted
        self._ops: queue.Queue[Any] = queue.Queue()
        self._generation = 0
        self._snapshot = Snapshot(0, 0, max_k, scanning=False)
        self._scanning = False
        self._scan_cancel = threading.Event()
        self._scan_thread: threading.Thread | None = None
        self._lock = threading.Lock()  # scanning flag, source replacement
        self._touched: set[str] = set()
        self._pending = _Pending()  # changes on disk since the last view
        # view building
        self._view_cond = threading.Condition()
        self._view_request: ViewRequest | None = None
        self._last_view: FamilyView | None = None
        self._listing_wanted: tuple[int, int, str] | None = None
        self._closed = False
        self._noticed: dict[int, int] = {}
        self._writer = threading.Thread(target=self._run_writer, name="ditto-tui writer", daemon=True)
        self._viewer = threading.Thread(target=self._run_views, name="ditto-tui views", daemon=True)
        self._started = False
        self._store_thread: threading.Thread | None = None
        self._last_change = 0.0
        self._warm_more = True  # other listings may be worth precomputing
        self._preloaded = False
        self._gc_frozen = False  # a scan froze the heap (see _bulk_gc)
        self._gc_thresholds: tuple[int, int, int] = gc.get_threshold()
        self._held: _Batch | None = None  # scan batches not applied yet (see _hold)
        self._held_since = 0.0
        self._scan_began = 0.0
        # the latest scan progress: (epoch, done, total, when); see _ends_soon
        self._progress: tuple[int, int, int | None, float] | None = None

    # -- public state ------------------------------------------------------------------
    @property
    def source(self) -> Any:
        """The current source (replaced by :meth:`switch_pipeline`)."""
        return self._source

    @property
    def snapshot(self) -> Snapshot:
        """The latest published snapshot (immutable)."""
        return self._snapshot

    @property
    def scanning(self) -> bool:
        return self._scanning

    # -- reads for the explanations (family paths, k sweep) --------------------------------
    @property
    def generation(self) -> int:
        """The generation of the latest snapshot."""
        return self._snapshot.generation

    def fingerprint(self, doc_id: str) -> int:
        """The fingerprint of ``doc_id`` in the latest snapshot; KeyError when absent."""
        return self._snapshot.fingerprint(doc_id)

    def ids(self) -> list[str]:
        """Every document id of the latest snapshot."""
        return list(self._snapshot.fingerprints)

    def linkage(self) -> Any:
        """The index's pairs and merge order (``core.family_paths.Linkage``), taken on the
        writer thread after everything queued; blocking: call from a worker."""
        out: list[Any] = []
        self.call(lambda: out.append(self._index.linkage()))
        if not out:
            raise ExplorerStopped("the explorer has stopped")
        return out[0]

    @property
    def watch_state(self) -> str:
        if self._scanning:
            return "scanning"
        return str(getattr(self._source, "watch_state", "off"))

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the writer, then watching (if asked) and the initial scan."""
        if self._started:
            return
        self._started = True
        if self.review_store is not None:
            self._ops.put(_Call(self._recover))
        self._writer.start()
        self._viewer.start()
        self._begin_scan(self._source, self._epoch, start_watch=self.watch)

    def close(self) -> None:
        """Stop scanning and watching, stop the threads, close the sources opened here."""
        if self._closed:
            return
        self._closed = True
        self._scan_cancel.set()
        with contextlib.suppress(Exception):  # closing must go on
            self._source.stop_watching()
        self._ops.put(_STOP)
        with self._view_cond:
            self._view_cond.notify_all()
        if self._scan_thread is not None and self._scan_thread is not threading.current_thread():
            self._scan_thread.join(timeout=10)
        if self._started:
            self._writer.join(timeout=10)
            self._viewer.join(timeout=10)
        if self._store_thread is not None:
            self._store_thread.join(timeout=60)
        for source in self._created:
            self._close_source(source)
        self._created.clear()
        if self._gc_frozen:  # closed before everything was warm
            self._settle_gc(len(self._fps))
        if self.review_store is not None:
            with contextlib.suppress(Exception):
                self.review_store.close()

    def _close_source(self, source: Any) -> None:
        source.close()
        self.notices.extend(n for n in source.notices if n not in self.notices)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until no scan runs and the writer has applied everything queued (for
        tests and scripts); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._scanning:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return self.call(lambda: None, timeout=max(0.0, deadline - time.monotonic()))

    def call(self, fn: Callable[[], None], timeout: float | None = None) -> bool:
        """Run ``fn`` on the writer thread after everything queued before; wait for it.

        False when it did not run: ``timeout`` seconds passed, or the explorer is closed
        (or closed meanwhile: a call never waits on a writer that has ended)."""
        if self._closed:
            return False
        op = _Call(fn)
        self._ops.put(op)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not op.done.wait(0.1):
            if self._closed and not self._writer.is_alive():
                return op.done.is_set()
            if deadline is not None and time.monotonic() >= deadline:
                return False
        return True

    def families(self, k: int, mode: str = "chain") -> Sequence[Any]:
        """Every family at ``(k, mode)`` of the index as it is after everything queued
        (blocking: computed on the writer thread; for tests and scripts)."""
        out: list[Sequence[Any]] = []

        def compute() -> None:
            self._compute_listing(k, mode)
            out.append(self._snapshot.listing(max(0, min(k, self.max_k)), mode) or ())

        self.call(compute)
        if not out:
            raise ExplorerStopped("the explorer has stopped")
        return out[0]

    # -- scanning ----------------------------------------------------------------------
    def rescan(self) -> bool:
        """Scan the source again (F5); False when a scan already runs."""
        return self._begin_scan(self._source, self._epoch)

    def _begin_scan(
        self,
        source: Any,
        epoch: int,
        *,
        start_watch: bool = False,
        switched: bool = False,
        paused: bool = False,
    ) -> bool:
        with self._lock:
            if self._scanning or self._closed:
                return False
            self._scanning = True
            self._scan_cancel.clear()
            self._progress = None
            self._scan_began = time.monotonic()
        self._publish_state()
        thread = threading.Thread(
            target=self._scan,
            args=(source, epoch, start_watch, switched, paused),
            name="ditto-tui scan",
            daemon=True,
        )
        self._scan_thread = thread
        thread.start()
        return True

    def _scan(self, source: Any, epoch: int, start_watch: bool, switched: bool, paused: bool) -> None:
        self._bulk_gc()
        if start_watch:
            self._start_watching(source, epoch, paused=paused)
        last = 0.0

        def on_progress(progress: ScanProgress) -> None:
            nonlocal last
            now = time.monotonic()
            self._progress = (epoch, progress.done, progress.total, now)
            if now - last >= PROGRESS_INTERVAL or progress.total == progress.done:
                last = now
                self.on_event(ScanProgressed(progress.done, progress.total, progress.elapsed))

        def on_batch(batch: ChangeBatch) -> None:
            self._ops.put(_Batch(epoch, batch, watch=False))

        error = None
        try:
            source.scan(on_progress=on_progress, on_batch=on_batch, cancelled=self._scan_cancel.is_set)
        except Exception as exc:  # reported to the user; the explorer stays usable
            error = f"{type(exc).__name__}: {exc}"
        self._ops.put(_ScanDone(epoch, error, switched))

    # -- watching ----------------------------------------------------------------------
    def _start_watching(self, source: Any, epoch: int, *, paused: bool = False) -> None:
        def on_change(batch: ChangeBatch) -> None:
            self._ops.put(_Batch(epoch, batch, watch=True))

        def on_state(state: str) -> None:
            self.on_event(WatchStateChanged(state))

        try:
            source.start_watching(on_change, poll=self.poll, on_state=on_state)
            if paused:
                source.pause_watching()
        except Exception as exc:  # noqa: BLE001 - watching is optional; say why it is off
            self.on_event(Notice(f"Cannot watch for changes: {exc}", "error"))
        self.on_event(WatchStateChanged(self.watch_state))

    def toggle_watch(self) -> str:
        """Pause watching if it runs, resume it if paused, start it if off; returns what
        happened: ``"started"``, ``"resumed"``, ``"paused"`` or ``"later"`` (during a scan
        that did not start it)."""
        source = self._source
        state = source.watch_state
        self.watch = True
        if state == "off":
            if self._scanning:
                return "later"
            threading.Thread(
                target=self._start_watching, args=(source, self._epoch), daemon=True
            ).start()
            return "started"
        if state == "paused":
            source.resume_watching()
            return "resumed"
        source.pause_watching()
        return "paused"

    # -- switching pipeline ------------------------------------------------------------
    def can_switch(self) -> bool:
        return isinstance(self._source, PipelineSwitchable)

    def switch_pipeline(self, pipeline: Any) -> bool:
        """Re-index with ``pipeline`` in the background: stop watching, open a sibling
        source, replace the index (empty), scan. False when a scan runs or the source
        cannot switch. Failures come back as a :class:`Notice` with severity "error"."""
        if not self.can_switch():
            return False
        return self._start_switch(lambda old: old.with_pipeline(pipeline), "Pipeline switch failed")

    def can_change_options(self) -> bool:
        """Whether the source can rescan with other scan options (``with_options``)."""
        return callable(getattr(self._source, "with_options", None))

    def change_options(self, options: Any) -> bool:
        """Rescan with other scan ``options`` (a ``ScanOptions``) in the background, as
        :meth:`switch_pipeline` does with a pipeline: a sibling source sharing the cache
        replaces the current one. False when a scan runs or the source cannot."""
        if not self.can_change_options():
            return False
        return self._start_switch(lambda old: old.with_options(options), "Scan options failed")

    def _start_switch(self, make: Callable[[Any], Any], failure: str) -> bool:
        with self._lock:
            if self._scanning or self._closed:
                return False
            self._scanning = True
        threading.Thread(target=self._switch, args=(make, failure), daemon=True).start()
        return True

    def _switch(self, make: Callable[[Any], Any], failure: str) -> None:
        old = self._source
        paused = str(getattr(old, "watch_state", "off")) == "paused"
        was_watching = str(getattr(old, "watch_state", "off")) != "off" or self.watch
        try:
            old.stop_watching()
            new = make(old)
        except Exception as exc:  # reported; the old source stays and watches again
            with self._lock:
                self._scanning = False
            self.on_event(Notice(f"{type(exc).__name__}: {exc}", "error", failure))
            if was_watching:
                self._start_watching(old, self._epoch, paused=paused)
            self._publish_state()
            return
        done = threading.Event()
        self._ops.put(_Replace(new))
        self._ops.put(_Call(done.set))
        done.wait()
        if old in self._created:
            self._created.remove(old)
            self._close_source(old)
        self._created.append(new)
        with self._lock:
            self._scanning = False
        self._begin_scan(new, self._epoch, start_watch=was_watching, switched=True, paused=paused)

    # -- views ---------------------------------------------------------------------------
    def request_view(self, request: ViewRequest) -> None:
        """Ask for the family view of ``request`` (the newest request wins); it arrives as
        a :class:`ViewBuilt` event, and again after every change of the index."""
        with self._view_cond:
            self._view_request = request
            self._warm_more = True
            self._view_cond.notify_all()

    def set_keep(self, keep: str | None, identity: int | None) -> None:
        """The user's selection moved: later views (of the same request) locate ``keep``
        (else the family with ``identity``) for the UI. Triggers no rebuild."""
        with self._view_cond:
            request = self._view_request
            if request is not None and (request.keep, request.keep_identity) != (keep, identity):
                self._view_request = dataclasses.replace(
                    request, keep=keep, keep_identity=identity
                )

    def near(self, doc_id: str, k: int) -> list:
        """Every document within ``k`` of ``doc_id`` in the current snapshot (empty when
        ``doc_id`` is unknown). A vectorised scan: call from a worker."""
        snap = self._snapshot
        if doc_id not in snap:
            return []
        return snap.near(snap.fingerprint(doc_id), k)

    # -- review (decisions, family marks, ignored pairs, actions) ------------------------
    @property
    def review(self) -> ReviewState:
        """The latest review state (immutable; inactive without a store)."""
        return self._review

    @property
    def journal_dir(self) -> Any:
        """Where the action journals of this root live (None without a store)."""
        store = self.review_store
        return None if store is None else store.journal_dir

    def decide(self, ids: Sequence[str], value: str | None) -> None:
        """Record ``value`` (``keep``, ``duplicate``, ``not-duplicate``; None clears) for
        the documents ``ids`` of the current snapshot (queued to the writer)."""
        self.set_marks({i: value for i in ids})

    def set_marks(self, marks: Mapping[str, str | None]) -> None:
        """Record several decisions at once (id -> decision or None), in one transaction."""
        marks = dict(marks)
        self._review_op(lambda: self._set_marks(marks))

    def mark_family(self, members: Sequence[str], kind: str, on: bool = True) -> None:
        """Mark the family of ``members`` ``reviewed`` or ``ignored`` ("fine"), or unmark."""
        members = tuple(members)
        self._review_op(lambda: self._mark_family(members, kind, on))

    def ignore_pair(self, a: str, b: str, on: bool = True) -> None:
        """Record (or forget) "``a`` and ``b`` are not duplicates"."""
        self._review_op(lambda: self._ignore_pair(a, b, on))

    # -- actions on the marked duplicates (blocking file work: call from a worker) ------
    def action_targets(self, k: int, mode: str = "chain") -> ActionTargets[Any]:
        """Action targets for every member decided ``duplicate`` in the families at
        ``(k, mode)`` of the latest state (whatever the filters show; ignored pairs cut), each
        with its keeper within ``k`` and the bits to it, as an
        :class:`~ditto_tui.explore.review.ActionTargets` whose ``found`` are
        :class:`~ditto_tui.corpus.actions.Target` (see
        :func:`~ditto_tui.explore.review.action_targets`). Blocking: call from a worker."""
        from ditto_tui.corpus.actions import Target
        from ditto_tui.explore.review import action_targets

        listing: Sequence[Any] = self.families(k, mode)
        snap, review = self._snapshot, self._review
        if review.pairs and mode == "chain":
            listing = split_ignored(listing, review.partners(), snap.fingerprints,
                                    max(0, min(k, self.max_k)))
        elif review.pairs:
            listing = leave_stars(listing, review.pairs, snap.fingerprints)
        got = action_targets(listing, snap.documents, review, snap.fingerprints,
                             max(0, min(k, self.max_k)), mode)
        fps = snap.fingerprints
        found: list[Any] = [Target.from_document(doc, ref, bits, fp=int(fps[doc.id]),
                                                 ref_fp=int(fps[ref]) if ref in fps else None)
                            for doc, ref, bits in got.found]
        return ActionTargets(found, got.far, got.stale, got.too_wide)

    def plan_action(self, action: str, targets: Sequence[Any], destination: str | None = None) -> Any:
        """Check ``targets`` for ``action`` (trash, move, link, list) without touching any
        file (:func:`ditto_tui.corpus.actions.plan_action`); ``destination`` is the
        quarantine folder of ``move``."""
        from ditto_tui.corpus.actions import plan_action

        source = self._source
        plan = plan_action(source.root, action, targets,
                           quarantine=destination if action == "move" else None,
                           pipeline=getattr(source, "pipeline", None))
        forget = getattr(source, "forget_cached", None)
        if plan.stale and forget is not None:  # read again at the next scan
            forget(plan.stale)
        return plan

    def execute(self, plan: Any, on_progress: Callable[[int, int], None] | None = None) -> Any:
        """Carry out a checked plan with a journal (undoable); a ``list`` plan writes the
        removal list to ``plan.quarantine`` (the prefix) and touches nothing."""
        from ditto_tui.corpus.actions import Outcome, Report, execute, write_removal_list

        if self.review_store is None:
            raise RuntimeError("actions need a folder corpus with a review store")
        if plan.action == "list":
            paths = write_removal_list(plan, plan.quarantine)
            return Report("list", None, [Outcome(str(p), "done") for p in paths] + list(plan.refused))
        return execute(plan, self.review_store.journal_dir, on_progress=on_progress)

    def undo_last(self) -> Any:
        """Undo the most recent action that can be (None when there is none)."""
        from ditto_tui.corpus.actions import undo_last

        if self.review_store is None:
            return None
        return undo_last(self.review_store.journal_dir)

    def can_undo(self) -> Any:
        """The journal :meth:`undo_last` would reverse, or None."""
        from ditto_tui.corpus.actions import undoable

        if self.review_store is None:
            return None
        found = undoable(self.review_store.journal_dir)
        return found[-1] if found else None

    def _review_op(self, fn: Callable[[], None]) -> None:
        if self.review_store is None:
            self.on_event(Notice("No review store for this corpus: decisions are not kept.",
                                 "warning"))
            return
        if not self._closed:
            self._ops.put(_Call(fn))

    def _idents(self, ids: Sequence[str]) -> dict[str, Any]:
        docs = self._docs if self._fixed is None else self._fixed
        out = {}
        for i in ids:
            doc, fp = docs.get(i), self._fps.get(i)
            if doc is not None and fp is not None:
                out[i] = identity(doc, fp)
        return out

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # the store failed (disk full, ...): say so, keep going
            self.on_event(Notice(f"Could not record the review: {exc}", "error"))

    def _set_marks(self, marks: Mapping[str, str | None]) -> None:
        def run() -> None:
            idents = self._idents(list(marks))
            self.review_store.set_decisions(
                (i, idents[i], v) for i, v in marks.items() if i in idents
            )
            current = dict(self._review.decisions)
            stale = dict(self._review.stale)
            for i in idents:
                stale.pop(i, None)
                value = marks[i]
                if value is None:
                    current.pop(i, None)
                else:
                    current[i] = value
            self._set_review(decisions=MappingProxyType(current), stale=MappingProxyType(stale))

        self._guard(run)

    def _mark_family(self, members: Sequence[str], kind: str, on: bool) -> None:
        def run() -> None:
            key = key_of(members, self._records(), self._fps)
            self.review_store.mark_family(kind, key, len(members), on)
            field_name = "reviewed" if kind == "reviewed" else "ignored"
            keys = set(getattr(self._review, field_name))
            if on:
                keys.add(key)
            else:
                keys.discard(key)
            self._set_review(**{field_name: frozenset(keys)})

        self._guard(run)

    def _ignore_pair(self, a: str, b: str, on: bool) -> None:
        def run() -> None:
            idents = self._idents([a, b])
            if len(idents) != 2 or a == b:
                return
            self.review_store.ignore_pair((a, idents[a]), (b, idents[b]), on)
            pairs = {tuple(sorted(p)) for p in self._review.pairs}
            if on:
                pairs.add((min(a, b), max(a, b)))
            else:
                pairs.discard((min(a, b), max(a, b)))
            self._set_review(pairs=tuple(sorted(pairs)))

        self._guard(run)

    def _set_review(self, **changes: Any) -> None:
        state = dataclasses.replace(self._review, serial=self._review.serial + 1, **changes)
        self._review = state
        with self._view_cond:
            self._view_cond.notify_all()
        self.on_event(ReviewChanged(state))

    def _resolve_review(self) -> None:
        """Match the stored review to the corpus as it is now (writer thread; O(corpus))."""
        store = self.review_store
        if store is None:
            return

        def run() -> None:
            # looked up per stored record (an identity per document only when a record's
            # document was renamed): a store with few records costs next to nothing
            idents = _Identities(self._records(), self._fps)
            resolution = store.decisions(idents)
            pairs, lapsed = store.ignored_pairs(idents)
            self._set_review(
                decisions=MappingProxyType(dict(resolution.current)),
                stale=MappingProxyType(dict(resolution.stale)),
                reviewed=frozenset(store.family_marks("reviewed")),
                ignored=frozenset(store.family_marks("ignored")),
                pairs=tuple(sorted((min(a, b), max(a, b)) for a, b in pairs)),
                lapsed_pairs=lapsed,
            )

        self._guard(run)

    def _recover(self) -> None:
        """Roll back the actions an interrupted run left unfinished (writer thread)."""
        from ditto_tui.corpus.actions import damaged, recover

        try:
            reports = recover(self.review_store.journal_dir)
            broken = damaged(self.review_store.journal_dir)
        except Exception as exc:  # reported; the explorer stays usable
            self.on_event(Notice(f"Could not check unfinished actions: {exc}", "error"))
            return
        for journal in broken:
            self.on_event(Notice(journal.damage_note(), "error", "Damaged journal"))
        for report in reports:
            problems = len(report.failures)
            text = (f"An interrupted {report.action} was rolled back: "
                    f"{report.count('undone')} file(s) put back")
            text += f", {problems} problem(s) (see the notices log)." if problems else "."
            self.on_event(Notice(text, "warning", "Recovered"))
            for o in report.failures[:50]:
                self.on_event(Notice(f"{o.id}: {o.reason}", "error", "Not put back"))

    # -- writer thread ------------------------------------------------------------------
    def _run_writer(self) -> None:
        dirty = False
        last_publish = 0.0
        last_notice = 0.0
        while True:
            timeout = None
            if dirty:
                timeout = max(0.0, PUBLISH_INTERVAL - (time.monotonic() - last_publish))
            elif self._warm_more and not self._scanning and self._view_request is not None:
                # (while a scan runs, or before the UI has asked for a view, there is
                # nothing to warm: a zero timeout here would spin and starve the scan)
                timeout = 0.0 if time.monotonic() - self._last_change >= WARM_AFTER else 0.1
            elif not self._closed:
                timeout = NOTICE_POLL
            if self._held is not None:
                wait = max(0.0, HOLD_MAX - (time.monotonic() - self._held_since))
                timeout = wait if timeout is None else min(timeout, wait)
            try:
                op = self._ops.get(timeout=timeout)
            except queue.Empty:
                op = None
            ops = [] if op is None else [op]
            while True:
                try:
                    ops.append(self._ops.get_nowait())
                except queue.Empty:
                    break
            calls: list[_Call] = []
            listings: list[_Listing] = []
            ended: list[_ScanDone] = []

            def apply(op: _Batch) -> None:
                nonlocal dirty
                if op.epoch == self._epoch and self._apply(op.batch, op.watch):
                    dirty = True
                    self._last_change = time.monotonic()
                    self._warm_more = True

            def release() -> None:
                held, self._held = self._held, None
                if held is not None:
                    apply(held)

            if self._held is not None and time.monotonic() - self._held_since >= HOLD_MAX:
                release()
            for op in _coalesce(ops):
                if op is _STOP:
                    for call in calls:
                        call.done.set()
                    return
                if isinstance(op, _Batch) and not op.watch and self._scanning:
                    if op.epoch == self._epoch and not self._hold(op):
                        release()
                    continue
                if not isinstance(op, _Listing):
                    release()  # everything else sees every batch queued before it
                if isinstance(op, _Batch):
                    apply(op)
                elif isinstance(op, _Replace):
                    self._replace(op.source)
                    dirty = True
                elif isinstance(op, _ScanDone):
                    if op.epoch == self._epoch:
                        ended.append(op)
                elif isinstance(op, _Listing):
                    listings.append(op)
                elif isinstance(op, _Call):
                    calls.append(op)
            now = time.monotonic()
            if dirty and (
                ended or calls or listings or not self._scanning
                or now - last_publish >= PUBLISH_INTERVAL
            ):  # (a listing is of the index as published: its snapshot's documents)
                self._publish()
                dirty = False
                last_publish = now
            for done in ended:
                self._scan_finished(done)
            if listings and self._ops.empty():
                # (with more changes queued the listing would be stale at once: the view
                # builder asks again for the next generation; before the calls: the user
                # waits for this one)
                self._compute_listing(listings[-1].k, listings[-1].mode)
            for call in calls:
                try:
                    call.fn()
                finally:
                    call.done.set()
            if now - last_notice >= NOTICE_POLL:
                last_notice = now
                self._poll_notices()
            if self._ops.empty() and not dirty:
                self._warm_one()

    def _hold(self, op: _Batch) -> bool:
        """Keep a scan batch with the ones held before it while a scan runs; True while
        they should wait: until they hold more documents than the index (so the index is
        rebuilt each time it doubles, not once per batch: a warm start of stored
        fingerprints and pairs is mostly one rebuild, whose pairs the store has) or for
        ``HOLD_MAX``."""
        held = self._held
        if held is None or held.epoch != op.epoch:
            merged = ChangeBatch()
            merged.extend(op.batch)
            held = self._held = _Batch(op.epoch, merged, watch=False, merged=True)
            self._held_since = time.monotonic()
        else:
            held.batch.extend(op.batch)
        batch = held.batch
        size = len(batch.added) + len(batch.changed) + len(batch.removed)
        if time.monotonic() - self._held_since >= HOLD_MAX:
            return False
        if size <= len(self._fps):
            return True
        # a large batch (its rebuild costs real time) waits for a scan about to end;
        # small ones are shown at once (cheap, and the list fills as the scan goes)
        return size >= HOLD_BULK and self._ends_soon(op.epoch)

    def _ends_soon(self, epoch: int) -> bool:
        """Whether the running scan should be over within ``HOLD_MAX`` at the pace it has
        kept so far (then its batches wait for its end: one index rebuild instead of one
        per doubling, and a rebuild whose pairs a store may already hold)."""
        progress = self._progress
        if progress is None or progress[0] != epoch:
            return not self._fps  # the first batch: wait for the pace (at most HOLD_MAX)
        _, done, total, when = progress
        if total is None or done <= 0:
            return False
        pace = (when - self._scan_began) / done  # seconds per document so far
        return (total - done) * pace <= HOLD_MAX - (time.monotonic() - when)

    def _apply(self, batch: ChangeBatch, watch: bool) -> bool:
        """Apply one batch to the index and the id map; True if anything changed."""
        if not self._preloaded:
            # the first family listing needs scipy's graph components: import them while
            # the scan goes on (about 0.3 s of CPU), once the first documents are here
            # (not at start: that would hold up the first paint)
            self._preloaded = True
            threading.Thread(target=_preload, name="ditto-tui preload", daemon=True).start()
        if self._fps_published:  # copy on write: the published snapshot keeps its own
            self._fps = dict(self._fps)
            self._docs = dict(self._docs)
            self._fps_published = False
        index, fps, docs = self._index, self._fps, self._docs
        changed = False
        gone = {i: fps[i] for i in batch.removed if i in fps} if watch else {}
        for doc_id in batch.removed:
            if index.remove(doc_id):
                fps.pop(doc_id, None)
                docs.pop(doc_id, None)
                changed = True
        n_new = len(batch.added) + len(batch.changed)
        if n_new > 32:  # one array, no per-document copies (a scan may bring millions)
            ids = [*batch.added, *batch.changed]  # a later duplicate wins, as in add_many
            lookup = self._source.load_pairs if isinstance(self._source, PairStore) else None
            values = np.fromiter(
                itertools.chain(batch.added.values(), batch.changed.values()), np.uint64, n_new
            )
            index.add_many(ids, values, pairs=lookup)
        else:
            for given in (batch.added, batch.changed):
                for doc_id, fp in given.items():
                    index.add(doc_id, int(fp))
        if n_new:
            for given in (batch.added, batch.changed):
                if given and isinstance(next(iter(given.values())), int):
                    fps.update(given)  # the source's own values: shared, not copied
                else:
                    fps.update({i: int(fp) for i, fp in given.items()})
            changed = True
        if isinstance(batch.documents, FixedDocuments):
            self._fixed = batch.documents
        elif batch.documents:
            docs.update(batch.documents)  # the records of these fingerprints
            changed = True
        if watch:
            self._touched.update(batch.added)
            self._touched.update(batch.changed)
            self._touched.update(batch.removed)
            with self._view_cond:
                self._pending.note(batch, gone)
        return changed or bool(batch.skipped) or batch.rescan

    def _replace(self, source: Any) -> None:
        self._source = source
        self._epoch += 1
        self._index = NearIndex(self.max_k)
        self._fps = {}
        self._docs = {}
        self._fixed = None
        self._fps_published = False
        self._noted = {}
        self._held = None
        self._touched.clear()
        with self._view_cond:
            self._pending = _Pending()
            self._last_view = None
        self.on_event(SourceReplaced(source, getattr(source, "pipeline", None)))

    def _publish(self) -> None:
        self._generation += 1
        self._warm_more = True
        self._fps_published = True
        source = self._source
        snap = Snapshot(
            generation=self._generation,
            epoch=self._epoch,
            max_k=self.max_k,
            fingerprints=MappingProxyType(self._fps),  # shared until the next change
            documents=self._records(),
            skipped=tuple(source.skipped),
            scanning=self._scanning,
        )
        self._snapshot = snap
        touched, self._touched = frozenset(self._touched), set()
        if not self._scanning:
            self._resolve_review()
        with self._view_cond:
            self._view_cond.notify_all()
        self.on_event(IndexUpdated(snap, touched))

    def _records(self) -> Mapping[str, Document]:
        """The records of the documents in ``_fps``, read-only (shared until a change)."""
        if self._fixed is None:
            return MappingProxyType(self._docs)
        return _Aligned(self._fixed, MappingProxyType(self._fps))

    def _publish_state(self) -> None:
        """Republish the current content (scanning flag, skips) under a new generation."""
        self._ops.put(_Call(self._publish))

    def _scan_finished(self, done: _ScanDone) -> None:
        with self._lock:
            self._scanning = False
        self._publish()
        if self._view_request is None:  # nothing to warm (no UI): hand the heap back now
            self._settle_gc(len(self._fps))
        source = self._source
        pairs = self._index.take_computed_pairs()
        if pairs is not None and done.error is None and isinstance(source, PairStore):

            def store() -> None:
                try:  # for the next open: skips the all-pairs join of an unchanged corpus
                    source.store_pairs(pairs)
                except Exception as exc:  # an optimisation only: never fails the scan
                    self.on_event(Notice(f"Could not store the near pairs: {exc}"))

            self._store_thread = threading.Thread(target=store, daemon=True)
            self._store_thread.start()
        self.on_event(
            ScanEnded(done.error, done.switched, len(self._fps), len(self._snapshot.skipped))
        )
        self.on_event(WatchStateChanged(self.watch_state))

    def _compute_listing(self, k: int, mode: str) -> None:
        snap = self._snapshot
        key = (max(0, min(k, self.max_k)), mode)
        if snap.generation != self._generation or key in snap.listings:
            return
        listing = self._index.family_listing(key[0], mode=mode)
        # its notes too (one pass over its families; those kept from the last listing of
        # this key keep theirs): a k step then builds its view in O(1) instead of
        # looking at every family (about 1 s at 1M documents)
        listing_notes(listing, key[0], mode, snap.documents, self._noted.get(key))
        self._noted[key] = listing
        snap.listings[key] = listing
        with self._view_cond:
            self._view_cond.notify_all()

    def _warm_one(self) -> None:
        """Compute one listing the user may ask for next (current k first, then the
        nearest ones, in the current mode)."""
        request = self._view_request
        snap = self._snapshot
        if request is None or snap.generation != self._generation or self._scanning:
            return
        if time.monotonic() - self._last_change < WARM_AFTER:
            return  # changes are arriving: keep the writer free for them
        k = request.k
        order = sorted(range(self.max_k + 1), key=lambda x: (abs(x - k), x))
        for kk in order:
            if (kk, request.mode) not in snap.listings:
                self._compute_listing(kk, request.mode)
                self.on_event(ListingWarmed(kk, request.mode, snap.generation))
                return
        self._warm_more = False
        self._settle_gc(len(snap))

    def _bulk_gc(self) -> None:
        """A scan starts loading documents: full collections (over the app and every
        document so far: 0.3-2 s per 100,000 documents while a scan runs) are made rarer,
        and what is alive now (the app's start-up heap, after a young collection) is moved
        out of the collector's sight (``gc.freeze``). Objects made during the scan are not
        frozen: cyclic garbage among them is still collected. Undone by
        :meth:`_settle_gc` once everything is loaded and warm."""
        if self._gc_frozen:
            return
        self._gc_frozen = True
        self._gc_thresholds = gc.get_threshold()
        first, second, third = self._gc_thresholds
        gc.set_threshold(first, second, max(third, GC_BULK_FULL))
        gc.collect(1)  # (young garbage is not frozen with the rest)
        gc.freeze()

    def _settle_gc(self, documents: int) -> None:
        """Everything is loaded and warm: a large corpus stays out of the collector's sight
        (:func:`_freeze_heap`); a smaller one frozen by :meth:`_bulk_gc` is handed back to
        it (cycles among those objects are collected again). Settling recurs every few
        keys or live changes."""
        if self._gc_frozen:
            gc.set_threshold(*self._gc_thresholds)
        if documents >= FREEZE_FROM:
            _freeze_heap(documents)
        elif self._gc_frozen:
            gc.unfreeze()
        self._gc_frozen = False

    def _poll_notices(self) -> None:
        source = self._source
        notices = getattr(source, "notices", None)
        if notices is None:
            return
        seen = self._noticed.get(id(source), 0)
        fresh = notices[seen:]
        if fresh:
            self._noticed[id(source)] = seen + len(fresh)
            for text in fresh:
                self.on_event(Notice(str(text)))

    # -- view thread ---------------------------------------------------------------------
    def _run_views(self) -> None:
        built: tuple[int, int, int] | None = None  # (serial, generation, review serial)
        last_build = 0.0
        while True:
            with self._view_cond:
                while True:
                    if self._closed:
                        return
                    request, snap, review = self._view_request, self._snapshot, self._review
                    if request is not None and built != (
                        request.serial, snap.generation, review.serial
                    ):
                        fresh_request = built is None or built[0] != request.serial
                        wait = VIEW_INTERVAL - (time.monotonic() - last_build)
                        if fresh_request or not snap.scanning or wait <= 0:
                            break
                        self._view_cond.wait(wait)
                        continue
                    self._view_cond.wait()
            k = max(0, min(request.k, self.max_k))
            listing = snap.listing(k, request.mode)
            if listing is None:
                with self._view_cond:
                    wanted = (snap.generation, k, request.mode)
                    if self._listing_wanted != wanted:
                        self._listing_wanted = wanted
                        self._ops.put(_Listing(k, request.mode))
                    if (
                        snap.listing(k, request.mode) is None
                        and snap is self._snapshot
                        and not self._view_cond.wait(0.5)
                        and snap is self._snapshot
                    ):
                        self._listing_wanted = None  # ask again (the writer was busy)
                continue
            with self._view_cond:
                previous = self._last_view
                pending = self._pending
                renames = pending.renames()
            if review.pairs and not request.show_ignored:
                listing = self._split(listing, snap, review, k, request.mode)
            if self._key_cache_for != (snap.epoch, snap.generation):
                self._key_cache = {}
                self._key_cache_for = (snap.epoch, snap.generation)
            view = build_view(
                listing,
                request,
                snap.documents,
                generation=snap.generation,
                epoch=snap.epoch,
                total=len(snap),
                previous=previous,
                review=review if review.active else None,
                fingerprints=snap.fingerprints,
                key_cache=self._key_cache,
                renames=renames,
            )
            with self._view_cond:
                latest = self._view_request
                if latest is None or latest.serial != request.serial or snap.epoch != self._epoch:
                    continue  # superseded while building: dropped
                if view.delta is not None and pending:
                    view = _with_counts(view, pending, renames)
                    self._pending = _Pending()
                elif view.delta is not None:  # not a change on disk (e.g. scan progress)
                    view = dataclasses.replace(view, delta=None)
                self._last_view = view
                built = (request.serial, snap.generation, review.serial)
                last_build = time.monotonic()
            self.on_event(ViewBuilt(view))

    def _split(
        self, listing: Any, snap: Snapshot, review: ReviewState, k: int, mode: str
    ) -> Any:
        """The listing without the ignored links (chain: families re-formed; star: members
        ignored with their centre leave), cached per generation, review, k and mode."""
        key = (snap.generation, snap.epoch, review.serial, k, mode)
        cached = self._split_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        if mode == "star":
            out = leave_stars(listing, review.pairs, snap.fingerprints)
        else:
            out = split_ignored(listing, review.partners(), snap.fingerprints, k)
        self._split_cache = (key, out)
        return out


FREEZE_FROM = 100_000  # documents: from here a full garbage collection costs seconds


def _freeze_heap(documents: int) -> None:
    """With a large corpus, move everything alive now (index, listings, documents) out of
    the garbage collector's sight (``gc.freeze``): a full collection over millions of
    objects pauses every thread for seconds (5 s at 1M documents under load). These
    objects are freed by reference counting as usual; only cycles among them would stay.

    The young generations are collected first, so recent cyclic garbage (alive only
    because no collection ran since, e.g. while a key held the collector off) is not
    frozen for good. Not a full collection: that walks every object made since the last
    freeze (3-35 ms at 100k documents, holding the GIL while keys are answered)."""
    if documents >= FREEZE_FROM:
        gc.collect(1)
        gc.freeze()


def _preload() -> None:
    with contextlib.suppress(Exception):  # only a head start: a failure shows later
        import scipy.sparse.csgraph  # noqa: F401


def _coalesce(ops: list[Any]) -> list[Any]:
    """Fold each run of consecutive scan batches of one epoch into one batch (same final
    state; a bulk rebuild of the index instead of many small updates)."""
    out: list[Any] = []
    for op in ops:
        last = out[-1] if out else None
        if (
            isinstance(op, _Batch)
            and not op.watch
            and isinstance(last, _Batch)
            and not last.watch
            and last.epoch == op.epoch
        ):
            if not last.merged:
                merged = ChangeBatch()
                merged.extend(last.batch)
                last = _Batch(last.epoch, merged, watch=False, merged=True)
                out[-1] = last
            last.batch.extend(op.batch)
        else:
            out.append(op)
    return out


class _Pending:
    """The changes on disk since the last view: ids added and removed (with the
    fingerprint they had), how many were modified. A document removed and added back
    under the same id counts as modified; see :func:`pair_renames` for renames."""

    def __init__(self) -> None:
        self.added: dict[str, int] = {}
        self.removed: dict[str, int] = {}
        self.modified: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.modified)

    def note(self, batch: ChangeBatch, gone: Mapping[str, int]) -> None:
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
        return pair_renames(self.removed, self.added)


def _with_counts(view: FamilyView, pending: _Pending, renames: Mapping[str, str]) -> FamilyView:
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


class _Identities(Mapping[str, Any]):
    """id -> :func:`~ditto_tui.explore.review.identity` of every document with a
    fingerprint, computed on access (the stored review is matched to the corpus by
    looking up its records, rarely by walking every document)."""

    def __init__(self, documents: Mapping[str, Any], fingerprints: Mapping[str, int]) -> None:
        self._docs = documents
        self._fps = fingerprints

    def __getitem__(self, doc_id: str) -> Any:
        doc, fp = self._docs.get(doc_id), self._fps.get(doc_id)
        if doc is None or fp is None:
            raise KeyError(doc_id)
        return identity(doc, fp)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._fps and doc_id in self._docs

    def __iter__(self) -> Any:
        docs = self._docs
        return (i for i in self._fps if i in docs)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Aligned(Mapping[str, Document]):
    """The records of a source's :class:`FixedDocuments` restricted to the documents
    that have a fingerprint in ``fingerprints`` (same ids, no record copied)."""

    def __init__(self, records: Mapping[str, Document], fingerprints: Mapping[str, int]) -> None:
        self._records = records
        self._fps = fingerprints

    def __getitem__(self, doc_id: str) -> Document:
        if doc_id not in self._fps:
            raise KeyError(doc_id)
        return self._records[doc_id]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._fps

    def __iter__(self) -> Iterator[str]:
        return iter(self._fps)

    def __len__(self) -> int:
        return len(self._fps)
