"""DittoApp: the Textual application exploring near-duplicate families of a corpus.

The app wires things together: it drives the corpus session handed to it (scan in a thread
worker, live watching with the watcher's callback thread), the live index the screens read,
the switch to another pipeline, and the navigation between screens. Screens render; workers
compute and post messages.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import get_current_worker

from ditto_tui.core.pairs import PairsLookup
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
from ditto_tui.ui.screens.skipped import SkippedScreen

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


def pipeline_choices(pipeline: Any) -> dict[str, Any]:
    """The pipelines the explorer toggles between, by name: ditto and html.

    ``pipeline`` (the one the user started with) is kept as it is; the other one takes its
    parameters from it when it has them (``char_n``/``word_n``, ``shingle``) and the
    defaults otherwise. Empty when ``pipeline`` is none of the known kinds.
    """
    from ditto_tui.core.pipeline import PIPELINE_NAMES, make_pipeline

    name = getattr(pipeline, "name", None)
    if name not in PIPELINE_NAMES:
        return {}
    choices = {
        "ditto": make_pipeline(
            "ditto",
            char_n=getattr(pipeline, "char_n", 4),
            word_n=getattr(pipeline, "word_n", 0),
        ),
        "html": make_pipeline("html", shingle=getattr(pipeline, "shingle", 3)),
    }
    choices[name] = pipeline
    return choices


class DittoApp(App):
    """Near-duplicate explorer over a ``CorpusSession``-like ``source``.

    ``source`` needs ``root``, ``scan(on_progress=, on_batch=, cancelled=)``,
    ``documents``, ``fingerprints``, ``skipped``, ``read_text``, ``mail_info`` and, when
    ``watch`` is True, ``start_watching``/``pause_watching``/``resume_watching``/
    ``stop_watching``/``watch_state``. The app never closes ``source``: its owner does.
    ``k`` is the initial threshold (clamped to ``0..max_k``), ``mode`` "chain" or "star",
    ``poll`` makes the watcher poll instead of using inotify.

    Switching pipeline (:meth:`switch_pipeline`) needs ``source.with_pipeline`` and cycles
    through ``pipelines`` (name -> pipeline; default :func:`pipeline_choices` of
    ``pipeline``). ``session`` is always the current session; the sessions the app created
    by switching are closed by the app (when switched away from, and on exit), their
    notices collected in ``notices``.
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
        pipelines: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        prepare_worker_processes()
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.session = source
        self.root_label = str(root if root is not None else getattr(source, "root", ""))
        pipeline = pipeline if pipeline is not None else getattr(source, "pipeline", None)
        self.pipeline = pipeline
        self.pipeline_identity = str(getattr(pipeline, "identity", "") or "")
        self.pipelines = dict(pipelines) if pipelines is not None else pipeline_choices(pipeline)
        self.notices: list[str] = []
        self._created: list[Any] = []  # sessions opened by switching pipeline: ours to close
        self._switching = False
        self._watch_lock = threading.Lock()  # orders starting and stopping the watcher
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
        for session in self._created:
            self._close(session)
        self._created.clear()

    def _close(self, session: Any) -> None:
        """Close a session the app created, keeping its notices for the owner of the app."""
        session.close()
        self.notices.extend(n for n in session.notices if n not in self.notices)

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
        self._scan_session(get_current_worker())

    def _scan_session(self, worker, *, switched: bool = False, paused: bool = False) -> None:
        """Scan ``self.session`` into ``self.live`` (from a thread worker), then finish up on
        the UI thread."""
        screen = self.main_screen
        last = 0.0

        def on_progress(progress) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PROGRESS_INTERVAL:
                last = now
                screen.post_message(ScanProgressed(progress.done, progress.total, progress.elapsed))

        session = self.session
        lookup = getattr(session, "load_pairs", None)  # stored near pairs (corpus sessions)

        def on_batch(batch) -> None:
            self.live.apply(batch.added, batch.changed, batch.removed, pairs=lookup)
            screen.post_message(IndexChanged())

        error = None
        try:
            session.scan(
                on_progress=on_progress,
                on_batch=on_batch,
                cancelled=lambda: worker.is_cancelled,
            )
        except Exception as exc:  # reported to the user; the app stays usable
            error = f"{type(exc).__name__}: {exc}"
        self.sync_index(pairs=lookup)
        computed = self.live.take_computed_pairs()
        self.call_from_thread(self._scan_done, error, switched=switched, paused=paused)
        store = getattr(session, "store_pairs", None)
        if computed is not None and store is not None and error is None:
            try:  # for the next open: skips the all-pairs join of an unchanged corpus
                store(computed)
            except Exception as exc:  # an optimisation only: never fails the scan
                self.notices.append(f"Could not store the near pairs: {exc}")

    def sync_index(self, *, pairs: PairsLookup | None = None) -> None:
        """Make the live index hold exactly the session's fingerprints (after a scan);
        ``pairs`` looks up stored near pairs for a bulk rebuild."""
        fingerprints = dict(self.session.fingerprints)
        present = set(self.live.ids())
        stale = present - fingerprints.keys()
        fresh = {
            i: fp
            for i, fp in fingerprints.items()
            if i not in present or self.live.fingerprint(i) != int(fp)
        }
        if stale or fresh:
            self.live.apply(fresh, {}, stale, pairs=pairs)

    def _scan_done(self, error: str | None, *, switched: bool = False, paused: bool = False) -> None:
        self.scanning = False
        self.main_screen.post_message(ScanFinished(error))
        self.warm_families(self.main_screen.mode)
        if self.watch and self.session.watch_state == "off":
            self._start_watching(paused=paused)
        if switched and error is None:
            skipped = len(self.session.skipped)
            self.notify(
                f"{len(self.live):,} documents, {skipped:,} skipped.",
                title=f"Pipeline {self.pipeline_identity}",
                markup=False,
            )

    @work(thread=True, exclusive=True, group="warm")
    def warm_families(self, mode: str) -> None:
        """Precompute the families at every k so the slider never waits."""
        worker = get_current_worker()
        first = self.main_screen.k
        order = [first] + [k for k in range(self.live.max_k + 1) if k != first]
        self.live.warm(order, mode, cancelled=lambda: worker.is_cancelled)

    # -- watching -------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="watch")
    def _start_watching(self, paused: bool = False) -> None:
        with self._watch_lock:
            if self._switching:
                return  # the session is being replaced: the switch restarts watching
            session = self.session
            session.start_watching(
                partial(self._on_change, session), poll=self.poll, on_state=self._on_state
            )
            if paused:
                session.pause_watching()
        self.main_screen.post_message(WatchStateChanged())

    def _on_state(self, _state: str) -> None:
        self.main_screen.post_message(WatchStateChanged())

    def _on_change(self, session: Any, batch) -> None:
        """Watcher thread: apply to the live index, then tell the main screen."""
        if session is not self.session:
            return  # a late batch of a session switched away from
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

    # -- switching pipeline ---------------------------------------------------------------
    def next_pipeline(self) -> Any | None:
        """The pipeline after the current one in ``pipelines`` (None when there is none)."""
        names = list(self.pipelines)
        current = getattr(self.pipeline, "name", None)
        if len(names) < 2 or current not in names:
            return None
        return self.pipelines[names[(names.index(current) + 1) % len(names)]]

    def switch_pipeline(self) -> None:
        """Re-index the corpus with the next pipeline (ditto <-> html), without blocking.

        A worker stops watching, opens a sibling session (``source.with_pipeline``) and
        scans it into a fresh live index; the scan shows its progress as on start and is
        instant for a pipeline seen before (its fingerprints come from the cache). k, the
        grouping and the watch state carry over.
        """
        target = self.next_pipeline()
        if target is None or not hasattr(self.session, "with_pipeline"):
            self.notify("This corpus cannot switch pipeline.", markup=False)
            return
        if self.scanning:
            self.notify("Wait for the scan to end before switching pipeline.", markup=False)
            return
        self.scanning = True
        self._switching = True
        self.notify(f"Switching to {target.identity}…", markup=False, timeout=2)
        self.main_screen.post_message(WatchStateChanged())
        self._switch(target)

    @work(thread=True, exclusive=True, group="scan")
    def _switch(self, pipeline: Any) -> None:
        worker = get_current_worker()
        old = self.session
        paused = str(getattr(old, "watch_state", "off")) == "paused"
        try:
            with self._watch_lock:
                old.stop_watching()
            new = old.with_pipeline(pipeline)
        except Exception as exc:  # reported to the user; the old session stays
            self.call_from_thread(self._switch_failed, f"{type(exc).__name__}: {exc}", paused)
            return
        if self.call_from_thread(self._adopt, old, new, pipeline):
            self._close(old)
        self._scan_session(worker, switched=True, paused=paused)

    def _adopt(self, old: Any, session: Any, pipeline: Any) -> bool:
        """UI thread: make ``session`` current with an empty live index; True when ``old``
        was created by the app (the caller closes it)."""
        owned = old in self._created
        if owned:
            self._created.remove(old)
        self.session = session
        self._created.append(session)
        self.pipeline = pipeline
        self.pipeline_identity = str(pipeline.identity)
        self.live = LiveIndex(self.live.max_k)
        self._switching = False
        self.main_screen.pipeline_switched()
        return owned

    def _switch_failed(self, error: str, paused: bool) -> None:
        self._switching = False
        self.notify(error, title="Pipeline switch failed", severity="error", markup=False)
        self._scan_done(None, paused=paused)

    # -- navigation -------------------------------------------------------------------------
    def open_compare(self, left: str, right: str) -> None:
        self.push_screen(CompareScreen(left, right))

    def open_neighbours(self, doc_id: str, k: int) -> None:
        self.push_screen(NeighboursScreen(doc_id, k))

    def open_skipped(self) -> None:
        self.push_screen(SkippedScreen())

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
