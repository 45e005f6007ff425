"""NeighboursScreen: every document within k bits of one document, nearest first."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import get_current_worker

from ditto_tui.core.index.near_index import Match
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.fit import Part
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.neighbour_table import NeighbourTable
from ditto_tui.ui.widgets.title_line import TitleLine


class NeighboursScreen(Screen[None]):
    """Answers "what is near this?" from the explorer's latest snapshot; the look-up runs
    in a worker (a vectorised scan of the snapshot, no lock) and the list is virtual."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("c", "compare", "Compare"),
        Binding("left_square_bracket", "k_down", "k−", key_display="["),
        Binding("right_square_bracket", "k_up", "k+", key_display="]"),
        Binding("n", "recentre", "Neighbours of this"),
    ]

    AUTO_FOCUS = "#neighbours"

    def __init__(self, origin: str, k: int, *, explorer: Explorer) -> None:
        super().__init__()
        self.origin = origin
        self.k = k
        self.explorer = explorer
        self.snapshot: Snapshot = explorer.snapshot
        self.matches: list[Match] = []
        self.looking_up = True

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="neighbours-title")
        yield NeighbourTable(id="neighbours")

        from ditto_tui.ui.widgets.footer import Footer

        yield Footer()

    def on_mount(self) -> None:
        self.refresh_matches()

    def refresh_matches(self) -> None:
        """Look the neighbours up again (current origin and k) in a worker."""
        self.k = max(0, min(self.k, self.explorer.max_k))
        self.snapshot = self.explorer.snapshot
        self.looking_up = True
        self._title("looking up…")
        self.look_up(self.snapshot, self.origin, self.k)

    @work(thread=True, exclusive=True, group="near")
    def look_up(self, snapshot: Snapshot, origin: str, k: int) -> None:
        matches = (
            snapshot.near(snapshot.fingerprint(origin), k) if origin in snapshot else []
        )
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, origin, k, matches)

    def _show(self, origin: str, k: int, matches: list[Match]) -> None:
        if (origin, k) != (self.origin, self.k):
            return  # superseded
        self.looking_up = False
        self.matches = matches
        table = self.query_one(NeighbourTable)
        table.show(matches, self.snapshot.documents, origin)
        first_other = next((row for row, m in enumerate(matches) if m.id != origin), None)
        if first_other is not None:
            table.cursor_row = first_other
        others = max(0, len(matches) - 1)
        self._title(f"{others:,} other document{'s' if others != 1 else ''} within k={k}")

    def _title(self, what: str) -> None:
        fp = self.snapshot.fingerprints.get(self.origin, 0)
        title = [
            Part("Near ", 0, "bold"),
            Part(shown(self.origin), 0, crop="middle", min_cells=12),
            Part(what, 1, sep="  · "),
            Part(f"{fp:016x}", 2, "dim", sep=" · "),
        ]
        self.query_one("#neighbours-title", TitleLine).update(title)

    def selected(self) -> str | None:
        row = self.query_one(NeighbourTable).cursor_row
        if not self.matches or not 0 <= row < len(self.matches):
            return None
        return self.matches[row].id

    @on(NeighbourTable.Selected)
    def row_selected(self) -> None:
        self.action_compare()

    def action_compare(self) -> None:
        other = self.selected()
        if other is None:
            return
        if other == self.origin:
            self.notify("That is the document itself; pick another row.", markup=False)
            return
        from ditto_tui.ui.screens.compare import CompareScreen

        self.app.push_screen(
            CompareScreen(self.origin, other, snapshot=self.snapshot, reader=self.explorer.source)
        )

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
