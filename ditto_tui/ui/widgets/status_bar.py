"""StatusBar: one line saying where we are: root, counts, k, grouping, watch state, pipeline."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from ditto_tui.ui.listing import shown

MIN_ROOT = 12  # the root keeps at least this many cells, however long the rest


def left_crop(value: str, cells: int) -> str:
    """``value`` in at most ``cells`` terminal cells: its end, after an ellipsis."""
    if cell_len(value) <= cells:
        return value
    kept: list[str] = []
    used = 1  # the ellipsis
    for char in reversed(value):
        used += cell_len(char)
        if used > cells:
            break
        kept.append(char)
    return "…" + "".join(reversed(kept))


@dataclass(frozen=True, slots=True)
class Status:
    """Everything the status line shows."""

    root: str = ""
    documents: int = 0
    skipped: int = 0
    families: int = 0
    k: int = 3
    mode: str = "chain"
    watch: str = "off"
    pipeline: str = ""
    shown_families: int | None = None
    review: str = ""  # review progress, e.g. "312/601 reviewed" ("" without a review store)


class StatusBar(Static):
    """Top status line; ``status`` is replaced as a whole via :meth:`set`."""

    DEFAULT_CSS = """
    StatusBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    StatusBar > .status-bar--watching { color: $success; text-style: bold; }
    StatusBar > .status-bar--paused { color: $warning; text-style: bold; }
    StatusBar > .status-bar--rescanning { color: $accent; text-style: bold; }
    StatusBar > .status-bar--off { color: $foreground-muted; }
    StatusBar > .status-bar--muted { color: $foreground-muted; }
    """

    COMPONENT_CLASSES = {
        "status-bar--watching",
        "status-bar--paused",
        "status-bar--rescanning",
        "status-bar--off",
        "status-bar--muted",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.status = Status()

    def set(self, **changes: object) -> None:
        """Update some fields and redraw."""
        self.status = replace(self.status, **changes)  # type: ignore[arg-type]
        self.refresh()

    def render(self) -> Text:
        return self.render_status()

    def render_status(self) -> Text:
        """The line; when the width is short, the root is shortened from the left, then the
        labels get terse and the program name goes, so that the counts, the watch state and
        the pipeline stay visible."""
        width = self.content_size.width
        root = shown(self.status.root)
        need = min(MIN_ROOT, cell_len(root))
        prefix, tail = "ditto-tui ", self._tail(compact=False)
        if width and width - len(prefix) - tail.cell_len < need:
            tail = self._tail(compact=True)
            if width - len(prefix) - tail.cell_len < need:
                prefix = ""
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(prefix, style="bold")
        if width:  # 0 before the first layout: nothing to fit yet
            root = left_crop(root, max(width - len(prefix) - tail.cell_len, MIN_ROOT))
        text.append(root, style="bold underline")
        text.append_text(tail)
        return text

    def _tail(self, *, compact: bool) -> Text:
        """Everything after the root; ``compact`` uses the short labels."""
        s = self.status
        text = Text(no_wrap=True)
        sep = "·" if compact else " · "
        text.append(f"  {s.documents:,} docs", style="bold")
        text.append(f"{sep}{s.skipped:,} skip{'' if compact else 'ped'}")
        families = f"{s.families:,}"
        if s.shown_families is not None and s.shown_families != s.families:
            families = f"{s.shown_families:,}/{s.families:,}"
        label = "fam" if compact else "families at"
        text.append(f"{sep}{families} {label} k={s.k}", style="bold")
        text.append(f"{sep}{s.mode}")
        if s.review:
            text.append(f"{sep}{s.review}")
        state = s.watch if s.watch in ("watching", "paused", "rescanning") else "off"
        text.append(sep)
        text.append(s.watch, style=self.get_component_rich_style(f"status-bar--{state}"))
        text.append(f"{sep}{s.pipeline}", style=self.get_component_rich_style("status-bar--muted"))
        return text
