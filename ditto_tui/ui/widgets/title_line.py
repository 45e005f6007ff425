"""TitleLine: a one-line text display whose updates repaint only itself.

``Label.update`` asks for a layout pass of the whole screen (the new text might change the
label's size); a title line has a fixed height of 1 and a width set by CSS, so updating it
costs one line of rendering. Given :class:`~ditto_tui.ui.fit.Part` pieces instead of a
text, it fits them to its width at each render (see :func:`~ditto_tui.ui.fit.fit_parts`):
the most important parts stay, paths lose their middle, and a cut line ends in ``…``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from ditto_tui.ui.fit import Part, fit_parts


class TitleLine(Widget):
    """Shows one ``rich.text.Text`` (never markup) or a list of parts, always in one line."""

    DEFAULT_CSS = """
    TitleLine {
        height: 1;
        width: 1fr;
    }
    """

    def __init__(
        self, text: Text | None = None, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.text = text or Text()
        self.parts: tuple[Part, ...] = ()

    def update(self, text: Text | Sequence[Part]) -> None:
        """Replace the text (repaints only when it differs)."""
        if isinstance(text, Text):
            if text == self.text and not self.parts:
                return
            self.text, self.parts = text, ()
        else:
            parts = tuple(text)
            if parts == self.parts:
                return
            self.parts = parts
            self.text = Text("".join((p.sep if i else "") + p.text for i, p in enumerate(parts)))
        self.refresh()

    @property
    def plain(self) -> str:
        """The line as drawn at the current width (for tests and screen readers)."""
        return self.render().plain

    def render(self) -> Text:
        width = self.content_size.width
        if self.parts:
            return fit_parts(self.parts, width)
        text = self.text.copy()
        text.no_wrap = True
        text.overflow = "ellipsis"
        if width > 0 and text.cell_len > width:
            cut = Text(no_wrap=True, end="")
            cut.append_text(text)
            cut.truncate(width - 1)
            cut.append("…")
            return cut
        return text
