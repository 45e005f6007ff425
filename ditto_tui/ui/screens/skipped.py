"""SkippedScreen: every file the corpus refused, with the reason the user can act on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable

from ditto_tui.corpus.documents import Skipped
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.title_line import TitleLine


class SkippedTable(DataTable[Text]):
    """The list of skipped files: Home/End go to the first/last file (a DataTable
    scrolls sideways on them)."""

    BINDINGS = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]


class SkippedScreen(Screen[None]):
    """Lists ``skipped`` files (path and reason), sorted by path; read-only."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("r", "by_reason", "Sort by reason/path"),
    ]

    AUTO_FOCUS = "#skipped"

    def __init__(self, skipped: Sequence[Skipped]) -> None:
        super().__init__()
        self.skipped = list(skipped)
        self.by_reason = False

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="skipped-title")
        yield SkippedTable(id="skipped", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("Path"), width=60, key="path")
        table.add_column(Text("Reason"), width=44, key="reason")
        self.refresh_rows()

    def refresh_rows(self) -> None:
        skipped = list(self.skipped)
        key = (lambda s: (s.reason, s.id)) if self.by_reason else (lambda s: s.id)
        skipped.sort(key=key)
        table = self.query_one(DataTable)
        table.clear()
        for n, item in enumerate(skipped):
            table.add_row(
                Text(shown(item.id), no_wrap=True, overflow="ellipsis"),
                Text(shown(item.reason), no_wrap=True, overflow="ellipsis"),
                key=str(n),
            )
        reasons = Counter(item.reason for item in skipped)
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"{len(skipped):,} skipped file{'s' if len(skipped) != 1 else ''}", style="bold")
        if reasons:
            common = ", ".join(f"{count} {shown(reason)}" for reason, count in reasons.most_common(3))
            title.append(f" · {common}")
        else:
            title.append(" · every file under the folder is a document")
        self.query_one("#skipped-title", TitleLine).update(title)

    def action_by_reason(self) -> None:
        self.by_reason = not self.by_reason
        self.refresh_rows()
