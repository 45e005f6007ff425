"""NeighboursScreen: every document within k bits of one document, nearest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer

from ditto_tui.ui.listing import format_mtime, format_size, shown
from ditto_tui.ui.widgets.bit_diff import similarity_text
from ditto_tui.ui.widgets.title_line import TitleLine

if TYPE_CHECKING:
    from ditto_tui.ui.app import DittoApp


class NeighboursScreen(Screen):
    """Answers "what is near this?" from the live index (``NearIndex.near``)."""

    app: DittoApp  # type: ignore[assignment]

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("c", "compare", "Compare"),
        Binding("left_square_bracket", "k_down", "k−", key_display="["),
        Binding("right_square_bracket", "k_up", "k+", key_display="]"),
        Binding("n", "recentre", "Neighbours of this"),
    ]

    AUTO_FOCUS = "#neighbours"

    def __init__(self, origin: str, k: int) -> None:
        super().__init__()
        self.origin = origin
        self.k = k
        self.matches: list = []

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="neighbours-title")
        yield DataTable(id="neighbours", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, label, width in (
            ("distance", "Dist", 4),
            ("similarity", "Similar", 7),
            ("path", "Path", 48),
            ("size", "Size", 8),
            ("modified", "Modified (UTC)", 16),
        ):
            table.add_column(Text(label), width=width, key=key)
        self.refresh_matches()

    def refresh_matches(self) -> None:
        live = self.app.live
        self.k = max(0, min(self.k, live.max_k))
        self.matches = (
            live.near(live.fingerprint(self.origin), self.k) if self.origin in live else []
        )
        documents = self.app.session.documents
        table = self.query_one(DataTable)
        table.clear()
        for match in self.matches:
            doc = documents.get(match.id)
            table.add_row(
                Text(str(match.distance), justify="right"),
                Text(similarity_text(match.distance), justify="right"),
                Text(
                    shown(match.id),
                    no_wrap=True,
                    overflow="ellipsis",
                    style="bold" if match.id == self.origin else "",
                ),
                Text(format_size(doc.size) if doc else "", justify="right"),
                Text(format_mtime(doc.mtime_ns) if doc else "", style="dim"),
                key=match.id,
            )
        others = max(0, len(self.matches) - 1)
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Near ", style="bold")
        title.append(shown(self.origin))
        title.append(f"  · {others} other document{'s' if others != 1 else ''} within k={self.k}")
        fp = live.fingerprint(self.origin) if self.origin in live else 0
        title.append(f" · {fp:016x}", style="dim")
        self.query_one("#neighbours-title", TitleLine).update(title)
        first_other = next(
            (row for row, match in enumerate(self.matches) if match.id != self.origin), None
        )
        if first_other is not None:
            table.move_cursor(row=first_other)

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not self.matches or not 0 <= table.cursor_row < len(self.matches):
            return None
        return self.matches[table.cursor_row].id

    @on(DataTable.RowSelected)
    def row_selected(self) -> None:
        self.action_compare()

    def action_compare(self) -> None:
        other = self.selected()
        if other is None:
            return
        if other == self.origin:
            self.notify("That is the document itself; pick another row.", markup=False)
            return
        self.app.open_compare(self.origin, other)

    def action_k_down(self) -> None:
        self.k -= 1
        self.refresh_matches()

    def action_k_up(self) -> None:
        self.k += 1
        self.refresh_matches()

    def action_recentre(self) -> None:
        other = self.selected()
        if other is not None and other != self.origin:
            self.origin = other
            self.refresh_matches()
