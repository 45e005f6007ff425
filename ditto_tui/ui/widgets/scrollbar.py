"""SteadyScrollBar: a scroll bar that repaints only when what it draws changes.

Textual's scroll bar repaints whenever the size of its list or the scroll position
changes. Drawing it costs about as much as drawing any widget of its height (1.5-2 ms at
40 lines: each line goes through Textual's line pipeline), although in a long list most
changes of the row count move neither end of the thumb by one eighth of a cell: at
100,000 documents every filter key and k step changed the family list's length and
redrew a bar identical to the one on screen.

This bar computes the glyphs it would draw (Textual's own ``render_bar``, a few
microseconds) and repaints when they differ from the ones drawn last. Everything else
(hover, grab, colours, a new size) repaints as in Textual.
"""

from __future__ import annotations

from math import ceil
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual.geometry import Size
from textual.reactive import Reactive
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from ditto_tui.ui.internals import own_vertical_scrollbar, refresh_scrollbars

__all__ = ["SteadyScrollBar", "SteadyScrollBars"]

if TYPE_CHECKING:  # the mixin is always mixed into a widget: type it as one
    _WidgetBase = Widget
else:  # (not a DOMNode at run time: Textual takes the CSS of the first DOMNode base)
    _WidgetBase = object


class SteadyScrollBar(ScrollBar):
    """A :class:`ScrollBar` that skips repaints which would draw the same bar."""

    window_virtual_size: Reactive[int] = Reactive(100, repaint=False)
    window_size: Reactive[int] = Reactive(0, repaint=False)
    position: Reactive[float] = Reactive(0, repaint=False)

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical=vertical, name=name, thickness=thickness)
        #: the glyphs of the last bar drawn (None: nothing drawn yet)
        self.drawn: tuple[Any, ...] | None = None

    def bar(self) -> tuple[Any, ...]:
        """The bar's segments at the current size and values, as Textual draws them
        (colours aside: a change of colour repaints through the styles)."""
        length = self.size.height if self.vertical else self.size.width
        window_size = self.window_size if self.window_size < self.window_virtual_size else 0
        segments = self.renderer.render_bar(
            size=length,
            virtual_size=ceil(self.window_virtual_size),
            window_size=ceil(window_size),
            position=self.position,
            thickness=self.thickness,
            vertical=self.vertical,
        )
        return (length, self.thickness, *segments.segments)

    def _repaint_if_changed(self) -> None:
        if self.drawn is None or self.bar() != self.drawn:
            self.refresh()

    def watch_window_virtual_size(self) -> None:
        self._repaint_if_changed()

    def watch_window_size(self) -> None:
        self._repaint_if_changed()

    def watch_position(self) -> None:
        self._repaint_if_changed()

    def render(self) -> RenderableType:
        self.drawn = self.bar()
        return super().render()


class SteadyScrollBars(_WidgetBase):
    """Mixin (before the widget's class among the bases): the widget's vertical scroll
    bar is a :class:`SteadyScrollBar`."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return own_vertical_scrollbar(self, SteadyScrollBar)  # (as Textual's, steady)

    def set_content_size(self, size: Size) -> None:
        """Set the virtual size to ``size``. When only the number of lines changes (the
        width stays, there were lines before and are after) the screen is not laid out
        again for it (Textual's ``virtual_size`` reactive would: 10-20 ms at 120x40 with
        a family list, a member list and a preview), only this widget and its scroll bar
        change. When the scroll bar appears or goes, showing it lays out once, now (in
        this frame, with the lines); had the virtual size laid out, the bar would follow
        in a second layout and frame, and the lines be drawn twice."""
        old = self.virtual_size
        if not (
            self.is_mounted
            and self.container_size.height
            and old.height > 0
            and size.height > 0
            and old.width == size.width
        ):
            self.virtual_size = size
            return
        if size == old:
            return
        self.set_reactive(Widget.virtual_size, size)
        refresh_scrollbars(self)
        if self.show_vertical_scrollbar and self.styles.scrollbar_size_vertical:
            # (Textual's _scroll_update, less its repaint of the bar: it repaints itself)
            bar = self.vertical_scrollbar
            bar.window_virtual_size = size.height
            bar.window_size = self.container_size.height - self.scrollbar_size_horizontal
        self.scroll_y = self.validate_scroll_y(self.scroll_y)
        self.scroll_target_y = self.validate_scroll_target_y(self.scroll_target_y)
        self.refresh()
