"""Border titles that repaint only when they change.

Textual repaints a widget on every assignment to ``border_title``/``border_subtitle``,
even of the same text; the panes set theirs after every view (every k step, filter key,
live change), so each assignment would repaint the whole pane and its table.
"""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["set_border_subtitle", "set_border_title"]


def set_border_title(widget: Widget, text: str) -> None:
    """``widget.border_title = text``, unless it holds that text already."""
    shown = vars(widget)
    if shown.get("_shown_border_title") != text:
        widget.border_title = text
        shown["_shown_border_title"] = text


def set_border_subtitle(widget: Widget, text: str) -> None:
    """``widget.border_subtitle = text``, unless it holds that text already."""
    shown = vars(widget)
    if shown.get("_shown_border_subtitle") != text:
        widget.border_subtitle = text
        shown["_shown_border_subtitle"] = text
