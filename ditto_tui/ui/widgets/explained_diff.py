"""ExplainedDiff: the side-by-side diff with the text only one document's features cover
underlined, so "what made these two differ" is visible in the documents themselves.

``highlights`` holds, per side, display line -> ``[start, stop)`` columns (see
``core.explain.text.display_spans``); the rows are drawn by :class:`SideBySideDiff`, the
highlight is laid over the text cells afterwards.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.strip import Strip

from ditto_tui.ui.widgets.side_by_side import SideBySideDiff, _wrap, overlay

Highlights = dict[int, list[tuple[int, int]]]

__all__ = ["ExplainedDiff", "Highlights"]


class ExplainedDiff(SideBySideDiff):
    """A :class:`SideBySideDiff` that can underline spans of either side."""

    DEFAULT_CSS = """
    ExplainedDiff > .explained-diff--feature { text-style: bold underline; color: $warning; }
    """
    COMPONENT_CLASSES = SideBySideDiff.COMPONENT_CLASSES | {"explained-diff--feature"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.highlights: tuple[Highlights, Highlights] = ({}, {})

    def set_highlights(self, left: Highlights, right: Highlights) -> None:
        """Underline ``left``/``right`` spans (display line -> columns); empty dicts clear."""
        self.highlights = (left, right)
        self.refresh()

    def _text_start(self, line: str, piece: int) -> int:
        """The column of ``line`` shown first in this piece of the row."""
        if self.wrap:
            pieces = _wrap(line, self._text_width())
            return pieces[piece][0] if piece < len(pieces) else len(line)
        return int(self.scroll_offset.x)

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        diff = self.diff
        left_marks, right_marks = self.highlights
        if diff is None or not (left_marks or right_marks):
            return strip
        line_number = int(self.scroll_offset.y) + y
        index = self.row_at(line_number)
        if index >= len(diff.rows):
            return strip
        piece = line_number - self.line_of(index)
        row = diff.rows[index]
        style = self.get_component_rich_style("explained-diff--feature", partial=True)
        pane = self._pane_width()
        gutter = self._number_width + 2
        width = self._text_width()
        cells: list[tuple[int, int]] = []
        for number, lines, marks, offset in (
            (row.left, diff.a, left_marks, 0),
            (row.right, diff.b, right_marks, pane + 1),
        ):
            if number is None or number not in marks:
                continue
            line = lines[number]
            x = self._text_start(line, piece)
            stop = min(len(line), x + (width if self.wrap else width + 1))
            for start, end in marks[number]:
                lo, hi = max(start, x), min(end, stop)
                if lo < hi:
                    first = offset + gutter + cell_len(line[x:lo])
                    last = offset + gutter + cell_len(line[x:hi])
                    cells.append((min(first, offset + pane), min(last, offset + pane)))
        return overlay(strip, cells, style) if cells else strip
