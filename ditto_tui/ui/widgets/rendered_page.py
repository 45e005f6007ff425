"""RenderedPage: a long, fixed page (the help) drawn from lines rendered once per width.

Rich renders a page of tables and Markdown in tens of milliseconds, and Textual's
``Markdown`` widget mounts a widget per block; both were paid each time the help opened.
:class:`RenderedLines` renders the page once per width (thread-safe, so a worker can
render it ahead, at start) and keeps the last few widths; :class:`RenderedPage` is a
line-API widget as tall as the page at its width, which draws only the lines in sight
from those lines (put it in a scrolling container).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

from rich.console import Console, RenderableType
from rich.theme import Theme
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["RenderedLines", "RenderedPage"]


class RenderedLines:
    """The lines of the renderable ``make()`` returns, at a given width.

    :meth:`at` renders at most once per width (``make`` is called each time: it should
    be cheap, the rendering is what costs) and keeps the ``keep`` widths asked for last.
    Safe to call from any thread; a caller asking for a width being rendered waits for
    it rather than rendering it again. ``theme`` styles the rendering (Rich's default
    Markdown colours are meant for a terminal, not a Textual panel)."""

    def __init__(
        self, make: Callable[[], RenderableType], *, theme: Theme | None = None, keep: int = 3
    ) -> None:
        self._make = make
        self._theme = theme
        self._keep = max(1, keep)
        self._lines: dict[int, list[Strip]] = {}
        self._lock = threading.Lock()

    def at(self, width: int) -> list[Strip]:
        """The page's lines, each ``width`` cells wide (none for a width below 1)."""
        if width < 1:
            return []
        with self._lock:
            lines = self._lines.get(width)
            if lines is None:
                lines = self._render(width)
                if len(self._lines) >= self._keep:
                    self._lines.pop(next(iter(self._lines)))
            else:
                del self._lines[width]  # (kept last: the most recent go last)
            self._lines[width] = lines
            return lines

    def has(self, width: int) -> bool:
        """Whether the lines at ``width`` are rendered already."""
        with self._lock:
            return width in self._lines

    def _render(self, width: int) -> list[Strip]:
        console = Console(
            file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor",
            theme=self._theme, legacy_windows=False, emoji=False, highlight=False,
        )
        options = console.options.update_width(width)
        rendered = console.render_lines(self._make(), options, pad=True, new_lines=False)
        return [Strip(line, width) for line in rendered]


class RenderedPage(Widget):
    """Shows the ``lines`` of a page at the widget's width (see :class:`RenderedLines`)."""

    DEFAULT_CSS = """
    RenderedPage {
        height: auto;
    }
    """

    def __init__(self, lines: RenderedLines, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines.at(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines.at(width)
        line = lines[y] if 0 <= y < len(lines) else Strip.blank(width)
        return line.apply_style(self.rich_style)  # the widget's colours under the page's

    @property
    def plain(self) -> str:
        """The page as text, at the widget's width (for tests and screen readers)."""
        return "\n".join(line.text.rstrip() for line in self.lines.at(self.content_size.width))
