"""VirtualTable: a row-cursor table that draws only the visible rows (Line API).

A DataTable builds and measures every row up front (about half a millisecond per row), so
a list of 100,000 rows would stall the screen. A virtual table keeps a sequence of row
objects and renders the lines on screen on demand: replacing the rows costs nothing per
row, and there is no row cap. It behaves like a row-cursor DataTable: arrows, page keys,
home/end, enter, mouse click on a row (select) or on a header (sort), zebra stripes.

Subclasses give ``COLUMNS`` and :meth:`cell` (plain strings, made safe by the caller
with :func:`~ditto_tui.ui.listing.shown`: nothing is interpreted as markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

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

from ditto_tui.ui.fit import left_crop, middle_crop, right_crop, wrapped_lines
from ditto_tui.ui.widgets.columns import CELL_PADDING, ColumnSpec, fit_columns
from ditto_tui.ui.widgets.scrollbar import SteadyScrollBars
from ditto_tui.ui.widgets.styles import CachedStyles

#: the type of a table's rows
RowT = TypeVar("RowT")


class VirtualTable(CachedStyles, SteadyScrollBars, ScrollView, Generic[RowT], can_focus=True):
    """Rows drawn on demand; ``rows`` holds what is shown, in display order."""

    DEFAULT_CSS = """
    VirtualTable {
        height: 1fr;
        background: $surface;
        overflow-x: hidden;
        scrollbar-gutter: stable;
    }
    VirtualTable > .virtual-table--header { background: $panel; color: $foreground; text-style: bold; }
    VirtualTable > .virtual-table--sorted { background: $panel; color: $accent; text-style: bold; }
    VirtualTable > .virtual-table--even { background: $surface; }
    VirtualTable > .virtual-table--odd { background: $surface-lighten-1; }
    VirtualTable > .virtual-table--cursor { background: $boost; text-style: bold; }
    VirtualTable:focus > .virtual-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
    VirtualTable > .virtual-table--excerpt { color: $foreground-muted; text-style: italic; }
    VirtualTable > .virtual-table--muted { color: $foreground-muted; }
    VirtualTable > .virtual-table--placeholder { color: $foreground-muted; text-style: italic; }
    """

    COMPONENT_CLASSES = {
        "virtual-table--header",
        "virtual-table--sorted",
        "virtual-table--even",
        "virtual-table--odd",
        "virtual-table--cursor",
        "virtual-table--excerpt",
        "virtual-table--muted",
        "virtual-table--placeholder",
    }

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,ctrl+home", "jump(0)", "First", show=False),
        Binding("end,ctrl+end", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Select", show=False),
    ]

    COLUMNS: ClassVar[tuple[ColumnSpec, ...]] = ()
    RIGHT_ALIGNED: ClassVar[frozenset[str]] = frozenset()
    #: column key -> component class name (without prefix) for its cells
    CELL_STYLES: ClassVar[dict[str, str]] = {}
    #: column whose text stays bold on the cursor row
    BOLD_ON_CURSOR: ClassVar[str] = ""
    #: columns holding paths: cut in the middle, so the file name stays
    MIDDLE_CROPPED: ClassVar[frozenset[str]] = frozenset()
    #: columns holding folders: cut at the start, so the nearest folder stays
    LEFT_CROPPED: ClassVar[frozenset[str]] = frozenset()
    #: columns holding ``YYYY-MM-DD HH:MM``: the date alone when the time does not fit
    DATE_COLUMNS: ClassVar[frozenset[str]] = frozenset()

    class RowHighlighted(Message):
        """The cursor moved to ``row`` (an index; -1 when the table is empty)."""

        def __init__(self, table: VirtualTable[Any], row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> VirtualTable[Any]:
            return self.table

    class RowSelected(RowHighlighted):
        """Enter (or a double click) on ``row``."""

    class HeaderClicked(Message):
        """A column header was clicked (``key`` of the column)."""

        def __init__(self, table: VirtualTable[Any], key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> VirtualTable[Any]:
            return self.table

    cursor_row: reactive[int] = reactive(0, always_update=True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: Sequence[RowT] = []
        self.sort_key = ""
        #: shown under the header when there is no row, one line per line of text
        self.placeholder = ""
        self._layout: list[tuple[ColumnSpec, int]] = []
        self._widths: dict[str, int] = {}
        self._line_width: int | None = None

    # -- data ----------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self.rows)

    def set_rows(self, rows: Sequence[RowT], *, cursor: int | None = None) -> None:
        """Replace the rows (kept as given, not copied); the cursor goes to ``cursor``
        (default: the same index, clamped). Posts RowHighlighted."""
        old_row = self.cursor_row
        self.rows = rows
        target = old_row if cursor is None or cursor < 0 else cursor
        target = min(max(target, 0), max(len(rows) - 1, 0))
        self._update_virtual_size()
        self.set_reactive(VirtualTable.cursor_row, target)
        if target != old_row:
            self._scroll_to_cursor()
        self.refresh()
        self.post_highlighted(target if rows else -1)

    def column_specs(self) -> Sequence[ColumnSpec]:
        """The columns this table may show (default: ``COLUMNS``)."""
        return self.COLUMNS

    def relayout(self) -> None:
        """The column set changed: fit it again and redraw."""
        self._layout = []
        self._widths = {}
        self.refresh()

    def post_highlighted(self, row: int) -> None:
        self.post_message(self.RowHighlighted(self, row))

    def post_selected(self, row: int) -> None:
        self.post_message(self.RowSelected(self, row))

    def post_header(self, key: str) -> None:
        self.post_message(self.HeaderClicked(self, key))

    def cell(self, row: RowT, key: str) -> str:
        """The text of one cell (override)."""
        raise NotImplementedError

    def cell_text(self, row: int, key: str) -> str:
        """The text of one cell, as drawn (before cropping)."""
        return self.cell(self.rows[row], key)

    def refresh_line(self, row: int) -> None:
        y = row - int(self.scroll_offset.y) + 1
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    # -- geometry ----------------------------------------------------------------------------
    def _update_virtual_size(self) -> None:
        # (a header line, then the rows: the first fill, from the header alone, lays out)
        size = Size(self.scrollable_content_region.width, len(self.rows) + 1)
        if self.virtual_size.height <= 1 or size.height <= 1:
            self.virtual_size = size
        else:
            self.set_content_size(size)

    def on_resize(self) -> None:
        self._layout = fit_columns(self.column_specs(), max(self.scrollable_content_region.width, 30))
        self._widths = {}
        self._update_virtual_size()

    @property
    def columns(self) -> list[tuple[ColumnSpec, int]]:
        """Shown columns with their widths (for header hit-testing and tests)."""
        if not self._layout:
            self._layout = fit_columns(self.column_specs(), max(self.scrollable_content_region.width, 30))
            self._widths = {}
        return self._layout

    def _column_widths(self) -> dict[str, int]:
        columns = self.columns
        if not self._widths:
            self._widths = {spec.key: w for spec, w in columns}
        return self._widths

    @property
    def shown_keys(self) -> frozenset[str]:
        """Keys of the columns shown at the current width."""
        return frozenset(spec.key for spec, _w in self.columns)

    def header_label(self, spec: ColumnSpec) -> str:
        """The header of a shown column (override to adapt it to the columns shown)."""
        return spec.label

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
        return min(max(row, 0), max(len(self.rows) - 1, 0))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()
        if old != new:
            self.post_highlighted(new if self.rows else -1)

    def move_cursor(self, *, row: int, scroll: bool = True) -> None:
        self.cursor_row = row
        if scroll:
            self._scroll_to_cursor()

    def action_cursor(self, delta: int) -> None:
        self.cursor_row = self.cursor_row + delta

    def action_page(self, direction: int) -> None:
        self.cursor_row = self.cursor_row + direction * self._page()

    def action_jump(self, where: int) -> None:
        self.cursor_row = len(self.rows) - 1 if where < 0 else where

    def action_select(self) -> None:
        if self.rows:
            self.post_selected(self.cursor_row)

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            key = self._column_at(event.x)
            if key is not None:
                self.post_header(key)
            return
        row = int(self.scroll_offset.y) + event.y - 1
        if 0 <= row < len(self.rows):
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
    def _style(self, name: str) -> Style:
        return self.cached_style(f"virtual-table--{name}")

    def _row_strip(self, cells: list[tuple[str, str, Style]], base: Style, width: int) -> Strip:
        widths = self._column_widths()
        segments = []
        pad = " " * CELL_PADDING
        for text, key, style in cells:
            column_width = widths[key]
            if cell_len(text) > column_width:
                text = self.crop_cell(text, key, column_width)
            if key in self.RIGHT_ALIGNED:
                text = text.rjust(column_width)
            else:
                text = set_cell_size(text, column_width)
            segments.append(Segment(pad, base))
            segments.append(Segment(text, base + style))
            segments.append(Segment(pad, base))
        return Strip(segments).crop_extend(0, width, base)

    def crop_cell(self, text: str, key: str, width: int) -> str:
        """``text`` of column ``key`` in ``width`` cells: a path keeps its file name, a
        folder its end, a time its date; anything else its start, then ``…``."""
        if key in self.DATE_COLUMNS and width >= 10 and text[:4].isdigit():
            return text[:10]
        if key in self.MIDDLE_CROPPED:
            return middle_crop(text, width)
        if key in self.LEFT_CROPPED:
            return left_crop(text, width)
        return right_crop(text, width)

    def row_style(self, row: RowT) -> Style:
        """Extra style of a whole row (override)."""
        return Style()

    def render_lines(self, crop: Region) -> list[Strip]:
        # the content width once per frame, not per line (Textual computes the gutter
        # from the styles at every call)
        self._line_width = self.scrollable_content_region.width
        try:
            return super().render_lines(crop)
        finally:
            self._line_width = None

    def render_line(self, y: int) -> Strip:
        width = self._line_width
        if width is None:
            width = self.scrollable_content_region.width
        base = self.cached_style()
        if y == 0:
            header = self._style("header")
            cells = [
                (
                    self.header_label(spec),
                    spec.key,
                    self._style("sorted") if spec.key == self.sort_key else Style(),
                )
                for spec, _w in self.columns
            ]
            return self._row_strip(cells, base + header, width)
        row = int(self.scroll_offset.y) + y - 1
        if not self.rows:
            lines = wrapped_lines(self.placeholder, width)
            if 1 <= y <= len(lines):
                return Strip(
                    [Segment(lines[y - 1], base + self._style("placeholder"))]
                ).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if row >= len(self.rows):
            return Strip.blank(width, base)
        item = self.rows[row]
        row_style = base + self._style("odd" if row % 2 else "even") + self.row_style(item)
        on_cursor = row == self.cursor_row
        if on_cursor:
            row_style = row_style + self._style("cursor")
        cells = []
        for spec, _w in self.columns:
            if on_cursor:
                style = Style(bold=True) if spec.key == self.BOLD_ON_CURSOR else Style()
            else:
                name = self.CELL_STYLES.get(spec.key)
                style = self._style(name) if name else Style()
            cells.append((self.cell(item, spec.key), spec.key, style))
        return self._row_strip(cells, row_style, width)
