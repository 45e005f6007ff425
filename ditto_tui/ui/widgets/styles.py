"""Rich styles kept between frames: :class:`CachedStyles`.

Textual forgets a widget's component styles at every ``refresh()``, and ``rich_style``
walks the widget's ancestors at every call; a table that draws 35 lines per frame with a
base style and a few component styles per line spent about half of its drawing time
there. A widget that mixes this in asks :meth:`CachedStyles.cached_style` instead: the
styles are computed once and kept until the styles change (``notify_style_update``), the
widget gains or loses focus, or the theme changes.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["CachedStyles"]

if TYPE_CHECKING:  # the mixin is always mixed into a widget: type it as one
    _WidgetBase = Widget
else:  # (not a DOMNode at run time: Textual takes the CSS of the first DOMNode base)
    _WidgetBase = object


class CachedStyles(_WidgetBase):
    """Mixin (put it first among the bases) caching the styles a widget draws with."""

    def _style_cache(self) -> dict[Any, Style]:
        shown = vars(self)
        cache: dict[Any, Style] | None = shown.get("_cached_styles_now")
        if cache is not None:  # (drawing: checked at the start of this frame's lines)
            return cache
        key = (self.has_focus, self.app.theme)
        if shown.get("_cached_styles_key") != key:
            shown["_cached_styles_key"] = key
            shown["_cached_styles"] = {}
            shown["_cached_lines"] = {}
        cache = shown["_cached_styles"]
        assert cache is not None
        return cache

    def render_lines(self, crop: Region) -> list[Strip]:
        shown = vars(self)
        shown["_cached_styles_now"] = None
        shown["_cached_styles_now"] = self._style_cache()
        try:
            return super().render_lines(crop)
        finally:
            shown["_cached_styles_now"] = None

    def cached_style(self, component: str = "", *, partial: bool = False) -> Style:
        """The rich style of ``component`` (a name of ``COMPONENT_CLASSES``), or of the
        widget itself (``rich_style``) when ``component`` is empty."""
        cache = self._style_cache()
        key = (component, partial)
        style = cache.get(key)
        if style is None:
            if component:
                style = self.get_component_rich_style(component, partial=partial)
            else:
                style = self.rich_style
            cache[key] = style
        return style

    def remembered_line(self, y: int, state: Hashable) -> Strip:
        """Textual's ``render_line(y)`` for a widget whose drawing depends only on
        ``state``, its size and its styles: drawn once per state (a k stepped back to, a
        status seen before) and kept as long as the styles, at most 64 states."""
        self._style_cache()  # (the lines are dropped with the styles)
        lines: dict[Any, Strip] = vars(self)["_cached_lines"]
        key = (y, self.size, state)
        strip = lines.get(key)
        if strip is None:
            if len(lines) >= 64:
                lines.clear()
            strip = lines[key] = super().render_line(y)
        return strip

    def notify_style_update(self) -> None:
        super().notify_style_update()
        vars(self).pop("_cached_styles_key", None)
