"""DocumentPicker: a fuzzy finder over every document of the corpus (returns an id or None)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ditto_tui.ui.listing import shown

MAX_SHOWN = 200


def fuzzy_rank(query: str, ids: Sequence[str], limit: int = MAX_SHOWN) -> list[str]:
    """Ids containing the characters of ``query`` in order (case-insensitive), best first:
    a contiguous match beats a scattered one, a match in the file name beats one in the
    folders, shorter ids win ties. An empty query keeps the original order."""
    query = query.strip()
    if not query:
        return list(ids[:limit])
    pattern = re.compile(".*?".join(f"({re.escape(c)})" for c in query), re.IGNORECASE)
    scored = []
    for doc_id in ids:
        match = pattern.search(doc_id)
        if match is None:
            continue
        spread = match.end() - match.start() - len(query)
        in_name = match.start() >= doc_id.rfind("/") + 1
        scored.append((spread, not in_name, len(doc_id), doc_id))
    scored.sort()
    return [item[3] for item in scored[:limit]]


class DocumentPicker(ModalScreen[str | None]):
    """Type to narrow the list; enter picks, escape cancels."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
    ]

    def __init__(self, ids: Sequence[str], *, origin: str | None = None) -> None:
        super().__init__()
        self.ids = [i for i in ids if i != origin]
        self.origin = origin
        self.shown_ids: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            title = Text("Compare ", style="bold")
            if self.origin is not None:
                title.append(shown(self.origin))
                title.append(" with…", style="bold")
            else:
                title = Text("Pick a document", style="bold")
            yield Label(title, id="picker-title")
            yield Input(placeholder="type part of a path (fuzzy)", id="picker-input")
            yield OptionList(id="picker-list")
            yield Label(Text("enter: pick · esc: cancel · ↑↓: move"), id="picker-help")

    def on_mount(self) -> None:
        self.query_one("#picker").border_title = "Pick a document"
        self.update_list("")
        self.query_one(Input).focus()

    def update_list(self, query: str) -> None:
        self.shown_ids = fuzzy_rank(query, self.ids)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(Text(shown(i)), id=str(n)) for n, i in enumerate(self.shown_ids)]
        )
        if self.shown_ids:
            options.highlighted = 0

    @on(Input.Changed)
    def query_changed(self, event: Input.Changed) -> None:
        self.update_list(event.value)

    @on(Input.Submitted)
    def submitted(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None and self.shown_ids:
            self.dismiss(self.shown_ids[options.highlighted])

    @on(OptionList.OptionSelected)
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown_ids[event.option_index])

    def action_cursor_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()
