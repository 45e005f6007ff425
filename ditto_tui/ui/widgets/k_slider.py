"""KSlider: a one-line slider choosing the distance threshold k in ``0..maximum``.

Textual has no slider, so this is our own. Keyboard: left/right (or -/+), home/end when
focused. Mouse: click or drag anywhere on the track. Every change of ``value`` posts
:class:`KSlider.Changed`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ditto_tui.ui.widgets.styles import CachedStyles

_LABEL = " k "


class KSlider(CachedStyles, Widget, can_focus=True):
    """Integer slider for k; ``value`` is clamped to ``[0, maximum]``."""

    DEFAULT_CSS = """
    KSlider {
        height: 1;
        width: 1fr;
        min-width: 20;
    }
    KSlider > .k-slider--label { text-style: bold; }
    KSlider > .k-slider--filled { color: $primary; }
    KSlider > .k-slider--empty { color: $foreground-muted; }
    KSlider > .k-slider--tick { color: $foreground; }
    KSlider > .k-slider--thumb { background: $primary; color: $text; text-style: bold; }
    KSlider:focus > .k-slider--thumb { background: $accent; color: $text; }
    KSlider:focus > .k-slider--label { color: $accent; }
    """

    COMPONENT_CLASSES = {
        "k-slider--label",
        "k-slider--filled",
        "k-slider--empty",
        "k-slider--tick",
        "k-slider--thumb",
    }

    BINDINGS = [
        Binding("left,minus", "step(-1)", "k−", show=False),
        Binding("right,plus,equals_sign", "step(1)", "k+", show=False),
        Binding("home", "jump(0)", "k=0", show=False),
        Binding("end", "jump(-1)", "k=max", show=False),
    ]

    @dataclass
    class Changed(Message):
        """``value`` changed (by the user or by code)."""

        slider: KSlider
        value: int

        @property
        def control(self) -> KSlider:
            return self.slider

    value: reactive[int] = reactive(3)
    maximum: reactive[int] = reactive(8)

    def __init__(
        self,
        value: int = 3,
        maximum: int = 8,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(KSlider.maximum, max(0, maximum))
        self.set_reactive(KSlider.value, min(max(0, value), max(0, maximum)))
        self._dragging = False

    def validate_value(self, value: int) -> int:
        return min(max(0, int(value)), self.maximum)

    def watch_value(self, value: int) -> None:
        self.post_message(self.Changed(self, value))

    def watch_maximum(self, maximum: int) -> None:
        self.value = min(self.value, maximum)

    def action_step(self, delta: int) -> None:
        if not 0 <= self.value + delta <= self.maximum:
            self.app.bell()  # at an end: say so rather than do nothing
        self.value = self.value + delta

    def nudge(self, delta: int) -> None:
        """Step k by ``delta`` (±1) for a key pressed elsewhere on the screen; at an end,
        ring the bell and say why k stays (the notice names the way past the maximum)."""
        if self.value + delta < 0:
            self.app.bell()
            self.notify("k is already 0: only identical fingerprints are grouped.", markup=False)
            return
        if self.value + delta > self.maximum:
            self.app.bell()
            self.notify(
                f"k is already at its maximum, {self.maximum} (the index was built for "
                f"k up to {self.maximum}; --max-k raises it).",
                markup=False,
            )
            return
        self.value += delta

    def action_jump(self, where: int) -> None:
        self.value = self.maximum if where < 0 else where

    # -- geometry -----------------------------------------------------------------
    def _tick_width(self) -> int:
        return len(str(self.maximum))

    def min_cells(self) -> int:
        """The width that shows every tick (what a neighbour on the line must leave it)."""
        return max(20, len(_LABEL) + 1 + (self.maximum + 1) * (self._tick_width() + 1) + 1)

    def _positions(self) -> list[int]:
        """Column of each tick (value 0..maximum) inside the widget."""
        start = len(_LABEL) + 1
        tick = self._tick_width()
        track = max(self.size.width - start - 1, (self.maximum + 1) * (tick + 1))
        if self.maximum == 0:
            return [start]
        span = track - tick
        return [start + round(v * span / self.maximum) for v in range(self.maximum + 1)]

    def value_at(self, x: int) -> int:
        """The value whose tick is nearest to column ``x``."""
        positions = self._positions()
        centre = self._tick_width() / 2
        return min(range(len(positions)), key=lambda v: abs(positions[v] + centre - x - 0.5))

    # -- rendering -------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        if y != 0:
            return Strip.blank(self.size.width, self.cached_style())
        base = self.cached_style()
        label = base + self.cached_style("k-slider--label")
        filled = base + self.cached_style("k-slider--filled")
        empty = base + self.cached_style("k-slider--empty")
        tick_style = base + self.cached_style("k-slider--tick")
        thumb = base + self.cached_style("k-slider--thumb")
        tick = self._tick_width()
        positions = self._positions()
        segments = [Segment(_LABEL, label), Segment(" ", base)]
        column = len(_LABEL) + 1
        for v, pos in enumerate(positions):
            if pos > column:
                line_style = filled if v <= self.value else empty
                char = "━" if v <= self.value else "─"
                segments.append(Segment(char * (pos - column), line_style))
                column = pos
            text = str(v).rjust(tick)
            segments.append(Segment(text, thumb if v == self.value else tick_style))
            column += tick
        strip = Strip(segments)
        return strip.extend_cell_length(self.size.width, base).crop(0, self.size.width)

    # -- mouse ----------------------------------------------------------------------
    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._dragging = True
        self.capture_mouse()
        self.value = self.value_at(event.x)
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            self.value = self.value_at(event.x)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.release_mouse()
            event.stop()

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return len(_LABEL) + 1 + (self.maximum + 1) * (self._tick_width() + 2)


__all__ = ["KSlider"]
