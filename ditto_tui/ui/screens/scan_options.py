"""ScanOptionsDialog: the scan options a user changes in the app (minimum size, empty
files, symbolic links, HTML by content or every file).

The dialog only edits a :class:`~ditto_tui.corpus.documents.ScanOptions` it is given and
dismisses with the new one (None when cancelled or unchanged); the app hands it to the
explorer, which rescans with a sibling source. Nothing here touches the corpus.
"""

from __future__ import annotations

import dataclasses

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label

from ditto_tui.corpus.documents import ScanOptions, human_size, options_summary, parse_size


def size_text(n: int) -> str:
    """``n`` bytes as the box shows it: ``1KiB`` when that reads back exactly, else digits."""
    short = human_size(n).replace(" ", "")
    try:
        if n >= 1024 and parse_size(short, allow_zero=True) == n:
            return short
    except ValueError:
        pass
    return str(n)


class ScanOptionsDialog(ModalScreen[ScanOptions | None]):
    """Edit ``options``; enter or Apply rescans with the new ones, escape cancels."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, options: ScanOptions, *, html: bool = False) -> None:
        """``html``: the current pipeline is the html one (the "every file" box applies)."""
        super().__init__()
        self.options = options
        self.html = html

    def compose(self) -> ComposeResult:
        o = self.options
        with Vertical(id="scan-options"):
            yield Label(Text("Minimum file size (0 = none; e.g. 1k, 64K, 2M)"))
            yield Input(
                size_text(o.min_size),
                id="min-size",
                compact=True,
            )
            yield Checkbox("Skip empty files", o.skip_empty, id="skip-empty", compact=True)
            yield Checkbox(
                "Follow symbolic links (never out of the folder)", o.follow_symlinks,
                id="follow-symlinks",
                compact=True,
            )
            yield Checkbox(
                "html pipeline: take every file as a page (not only HTML by name or content)",
                o.html_any,
                id="html-any",
                compact=True,
            )
            yield Label(Text(""), id="scan-options-error")
            yield Label(
                Text("Hard links are always counted once. Applying rescans the folder; "
                     "unchanged files come from the cache."),
                id="scan-options-note",
            )
            with Horizontal(id="scan-options-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Apply and rescan", variant="primary", id="apply")

    def on_mount(self) -> None:
        self.query_one("#scan-options").border_title = "Scan options  (esc to cancel)"
        self.query_one("#html-any", Checkbox).disabled = not self.html and not self.options.html_any
        self.query_one("#min-size", Input).focus()

    def chosen(self) -> ScanOptions | None:
        """The options as set in the dialog (None, with the reason shown, when the size
        does not parse)."""
        text = self.query_one("#min-size", Input).value.strip() or "0"
        try:
            min_size = parse_size(text, allow_zero=True)
        except ValueError as exc:
            self.query_one("#scan-options-error", Label).update(Text(str(exc)))
            return None
        return dataclasses.replace(
            self.options,
            min_size=min_size,
            skip_empty=self.query_one("#skip-empty", Checkbox).value,
            follow_symlinks=self.query_one("#follow-symlinks", Checkbox).value,
            html_any=self.query_one("#html-any", Checkbox).value,
        )

    @on(Input.Submitted, "#min-size")
    @on(Button.Pressed, "#apply")
    def apply(self) -> None:
        options = self.chosen()
        if options is None:
            return
        self.dismiss(None if options == self.options else options)

    @on(Button.Pressed, "#cancel")
    def cancel(self) -> None:
        self.dismiss(None)


__all__ = ["ScanOptionsDialog", "options_summary"]
