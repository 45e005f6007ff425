"""ActionsScreen (act on the documents decided duplicate) and UndoScreen (undo the last).

Both get the explorer in the constructor and do every file operation through it, in
thread workers: the dry run (:meth:`ActionService.plan`, nothing touched), then, after a
confirmation, the action itself with a progress bar and one result row per file (a
failure is listed and never stops the rest). Undo asks first and reports what it restored.

Where the system trash is not the freedesktop trash ditto-tui can undo (macOS, Windows:
:func:`~ditto_tui.corpus.trash.trash_refusal`) and no ``DITTO_TUI_TRASH_DIR`` is set, the
dialog opens on the quarantine folder, its trash choice says "not on macOS", and choosing
it shows the one-line reason instead of a dry run (planning it would refuse too).
"""

from __future__ import annotations

import sys
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, ProgressBar, Select, Static

from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.corpus.actions.messages import LINK_WARNING
from ditto_tui.corpus.documents import human_size
from ditto_tui.corpus.trash import platform_name, trash_refusal
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.virtual_table import VirtualTable

ACTION_CHOICES = [
    ("Move to the trash", "trash"),
    ("Move into a quarantine folder", "move"),
    ("Replace with a hard link to the kept copy", "link"),
    ("Write a removal list (touch nothing)", "list"),
]
DEST_HINT = {
    "trash": "(the system trash; nothing to fill in)",
    "move": "quarantine folder (outside the corpus, or a new folder in it)",
    "link": "(only byte-identical files; nothing to fill in)",
    "list": "file prefix for .csv, .jsonl and .sh",
}


