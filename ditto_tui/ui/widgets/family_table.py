"""FamilyTable: one row per near-duplicate family (size, diameter, representative, excerpt,
newest change), virtualised.

A DataTable builds and measures every row up front (about half a millisecond per row), which
makes re-clustering 10,000 documents visibly slow. This table keeps only the list of
families and draws the rows on screen with the Line API, so replacing the listing costs
nothing per row. It behaves like a row-cursor DataTable: arrows, page keys, home/end, enter,
mouse click on a row (select) or on a header (sort), zebra stripes.

Cells are built from :func:`~ditto_tui.ui.listing.shown` strings as plain segments: nothing
from the corpus is interpreted as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ditto_tui.ui.listing import DocumentLike, FamilyLike, format_mtime, newest_change, shown
from ditto_tui.ui.widgets.columns import CELL_PADDING, ColumnSpec, fit_columns

COLUMNS = (
    ColumnSpec("size", "Size", 4),
    ColumnSpec("diameter", "Diam", 4),
    ColumnSpec("name", "Representative", 16, weight=5),
    ColumnSpec("excerpt", "Excerpt", 12, weight=4, optional=True),
    ColumnSpec("newest", "Newest (UTC)", 16, optional=True),
)
RIGHT_ALIGNED = {"size", "diameter"}


class FamilyTable(ScrollView, can_focus=True):
    """The family list. ``families`` holds what is shown, in display order."""

    DEFAULT_CSS = """
    FamilyTable {
        height: 1fr;
        background: $surface;
        overflow-x: hidden;
        scrollbar-gutter: stable;
    }
    FamilyTable > .family-table--header { background: $panel; color: $foreground; text-style: bold; }
    FamilyTable > .family-table--sorted { background: $panel; color: $accent; text-style: bold; }
    FamilyTable > .family-table--even { background: $surface; }
    FamilyTable > .family-table--odd { background: $surface-lighten-1; }
    FamilyTable > .family-table--cursor { background: $boost; text-style: bold; }
    FamilyTable:focus > .family-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
    FamilyTable > .family-table--excerpt { color: $foreground-muted; text-style: italic; }
    FamilyTable > .family-table--muted { color: $foreground-muted; }
    FamilyTable > .family-table--placeholder { color: $foreground-muted; text-style: italic; }
    """

    COMPONENT_CLASSES = {
        "family-table--header",
        "family-table--sorted",
        "family-table--even",
        "family-table--odd",
        "family-table--cursor",
        "family-table--excerpt",
        "family-table--muted",
        "family-table--placeholder",
    }

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,ctrl+home", "jump(0)", "First", show=False),
        Binding("end,ctrl+end", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Members", show=False),
    ]

    class Highlighted(Message):
        """The cursor moved to ``family`` (None when the list is empty)."""

        def __init__(self, table: FamilyTable, family: FamilyLike | None) -> None:
            super().__init__()
            self.table = table
            self.family = family

        @property
        def control(self) -> FamilyTable:
            return self.table

    class Selected(Highlighted):
        """Enter (or a click on the highlighted row) on ``family``."""

    class SortRequested(Message):
        """A column header was clicked."""

        def __init__(self, table: FamilyTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> FamilyTable:
            return self.table

    cursor_row: reactive[int] = reactive(0, always_update=True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.families: list[FamilyLike] = []
        self.sort_key = "size"
        #: shown under the header when there is no family, one line per line of text
        self.placeholder = "No families (press 1 to show singletons, ] to raise k)"
        self._row_of: dict[str, int] = {}
        self._layout: list[tuple[ColumnSpec, int]] = []
        self._documents: Mapping[str, DocumentLike] = {}
        self._excerpts: Mapping[str, str] = {}
        self._newest: dict[str, int] = {}

    # -- data ----------------------------------------------------------------------------
    @staticmethod
    def row_key(family: FamilyLike) -> str:
        return family.centre

    @property
    def row_count(self) -> int:
        return len(self.families)

    def show(
        self,
        families: Sequence[FamilyLike],
        documents: Mapping[str, DocumentLike],
        excerpts: Mapping[str, str],
        *,
        keep: str | None = None,
    ) -> None:
        """Replace the listing. The cursor goes to the family holding document ``keep`` when
        there is one, else stays at the same row index; the scroll position is kept."""
        old_row = self.cursor_row
        self._documents = documents
        self._excerpts = excerpts
        self._newest = {}
        self.families = list(families)
        self._row_of = {}
        for index, family in enumerate(self.families):
            for member in family.members:
                self._row_of.setdefault(member, index)
        target = self._row_of.get(keep, -1) if keep is not None else -1
        if target < 0:
            target = min(max(old_row, 0), max(len(self.families) - 1, 0))
        self._update_virtual_size()
        self.set_reactive(FamilyTable.cursor_row, target)
        if target != old_row:
            self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.selected))

    def row_of(self, doc_id: str) -> int | None:
        """Row index of the family holding ``doc_id`` (None if not shown)."""
        return self._row_of.get(doc_id)

    @property
    def selected(self) -> FamilyLike | None:
        """The family under the cursor."""
        if 0 <= self.cursor_row < len(self.families):
            return self.families[self.cursor_row]
        return None

    def set_excerpt(self, centre: str, excerpt: str) -> None:
        """An excerpt arrived (already stored in the shared mapping): redraw its row."""
        row = self._row_of.get(centre)
        if row is not None:
            self.refresh_line(row)

    def refresh_line(self, row: int) -> None:
        y = row - int(self.scroll_offset.y) + 1
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def cell_text(self, row: int, key: str) -> str:
        """The text of one cell, as drawn (before cropping)."""
        return self._cell(self.families[row], key)

    # -- geometry ----------------------------------------------------------------------------
    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.families) + 1)

    def on_resize(self) -> None:
        self._layout = fit_columns(COLUMNS, max(self.scrollable_content_region.width, 30))
        self._update_virtual_size()

    @property
    def columns(self) -> list[tuple[ColumnSpec, int]]:
        """Shown columns with their widths (for header hit-testing and tests)."""
        if not self._layout:
            self._layout = fit_columns(COLUMNS, max(self.scrollable_content_region.width, 30))
        return self._layout

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = int(self.scroll_offset.y)
        page = self._page()
        row = self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + page:
            self.scroll_to(y=row - page + 1, animate=False, immediate=True)

    # -- cursor ----------------------------------------------------------------------------
    def validate_cursor_row(self, row: int) -> int:
        return min(max(row, 0), max(len(self.families) - 1, 0))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        if old != new:
            self.post_message(self.Highlighted(self, self.selected))

    def move_cursor(self, *, row: int, scroll: bool = True) -> None:
        self.cursor_row = row
        if scroll:
            self._scroll_to_cursor()

    def action_cursor(self, delta: int) -> None:
        self.cursor_row = self.cursor_row + delta

    def action_page(self, direction: int) -> None:
        self.cursor_row = self.cursor_row + direction * self._page()

    def action_jump(self, where: int) -> None:
        self.cursor_row = len(self.families) - 1 if where < 0 else where

    def action_select(self) -> None:
        if self.selected is not None:
            self.post_message(self.Selected(self, self.selected))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            key = self._column_at(event.x)
            if key is not None:
                self.post_message(self.SortRequested(self, key))
            return
        row = int(self.scroll_offset.y) + event.y - 1
        if 0 <= row < len(self.families):
            if row == self.cursor_row and event.chain >= 2:
                self.action_select()
            self.cursor_row = row

    def _column_at(self, x: int) -> str | None:
        left = 0
        for spec, width in self.columns:
            right = left + width + 2 * CELL_PADDING
            if left <= x < right:
                return spec.key
            left = right
        return None

    # -- rendering ---------------------------------------------------------------------------
    def _cell(self, family: FamilyLike, key: str) -> str:
        if key == "size":
            return str(family.size)
        if key == "diameter":
            return str(family.diameter)
        if key == "name":
            return shown(family.centre)
        if key == "excerpt":
            return self._excerpts.get(family.centre, "")
        newest = self._newest.get(family.centre)
        if newest is None:
            newest = self._newest[family.centre] = newest_change(family, self._documents)
        return format_mtime(newest)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"family-table--{name}")

    def _row_strip(self, cells: list[tuple[str, str, Style]], base: Style, width: int) -> Strip:
        segments = []
        for text, key, style in cells:
            column_width = next(w for spec, w in self.columns if spec.key == key)
            if cell_len(text) > column_width:
                text = set_cell_size(text, max(column_width - 1, 0)) + "…"
            elif key in RIGHT_ALIGNED:
                text = text.rjust(column_width)
            else:
                text = set_cell_size(text, column_width)
            pad = " " * CELL_PADDING
            segments.append(Segment(pad, base))
            segments.append(Segment(text, base + style))
            segments.append(Segment(pad, base))
        return Strip(segments).crop_extend(0, width, base)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            header = self._style("header")
            cells = [
                (
                    spec.label,
                    spec.key,
                    self._style("sorted") if spec.key == self.sort_key else Style(),
                )
                for spec, _w in self.columns
            ]
            return self._row_strip(cells, base + header, width)
        row = int(self.scroll_offset.y) + y - 1
        if not self.families:
            lines = self.placeholder.splitlines()
            if 1 <= y <= len(lines):
                return Strip(
                    [Segment(lines[y - 1], base + self._style("placeholder"))]
                ).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if row >= len(self.families):
            return Strip.blank(width, base)
        family = self.families[row]
        row_style = base + self._style("odd" if row % 2 else "even")
        if row == self.cursor_row:
            row_style = row_style + self._style("cursor")
        excerpt, muted = self._style("excerpt"), self._style("muted")
        cells = []
        for spec, _w in self.columns:
            style = excerpt if spec.key == "excerpt" else muted if spec.key == "newest" else Style()
            if row == self.cursor_row:
                style = Style(bold=True) if spec.key == "name" else Style()
            cells.append((self._cell(family, spec.key), spec.key, style))
        return self._row_strip(cells, row_style, width)
