"""NoticesScreen: every notice of this session (cache, watching, scan problems), in order."""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable

from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.title_line import TitleLine


class NoticesScreen(Screen[None]):
    """Lists ``notices`` (``(unix time, severity, text)``), oldest first; read-only."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]

    AUTO_FOCUS = "#notices"

    def __init__(self, notices: Sequence[tuple[float, str, str]]) -> None:
        super().__init__()
        self.notices = list(notices)

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="notices-title")
        yield DataTable(id="notices", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("Time"), width=8, key="time")
        table.add_column(Text("Kind"), width=7, key="kind")
        table.add_column(Text("Notice"), width=200, key="text")
        for n, (stamp, severity, text) in enumerate(self.notices):
            table.add_row(
                Text(time.strftime("%H:%M:%S", time.localtime(stamp))),
                Text(severity),
                Text(shown(text), no_wrap=True, overflow="ellipsis"),
                key=str(n),
            )
        count = len(self.notices)
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"{count:,} notice{'s' if count != 1 else ''}", style="bold")
        title.append(" this session" if count else " · nothing to report so far")
        self.query_one("#notices-title", TitleLine).update(title)