class ResultTable(VirtualTable[tuple[str, str, str]]):
    """One row per file: what the action will do (dry run) or did."""

    COLUMNS = (
        ColumnSpec("status", "Status", 9),
        ColumnSpec("path", "Path", 30, weight=1),
        ColumnSpec("detail", "Detail", 20, weight=1),
    )
    CELL_STYLES = {"detail": "muted"}

    def cell(self, row: tuple[str, str, str], key: str) -> str:
        status, path, detail = row
        if key == "status":
            return status
        if key == "path":
            return shown(path)
        return shown(detail)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y says yes, n or escape no (the focused button: No)."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen #confirm { width: 70; height: auto; border: thick $error; background: $surface; padding: 1 2; }
    ConfirmScreen #confirm-question { height: auto; margin-bottom: 1; }
    ConfirmScreen #confirm-buttons { height: auto; }
    ConfirmScreen #confirm-buttons Button { margin-right: 2; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.question), id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", id="yes", variant="error", compact=True)
                yield Button("No (n)", id="no", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


def _kept_copy(reference: str, bits: int | None) -> str:
    """``2 bits · 96.88% · keeps REF``: how near the copy that stays is (first, so that a
    narrow column still shows it), and which it is."""
    if bits is None:
        return f"keeps {reference}"
    return f"{bits} bit{'' if bits == 1 else 's'} · {similarity_percent(bits)} · keeps {reference}"


class ActionsScreen(Screen[None]):
    """Dry run, confirmation, then the action on the members decided duplicate in the
    families at ``k`` and ``mode`` (all of them, whatever the list's filters), through
    ``explorer``."""

    DEFAULT_CSS = """
    ActionsScreen #actions { border: round $primary; padding: 0 1; height: 1fr; }
    ActionsScreen #action-choice, ActionsScreen #action-buttons { height: auto; margin-bottom: 1; }
    ActionsScreen #action-choice Select { width: 52; margin-right: 2; }
    ActionsScreen #action-choice Input { width: 1fr; }
    ActionsScreen #action-buttons Button { margin-right: 2; }
    ActionsScreen #action-summary { height: auto; margin-bottom: 1; }
    ActionsScreen #action-progress { height: 1; margin-bottom: 1; }
    """

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, explorer: Any, k: int, mode: str = "chain") -> None:
        super().__init__()
        self.explorer = explorer
        self.k = k
        self.mode = mode
        self.targets: list[Any] | None = None
        self.far: list[str] = []  # decided duplicate, with no kept member within k
        self.stale = 0
        self.plan: Any = None
        self.report: Any = None
        self.running = False
        #: why the trash cannot be used here (macOS, Windows, ... without a trash folder)
        self.no_trash: str | None = trash_refusal()
        self.summary_text = "Finding the documents decided duplicate…"
        self._summary_before_refusal = self.summary_text

    def compose(self) -> ComposeResult:
        choices = ACTION_CHOICES
        first = "trash"
        if self.no_trash is not None:
            first = "move"
            choices = [(f"Move to the trash (not on {platform_name(sys.platform)})", "trash"),
                       *ACTION_CHOICES[1:]]
        with Vertical(id="actions"):
            with Horizontal(id="action-choice"):
                yield Select(choices, value=first, allow_blank=False, id="action", compact=True)
                yield Input(placeholder=DEST_HINT[first], id="destination",
                            disabled=first not in ("move", "list"), compact=True)
            with Horizontal(id="action-buttons"):
                yield Button("Dry run", id="dry-run", variant="primary", compact=True)
                yield Button("Run…", id="run", variant="error", disabled=True, compact=True)
                yield Button("Close", id="close", compact=True)
            yield Static(self.summary_text, id="action-summary")
            yield ProgressBar(id="action-progress", show_eta=False)
            yield ResultTable(id="action-results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#actions").border_title = "Act on the documents decided duplicate"
        self.query_one(ProgressBar).display = False
        self.query_one(ResultTable).placeholder = "Press Dry run to see what would happen."
        self.find_targets()

    @property
    def action(self) -> str:
        return str(self.query_one("#action", Select).value)

    def _summary(self, text: str) -> None:
        self.summary_text = text
        self.query_one("#action-summary", Static).update(Text(text))

    def _show_trash_refusal(self) -> None:
        """Show why the trash cannot be used here, or, the trash no longer chosen, what
        the summary said before."""
        if self.no_trash is None:
            return
        if self.trash_refused:
            if self.summary_text != self.no_trash:
                self._summary_before_refusal = self.summary_text
                self._summary(self.no_trash)
        elif self.summary_text == self.no_trash:
            self._summary(self._summary_before_refusal)

    @property
    def trash_refused(self) -> bool:
        """The trash is chosen and cannot be used here (:attr:`no_trash` says why)."""
        return self.no_trash is not None and self.action == "trash"

    @work(thread=True, exclusive=True, group="act")
    def find_targets(self) -> None:
        try:
            found = self.explorer.actions.targets(self.k, self.mode)
        except Exception as exc:  # the explorer is closing
            self.app.call_from_thread(self._summary, f"Cannot list the duplicates: {exc}")
            return
        self.app.call_from_thread(self._targets_found, found)

    def _targets_found(self, found: Any) -> None:
        targets, far, stale = found.found, found.far, found.stale
        self.targets, self.far, self.stale = targets, far, stale
        text = (f"{len(targets):,} document(s) decided duplicate in the families at "
                f"k={self.k} ({self.mode}), filters aside, each within k={self.k} of the "
                "copy that stays.")
        if far:
            text += (f" {len(far):,} left alone: no kept member within k={self.k} "
                     "(decide which copy stays).")
        if found.too_wide:
            text += (f" ◆ {found.too_wide:,} of their families flagged: diameter above "
                     f"2k={2 * self.k}, a drift rather than copies of one document.")
        if stale:
            text += f" {stale:,} stale decision(s) left out (the file changed since)."
        if self.trash_refused:  # the reason stays; the count comes back with another choice
            self._summary_before_refusal = text
        else:
            self._summary(text)

    @on(Select.Changed, "#action")
    def action_changed(self) -> None:
        dest = self.query_one("#destination", Input)
        dest.placeholder = ("(not available here: see the reason below)" if self.trash_refused
                            else DEST_HINT[self.action])
        dest.disabled = self.action not in ("move", "list")
        self.plan = None
        self.query_one("#run", Button).disabled = True
        if not self.running:
            self._show_trash_refusal()

    @on(Input.Changed, "#destination")
    def destination_changed(self) -> None:
        self.plan = None
        self.query_one("#run", Button).disabled = True

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        if self.running:
            self.notify("The action is running; it cannot be stopped halfway.", markup=False)
            return
        self.dismiss(None)

    @on(Button.Pressed, "#dry-run")
    def dry_run(self) -> None:
        if self.targets is None or self.running:
            return
        action = self.action
        dest = self.query_one("#destination", Input).value.strip()
        if self.no_trash is not None and action == "trash":  # no dry run: say why instead
            self._show_trash_refusal()
            self.notify(self.no_trash, severity="warning", markup=False)
            return
        if action in ("move", "list") and not dest:
            self.notify(f"Fill in: {DEST_HINT[action]}.", markup=False)
            return
        self._summary("Checking every file (dry run; nothing is touched)…")
        self.plan_in_worker(action, dest)

    @work(thread=True, exclusive=True, group="act")
    def plan_in_worker(self, action: str, dest: str) -> None:

        try:
            plan = self.explorer.actions.plan(action, self.targets or [], dest or None)
        except Exception as exc:  # a bad quarantine folder and the like: say why
            self.app.call_from_thread(self._summary, f"Cannot plan: {exc}")
            return
        self.app.call_from_thread(self._planned, plan)

    def _planned(self, plan: Any) -> None:
        self.plan = plan
        verb = {"trash": "trash", "move": "move", "link": "link", "list": "list"}[plan.action]
        bits = {t.id: t.distance for t in self.targets or []}
        steps = sorted(plan.steps, key=lambda s: (-(bits.get(s.id) or 0), s.id))  # farthest first
        rows = [(verb, s.id, _kept_copy(s.reference, bits.get(s.id))
                 + (f" -> {s.dest}" if plan.action == "move" else "")) for s in steps]
        rows += [("refuse", o.id, o.reason) for o in plan.refused]
        rows += [("leave", m, f"no kept member within k={self.k}") for m in self.far]
        self.query_one(ResultTable).set_rows(rows, cursor=0)
        text = (f"Dry run: {len(plan.steps):,} file(s) to {verb} ({human_size(plan.bytes)}), "
                f"each within k={self.k} of the copy it keeps (farthest first); "
                f"{len(plan.refused) + len(self.far):,} refused or left alone. Nothing has been "
                "touched yet.")
        if plan.action == "link" and plan.steps:
            text += "\n" + LINK_WARNING
        self._summary(text)
        self.query_one("#run", Button).disabled = not plan.steps

    @on(Button.Pressed, "#run")
    def run(self) -> None:
        plan = self.plan
        if plan is None or not plan.steps or self.running:
            return
        what = {
            "trash": "Move {n} file(s) to the trash",
            "move": "Move {n} file(s) into " + str(plan.quarantine),
            "link": "Replace {n} file(s) with hard links to their kept copies",
            "list": "Write a removal list of {n} file(s) to " + str(plan.quarantine) + ".*",
        }[plan.action].format(n=f"{len(plan.steps):,}")
        tail = "" if plan.action == "list" else "\n\nEach file is checked again first; u undoes it."
        if plan.action == "link":
            tail += "\n\n" + LINK_WARNING

        def answered(yes: bool | None) -> None:
            if yes:
                self.running = True
                self.query_one("#run", Button).disabled = True
                bar = self.query_one(ProgressBar)
                bar.display = True
                bar.update(total=len(plan.steps), progress=0)
                self._summary("Working…")
                self.execute_in_worker(plan)

        self.app.push_screen(ConfirmScreen(what + "?" + tail), answered)

    @work(thread=True, exclusive=True, group="act")
    def execute_in_worker(self, plan: Any) -> None:
        def progress(done: int, total: int) -> None:
            if done % 50 == 0 or done == total:
                self.app.call_from_thread(self.query_one(ProgressBar).update, progress=done)

        try:
            report = self.explorer.actions.execute(plan, on_progress=progress)
        except Exception as exc:  # e.g. the list files exist: nothing was done
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._executed, report)

    def _failed(self, reason: str) -> None:
        self.running = False
        self._summary(f"Nothing done: {reason}")

    def _executed(self, report: Any) -> None:
        self.running = False
        self.report = report
        self.plan = None
        rows = [(o.status, o.id, o.reason or o.dest) for o in report.outcomes]
        # failures first: they are what needs reading
        rows.sort(key=lambda r: r[0] == "done")
        self.query_one(ResultTable).set_rows(rows, cursor=0)
        done, failed = report.count("done"), len(report.failures)
        text = f"Done: {done:,} file(s), {failed:,} refused or failed (listed first)."
        if report.action != "list" and done:
            text += " Press u on the main screen to undo."
        self._summary(text)


