"""Live watching of a corpus folder: file-system events in, coalesced path sets out.

:class:`FolderWatcher` runs a watchdog (inotify) observer, or with ``poll=True`` (network
file systems) and whenever inotify cannot be set up, a :class:`~ditto_tui.corpus.poll.TreePoller`
that never leaves the root nor follows a symlink; plus its own delivery thread. Events are reduced to root-relative paths
(deduplicated; ignored paths dropped early) and handed to ``deliver`` in the delivery thread
once a burst goes quiet for ``quiet`` seconds, or at the latest ``max_delay`` seconds after
the first pending event while a long burst goes on.

Nothing is missed: an inotify queue overflow (reported by watchdog's logging, and by the
probe of :mod:`~ditto_tui.corpus.library_patches`: watchdog 6 drops the overflow event), a watch that
cannot be added (inotify limits: the watcher then falls back to polling), or too many pending
paths all turn into a full rescan (``deliver(set(), "rescan")``). A periodic reconcile
(``deliver(set(), "reconcile")`` every ``reconcile_every`` seconds) catches anything else;
the session makes it cheap (:mod:`~ditto_tui.corpus.reconcile`: folder stamps and a
rolling slice of files, not a walk of everything).
While paused, events accumulate and are delivered on resume, followed by a reconcile.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Literal

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers.api import BaseObserver

from ditto_tui.corpus.library_patches import install_overflow_probe
from ditto_tui.corpus.poll import CPU_BUDGET, TreePoller
from ditto_tui.corpus.rootdir import RootDir

#: What a watcher is doing: following events, paused (events held), rescanning (after a
#: lost event), or nothing.
WatchState = Literal["watching", "paused", "rescanning", "off"]

QUIET_SECONDS = 0.2
MAX_DELAY_SECONDS = 0.8
RECONCILE_SECONDS = 30.0
MAX_PENDING = 200_000

#: The events a watch asks the kernel for: changes only. Opening a file and closing it
#: without a write (what every read makes, the scan's own included: two events a file)
#: are not even queued, so reading a million files cannot overflow the queue and force a
#: rescan; nor does a folder's own change stamp come (its entries' events do).
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent, DirCreatedEvent, FileDeletedEvent, DirDeletedEvent,
    FileMovedEvent, DirMovedEvent, FileModifiedEvent, FileClosedEvent,
]

_log = logging.getLogger(__name__)
_watchers: weakref.WeakSet[FolderWatcher] = weakref.WeakSet()


def _notify_overflow() -> None:
    for watcher in list(_watchers):
        watcher.request_rescan("the event queue overflowed")


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        paths = [event.src_path]
        if getattr(event, "dest_path", ""):
            paths.append(event.dest_path)
        self._watcher.note_paths(
            [os.fsdecode(p) for p in paths if p], is_dir=event.is_directory
        )


class FolderWatcher:
    """Watches one root folder and delivers coalesced root-relative path sets.

    ``root`` may also be a single file (then its folder is watched and the file's own
    path is reported as ``""``). ``deliver(paths, mode)`` runs in the watcher's own
    thread with mode ``"events"``,
    ``"rescan"`` or ``"reconcile"``; exceptions it raises are logged and the watcher goes on.
    ``on_state(state)`` reports ``"watching"``, ``"paused"``, ``"rescanning"`` and ``"off"``.
    """

    def __init__(
        self,
        root: str,
        deliver: Callable[[set[str], str], None],
        *,
        poll: bool = False,
        poll_interval: float = 2.0,
        is_ignored: Callable[[str, bool], bool] | None = None,
        quiet: float = QUIET_SECONDS,
        max_delay: float = MAX_DELAY_SECONDS,
        reconcile_every: float | None = RECONCILE_SECONDS,
        on_state: Callable[[WatchState], None] | None = None,
        notices: list[str] | None = None,
    ) -> None:
        self.root = os.path.abspath(root)
        self._prefix = self.root.rstrip(os.sep) + os.sep
        # A single-file root (an mbox) is watched through its folder; its path maps to "".
        self._file_root = not os.path.isdir(self.root)
        self._deliver = deliver
        self.poll = poll
        self.poll_interval = poll_interval
        self._is_ignored = is_ignored
        self.quiet = quiet
        self.max_delay = max_delay
        self.reconcile_every = reconcile_every
        self._on_state = on_state
        self.notices = notices if notices is not None else []
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._first = 0.0
        self._last = 0.0
        self._rescan_reason: str | None = None
        self._paused = False
        self._reconcile_due = False
        self._last_reconcile = time.monotonic()
        self._stopping = False
        self._observer: BaseObserver | TreePoller | None = None
        self._thread: threading.Thread | None = None
        self.state: WatchState = "off"

    # -- event intake (observer threads) ------------------------------------------------
    def _rel(self, path: str) -> str | None:
        if self._file_root:
            return "" if path == self.root else None
        if path.startswith(self._prefix):
            rel = path[len(self._prefix):]
            return rel.replace(os.sep, "/") if os.sep != "/" else rel
        return None

    def note_paths(self, paths: list[str], *, is_dir: bool = False) -> None:
        """Record changed absolute paths (called by the event handler; thread-safe)."""
        rels = []
        for p in paths:
            rel = self._rel(p)
            if rel is None:
                continue
            if rel and self._is_ignored is not None and self._is_ignored(rel, is_dir):
                continue
            rels.append(rel)
        if not rels:
            return
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            self._last = now
            self._pending.update(rels)
            if len(self._pending) > MAX_PENDING:
                self._pending.clear()
                self._rescan_reason = self._rescan_reason or "too many changes at once"
            self._cond.notify()

    def request_rescan(self, reason: str) -> None:
        """Ask for a full rescan (thread-safe; used on overflow and failed watches)."""
        with self._cond:
            self._rescan_reason = self._rescan_reason or reason
            self._cond.notify()

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the observer and the delivery thread (falls back to polling on OSError)."""
        install_overflow_probe(_notify_overflow)
        _watchers.add(self)
        self._stopping = False
        self._last_reconcile = time.monotonic()
        self._observer = self._start_observer()
        self._thread = threading.Thread(
            target=self._run, name=f"ditto-tui watcher {self.root}", daemon=True
        )
        self._thread.start()
        self._set_state("paused" if self._paused else "watching")

    def _start_observer(self) -> BaseObserver | TreePoller:
        from watchdog.observers import Observer

        handler = _Handler(self)
        path = os.path.dirname(self.root) if self._file_root else self.root
        recursive = not self._file_root
        if not self.poll:
            observer = Observer()
            try:
                observer.schedule(
                    handler, path, recursive=recursive, event_filter=WATCHED_EVENTS
                )
                observer.start()
                return observer
            except OSError as exc:
                with_suppressed_stop(observer)
                self.notices.append(
                    f"Cannot watch {self.root} with inotify ({exc}); polling instead."
                )
                self.request_rescan("a watch could not be added")
        return self._start_poller()

    def _start_poller(self) -> TreePoller:
        """Poll through the root's gate: never outside the root, never through a symlink."""
        rootdir = RootDir.for_file(self.root) if self._file_root else RootDir(self.root)
        prefix = self._prefix

        def report(rels: list[str]) -> None:
            self.note_paths([self.root if not rel else prefix + rel for rel in rels])

        def on_period(seconds: float, entries: int) -> None:
            self.notices.append(
                f"Polling {self.root} every {seconds:.0f} s: one look at its {entries:,} "
                f"entries costs more than {CPU_BUDGET:.0%} of a core at "
                f"{self.poll_interval:g} s; a change shows within that time"
            )

        poller = TreePoller(
            rootdir, report, interval=self.poll_interval, is_ignored=self._is_ignored,
            on_period=on_period,
        )
        poller.start()
        return poller

    def pause(self) -> None:
        """Hold deliveries; events keep accumulating."""
        with self._cond:
            self._paused = True
        self._set_state("paused")

    def resume(self) -> None:
        """Deliver what accumulated while paused, then reconcile."""
        with self._cond:
            self._paused = False
            self._reconcile_due = True
            self._cond.notify()
        self._set_state("watching")

    def stop(self) -> None:
        """Stop observer and thread; pending paths are dropped. Idempotent."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._observer is not None:
            with_suppressed_stop(self._observer)
            self._observer = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread = None
        _watchers.discard(self)
        self._set_state("off")

    def _set_state(self, state: WatchState) -> None:
        self.state = state
        if self._on_state is not None:
            try:
                self._on_state(state)
            except Exception:  # noqa: BLE001 - a UI callback must not kill the watcher
                _log.exception("watch state callback failed")

    # -- delivery thread ----------------------------------------------------------------
    def _next_job(self) -> tuple[set[str], str] | None:
        """Wait for the next thing to deliver; None when stopping."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                now = time.monotonic()
                timeout: float | None = None
                if not self._paused:
                    if self._rescan_reason is not None:
                        self._rescan_reason = None
                        self._pending.clear()
                        self._reconcile_due = False
                        self._last_reconcile = now
                        return set(), "rescan"
                    if self._pending:
                        ready_at = min(self._last + self.quiet, self._first + self.max_delay)
                        if now >= ready_at:
                            paths, self._pending = self._pending, set()
                            return paths, "events"
                        timeout = ready_at - now
                    elif self._reconcile_due:
                        self._reconcile_due = False
                        self._last_reconcile = now
                        return set(), "reconcile"
                    if self.reconcile_every is not None:
                        due = self._last_reconcile + self.reconcile_every
                        if now >= due and not self._pending:
                            self._last_reconcile = now
                            return set(), "reconcile"
                        timeout = min(timeout, due - now) if timeout is not None else due - now
                self._cond.wait(timeout)

    def _run(self) -> None:
        while True:
            job = self._next_job()
            if job is None:
                return
            paths, mode = job
            if mode == "rescan":
                self._set_state("rescanning")
            try:
                self._deliver(paths, mode)
            except Exception as exc:  # noqa: BLE001 - keep watching whatever happens
                _log.exception("watch delivery failed")
                self.notices.append(f"Watching {self.root}: an update failed ({exc}).")
            if mode == "rescan":
                self._set_state("paused" if self._paused else "watching")


def with_suppressed_stop(observer: BaseObserver | TreePoller) -> None:
    """Stop and join a watchdog observer, ignoring errors of a half-started one."""
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(timeout=10)
    except (RuntimeError, OSError):
        pass
