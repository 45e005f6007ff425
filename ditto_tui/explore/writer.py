"""The index writer: one thread applies every change, in order, and publishes snapshots.

Every mutation of the index goes through one queue and is applied, in order, by one
thread: the batches of the initial scan and of every rescan, the batches of the watcher,
the replacement of the source (pipeline switch), and calls queued by the other parts
(review changes, questions asked of the index). Sources hand over their batches in the
order their own state changed (see :mod:`ditto_tui.explore.source`), so the last write on
disk is the last write in the index. The writer owns the index and the maps of
fingerprints and document records (:class:`~ditto_tui.explore.indexed.IndexedCorpus`:
nobody else touches them, so they need no lock) and publishes an immutable
:class:`~ditto_tui.explore.snapshot.Snapshot` after each change, records and fingerprints
of the same moment. It computes family listings on request and, when idle, for every
other k ("warming").
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.paths import NearGraph
from ditto_tui.core.families.tree import SweepRow
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.corpus.documents import ChangeBatch, Document
from ditto_tui.explore.events import (
    ExplorerEvent,
    IndexUpdated,
    Notice,
    ScanEnded,
    SourceReplaced,
    WatchStateChanged,
)
from ditto_tui.explore.indexed import IndexedCorpus
from ditto_tui.explore.listings import Listings
from ditto_tui.explore.pacing import ScanPacer
from ditto_tui.explore.process_tuning import HeapPolicy, preload, trim_heap
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, PairStore
from ditto_tui.explore.view import ViewRequest

PUBLISH_INTERVAL = 0.2  # while scanning: at most this often a new snapshot
NOTICE_POLL = 0.5


class ExplorerStopped(RuntimeError):
    """A blocking question was asked of an explorer whose writer has stopped (closing)."""


class Views(Protocol):
    """What the writer tells the view builder and asks of it."""

    @property
    def request(self) -> ViewRequest | None:
        """The latest view request (None before the UI asked for one)."""

    def wake(self) -> None:
        """A new snapshot, listing or review state: build again if it matters."""

    def note_changes(self, batch: ChangeBatch, gone: Mapping[str, int]) -> None:
        """A watch batch was applied (``gone``: the fingerprints of its removed ids)."""

    def forget(self) -> None:
        """The source was replaced: nothing of the old one counts."""


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
    source: CorpusSource


@dataclass(slots=True)
class _Listing:
    k: int
    mode: Mode


@dataclass(slots=True)
class _Call:
    """Run ``fn`` on the writer thread (in queue order); ``sees_held``: after the scan
    batches the pacer holds are applied (see :meth:`IndexWriter.submit`)."""

    fn: Callable[[], None]
    sees_held: bool = True
    done: threading.Event = field(default_factory=threading.Event)


class _Stop:
    """The last operation: the thread ends."""


_Op = _Batch | _ScanDone | _Replace | _Listing | _Call | _Stop
_STOP = _Stop()


class IndexWriter:
    """The writer thread, its queue and everything it owns (see module docstring).

    Thread-safe: :meth:`put_batch`, :meth:`scan_done`, :meth:`replace`, :meth:`listing`,
    :meth:`submit`, :meth:`call`, the scanning flag and the read-only properties. Only
    code running on the writer thread (queued with :meth:`submit` or :meth:`call`) may use
    :attr:`index`, :meth:`fingerprints` and :meth:`records`.

    ``on_publish`` runs on the writer thread after each publication made while no scan
    runs (the review is matched to the corpus there).
    """

    def __init__(
        self,
        source: CorpusSource,
        *,
        max_k: int,
        views: Views,
        heap: HeapPolicy,
        pacer: ScanPacer,
        on_event: Callable[[ExplorerEvent], None],
        on_publish: Callable[[], None] = lambda: None,
    ) -> None:
        self.max_k = max_k
        self._source = source
        self._views = views
        self._heap = heap
        self._pacer = pacer
        self._on_event = on_event
        self._on_publish = on_publish
        self._epoch = 0
        self._corpus = IndexedCorpus(max_k)
        self._listings = Listings(max_k, heap=heap, on_event=on_event)
        self._ops: queue.Queue[_Op] = queue.Queue()
        self._generation = 0
        self._snapshot = Snapshot(0, 0, max_k, scanning=False)
        self._lock = threading.Lock()  # the scanning and stopping flags
        self._scanning = False
        self._complete = False  # a scan of this epoch's source has ended
        self._stopping = False
        self._touched: set[str] = set()
        self._noticed: dict[int, int] = {}
        self._preloaded = False
        self._store_thread: threading.Thread | None = None
        self._thread = threading.Thread(target=self._run, name="ditto-tui writer", daemon=True)

    # -- state (any thread) ------------------------------------------------------------
    @property
    def source(self) -> CorpusSource:
        """The current source (replaced in queue order by :meth:`replace`)."""
        return self._source

    @property
    def snapshot(self) -> Snapshot:
        """The latest published snapshot (immutable)."""
        return self._snapshot

    @property
    def epoch(self) -> int:
        """Grows when the source is replaced; batches of an older epoch are dropped."""
        return self._epoch

    @property
    def scanning(self) -> bool:
        return self._scanning

    @property
    def stopping(self) -> bool:
        return self._stopping

    def try_begin_scan(self) -> bool:
        """Set the scanning flag; False when a scan runs or the writer is stopping."""
        with self._lock:
            if self._scanning or self._stopping:
                return False
            self._scanning = True
            return True

    def scan_aborted(self) -> None:
        """A scan (or switch) that set the flag will not send :meth:`scan_done`."""
        with self._lock:
            self._scanning = False

    @property
    def warming(self) -> bool:
        """Whether listings of other k are still worth precomputing."""
        return self._listings.warming

    @property
    def corpus(self) -> IndexedCorpus:
        """The index and maps of the current source (writer thread only)."""
        return self._corpus

    def want_warm(self) -> None:
        """The view request changed: listings of other k may be worth precomputing."""
        self._listings.want_warm()

    # -- the queue (any thread) --------------------------------------------------------
    def put_batch(self, epoch: int, batch: ChangeBatch, *, watch: bool) -> None:
        self._ops.put(_Batch(epoch, batch, watch))

    def scan_done(self, epoch: int, error: str | None, switched: bool) -> None:
        self._ops.put(_ScanDone(epoch, error, switched))

    def replace(self, source: CorpusSource) -> None:
        """Swap the source after everything queued: a new epoch, an empty index."""
        self._ops.put(_Replace(source))

    def listing(self, k: int, mode: Mode) -> None:
        """Ask for the listing at ``(k, mode)`` of the latest snapshot (it is added to
        the snapshot's ``listings``; the view builder is woken)."""
        self._ops.put(_Listing(k, mode))

    def submit(self, fn: Callable[[], None], *, sees_held: bool = True) -> None:
        """Run ``fn`` on the writer thread after everything queued; do not wait.
        ``sees_held=False``: ``fn`` does not read the index, so the scan batches the
        pacer holds stay held (a periodic call would otherwise apply a large scan's
        batches at its own pace: a rebuild of everything every second)."""
        if not self._stopping:
            self._ops.put(_Call(fn, sees_held))

    def publish_state(self) -> None:
        """Republish the current content (scanning flag, skips) under a new generation."""
        self._ops.put(_Call(self._publish))

    def call(self, fn: Callable[[], None], timeout: float | None = None) -> bool:
        """Run ``fn`` on the writer thread after everything queued before; wait for it.

        False when it did not run: ``timeout`` seconds passed, or the writer is stopping
        (or stopped meanwhile: a call never waits on a writer that has ended)."""
        if self._stopping:
            return False
        op = _Call(fn)
        self._ops.put(op)
        deadline = None if timeout is None else time.monotonic() + timeout
        while not op.done.wait(0.1):
            if self._stopping and not self._thread.is_alive():
                return op.done.is_set()
            if deadline is not None and time.monotonic() >= deadline:
                return False
        return True

    def ask(self, question: Callable[[], object]) -> object:
        """The answer of ``question()`` run on the writer thread after everything queued
        (blocking); :class:`ExplorerStopped` when the writer has stopped."""
        out: list[object] = []
        self.call(lambda: out.append(question()))
        if not out:
            raise ExplorerStopped("the explorer has stopped")
        return out.pop()  # (the call may outlive this: it must not keep the answer)

    def families(self, k: int, mode: Mode) -> FamilyListing:
        """Every family at ``(k, mode)`` of the index as it is after everything queued
        (blocking: computed on the writer thread)."""

        def compute() -> FamilyListing:
            self._compute_listing(k, mode)
            found = self._snapshot.listing(self.clamp(k), mode)
            assert found is not None  # computed just now, for this very snapshot
            return found

        answer = self.ask(compute)
        assert isinstance(answer, FamilyListing)
        return answer

    def near_graph(self) -> NearGraph:
        """The index's pairs and merge order, after everything queued (blocking)."""
        answer = self.ask(lambda: self._corpus.index.near_graph())
        assert isinstance(answer, NearGraph)
        return answer

    def sweep(self) -> tuple[SweepRow, ...]:
        """The figures of every k of the index after everything queued (blocking; see
        :meth:`Listings.sweep <ditto_tui.explore.listings.Listings.sweep>`)."""
        answer = self.ask(lambda: self._listings.sweep(self._corpus.index, self._snapshot))
        assert isinstance(answer, tuple)
        return answer

    def clamp(self, k: int) -> int:
        return max(0, min(k, self.max_k))

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread after what it is doing (queued changes are dropped)."""
        self._stopping = True
        self._ops.put(_STOP)

    def join(self, started: bool) -> None:
        if started:
            self._thread.join(timeout=10)
        if self._store_thread is not None:
            self._store_thread.join(timeout=60)

    # -- the writer thread's own state -------------------------------------------------
    def fingerprints(self) -> Mapping[str, int]:
        """id -> fingerprint of the index now (writer thread only)."""
        return self._corpus.fingerprints()

    def records(self) -> Mapping[str, Document]:
        """The records of the documents in :meth:`fingerprints`, read-only (writer
        thread only)."""
        return self._corpus.records()

    # -- the thread ----------------------------------------------------------------------
    def _run(self) -> None:
        dirty = False
        last_publish = 0.0
        last_notice = 0.0
        pacer = self._pacer
        while True:
            timeout: float | None = None
            if dirty:
                timeout = max(0.0, PUBLISH_INTERVAL - (time.monotonic() - last_publish))
            else:
                timeout = self._listings.idle_timeout(self._views.request, self._scanning)
                if timeout is None and not self._stopping:
                    timeout = NOTICE_POLL
            wait = pacer.wait()
            if wait is not None:
                timeout = wait if timeout is None else min(timeout, wait)
            ops: list[_Op] = []
            with contextlib.suppress(queue.Empty):
                ops.append(self._ops.get(timeout=timeout))
            while True:
                try:
                    ops.append(self._ops.get_nowait())
                except queue.Empty:
                    break
            calls: list[_Call] = []
            listings: list[_Listing] = []
            ended: list[_ScanDone] = []

            def apply(epoch: int, batch: ChangeBatch, watch: bool) -> None:
                nonlocal dirty
                if epoch == self._epoch and self._apply(batch, watch):
                    dirty = True
                    self._listings.changed()

            def release() -> None:
                held = pacer.release()
                if held is not None:
                    began = time.monotonic()
                    apply(held.epoch, held.batch, False)
                    pacer.applied(time.monotonic() - began)

            if pacer.overdue():
                release()
            for op in _coalesce(ops):
                if isinstance(op, _Stop):
                    for call in calls:
                        call.done.set()
                    return
                if isinstance(op, _Batch) and not op.watch and self._scanning:
                    if op.epoch == self._epoch and not pacer.hold(
                        op.epoch, op.batch, len(self._corpus)
                    ):
                        release()
                    continue
                if not isinstance(op, _Listing) and not (
                    isinstance(op, _Call) and not op.sees_held
                ):
                    release()  # everything else sees every batch queued before it
                if isinstance(op, _Batch):
                    apply(op.epoch, op.batch, op.watch)
                elif isinstance(op, _Replace):
                    self._replace(op.source)
                    dirty = True
                elif isinstance(op, _ScanDone):
                    if op.epoch == self._epoch:
                        ended.append(op)
                elif isinstance(op, _Listing):
                    listings.append(op)
                else:
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
            # (what was applied must not stay referenced while the thread waits)
            ops.clear()
            calls.clear()
            if self._ops.empty() and not dirty:
                self._warm_one()

    def _apply(self, batch: ChangeBatch, watch: bool) -> bool:
        """Apply one batch to the index and the maps; True if anything changed."""
        if not self._preloaded:
            # once the first documents are here (not at start: that would hold up the
            # first paint)
            self._preloaded = True
            preload()
        gone = self._corpus.gone(batch.removed) if watch else {}
        changed = self._corpus.apply(batch, self._source)
        if watch:
            self._touched.update(batch.touched())
            self._views.note_changes(batch, gone)
        return changed or bool(batch.skipped) or batch.rescan

    def _replace(self, source: CorpusSource) -> None:
        self._source = source
        self._epoch += 1
        self._complete = False
        self._corpus = IndexedCorpus(self.max_k)
        self._listings.forget()
        self._pacer.release()
        self._touched.clear()
        self._views.forget()
        self._on_event(SourceReplaced(source, source.pipeline))

    def _publish(self) -> None:
        self._generation += 1
        self._listings.want_warm()
        fingerprints, documents, arrays = self._corpus.publish()  # shared until a change
        snap = Snapshot(
            generation=self._generation,
            epoch=self._epoch,
            max_k=self.max_k,
            fingerprints=fingerprints,
            documents=documents,
            skipped=tuple(self._source.skipped),
            scanning=self._scanning,
            complete=self._complete,
            _arrays=[arrays] if arrays is not None else [],
        )
        self._snapshot = snap
        touched, self._touched = frozenset(self._touched), set()
        if not self._scanning:
            self._on_publish()
        self._views.wake()
        self._on_event(IndexUpdated(snap, touched))

    def _scan_finished(self, done: _ScanDone) -> None:
        with self._lock:
            self._scanning = False
        self._complete = True
        if done.error is None and self._corpus.use_stored(self._source):
            self._listings.changed()  # (a new index: its listings are computed afresh)
        self._publish()
        if self._views.request is None:  # nothing to warm (no UI): hand the heap back now
            self._heap.settle(len(self._corpus))
        else:
            trim_heap()  # what the scan's batches held goes back to the system
        source = self._source
        pairs = self._corpus.take_computed_pairs()
        if pairs is not None and done.error is None and isinstance(source, PairStore):
            self._store_thread = _store_later(source, pairs, self._on_event)
        self._on_event(
            ScanEnded(done.error, done.switched, len(self._corpus), len(self._snapshot.skipped))
        )
        self._on_event(WatchStateChanged(source.watch_state))

    def _compute_listing(self, k: int, mode: Mode) -> None:
        snap = self._snapshot
        if snap.generation == self._generation and self._listings.compute(
            self._corpus.index, snap, k, mode
        ):
            self._views.wake()

    def _warm_one(self) -> None:
        """Precompute one listing the user may ask for next (see :mod:`listings`)."""
        request = self._views.request
        snap = self._snapshot
        if request is None or snap.generation != self._generation or self._scanning:
            return
        if self._listings.warm_one(self._corpus.index, snap, request):
            self._views.wake()

    def _poll_notices(self) -> None:
        source = self._source
        seen = self._noticed.get(id(source), 0)
        fresh = source.notices[seen:]
        if fresh:
            self._noticed[id(source)] = seen + len(fresh)
            for text in fresh:
                self._on_event(Notice(str(text)))


def _store_later(
    source: PairStore, pairs: UniquePairs, on_event: Callable[[ExplorerEvent], None]
) -> threading.Thread:
    """Store the near pairs of a finished scan on a thread of their own: the next open
    of an unchanged corpus skips the all-pairs join (an optimisation only: a failure is
    a notice, never a failed scan)."""

    def store() -> None:
        try:
            source.store_pairs(pairs)
        except Exception as exc:
            on_event(Notice(f"Could not store the near pairs: {exc}"))

    thread = threading.Thread(target=store, name="ditto-tui pairs", daemon=True)
    thread.start()
    return thread


def _coalesce(ops: Sequence[_Op]) -> list[_Op]:
    """Fold each run of consecutive scan batches of one epoch into one batch (same final
    state; a bulk rebuild of the index instead of many small updates)."""
    out: list[_Op] = []
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