class UndoScreen(ModalScreen[None]):
    """Asks, then undoes the last action through ``explorer`` and reports the outcome."""

    DEFAULT_CSS = """
    UndoScreen { align: center middle; }
    UndoScreen #undo { width: 90; height: auto; max-height: 80%; border: thick $warning; background: $surface; padding: 1 2; }
    UndoScreen #undo-text { height: auto; margin-bottom: 1; }
    UndoScreen #undo-results { height: 12; }
    """

    BINDINGS = [
        Binding("y", "undo", "Undo"),
        Binding("n,escape", "close", "Close"),
    ]

    def __init__(self, explorer: Any) -> None:
        super().__init__()
        self.explorer = explorer
        self.journal: Any = None
        self.report: Any = None
        self.busy = True

    def compose(self) -> ComposeResult:
        with Vertical(id="undo"):
            yield Static(Text("Looking for the last action…"), id="undo-text")
            yield ResultTable(id="undo-results")

    def on_mount(self) -> None:
        self.query_one("#undo").border_title = "Undo"
        self.query_one(ResultTable).display = False
        self.find()

    def _say(self, text: str) -> None:
        self.query_one("#undo-text", Static).update(Text(text))

    @work(thread=True, exclusive=True)
    def find(self) -> None:
        journal = self.explorer.actions.undoable()
        self.app.call_from_thread(self._found, journal)

    def _found(self, journal: Any) -> None:
        self.busy = False
        self.journal = journal
        if journal is None:
            self._say("Nothing to undo.  (esc closes)")
            return
        n = sum(1 for _ in journal.done_ops())
        self._say(f"Undo the last action ({journal.action} of {n:,} file(s), {journal.id})?\n"
                  "y: undo   n / esc: keep it")

    def action_undo(self) -> None:
        if self.busy or self.journal is None or self.report is not None:
            return
        self.busy = True
        self._say("Putting the files back…")
        self.undo()

    @work(thread=True, exclusive=True)
    def undo(self) -> None:
        try:
            report = self.explorer.actions.undo_last()
        except Exception as exc:  # another process holds the journal, ...
            self.app.call_from_thread(self._say, f"Cannot undo: {exc}  (esc closes)")
            return
        self.app.call_from_thread(self._undone, report)

    def _undone(self, report: Any) -> None:
        self.busy = False
        self.report = report
        if report is None:
            self._say("Nothing to undo.  (esc closes)")
            return
        restored, problems = report.count("undone"), report.failures
        self._say(f"Restored {restored:,} file(s); {len(problems):,} problem(s)."
                  + ("  The journal stays: u tries again." if problems else "")
                  + "  (esc closes)")
        self.app.notify(f"Undo: restored {restored:,} file(s), {len(problems):,} problem(s).",
                        markup=False)
        if problems:
            table = self.query_one(ResultTable)
            table.display = True
            table.set_rows([(o.status, o.id, o.reason) for o in problems], cursor=0)

    def action_close(self) -> None:
        if self.busy and self.journal is not None:
            return
        self.dismiss(None)
