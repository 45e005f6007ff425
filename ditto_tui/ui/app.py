"""DittoApp: the Textual application exploring near-duplicate families of a corpus.

The app wires things together: it owns the :class:`~ditto_tui.explore.Explorer` over the
corpus source handed to it (the ordered writer of the live index: scan, watching, pipeline
switch), turns the explorer's events into messages, hands their data down to the main
screen, keeps the notices of the session (toasts when they happen, and a log screen), and
runs what needs the terminal itself (an external editor or pager).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.color import Color
from textual.events import Resize
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer

from ditto_tui.core.families.clusters import MODES, as_mode
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.pipeline import Pipeline, pipeline_choices
from ditto_tui.explore import Explorer, events
from ditto_tui.explore.policy import SessionPolicy
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, OptionsSwitchable
from ditto_tui.ui.commands import DittoCommands
from ditto_tui.ui.internals import release_drawn_lines
from ditto_tui.ui.messages import ExplorerMessage, KeptNotice, OpenExternal
from ditto_tui.ui.screens.help import HelpScreen, help_lines, help_width
from ditto_tui.ui.screens.main import MainScreen
from ditto_tui.ui.screens.notices import NoticesScreen
from ditto_tui.ui.screens.skipped import SkippedScreen

#: k when neither the command line nor a saved view gives one (the CLI's default too)
DEFAULT_K = 3


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


def contrast_boost(theme: Theme, variables: Mapping[str, str]) -> dict[str, str]:
    """``$boost`` as Textual 7 gave it to every theme: the theme's own ``boost`` if it
    names one, else its contrast text (white on a dark background, black on a light one)
    at 4%. ``variables`` are the theme's CSS variables as Textual made them.

    The app draws with it what stands a little apart from the background: the control bar,
    the compare screen's summary line, the cursor row of a list without focus. Textual 8
    keeps this ``$boost`` only for dark themes that leave their panel colour to Textual
    (textual-dark); every other theme's is transparent, and those rows would look like
    the rows around them. A theme that sets ``boost`` among its variables, and an ANSI
    theme, keep Textual's.
    """
    if theme.ansi or "boost" in theme.variables:
        return {}
    if theme.boost is not None:
        boost = Color.parse(theme.boost)
    else:
        boost = Color.parse(variables["background"]).get_contrast_text(1.0).with_alpha(0.04)
    return {"boost": boost.hex}


class DittoApp(App[None]):
    """Near-duplicate explorer over a corpus ``source`` (a :class:`CorpusSource`).

    The app never closes ``source``: its owner does. ``k`` is the initial threshold
    (clamped to ``0..max_k``), ``mode`` "chain" or "star", ``poll`` makes the watcher poll
    instead of using inotify, ``watch`` starts watching (before the initial scan).

    Switching pipeline (``p``) needs a source that can (``with_pipeline``) and cycles
    through ``pipelines`` (name -> pipeline; default :func:`pipeline_choices` of
    ``pipeline``). The sources the explorer opens by switching are closed by it on exit,
    their notices collected in ``notices``.

    ``policy`` says what the session may change (read-only: nothing; see
    :mod:`ditto_tui.explore.policy`); ``screenshots`` is the folder the Screenshot command
    saves into (default: :func:`~ditto_tui.ui.screenshot.screenshot_folder`), the one
    ``ditto-tui serve`` names for its browser sessions. In a browser (``is_web``) opening a
    document in ``$EDITOR``/``$PAGER`` is not offered: it would run on the server.
    """

    CSS_PATH = "app.tcss"
    TITLE = "ditto-tui"
    COMMANDS = App.COMMANDS | {DittoCommands}
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    # Textual 8 can turn the garbage collector off while a scroll animates (off by
    # default, to be on by default later): ditto_tui.ui.internals already turns it off while
    # a key waits for its frame, and two owners would turn it back on under each other.
    PAUSE_GC_ON_SCROLL = False

    def __init__(
        self,
        source: CorpusSource,
        *,
        root: str | os.PathLike[str] | None = None,
        pipeline: Pipeline | None = None,
        max_k: int = 8,
        k: int | None = None,
        mode: str | None = None,
        poll: bool = False,
        watch: bool = True,
        pipelines: Mapping[str, Pipeline] | None = None,
        review: bool = False,
        review_dir: str | os.PathLike[str] | None = None,
        fresh: bool = False,
        policy: SessionPolicy | None = None,
        screenshots: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__()
        self.screenshots = Path(screenshots) if screenshots is not None else None
        prepare_worker_processes()
        chosen = as_mode(mode) if mode is not None else None
        self.root_label = str(root if root is not None else source.root)
        pipeline = pipeline if pipeline is not None else source.pipeline
        self.pipeline = pipeline
        self.pipeline_identity = pipeline.identity
        self.pipelines = dict(pipelines) if pipelines is not None else pipeline_choices(pipeline)
        self.notices: list[str] = []
        #: the help page, rendered ahead at the width it will have (see HelpScreen)
        self.help_lines = help_lines()
        self._help_timer: Timer | None = None
        self._switch_title = ""  # the title of the toast when a rescan of ours ends
        #: every notice of this session with the time it arrived (the log screen)
        self.notice_log: list[tuple[float, str, str]] = []
        store = None
        self._review_notices: list[str] = []
        if review:  # decisions, ignore list, sessions and actions: folder sources only
            from ditto_tui.explore.review_service import open_review

            store = open_review(source, cache_dir=review_dir, fresh=fresh,
                                notices=self._review_notices)
        session = store.load_session() if store is not None else None
        # what the command line gives wins over the saved view, which wins over the defaults
        if session is not None:
            k = k if k is not None else session.k
            if chosen is None and session.mode in MODES:
                chosen = as_mode(session.mode)
        k = DEFAULT_K if k is None else k
        self.initial_k = max(0, min(k, max_k))
        self.explorer = Explorer(
            source, max_k=max_k, watch=watch, poll=poll, on_event=self._explorer_event,
            review=store, policy=policy,
        )
        self.main_screen = MainScreen(
            self.explorer, k=max(0, min(k, max_k)), mode=chosen or "chain",
            root_label=self.root_label
        )
        if session is not None:
            self.main_screen.restore_session(session)

    # -- state read by tests and the command palette -----------------------------------------
    @property
    def session(self) -> Any:
        """The current corpus source."""
        return self.explorer.source

    @property
    def snapshot(self) -> Snapshot:
        """The latest state of the index."""
        return self.explorer.snapshot

    @property
    def scanning(self) -> bool:
        return self.explorer.scanning

    @property
    def live(self) -> Explorer:
        """The live index as the explanation screens read it (generation, graph())."""
        return self.explorer

    def open_compare(self, left: str, right: str) -> None:
        """Compare two documents of the latest snapshot."""
        from ditto_tui.ui.screens.compare import CompareScreen

        self.push_screen(
            CompareScreen(left, right, snapshot=self.explorer.snapshot, reader=self.explorer.source)
        )

    # -- lifecycle ------------------------------------------------------------------------
    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        variables.update(contrast_boost(self.current_theme, variables))
        return variables

    def get_default_screen(self) -> MainScreen:
        return self.main_screen

    def on_mount(self) -> None:
        # paint the empty screen first, then let the scan thread compete for the CPU
        self.call_after_refresh(self.explorer.start)
        if self.explorer.review_store is not None:  # what other sessions record shows here
            self.set_interval(1.0, self.explorer.refresh_review, name="review refresh")
        for text in self._review_notices:
            self.add_notice(text)
        slow = engine.missing()  # the compiled engine was not built at install time
        if slow:
            self.add_notice(slow)

    def on_resize(self, event: Resize) -> None:
        """Render the help for the new width once the resizing has stopped."""
        if self._help_timer is not None:
            self._help_timer.stop()
        self._help_timer = self.set_timer(
            0.5, lambda: self._render_help_ahead(event.size.width), name="help ahead"
        )

    @work(thread=True, exclusive=True, group="help")
    def _render_help_ahead(self, width: int) -> None:
        """Render the help page for a screen ``width`` wide, so that ``?`` only draws it."""
        self.help_lines.at(help_width(width))

    def on_unmount(self) -> None:
        store = self.explorer.review_store
        if store is not None and not self.explorer.policy.read_only:
            try:
                store.save_session(self.main_screen.session_state())
            except Exception as exc:  # the view is not worth losing the exit over
                self.notices.append(f"Could not save the session: {exc}")
        self.explorer.close()
        self.notices.extend(n for n in self.explorer.notices if n not in self.notices)
        release_drawn_lines()

    # -- explorer events (from its threads) ----------------------------------------------------
    def _explorer_event(self, event: events.ExplorerEvent) -> None:
        self.post_message(ExplorerMessage(event))

    def on_explorer_message(self, message: ExplorerMessage) -> None:
        event = message.event
        screen = self.main_screen
        if not screen.is_mounted or not screen.children:
            return  # not mounted yet, or already torn down (the app is closing)
        if isinstance(event, events.ViewBuilt):
            screen.show_view(event.view)
        elif isinstance(event, events.IndexUpdated):
            screen.show_snapshot(event.snapshot, event.touched)
        elif isinstance(event, events.ScanProgressed):
            screen.scan_progressed(event.done, event.total, event.elapsed)
        elif isinstance(event, events.ScanEnded):
            screen.scan_ended(event.error)
            if not self.help_lines.has(help_width(self.size.width)):
                # once the scan no longer competes for the CPU (at start it would slow
                # the first families; `?` before then renders the page itself)
                self._render_help_ahead(self.size.width)
            if event.switched and event.error is None:
                self.notify(
                    f"{event.documents:,} documents, {event.skipped:,} skipped.",
                    title=self._switch_title or f"Pipeline {self.pipeline_identity}",
                    markup=False,
                )
                self._switch_title = ""
        elif isinstance(event, events.ListingWarmed):
            screen.listing_warmed(event.k, event.mode)
        elif isinstance(event, events.WatchStateChanged):
            screen.update_status()
        elif isinstance(event, events.SourceReplaced):
            self.pipeline = event.pipeline
            self.pipeline_identity = event.pipeline.identity
            screen.update_status()
        elif isinstance(event, events.ReviewChanged):
            screen.show_review(event.state)
        elif isinstance(event, events.Notice):
            self.add_notice(event.text, severity=event.severity, title=event.title)

    def add_notice(self, text: str, *, severity: str = "warning", title: str = "") -> None:
        """Show a notice now (a toast) and keep it in the log (``L``); a warning is also
        said again on exit. ``severity`` "information" is for what the user did."""
        self.notice_log.append((time.time(), severity, text))
        if severity == "warning" and text not in self.notices:
            self.notices.append(text)
        toasts: dict[str, SeverityLevel] = {"error": "error", "information": "information"}
        toast = toasts.get(severity, "warning")
        self.notify(
            text,
            title=title or {"error": "Error", "information": "Done"}.get(severity, "Notice"),
            severity=toast,
            markup=False,
            timeout=8,
        )

    def on_kept_notice(self, message: KeptNotice) -> None:
        self.add_notice(message.text, severity="information", title=message.title)

    def watch_state(self) -> str:
        """What the status line says about watching."""
        return self.explorer.watch_state

    # -- actions ------------------------------------------------------------------------------
    def action_rescan(self) -> None:
        if not self.explorer.rescan():
            self.notify("A scan is already running.", markup=False)

    def action_toggle_watch(self) -> None:
        """Pause watching if it runs, resume it if paused, start it if off."""
        happened = self.explorer.toggle_watch()
        text = {
            "started": "Watching for changes.",
            "resumed": "Watching resumed.",
            "paused": "Watching paused: changes are held until you resume (w).",
            "later": "Watching starts when the scan ends.",
        }[happened]
        self.notify(text, markup=False)
        self.main_screen.update_status()

    def next_pipeline(self) -> Pipeline | None:
        """The pipeline after the current one in ``pipelines`` (None when there is none)."""
        names = list(self.pipelines)
        current = self.pipeline.name
        if len(names) < 2 or current not in names:
            return None
        return self.pipelines[names[(names.index(current) + 1) % len(names)]]

    def action_switch_pipeline(self) -> None:
        """Re-index the corpus with the next pipeline (ditto <-> html), without blocking.

        The explorer stops watching, opens a sibling source and scans it into a fresh
        index; the scan shows its progress as on start and is instant for a pipeline seen
        before (its fingerprints come from the cache). k, the grouping and the watch state
        carry over."""
        target = self.next_pipeline()
        if target is None or not self.explorer.can_switch():
            self.notify("This corpus cannot switch pipeline.", markup=False)
            return
        if self.explorer.scanning:
            self.notify("Wait for the scan to end before switching pipeline.", markup=False)
            return
        if self.explorer.switch_pipeline(target):
            self.notify(f"Switching to {target.identity}…", markup=False, timeout=2)
            self.main_screen.update_status()

    def action_scan_options(self) -> None:
        """Change the scan options (minimum size, empty files, links, HTML by content or
        every file) in a dialog; applying rescans with a sibling source (cache shared)."""
        from ditto_tui.corpus.documents import ScanOptions, options_summary
        from ditto_tui.ui.screens.scan_options import ScanOptionsDialog

        explorer = self.explorer
        source = explorer.source
        if not isinstance(source, OptionsSwitchable):
            self.notify("This corpus has no scan options to change.", markup=False)
            return
        if explorer.scanning:
            self.notify("Wait for the scan to end before changing the scan options.", markup=False)
            return

        def chosen(new: ScanOptions | None) -> None:
            if new is None:
                return
            if explorer.change_options(new):
                summary = options_summary(new) or "defaults"
                self._switch_title = f"Scan options: {summary}"
                self.notify(f"Rescanning with {summary}…", markup=False, timeout=3)
                self.main_screen.update_status()
            else:
                self.notify("A scan is running: try again when it ends.", markup=False)

        html = self.pipeline.name == "html"
        self.push_screen(ScanOptionsDialog(source.options, html=html), chosen)

    def switch_pipeline(self) -> None:
        self.action_switch_pipeline()

    def start_scan(self) -> None:
        self.action_rescan()

    def action_show_skipped(self) -> None:
        self.push_screen(SkippedScreen(self.explorer.snapshot.skipped))

    def action_show_log(self) -> None:
        self.push_screen(NoticesScreen(list(self.notice_log)))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_lines))

    # -- screenshots ------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands, with a Screenshot that says where it saved."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                yield SystemCommand(
                    "Screenshot",
                    "Save an SVG picture of the screen "
                    + (f"in {self.screenshots}" if self.screenshots is not None
                       else "(Downloads, else here, else the cache folder)"),
                    lambda: self.set_timer(0.1, self.action_screenshot),
                )
            else:
                yield command

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save the screen as SVG (see :mod:`ditto_tui.ui.screenshot`) and say where."""
        from ditto_tui.ui.screenshot import screenshot_folder, screenshot_name

        folder = Path(path) if path else self.screenshots or screenshot_folder()
        self._save_screenshot(
            self.export_screenshot(), folder, filename or screenshot_name(self.title)
        )

    @work(thread=True, group="screenshot")
    def _save_screenshot(self, svg: str, folder: Path, name: str) -> None:
        from ditto_tui.ui.screenshot import write_screenshot

        try:
            saved = write_screenshot(svg, folder, name)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self.call_from_thread(
                self.notify,
                f"Could not save the screenshot in {folder}: {reason}",
                title="Screenshot",
                severity="error",
                markup=False,
            )
            return
        where = "on the server " if self.is_web else ""
        self.call_from_thread(
            self.notify, f"Saved {where}to {saved}", title="Screenshot", markup=False, timeout=8
        )

    # -- outside the terminal -------------------------------------------------------------------
    def on_open_external(self, message: OpenExternal) -> None:
        """Open the document's file in $EDITOR or $PAGER, suspending the UI meanwhile."""
        doc = self.explorer.snapshot.documents.get(message.doc_id)
        if doc is None:
            return
        if self.is_web:  # the program would run on the server, where nobody sees it
            self.notify("Opening a document in a program is not available in a browser "
                        "session.", severity="warning", markup=False)
            return
        fallback = "vi" if message.variable == "EDITOR" else "less"
        command = shlex.split(os.environ.get(message.variable) or fallback) + [doc.path]
        try:
            with self.suspend():
                subprocess.run(command, check=False)
        except Exception as exc:  # suspend unsupported (e.g. web driver) or no such program
            self.notify(f"Cannot run {command[0]}: {exc}", severity="error", markup=False)
        # the editor may have changed the file: its preview is read again now (watching,
        # if on, brings its new record and fingerprint after)
        self.main_screen.detail.forget({message.doc_id})
        self.refresh()
