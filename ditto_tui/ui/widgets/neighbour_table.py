"""NeighbourTable: the documents near one document (distance, similarity, file name and
folder, file size, modification time), virtual: any number of neighbours is shown whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.style import Style

from ditto_tui.core.index.near_index import Match
from ditto_tui.explore.view import DocumentLike
from ditto_tui.ui.listing import format_mtime, format_size, path_cell
from ditto_tui.ui.widgets.bit_diff import similarity_text
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.virtual_table import VirtualTable

COLUMNS = (
    ColumnSpec("distance", "Distance", 8),
    ColumnSpec("similarity", "Similar", 7),
    ColumnSpec("name", "Name", 16, weight=3),
    ColumnSpec("folder", "Folder", 10, weight=3, optional=True),
    ColumnSpec("size", "File size", 9, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 10, weight=1, max_width=16, optional=True),
)


class NeighbourTable(VirtualTable[Match]):
    """Matches of a neighbour look-up; the origin's own row is bold."""

    COLUMNS = COLUMNS
    RIGHT_ALIGNED = frozenset({"distance", "similarity", "size"})
    CELL_STYLES = {"modified": "muted", "folder": "muted"}
    BOLD_ON_CURSOR = "name"
    MIDDLE_CROPPED = frozenset({"name"})
    LEFT_CROPPED = frozenset({"folder"})
    DATE_COLUMNS = frozenset({"modified"})

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

    def header_label(self, spec: ColumnSpec) -> str:
        if spec.key == "name" and "folder" not in self.shown_keys:
            return "Path"
        return spec.label

    def cell(self, match: Match, key: str) -> str:
        doc = self._documents.get(match.id)
        if key == "distance":
            return str(match.distance)
        if key == "similarity":
            return similarity_text(match.distance)
        if key in ("name", "folder"):  # the whole path under name when the folder is not shown
            return path_cell(match.id, key, self.shown_keys)
        if key == "size":
            return format_size(doc.size) if doc else ""
        if key == "modified":
            return format_mtime(doc.mtime_ns) if doc else ""
        return ""
