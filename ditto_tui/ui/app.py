"""DittoApp: the Textual application exploring near-duplicate families of a corpus.

The app wires things together: it owns the corpus session handed to it (scan in a thread
worker, live watching with the watcher's callback thread), the live index the screens read,
and the navigation between screens. Screens render; workers compute and post messages.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import get_current_worker

from ditto_tui.ui.commands import DittoCommands
from ditto_tui.ui.listing import Counts
from ditto_tui.ui.live_index import MODES, LiveIndex
from ditto_tui.ui.messages import (
    CorpusChanged,
    IndexChanged,
    ScanFinished,
    ScanProgressed,
    WatchStateChanged,
)
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.export import ExportDialog
from ditto_tui.ui.screens.help import HelpScreen
from ditto_tui.ui.screens.main import MainScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.screens.picker import DocumentPicker

PROGRESS_INTERVAL = 0.1


def prepare_worker_processes() -> None:
    """Start multiprocessing's resource tracker while ``sys.stderr`` is the real one.

    Textual replaces ``sys.stderr`` with an object whose ``fileno()`` is -1 while the app
    runs; a process pool started later (the scan's forkserver workers) would hand that -1
    to the resource tracker it launches and fail with "bad value(s) in fds_to_keep". Once
    the tracker runs, later pools reuse it.
    """
    if os.name != "posix":
        return
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return  # no real stderr to give (already inside a capture): nothing to do
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()


class DittoApp(App):
    """Near-duplicate explorer over a ``CorpusSession``-like ``source``.

    ``source`` needs ``root``, ``scan(on_progress=, on_batch=, cancelled=)``,
    ``documents``, ``fingerprints``, ``skipped``, ``read_text``, ``mail_info`` and, when
    ``watch`` is True, ``start_watching``/``pause_watching``/``resume_watching``/
    ``stop_watching``/``watch_state``. The app never closes ``source``: its owner does.
    ``k`` is the initial threshold (clamped to ``0..max_k``), ``mode`` "chain" or "star",
    ``poll`` makes the watcher poll instead of using inotify.
    """

    CSS_PATH = "app.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    TITLE = "ditto-tui"
    COMMANDS = App.COMMANDS | {DittoCommands}
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        source: Any,
        *,
        root: str | os.PathLike[str] | None = None,
        pipeline: Any = None,
        max_k: int = 8,
        k: int = 3,
        mode: str = "chain",
        poll: bool = False,
        watch: bool = True,
    ) -> None:
        super().__init__()
        prepare_worker_processes()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.session = source
        self.root_label = str(root if root is not None else getattr(source, "root", ""))
        pipeline = pipeline if pipeline is not None else getattr(source, "pipeline", None)
        self.pipeline_identity = str(getattr(pipeline, "identity", "") or "")
        self.live = LiveIndex(max_k)
        self.initial_k = max(0, min(k, max_k))
        self.initial_mode = mode
        self.poll = poll
        self.watch = watch
        self.scanning = False
        self.main_screen = MainScreen()

    # -- lifecycle ------------------------------------------------------------------------
    def get_default_screen(self) -> MainScreen:
        return self.main_screen

    def on_mount(self) -> None:
        # paint the empty screen first, then let the scan thread compete for the CPU
        self.call_after_refresh(self.start_scan)

    def on_unmount(self) -> None:
        stop = getattr(self.session, "stop_watching", None)
        if stop is not None:
            stop()

    def watch_state(self) -> str:
        """What the status line says about watching."""
        if self.scanning:
            return "scanning"
        return str(getattr(self.session, "watch_state", "off"))

    # -- scanning -------------------------------------------------------------------------
    def start_scan(self) -> None:
        """(Re)scan the corpus in a thread worker; families appear while it runs."""
        if self.scanning:
            self.notify("A scan is already running.", markup=False)
            return
        self.scanning = True
        self.main_screen.post_message(WatchStateChanged())
        self._scan()

    @work(thread=True, exclusive=True, group="scan")
    def _scan(self) -> None:
        worker = get_current_worker()
        screen = self.main_screen
        last = 0.0

        def on_progress(progress) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PROGRESS_INTERVAL:
                last = now
                screen.post_message(ScanProgressed(progress.done, progress.total, progress.elapsed))

        def on_batch(batch) -> None:
            self.live.apply(batch.added, batch.changed, batch.removed)
            screen.post_message(IndexChanged())

        error = None
        try:
            self.session.scan(
                on_progress=on_progress,
                on_batch=on_batch,
                cancelled=lambda: worker.is_cancelled,
            )
        except Exception as exc:  # reported to the user; the app stays usable
            error = f"{type(exc).__name__}: {exc}"
        self.sync_index()
        self.call_from_thread(self._scan_done, error)

    def sync_index(self) -> None:
        """Make the live index hold exactly the session's fingerprints (after a scan)."""
        fingerprints = dict(self.session.fingerprints)
        present = set(self.live.ids())
        stale = present - fingerprints.keys()
        fresh = {
            i: fp
            for i, fp in fingerprints.items()
            if i not in present or self.live.fingerprint(i) != int(fp)
        }
        if stale or fresh:
            self.live.apply(fresh, {}, stale)

    def _scan_done(self, error: str | None) -> None:
        self.scanning = False
        self.main_screen.post_message(ScanFinished(error))
        self.warm_families(self.main_screen.mode)
        if self.watch and self.session.watch_state == "off":
            self._start_watching()

    @work(thread=True, exclusive=True, group="warm")
    def warm_families(self, mode: str) -> None:
        """Precompute the families at every k so the slider never waits."""
        worker = get_current_worker()
        first = self.main_screen.k
        order = [first] + [k for k in range(self.live.max_k + 1) if k != first]
        self.live.warm(order, mode, cancelled=lambda: worker.is_cancelled)

    # -- watching -------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="watch")
    def _start_watching(self) -> None:
        self.session.start_watching(self._on_change, poll=self.poll, on_state=self._on_state)
        self.main_screen.post_message(WatchStateChanged())

    def _on_state(self, _state: str) -> None:
        self.main_screen.post_message(WatchStateChanged())

    def _on_change(self, batch) -> None:
        """Watcher thread: apply to the live index, then tell the main screen."""
        self.live.apply(batch.added, batch.changed, batch.removed)
        counts = Counts(len(batch.changed), len(batch.added), len(batch.removed), 0, 0)
        touched = frozenset([*batch.added, *batch.changed, *batch.removed])
        self.main_screen.post_message(CorpusChanged(counts, touched, batch.rescan))

    def toggle_watch(self) -> None:
        """Pause watching if it runs, resume it if paused, start it if off."""
        state = self.session.watch_state
        if state == "off":
            if self.scanning:
                self.notify("Watching starts when the scan ends.", markup=False)
                self.watch = True
                return
            self.watch = True
            self._start_watching()
            self.notify("Watching for changes.", markup=False)
        elif state == "paused":
            self.session.resume_watching()
            self.notify("Watching resumed.", markup=False)
        else:
            self.session.pause_watching()
            self.notify("Watching paused: changes are held until you resume (w).", markup=False)
        self.main_screen.post_message(WatchStateChanged())

    # -- navigation -------------------------------------------------------------------------
    def open_compare(self, left: str, right: str) -> None:
        self.push_screen(CompareScreen(left, right))

    def open_neighbours(self, doc_id: str, k: int) -> None:
        self.push_screen(NeighboursScreen(doc_id, k))

    def pick_document(self, origin: str | None, then: Callable[[str], None]) -> None:
        def picked(result: str | None) -> None:
            if result is not None:
                then(result)

        self.push_screen(DocumentPicker(sorted(self.live.ids()), origin=origin), picked)

    def open_export(self, families: list, k: int, mode: str) -> None:
        if not families:
            self.notify("No families to export.", markup=False)
            return
        self.push_screen(ExportDialog(families, k=k, mode=mode, fingerprints=self.live.fingerprint))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # -- outside the terminal -------------------------------------------------------------------
    def open_external(self, doc_id: str | None, variable: str) -> None:
        """Open the document's file in $EDITOR or $PAGER, suspending the UI meanwhile."""
        if doc_id is None:
            return
        doc = self.session.documents.get(doc_id)
        if doc is None:
            return
        fallback = "vi" if variable == "EDITOR" else "less"
        command = shlex.split(os.environ.get(variable) or fallback) + [doc.path]
        try:
            with self.suspend():
                subprocess.run(command, check=False)
        except Exception as exc:  # suspend unsupported (e.g. web driver) or no such program
            self.notify(f"Cannot run {command[0]}: {exc}", severity="error", markup=False)
        self.refresh()

    def copy_path(self, doc_id: str | None) -> None:
        if doc_id is None:
            return
        doc = self.session.documents.get(doc_id)
        path = doc.path if doc is not None else doc_id
        self.copy_to_clipboard(path)
        self.notify(f"Copied {path}", markup=False)
