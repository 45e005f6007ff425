"""NeighbourTable: the documents near one document (distance, similarity, path, size,
modification time), virtual: any number of neighbours is shown whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.style import Style

from ditto_tui.core.index import Match
from ditto_tui.ui.listing import DocumentLike, format_mtime, format_size, shown
from ditto_tui.ui.widgets.bit_diff import similarity_text
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.virtual_table import VirtualTable

COLUMNS = (
    ColumnSpec("distance", "Dist", 4),
    ColumnSpec("similarity", "Similar", 7),
    ColumnSpec("path", "Path", 24, weight=1),
    ColumnSpec("size", "Size", 8, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 16, optional=True),
)


class NeighbourTable(VirtualTable):
    """Matches of a neighbour look-up; the origin's own row is bold."""

    COLUMNS = COLUMNS
    RIGHT_ALIGNED = frozenset({"distance", "similarity", "size"})
    CELL_STYLES = {"modified": "muted"}
    BOLD_ON_CURSOR = "path"

    class Selected(VirtualTable.RowSelected):
        """Enter on a row."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.placeholder = "looking up…"
        self._documents: Mapping[str, DocumentLike] = {}
        self.origin = ""

    def show(self, matches: Sequence[Match], documents: Mapping[str, DocumentLike], origin: str) -> None:
        self._documents = documents
        self.origin = origin
        self.placeholder = "no document within k (the document is gone)"
        self.set_rows(matches, cursor=0)

    def post_selected(self, row: int) -> None:
        self.post_message(self.Selected(self, row))

    def row_style(self, match: Match) -> Style:
        return Style(bold=True) if match.id == self.origin else Style()

    def cell(self, match: Match, key: str) -> str:
        doc = self._documents.get(match.id)
        if key == "distance":
            return str(match.distance)
        if key == "similarity":
            return similarity_text(match.distance)
        if key == "path":
            return shown(match.id)
        if key == "size":
            return format_size(doc.size) if doc else ""
        if key == "modified":
            return format_mtime(doc.mtime_ns) if doc else ""
        return ""
