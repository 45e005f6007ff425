"""KChart: the chain families at each k from 0 to K, as shapes and as numbers.

One line beside the k slider. As wide as the line allows, it shows two bar charts
(``fam``: families of at least two documents; ``docs``: the documents in them, one bar
per k, the current k marked) and the numbers of the current k: families, documents,
the largest family (``max``) and the largest diameter (``diam``). With less room the bars
go first, then the numbers get shorter (``12k``); the numbers of the current k stay
(at 80 columns too). The tooltip is the whole table, one row per k, with the families too
wide for their k.

The numbers come from the index's merge order (``core.families.tree.sweep_stats``, computed
by the explorer's writer), asked for in a worker once per content generation, never per
move of the k slider: the chart only polls the index's generation; the screen sets ``k``
when it shows the families of a new k (in the same frame). The chart's width depends on
the figures of every k, not on the current one, so a k step never changes the layout of
the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from rich.table import Table
from rich.text import Text
from textual import work
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from ditto_tui.core.families.tree import SweepRow
from ditto_tui.explore.writer import ExplorerStopped
from ditto_tui.ui.live_index import LiveIndex
from ditto_tui.ui.widgets.styles import CachedStyles

__all__ = ["KChart", "bars", "compact", "sweep_table"]

_BARS = "▁▂▃▄▅▆▇█"


def bars(values: list[int]) -> str:
    """One bar glyph per value, scaled to the largest (a zero is a space)."""
    top = max(values, default=0)
    if top <= 0:
        return " " * len(values)
    return "".join(" " if v <= 0 else _BARS[min(len(_BARS) - 1, (v * len(_BARS) - 1) // top)] for v in values)


def compact(value: int) -> str:
    """A count in at most four characters: 999, 1.2k, 12k, 120k, 1.2M."""
    if value < 1000:
        return str(value)
    for unit, size in (("k", 1_000), ("M", 1_000_000)):
        scaled = value / size
        if scaled < 9.95:
            return f"{scaled:.1f}{unit}"
        if scaled < 999.5 or unit == "M":
            return f"{scaled:.0f}{unit}"
    raise AssertionError


def _diameter(row: SweepRow) -> str:
    return f"{'' if row.diameter_exact else '≤'}{row.diameter}"


#: the forms of the line, widest first: (bar charts shown: 2, 1 or 0; numbers compact;
#: figures shown: fam, docs, max, diam)
_FORMS = (
    (2, False, 4), (1, False, 4), (0, False, 4), (0, True, 4), (0, True, 2), (0, True, 1),
)
Form = tuple[int, bool, int]


@runtime_checkable
class SizedInCells(Protocol):
    """A widget that knows the fewest cells it can be drawn in (the k slider)."""

    def min_cells(self) -> int: ...


def sweep_table(rows: Sequence[SweepRow], k: int | None = None) -> Table:
    """The figures of every k as a table (the chart's tooltip); row ``k`` in bold."""
    table = Table(title="Chain families by k", box=None, padding=(0, 1), title_justify="left")
    for name in ("k", "families", "documents", "largest", "diameter", "too wide"):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(
            str(r.k), f"{r.families:,}", f"{r.documents:,}", f"{r.largest:,}", _diameter(r),
            f"{r.too_wide:,}", style="bold" if r.k == k else None,
        )
    table.caption = (
        "families: of 2+ documents · largest: its documents · diameter: the largest\n"
        "too wide: diameter > 2k and > k+4 (try star grouping)"
    )
    table.caption_justify = "left"
    return table


class KChart(CachedStyles, Widget):
    """Families and documents in families per k (bars), and the current k's figures."""

    DEFAULT_CSS = """
    KChart { width: auto; height: 1; padding: 0 0 0 1; }
    KChart > .k-chart--label { color: $foreground-muted; }
    KChart > .k-chart--bar { color: $primary; }
    KChart > .k-chart--current { color: $warning; text-style: bold; }
    """
    COMPONENT_CLASSES = {"k-chart--label", "k-chart--bar", "k-chart--current"}

    k: reactive[int] = reactive(0)
    mode: reactive[str] = reactive("chain")
    sweep: reactive[tuple[SweepRow, ...]] = reactive(())

    def __init__(
        self,
        live: LiveIndex | None = None,
        *,
        k: int = 0,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``live`` is the index whose figures are shown (None: none, the chart stays empty)."""
        super().__init__(id=id, classes=classes)
        self.set_reactive(KChart.k, k)
        self.live = live
        self._generation = -1

    def on_mount(self) -> None:
        self.poll()
        self.set_interval(0.3, self.poll)

    def show(self, k: int, mode: str) -> None:
        """The screen shows the families at ``k`` grouped by ``mode``: that k is marked
        (the figures are those of chain families whatever ``mode``)."""
        self.k = k
        self.mode = mode
        self.poll()

    def poll(self) -> None:
        """Ask for the figures again when the index content changed."""
        live = self.live
        if live is None or live.scanning:
            return
        if live.generation != self._generation:
            self._generation = live.generation
            self._compute(live)

    @work(thread=True, exclusive=True, group="k-chart")
    def _compute(self, live: LiveIndex) -> None:
        try:
            rows = live.sweep()
        except ExplorerStopped:
            return  # the app is closing
        self.app.call_from_thread(setattr, self, "sweep", rows)

    # -- the forms of the line ------------------------------------------------------------
    def _figures(self, short: bool, rows: Sequence[SweepRow] | None = None
                 ) -> list[tuple[str, list[str]]]:
        """(label, the value at every k) of the four figures, full or compact."""
        fmt = compact if short else (lambda v: f"{v:,}")
        rows = self.sweep if rows is None else rows
        return [
            ("fam", [fmt(r.families) for r in rows]),
            ("docs", [fmt(r.documents) for r in rows]),
            ("max", [fmt(r.largest) for r in rows]),
            ("diam", [_diameter(r) for r in rows]),
        ]

    def _prefix(self) -> str:
        return "chain " if self.mode != "chain" else ""

    def form_width(self, form: Form, rows: Sequence[SweepRow] | None = None) -> int:
        """Cells of the line in ``form``, whatever k is current (the widest value of each
        figure over every k), padding included."""
        n_bars, short, n_figures = form
        rows = self.sweep if rows is None else rows
        width = 1 + len(self._prefix())
        for i, (label, values) in enumerate(self._figures(short, rows)[:n_figures]):
            widest = max((len(v) for v in values), default=1)
            width += (1 if i else 0) + len(label) + 1 + widest
            if i < n_bars:
                width += len(rows)
        return width

    def room(self, container_width: int) -> int:
        """The cells the siblings on the line leave this chart: their minimum widths (a
        fixed width, a min-width, or a widget's own ``min_cells()``) and margins."""
        parent = self.parent
        used = 0
        for sibling in parent.children if isinstance(parent, Widget) else ():
            if sibling is self or not sibling.display:
                continue
            styles = sibling.styles
            if isinstance(sibling, SizedInCells):
                cells = int(sibling.min_cells())
            elif styles.width is not None and styles.width.cells is not None:
                cells = styles.width.cells
            elif styles.min_width is not None and styles.min_width.cells is not None:
                cells = styles.min_width.cells
            else:
                cells = 0
            used += cells + styles.margin.left + styles.margin.right
        return container_width - used

    def _form(self, width: int) -> Form | None:
        for form in _FORMS:
            if self.form_width(form) <= width:
                return form
        return None

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if not self.sweep:
            return 1
        form = self._form(self.room(container.width))
        return self.form_width(form) - 1 if form is not None else 0  # (less the padding)

    def render_line(self, y: int) -> Strip:
        return self.remembered_line(y, (self.k, self.mode, self.sweep))

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        rows = self.sweep
        if not rows:
            return text
        label = self.cached_style("k-chart--label")
        bar = self.cached_style("k-chart--bar")
        current = self.cached_style("k-chart--current")
        n_bars, short, n_figures = self._form(self.size.width + 1) or _FORMS[-1]
        at = min(max(self.k, 0), len(rows) - 1)
        text.append(self._prefix(), label)
        figures = self._figures(short)[:n_figures]
        for i, (name, values) in enumerate(figures):
            text.append(name, label)
            if i < n_bars:
                counts = [r.families if i == 0 else r.documents for r in rows]
                for k, glyph in enumerate(bars(counts)):
                    text.append(glyph, current if k == at else bar)
            # the figure, then room for the widest one of any k (the width stays put)
            widest = max(len(v) for v in values)
            pad = " " * (widest - len(values[at]) + (1 if i < len(figures) - 1 else 0))
            text.append(" ")
            text.append(values[at], current)
            text.append(pad)
        return text

    @property
    def tooltip_text(self) -> str:
        """The figures of every k, one line per k."""
        return "\n".join(
            f"k={r.k}: {r.families} families, {r.documents} documents, largest {r.largest}, "
            f"diameter {_diameter(r)}, {r.too_wide} too wide"
            for r in self.sweep
        )

    def watch_sweep(self, old: tuple[SweepRow, ...], new: tuple[SweepRow, ...]) -> None:
        self._set_tooltip()
        # the width depends on the widest figures: a layout of the whole screen (and its
        # full repaint) only when they change, not after every change of the index
        if [self.form_width(f, old) for f in _FORMS] != [self.form_width(f, new) for f in _FORMS]:
            self.refresh(layout=True)

    def watch_k(self) -> None:
        self._set_tooltip()

    def watch_mode(self) -> None:
        self.refresh(layout=True)

    def _set_tooltip(self) -> None:
        self.tooltip = sweep_table(self.sweep, self.k) if self.sweep else None
