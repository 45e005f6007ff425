"""KChart: how many families (of at least two documents) and how many documents in them
there are at each k from 0 to K, as two one-line bar charts (``fam`` and ``docs``) with the
current k marked; the tooltip gives the numbers.

The numbers come from the index's merge order (``core.family_paths.k_sweep``), computed
in a worker once per content generation, never per move of the k slider: the chart only
polls the index's generation; the screen sets ``k`` when it shows the families of a new k
(in the same frame).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ditto_tui.core.family_paths import k_sweep
from ditto_tui.explore.explorer import ExplorerStopped
from ditto_tui.ui.widgets.styles import CachedStyles

__all__ = ["KChart", "bars"]

_BARS = "▁▂▃▄▅▆▇█"


def bars(values: list[int]) -> str:
    """One bar glyph per value, scaled to the largest (a zero is a space)."""
    top = max(values, default=0)
    if top <= 0:
        return " " * len(values)
    return "".join(" " if v <= 0 else _BARS[min(len(_BARS) - 1, (v * len(_BARS) - 1) // top)] for v in values)


class KChart(CachedStyles, Widget):
    """Families and documents in families per k; the bar of the current k is marked."""

    SCOPED_CSS = False  # for the narrow-screen rule below
    DEFAULT_CSS = """
    KChart { width: auto; height: 1; padding: 0 0 0 1; }
    .-narrow KChart { display: none; }
    KChart > .k-chart--label { color: $foreground-muted; }
    KChart > .k-chart--bar { color: $primary; }
    KChart > .k-chart--current { color: $warning; text-style: bold; }
    """
    COMPONENT_CLASSES = {"k-chart--label", "k-chart--bar", "k-chart--current"}

    k: reactive[int] = reactive(0)
    sweep: reactive[tuple[tuple[int, int, int], ...]] = reactive(())

    def __init__(self, *, k: int = 0, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(KChart.k, k)
        self._generation = -1

    def on_mount(self) -> None:
        self.poll()
        self.set_interval(0.3, self.poll)

    def poll(self) -> None:
        """Recompute the counts when the index content changed."""
        live = getattr(self.app, "live", None)
        if live is None or getattr(self.app, "scanning", False):
            return
        if live.generation != self._generation:
            self._generation = live.generation
            self._compute(live)

    @work(thread=True, exclusive=True, group="k-chart")
    def _compute(self, live: Any) -> None:
        try:
            linkage = live.linkage()
        except ExplorerStopped:
            return  # the app is closing
        rows = tuple(k_sweep(linkage))
        self.app.call_from_thread(setattr, self, "sweep", rows)

    def get_content_width(self, container, viewport) -> int:
        n = len(self.sweep)
        return len("fam") + n + len(" docs") + n if n else 1

    def render_line(self, y: int) -> Strip:
        return self.remembered_line(y, (self.k, self.sweep))

    def render(self) -> Text:
        text = Text(no_wrap=True)
        if not self.sweep:
            return text
        label = self.cached_style("k-chart--label")
        bar = self.cached_style("k-chart--bar")
        current = self.cached_style("k-chart--current")
        for name, column in (("fam", 1), (" docs", 2)):
            text.append(name, label)
            for k, glyph in enumerate(bars([row[column] for row in self.sweep])):
                text.append(glyph, current if k == self.k else bar)
        return text

    @property
    def tooltip_text(self) -> str:
        """The numbers behind the bars, one line per k."""
        return "\n".join(f"k={k}: {f} families, {d} documents" for k, f, d in self.sweep)

    def watch_sweep(
        self, old: tuple[tuple[int, int, int], ...], new: tuple[tuple[int, int, int], ...]
    ) -> None:
        self.tooltip = self.tooltip_text or None
        # the width depends on the number of k only: a layout of the whole screen (and
        # its full repaint) only when that changes, not after every change of the index
        if len(old) != len(new):
            self.refresh(layout=True)
