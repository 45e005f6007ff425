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
        """The line; a root too long for the width is shortened from the left so that the
        counts, the watch state and the pipeline stay visible."""
        s = self.status
        tail = self._tail()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("ditto-tui ", style="bold")
        root = shown(s.root)
        width = self.content_size.width
        if width:  # 0 before the first layout: nothing to fit yet
            root = left_crop(root, max(width - len("ditto-tui ") - tail.cell_len, MIN_ROOT))
        text.append(root, style="bold underline")
        text.append_text(tail)
        return text

    def _tail(self) -> Text:
        """Everything after the root."""
        s = self.status
        text = Text(no_wrap=True)
        text.append(f"  {s.documents:,} docs", style="bold")
        text.append(f" · {s.skipped:,} skipped")
        families = f"{s.families:,} families"
        if s.shown_families is not None and s.shown_families != s.families:
            families = f"{s.shown_families:,}/{s.families:,} families"
        text.append(f" · {families} at k={s.k}", style="bold")
        text.append(f" · {s.mode}")
        state = s.watch if s.watch in ("watching", "paused", "rescanning") else "off"
        text.append(" · ")
        text.append(s.watch, style=self.get_component_rich_style(f"status-bar--{state}"))
        text.append(f" · {s.pipeline}", style=self.get_component_rich_style("status-bar--muted"))
        return text
