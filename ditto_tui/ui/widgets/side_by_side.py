"""SideBySideDiff: two documents aligned row by row, rendered lazily with the Line API.

The widget holds a :class:`~ditto_tui.core.text.diff.TextDiff` over *display* lines (already
made visible, see :func:`ditto_tui.core.text.display.visible`) and draws only the rows on screen,
so a 1 MB document costs nothing per frame. Both panes share one scroll offset: scrolling is
synchronized by construction. ``n``/``p`` jump to the next/previous change; ``/`` finds text
in both sides (then ``n``/``N`` move between matches), ``:`` goes to a line of A (``b12``: of
B), see :class:`~ditto_tui.ui.widgets.searchable.Searchable`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ditto_tui.core.text.diff import Span, TextDiff
from ditto_tui.core.text.display import wrap_points
from ditto_tui.core.text.find import parse_line_number
from ditto_tui.ui.widgets.searchable import (
    FIND_BINDINGS,
    FIND_CLASSES,
    FIND_CSS,
    Searchable,
)


def _wrap(line: str, width: int) -> list[tuple[int, int]]:
    """Pieces ``[start, stop)`` of ``line`` for a pane ``width`` characters wide."""
    return [(0, len(line))] if len(line) <= width else wrap_points(line, width)


_MARK = {"equal": " ", "changed": "~", "deleted": "-", "inserted": "+"}


class SideBySideDiff(Searchable, ScrollView, can_focus=True):
    """Aligned side-by-side rows of a :class:`TextDiff`; ``diff is None`` while computing."""

    DEFAULT_CSS = """
    SideBySideDiff {
        background: $surface;
        scrollbar-gutter: stable;
    }
    SideBySideDiff > .side-by-side--gutter { color: $foreground-muted; }
    SideBySideDiff > .side-by-side--current { color: $accent; background: $accent 20%; text-style: bold; }
    SideBySideDiff > .side-by-side--deleted { background: $error 15%; }
    SideBySideDiff > .side-by-side--inserted { background: $success 15%; }
    SideBySideDiff > .side-by-side--changed { background: $warning 10%; }
    SideBySideDiff > .side-by-side--word-deleted { background: $error 45%; text-style: bold; }
    SideBySideDiff > .side-by-side--word-inserted { background: $success 45%; text-style: bold; }
    SideBySideDiff > .side-by-side--filler { color: $foreground-muted 30%; }
    SideBySideDiff > .side-by-side--divider { color: $primary; }
    """ + FIND_CSS.format(name="SideBySideDiff")

    COMPONENT_CLASSES = {
        "side-by-side--gutter",
        "side-by-side--current",
        "side-by-side--deleted",
        "side-by-side--inserted",
        "side-by-side--changed",
        "side-by-side--word-deleted",
        "side-by-side--word-inserted",
        "side-by-side--filler",
        "side-by-side--divider",
    } | FIND_CLASSES

    BINDINGS = [
        *FIND_BINDINGS,  # n/N move between matches while a find is active, else n: change
        Binding("n", "next_change", "Next change"),
        Binding("p", "previous_change", "Prev change"),
        Binding("w", "toggle_wrap", "Wrap on/off"),
    ]

    class HunkChanged(Message):
        """The current change (``index`` into ``diff.hunks``, -1 for none) moved."""

        def __init__(self, diff_view: SideBySideDiff, index: int) -> None:
            super().__init__()
            self.diff_view = diff_view
            self.index = index

    current_hunk: reactive[int] = reactive(-1)
    wrap: reactive[bool] = reactive(True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.diff: TextDiff | None = None
        self._longest = 0
        self._number_width = 1
        self._starts: list[int] = []  # first display line of each row (wrap mode)
        self._starts_width = -1

    # -- state -----------------------------------------------------------------------
    def set_diff(self, diff: TextDiff | None) -> None:
        """Show ``diff`` (``None`` shows nothing) from the top, with no current change."""
        self.diff = diff
        self._starts_width = -1
        if diff is None:
            self._longest = 0
            self._number_width = 1
        else:
            self._longest = max((len(line) for line in (*diff.a, *diff.b)), default=0)
            self._number_width = len(str(max(len(diff.a), len(diff.b), 1)))
        self.current_hunk = -1
        self._update_virtual_size()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        if diff is not None:
            self.search_again()

    # -- find (Searchable) -------------------------------------------------------------
    def find_sides(self) -> tuple[list[Sequence[str]], list[np.ndarray | None]]:
        diff = self.diff
        if diff is None:
            return [], []
        left, right = diff.line_rows()
        return [diff.a, diff.b], [left, right]

    def find_top_row(self) -> int:
        return self.row_at(int(self.scroll_offset.y))

    def find_reveal(self, side: int, line: int, start: int, stop: int) -> None:
        diff = self.diff
        if diff is None:
            return
        row = int(diff.line_rows()[side][line])
        top = int(self.scroll_offset.y)
        height = self.scrollable_content_region.height
        first = self.line_of(row)
        if self.wrap:
            pieces = _wrap((diff.a, diff.b)[side][line], self._text_width())
            first += next((i for i, (a, b) in enumerate(pieces) if a <= start < b), 0)
        if not top <= first < top + height:
            self.scroll_to(y=max(0, first - height // 3), animate=False, immediate=True)
        if not self.wrap:
            width = self._text_width()
            x = int(self.scroll_offset.x)
            if start < x or stop > x + width:
                self.scroll_to(x=max(0, start - width // 3), animate=False, immediate=True)

    def find_go_to(self, text: str) -> str | None:
        diff = self.diff
        if diff is None:
            return "the diff is not ready"
        raw = text.strip()
        side = 1 if raw[:1] in ("b", "B") else 0
        raw = raw[1:] if raw[:1] in ("a", "A", "b", "B") else raw
        lines = (diff.a, diff.b)[side]
        line = parse_line_number(raw, len(lines))
        if line is None:
            return f"no line {text.strip()!r} (12: line of A, b12: of B)"
        row = int(diff.line_rows()[side][line])
        self.scroll_to(y=self.line_of(row), animate=False, immediate=True)
        return None

    def _find_cells(self, index: int, piece: int) -> list[tuple[int, int, bool]]:
        """Screen cells ``(first, last, current)`` of the find matches on this display line."""
        diff = self.diff
        if diff is None or self.found is None:
            return []
        row = diff.rows[index]
        pane = self._pane_width()
        gutter = self._number_width + 2
        width = self._text_width()
        cells: list[tuple[int, int, bool]] = []
        for side, number, lines, offset in (
            (0, row.left, diff.a, 0),
            (1, row.right, diff.b, pane + 1),
        ):
            if number is None:
                continue
            spans = self.match_spans(side, number)
            if not spans:
                continue
            line = lines[number]
            if self.wrap:
                pieces = _wrap(line, width)
                x, stop = pieces[piece] if piece < len(pieces) else (len(line), len(line))
            else:
                x = int(self.scroll_offset.x)
                stop = min(len(line), x + width + 1)
            for start, end, current in spans:
                lo, hi = max(start, x), min(end, stop)
                if lo < hi:
                    first = offset + gutter + cell_len(line[x:lo])
                    last = offset + gutter + cell_len(line[x:hi])
                    cells.append((min(first, offset + pane), min(last, offset + pane), current))
        return cells

    def _pane_width(self) -> int:
        return max(1, (self.scrollable_content_region.width - 1) // 2)

    def _text_width(self) -> int:
        return max(1, self._pane_width() - self._number_width - 2)

    def _update_virtual_size(self) -> None:
        rows = len(self.diff.rows) if self.diff else 0
        width = self.scrollable_content_region.width
        if self.wrap and self.diff is not None:
            text_width = self._text_width()
            if text_width != self._starts_width:
                a, b = self.diff.a, self.diff.b
                heights = []
                for row in self.diff.rows:
                    left = len(_wrap(a[row.left], text_width)) if row.left is not None else 1
                    right = len(_wrap(b[row.right], text_width)) if row.right is not None else 1
                    heights.append(max(left, right))
                self._starts = [0, *accumulate(heights)]
                self._starts_width = text_width
            self.virtual_size = Size(width, self._starts[-1])
            return
        extra = max(0, self._longest - self._text_width())
        self.virtual_size = Size(width + extra, rows)

    def watch_wrap(self) -> None:
        self._starts_width = -1
        row = self.row_at(int(self.scroll_offset.y))
        self._update_virtual_size()
        self.scroll_to(0, self.line_of(row), animate=False, immediate=True)
        self.refresh()

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def line_of(self, row: int) -> int:
        """First display line of ``row``."""
        if self.wrap and self._starts and self._starts_width > 0:
            return self._starts[min(row, len(self._starts) - 1)]
        return row

    def row_at(self, line: int) -> int:
        """The row shown on display line ``line``."""
        if self.wrap and self._starts and self._starts_width > 0:
            return max(0, bisect_right(self._starts, line) - 1)
        return line

    def on_resize(self) -> None:
        self._update_virtual_size()

    def watch_current_hunk(self, index: int) -> None:
        self.post_message(self.HunkChanged(self, index))
        self.refresh()

    # -- navigation -----------------------------------------------------------------
    def _go_to(self, index: int) -> None:
        assert self.diff is not None
        self.current_hunk = index
        hunk = self.diff.hunks[index]
        self.scroll_to(y=self.line_of(max(0, hunk.start - 2)), animate=False, immediate=True)

    def action_next_change(self) -> None:
        """Jump to the next change below the current one (or below the top of the view)."""
        if not self.diff or not self.diff.hunks:
            return
        if self.current_hunk >= 0:
            anchor = self.diff.hunks[self.current_hunk].start
        else:
            anchor = self.row_at(int(self.scroll_offset.y)) - 1
        index = self.diff.next_hunk(anchor)
        if index is None:
            self.app.bell()
            return
        self._go_to(index)

    def action_previous_change(self) -> None:
        """Jump to the change before the current one."""
        if not self.diff or not self.diff.hunks:
            return
        if self.current_hunk >= 0:
            anchor = self.diff.hunks[self.current_hunk].start
        else:
            anchor = self.row_at(int(self.scroll_offset.y) + self.size.height)
        index = self.diff.previous_hunk(anchor)
        if index is None:
            self.app.bell()
            return
        self._go_to(index)

    # -- rendering ----------------------------------------------------------------------
    def _styles(self) -> dict[str, Style]:
        base = self.rich_style
        return {
            name: base + self.get_component_rich_style(f"side-by-side--{name}")
            for name in (
                "gutter",
                "current",
                "deleted",
                "inserted",
                "changed",
                "word-deleted",
                "word-inserted",
                "filler",
                "divider",
            )
        } | {"base": base}

    def _pane(
        self,
        number: int | None,
        line: str | None,
        mark: str,
        row_style: Style,
        word_style: Style,
        spans: list[Span],
        styles: dict[str, Style],
        current: bool,
        piece: int,
    ) -> Strip:
        pane = self._pane_width()
        gutter_style = styles["current"] if current else styles["gutter"]
        width = self._text_width()
        if number is None or line is None:
            return Strip([Segment("╱" * pane, styles["filler"])], pane)
        if self.wrap:
            pieces = _wrap(line, width)
            if piece >= len(pieces):
                return Strip.blank(pane, row_style)
            x, stop = pieces[piece]
            visible = line[x:stop]
        else:
            x = int(self.scroll_offset.x)
            visible = line[x : x + width + 1]
        if piece:
            gutter = " " * (self._number_width + 2)
        else:
            gutter = f"{mark}{number + 1:>{self._number_width}} "
        segments = [Segment(gutter, gutter_style)]
        cursor = 0
        for start, stop in spans:
            start, stop = max(start - x, 0), min(stop - x, len(visible))
            if stop <= cursor or start >= len(visible):
                continue
            start = max(start, cursor)
            if start > cursor:
                segments.append(Segment(visible[cursor:start], row_style))
            segments.append(Segment(visible[start:stop], word_style))
            cursor = stop
        if cursor < len(visible):
            segments.append(Segment(visible[cursor:], row_style))
        strip = Strip(segments)
        return strip.crop(0, pane).extend_cell_length(pane, row_style)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        styles = self._styles()
        diff = self.diff
        line_number = int(self.scroll_offset.y) + y
        index = self.row_at(line_number)
        if diff is None or index >= len(diff.rows):
            return Strip.blank(width, styles["base"])
        piece = line_number - self.line_of(index)
        row = diff.rows[index]
        left_spans, right_spans = diff.spans(index)
        current = row.hunk >= 0 and row.hunk == self.current_hunk
        kind = row.kind
        if kind == "equal":
            left_style = right_style = styles["base"]
        elif kind == "changed":
            left_style = right_style = styles["changed"]
        else:
            left_style, right_style = styles["deleted"], styles["inserted"]
        left = self._pane(
            row.left,
            diff.a[row.left] if row.left is not None else None,
            _MARK[kind] if kind != "inserted" else " ",
            left_style,
            styles["word-deleted"],
            left_spans,
            styles,
            current,
            piece,
        )
        right = self._pane(
            row.right,
            diff.b[row.right] if row.right is not None else None,
            _MARK[kind] if kind != "deleted" else " ",
            right_style,
            styles["word-inserted"],
            right_spans,
            styles,
            current,
            piece,
        )
        divider = Strip([Segment("│", styles["divider"])], 1)
        strip = Strip.join([left, divider, right])
        strip = strip.extend_cell_length(width, styles["base"]).crop(0, width)
        cells = self._find_cells(index, piece)
        if cells:
            every, current_style = self.match_styles()
            strip = overlay(strip, [(a, b) for a, b, c in cells if not c], every)
            strip = overlay(strip, [(a, b) for a, b, c in cells if c], current_style)
        return strip


def overlay(strip: Strip, cells: list[tuple[int, int]], style: Style) -> Strip:
    """``strip`` with ``style`` added over the cell ranges ``cells``."""
    if not cells:
        return strip
    cuts = sorted({c for span in cells for c in span if 0 < c < strip.cell_length})
    parts = strip.divide([*cuts, strip.cell_length]) if cuts else [strip]
    out: list[Segment] = []
    pos = 0
    for part in parts:
        length = part.cell_length
        marked = any(lo <= pos and pos + length <= hi for lo, hi in cells) and length > 0
        for seg in part:
            if marked and not seg.control:
                out.append(Segment(seg.text, (seg.style or Style()) + style))
            else:
                out.append(seg)
        pos += length
    return Strip(out, strip.cell_length)


__all__ = ["SideBySideDiff"]
