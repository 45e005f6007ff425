"""ExportDialog: write the families as shown to CSV, JSON lines or an HTML report.

Asks for a path (default: a file named after the corpus beside its root folder, or in
the user's documents folder when that is not writable; always shown in full), never
overwrites an existing file without a second, explicit confirmation, and writes in a
thread worker through :func:`ditto_tui.corpus.export.export_families`.

The keyboard: the focus starts on the format (:class:`FormatChoice`: the arrows choose
one, down past the last goes to the path, up from the path comes back); enter, in either,
exports in the format chosen; a blank path is refused with a message under the field.
Where the file went is said in a toast and kept in the session's notices (``L``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from ditto_tui.core.families.clusters import FamilyLike
from ditto_tui.corpus.export import export_families
from ditto_tui.ui.messages import KeptNotice


def export_folder(root: str | None) -> str:
    """Where exports go by default: the folder holding the corpus ``root`` when it is
    writable, else the user's documents folder (else the home folder)."""
    if root:
        parent = os.path.dirname(os.path.abspath(root.rstrip(os.sep) or os.sep))
        if parent and os.path.isdir(parent) and os.access(parent, os.W_OK):
            return parent
    try:
        import platformdirs

        documents = platformdirs.user_documents_dir()
    except Exception:  # noqa: BLE001 - no documents folder known here
        documents = ""
    if documents and os.path.isdir(documents):
        return documents
    return os.path.expanduser("~")


def default_path(fmt: str, k: int, mode: str, root: str | None = None) -> str:
    """Absolute path of ``<corpus>-families-k3-chain.csv`` in :func:`export_folder`."""
    base = os.path.basename(os.path.abspath(root).rstrip(os.sep)) if root else ""
    prefix = f"{base}-" if base else "ditto-"
    name = f"{prefix}families-k{k}-{mode}.{fmt}"
    return os.path.join(export_folder(root), name)


class FormatChoice(RadioSet):
    """The export formats, one always chosen: the highlighted one (the arrows choose, they
    do not only highlight), so that enter exports what the user sees highlighted. Down on
    the last format moves on to the next field; up on the first stays."""

    BINDINGS = [Binding("enter", "screen.export", "Export", show=False)]

    def _step(self, by: int) -> None:
        buttons = list(self.query(RadioButton))
        index = self.pressed_index + by
        if index >= len(buttons):
            self.screen.focus_next()
        elif index >= 0:
            buttons[index].value = True  # (the set highlights the button pressed)

    def action_next_button(self) -> None:
        self._step(1)

    def action_previous_button(self) -> None:
        self._step(-1)


class ExportDialog(ModalScreen[str | None]):
    """Dismisses with the written path, or None when cancelled."""

    # (up and down reach here from the path field and the buttons: the format list has
    # its own)
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("up", "app.focus_previous", "Previous field", show=False),
        Binding("down", "app.focus_next", "Next field", show=False),
    ]

    AUTO_FOCUS = "#export-format"

    def __init__(
        self,
        families: Sequence[FamilyLike],
        *,
        k: int,
        mode: str,
        fingerprints: Mapping[str, int] | Callable[[str], int],
        root: str | None = None,
        report: Callable[[Path, bool], int] | None = None,
    ) -> None:
        """``report(path, overwrite)`` writes the HTML report of the families as shown and
        returns how many it holds (run in a worker); None offers CSV and JSON lines only."""
        super().__init__()
        self.families = list(families)
        self.k = k
        self.mode = mode
        self.fingerprints = fingerprints
        self.root = root
        self.report = report
        self.folder = export_folder(root)
        self.fmt = "csv"
        self.confirm_overwrite = False

    def compose(self) -> ComposeResult:
        with Vertical(id="export"):
            yield Label(
                Text(f"Export {len(self.families):,} families (k={self.k}, {self.mode}, as shown)"),
                id="export-title",
            )
            with FormatChoice(id="export-format"):
                yield RadioButton("CSV (one row per member)", value=True, id="fmt-csv")
                yield RadioButton("JSON lines (one object per family)", id="fmt-jsonl")
                if self.report is not None:
                    yield RadioButton("HTML report (families with diffs, one page)", id="fmt-html")
            # (select_on_focus off: a key typed after tab or down edits the path, never
            # replaces it whole)
            yield Input(default_path("csv", self.k, self.mode, self.root), id="export-path",
                        select_on_focus=False)
            yield Label(Text(""), id="export-warning")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export").border_title = "Export families"

    @on(FormatChoice.Changed)
    def format_changed(self, event: RadioSet.Changed) -> None:
        fmt = {"fmt-jsonl": "jsonl", "fmt-html": "html"}.get(event.pressed.id or "", "csv")
        path_input = self.query_one("#export-path", Input)
        old = path_input.value
        for ext in (".csv", ".jsonl", ".html"):
            if old.endswith(ext):
                path_input.value = old[: -len(ext)] + "." + fmt
                path_input.cursor_position = len(path_input.value)  # typing goes on at its end
        self.fmt = fmt
        self._reset_confirmation()

    @on(Input.Changed, "#export-path")
    def path_changed(self) -> None:
        self._reset_confirmation()

    def _reset_confirmation(self) -> None:
        self.confirm_overwrite = False
        self.query_one("#export-warning", Label).update(Text(""))
        self.query_one("#export-ok", Button).label = "Export"

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-ok")
    def export_pressed(self) -> None:
        self.action_export()

    def action_export(self) -> None:
        """Write the families in the format chosen to the path given (a blank path is
        refused with a message; an existing file needs a second confirmation)."""
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            warning = Text("Give a path to write to (down goes to the path field).", style="bold")
            self.query_one("#export-warning", Label).update(warning)
            return
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = Path(self.folder) / path
        if path.exists() and not self.confirm_overwrite:
            self.confirm_overwrite = True
            warning = Text("File exists. Press Export again to overwrite it.", style="bold")
            self.query_one("#export-warning", Label).update(warning)
            self.query_one("#export-ok", Button).label = "Overwrite"
            return
        self.write(path, overwrite=self.confirm_overwrite)

    @on(Button.Pressed, "#export-cancel")
    def cancel_pressed(self) -> None:
        self.dismiss(None)

    @work(thread=True, exclusive=True, group="export")
    def write(self, path: Path, *, overwrite: bool) -> None:
        try:
            if self.fmt == "html" and self.report is not None:
                count = self.report(path, overwrite)
            else:
                count = export_families(
                    self.families,
                    path,
                    fmt=self.fmt,
                    k=self.k,
                    mode=self.mode,
                    fingerprints=self.fingerprints,
                    overwrite=overwrite,
                )
        except (OSError, ValueError) as exc:
            self.app.call_from_thread(
                self.query_one("#export-warning", Label).update, Text(f"Cannot write: {exc}")
            )
            return
        self.app.call_from_thread(self._done, str(path), count)

    def _done(self, path: str, count: int) -> None:
        self.app.post_message(KeptNotice(f"Exported {count:,} families to {path}",
                                         title="Exported"))
        self.dismiss(path)
