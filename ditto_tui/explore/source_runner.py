"""Running the source: scans on their own thread, watching, and replacing the source.

A scan runs on a thread of its own and hands its batches to the index writer's queue, in
order; so does the watcher. Replacing the source (another pipeline, other scan options)
stops watching the old one, queues the new one to the writer (which starts a new epoch,
empty) and scans it. The writer's scanning flag says whether a scan (or a switch) runs.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Literal, Protocol

from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.corpus.documents import ChangeBatch, ScanOptions, ScanProgress
from ditto_tui.corpus.watch import WatchState as SourceWatchState
from ditto_tui.explore.events import (
    ExplorerEvent,
    Notice,
    ScanProgressed,
    WatchState,
    WatchStateChanged,
)
from ditto_tui.explore.pacing import ScanPacer
from ditto_tui.explore.process_tuning import HeapPolicy
from ditto_tui.explore.source import CorpusSource, OptionsSwitchable, PipelineSwitchable

PROGRESS_INTERVAL = 0.1

#: What :meth:`SourceRunner.toggle_watch` did.
Toggled = Literal["started", "resumed", "paused", "later"]


class Writer(Protocol):
    """What the runner needs of the index writer."""

    @property
    def source(self) -> CorpusSource: ...

    @property
    def epoch(self) -> int: ...

    @property
    def scanning(self) -> bool: ...

    def try_begin_scan(self) -> bool: ...

    def scan_aborted(self) -> None: ...

    def put_batch(self, epoch: int, batch: ChangeBatch, *, watch: bool) -> None: ...

    def scan_done(self, epoch: int, error: str | None, switched: bool) -> None: ...

    def replace(self, source: CorpusSource) -> None: ...

    def publish_state(self) -> None: ...

    def call(self, fn: Callable[[], None], timeout: float | None = None) -> bool: ...


class SourceRunner:
    """Scans, watching and source replacement for one explorer (see module docstring).

    ``watch`` says whether to watch after the first scan (set by :meth:`toggle_watch`);
    ``poll`` makes the watcher poll. Sources it opened itself (by switching) are closed by
    :meth:`close`, with their notices kept in ``notices``; never the one it was given."""

    def __init__(
        self,
        writer: Writer,
        *,
        watch: bool,
        poll: bool,
        heap: HeapPolicy,
        pacer: ScanPacer,
        on_event: Callable[[ExplorerEvent], None],
    ) -> None:
        self.watch = watch
        self.poll = poll
        self.notices: list[str] = []
        self._writer = writer
        self._heap = heap
        self._pacer = pacer
        self._on_event = on_event
        self._cancel = threading.Event()
        self._scan_thread: threading.Thread | None = None
        self._created: list[CorpusSource] = []

    @property
    def watch_state(self) -> WatchState:
        """``scanning`` while a scan runs, else the source's own watch state."""
        writer = self._writer
        return "scanning" if writer.scanning else writer.source.watch_state

    # -- scanning ------------------------------------------------------------------------
    def begin_scan(
        self,
        source: CorpusSource,
        epoch: int,
        *,
        start_watch: bool = False,
        switched: bool = False,
        paused: bool = False,
    ) -> bool:
        """Scan ``source`` on a new thread; False when a scan already runs (or closing)."""
        if not self._writer.try_begin_scan():
            return False
        self._cancel.clear()
        self._pacer.began()
        self._writer.publish_state()
        thread = threading.Thread(
            target=self._scan,
            args=(source, epoch, start_watch, switched, paused),
            name="ditto-tui scan",
            daemon=True,
        )
        self._scan_thread = thread
        thread.start()
        return True

    def rescan(self) -> bool:
        """Scan the current source again (F5); False when a scan already runs."""
        return self.begin_scan(self._writer.source, self._writer.epoch)

    def _scan(
        self, source: CorpusSource, epoch: int, start_watch: bool, switched: bool, paused: bool
    ) -> None:
        self._heap.bulk()
        if start_watch:
            self.start_watching(source, epoch, paused=paused)
        last = 0.0

        def on_progress(progress: ScanProgress) -> None:
            nonlocal last
            now = time.monotonic()
            self._pacer.progressed(epoch, progress.done, progress.total, now)
            if now - last >= PROGRESS_INTERVAL or progress.total == progress.done:
                last = now
                self._on_event(ScanProgressed(progress.done, progress.total, progress.elapsed))

        def on_batch(batch: ChangeBatch) -> None:
            self._writer.put_batch(epoch, batch, watch=False)

        error = None
        try:
            source.scan(on_progress=on_progress, on_batch=on_batch, cancelled=self._cancel.is_set)
        except Exception as exc:  # reported to the user; the explorer stays usable
            error = f"{type(exc).__name__}: {exc}"
        self._writer.scan_done(epoch, error, switched)

    # -- watching ------------------------------------------------------------------------
    def start_watching(self, source: CorpusSource, epoch: int, *, paused: bool = False) -> None:
        """Follow ``source``'s changes into the writer's queue (blocking until started)."""
        writer = self._writer

        def on_change(batch: ChangeBatch) -> None:
            writer.put_batch(epoch, batch, watch=True)

        def on_state(state: SourceWatchState) -> None:
            self._on_event(WatchStateChanged(state))

        try:
            source.start_watching(on_change, poll=self.poll, on_state=on_state)
            if paused:
                source.pause_watching()
        except Exception as exc:  # noqa: BLE001 - watching is optional; say why it is off
            self._on_event(Notice(f"Cannot watch for changes: {exc}", "error"))
        self._on_event(WatchStateChanged(self.watch_state))

    def toggle_watch(self) -> Toggled:
        """Pause watching if it runs, resume it if paused, start it if off (``later``:
        during a scan that did not start it)."""
        source = self._writer.source
        state = source.watch_state
        self.watch = True
        if state == "off":
            if self._writer.scanning:
                return "later"
            threading.Thread(
                target=self.start_watching, args=(source, self._writer.epoch), daemon=True
            ).start()
            return "started"
        if state == "paused":
            source.resume_watching()
            return "resumed"
        source.pause_watching()
        return "paused"

    # -- replacing the source ----------------------------------------------------------
    def can_switch(self) -> bool:
        return isinstance(self._writer.source, PipelineSwitchable)

    def switch_pipeline(self, pipeline: Pipeline) -> bool:
        """Re-index with ``pipeline`` in the background: stop watching, open a sibling
        source, replace the index (empty), scan. False when a scan runs or the source
        cannot switch. Failures come back as a :class:`Notice` with severity "error"."""
        source = self._writer.source
        if not isinstance(source, PipelineSwitchable):
            return False
        return self._start_switch(lambda: source.with_pipeline(pipeline),
                                  "Pipeline switch failed")

    def can_change_options(self) -> bool:
        return isinstance(self._writer.source, OptionsSwitchable)

    def change_options(self, options: ScanOptions) -> bool:
        """Rescan with other scan ``options`` in the background, as :meth:`switch_pipeline`
        does with a pipeline. False when a scan runs or the source cannot."""
        source = self._writer.source
        if not isinstance(source, OptionsSwitchable):
            return False
        return self._start_switch(lambda: source.with_options(options), "Scan options failed")

    def _start_switch(self, make: Callable[[], CorpusSource], failure: str) -> bool:
        if not self._writer.try_begin_scan():
            return False
        threading.Thread(target=self._switch, args=(make, failure), daemon=True).start()
        return True

    def _switch(self, make: Callable[[], CorpusSource], failure: str) -> None:
        writer = self._writer
        old = writer.source
        paused = old.watch_state == "paused"
        was_watching = old.watch_state != "off" or self.watch
        try:
            old.stop_watching()
            new = make()
        except Exception as exc:  # reported; the old source stays and watches again
            writer.scan_aborted()
            self._on_event(Notice(f"{type(exc).__name__}: {exc}", "error", failure))
            if was_watching:
                self.start_watching(old, writer.epoch, paused=paused)
            writer.publish_state()
            return
        writer.replace(new)
        writer.call(lambda: None)  # the writer has the new source (and its epoch)
        if old in self._created:
            self._created.remove(old)
            self._close_source(old)
        self._created.append(new)
        writer.scan_aborted()  # (the flag the switch set; the scan sets its own)
        self.begin_scan(new, writer.epoch, start_watch=was_watching, switched=True,
                        paused=paused)

    # -- lifecycle -----------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the running scan and watching the current source (closing)."""
        self._cancel.set()
        with contextlib.suppress(Exception):  # closing must go on
            self._writer.source.stop_watching()

    def close(self) -> None:
        """Wait for the scan thread; close the sources opened here."""
        thread = self._scan_thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        for source in self._created:
            self._close_source(source)
        self._created.clear()

    def _close_source(self, source: CorpusSource) -> None:
        source.close()
        self.notices.extend(n for n in source.notices if n not in self.notices)
