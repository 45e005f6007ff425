"""Border titles that repaint only when they change, and then only their line.

Textual repaints a widget on every assignment to ``border_title``/``border_subtitle``,
even of the same text; the panes set theirs after every view (every k step, filter key,
live change), so each assignment would repaint the whole pane and its table. And a new
title repaints the whole pane (every line of its background and sides: about 2 ms for a
pane of 40 lines), although only the border line holding the title changed: here only
that line is repainted.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.widget import Widget

__all__ = ["set_border_subtitle", "set_border_title"]


def set_border_title(widget: Widget, text: str) -> None:
    """``widget.border_title = text``, unless it holds that text already."""
    shown = vars(widget)
    if shown.get("_shown_border_title") != text:
        _set_title_line(widget, "border_title", text, bottom=False)
        shown["_shown_border_title"] = text


def set_border_subtitle(widget: Widget, text: str) -> None:
    """``widget.border_subtitle = text``, unless it holds that text already."""
    shown = vars(widget)
    if shown.get("_shown_border_subtitle") != text:
        _set_title_line(widget, "border_subtitle", text, bottom=True)
        shown["_shown_border_subtitle"] = text


def _set_title_line(widget: Widget, attribute: str, text: str, *, bottom: bool) -> None:
    """Set the title; Textual's repaint of the whole widget that follows is narrowed to
    the border line the title is drawn on (the top one, or the bottom one)."""
    width, height = widget.outer_size
    if not widget.is_mounted or not width or not height:
        setattr(widget, attribute, text)  # not drawn yet: nothing to narrow
        return
    left, top = widget.content_offset
    # (a region in content coordinates: Textual moves it by the content offset)
    line = Region(-left, (height - 1 if bottom else 0) - top, width, 1)
    refresh = widget.refresh

    def refresh_line(*regions: Region, **options: bool) -> Widget:
        return refresh(*(regions or (line,)), **options)

    vars(widget)["refresh"] = refresh_line  # this instance only, for the assignment below
    try:
        setattr(widget, attribute, text)
    finally:
        del vars(widget)["refresh"]
