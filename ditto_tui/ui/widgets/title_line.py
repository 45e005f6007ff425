"""TitleLine: a one-line text display whose updates repaint only itself.

``Label.update`` asks for a layout pass of the whole screen (the new text might change the
label's size); a title line has a fixed height of 1 and a width set by CSS, so updating it
costs one line of rendering.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class TitleLine(Widget):
    """Shows one ``rich.text.Text`` (never markup), cropped with an ellipsis."""

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

    def update(self, text: Text) -> None:
        """Replace the text (repaints only when it differs)."""
        if text == self.text:
            return
        self.text = text
        self.refresh()

    def render(self) -> Text:
        text = self.text.copy()
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text
