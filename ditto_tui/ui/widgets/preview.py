"""Preview: a read-only, lazily rendered view of one document's display lines.

Lines are given already made visible (control characters escaped), and are drawn as plain
segments: nothing in a document is ever interpreted as markup or as a terminal escape.
Long lines are soft-wrapped at the view width (by characters).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ditto_tui.core.display import wrap_points


class Preview(ScrollView, can_focus=True):
    """Shows ``lines``; the first ``header_lines`` are styled as headers (mail, title)."""

    DEFAULT_CSS = """
    Preview {
        background: $surface;
        scrollbar-gutter: stable;
    }
    Preview > .preview--header { color: $primary; text-style: bold; }
    Preview > .preview--placeholder { color: $foreground-muted; text-style: italic; }
    """

    COMPONENT_CLASSES = {"preview--header", "preview--placeholder"}

    wrap: reactive[bool] = reactive(True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[str] = []
        self.header_lines = 0
        self.placeholder = ""
        self._rows: list[tuple[int, int, int]] = []  # (line index, start, stop) per display row
        self._rows_width = -1
        self._longest = 0

    def show(self, lines: list[str], *, header_lines: int = 0, placeholder: str = "") -> None:
        """Display ``lines`` (or ``placeholder`` when empty) from the top."""
        self.lines = lines
        self.header_lines = header_lines
        self.placeholder = placeholder
        self._longest = max((len(line) for line in lines), default=0)
        self._rows_width = -1
        self._layout_rows()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def watch_wrap(self) -> None:
        self._rows_width = -1
        self._layout_rows()
        self.refresh()

    def _layout_rows(self) -> None:
        width = max(1, self.scrollable_content_region.width)
        if self.wrap:
            if width != self._rows_width:
                rows: list[tuple[int, int, int]] = []
                for index, line in enumerate(self.lines):
                    if len(line) <= width:
                        rows.append((index, 0, len(line)))
                    else:
                        rows.extend((index, a, b) for a, b in wrap_points(line, width))
                self._rows = rows
                self._rows_width = width
            self.virtual_size = Size(width, len(self._rows))
        else:
            self._rows = [(index, 0, len(line)) for index, line in enumerate(self.lines)]
            self._rows_width = -1
            self.virtual_size = Size(max(width, self._longest), len(self._rows))

    def on_resize(self) -> None:
        self._layout_rows()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base: Style = self.rich_style
        if not self.lines:
            if y == 0 and self.placeholder:
                style = base + self.get_component_rich_style("preview--placeholder")
                return Strip([Segment(self.placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        index = int(self.scroll_offset.y) + y
        if index >= len(self._rows):
            return Strip.blank(width, base)
        line_index, start, stop = self._rows[index]
        line = self.lines[line_index]
        style = base
        if line_index < self.header_lines:
            style = base + self.get_component_rich_style("preview--header")
        if self.wrap:
            chunk = line[start:stop]
        else:
            x = int(self.scroll_offset.x)
            chunk = line[x : x + width + 1]
        return Strip([Segment(chunk, style)]).crop_extend(0, width, base)


__all__ = ["Preview", "wrap_points"]
