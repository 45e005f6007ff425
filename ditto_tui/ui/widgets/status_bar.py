"""StatusBar: one line saying where we are: root, counts, k, grouping, the marks of the
selected family, watch state, pipeline, scan options.

The line is a list of :class:`~ditto_tui.ui.fit.Part` built by :meth:`StatusBar.parts`,
each with a priority; when the terminal is narrow the labels get terse, the root loses
its start, then the least important parts go and the line ends in ``…`` (see
:func:`~ditto_tui.ui.fit.fit_parts`). Adding a segment is one line in :meth:`parts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from ditto_tui.ui.fit import Part, fit_parts, left_crop
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.styles import CachedStyles

__all__ = ["MIN_ROOT", "Status", "StatusBar", "left_crop"]

MIN_ROOT = 12  # the root keeps at least this many cells before parts are dropped
SEP = " · "

# Priorities (lower stays longer): what the user acts on first, then the size of the corpus
# (the document count is nowhere else on screen: at 80 columns it stays, the review
# progress, the families count and the pipeline's details give way first), the rest last.
P_K, P_MODE, P_MARKED, P_WATCH, P_DOCS, P_PIPELINE, P_FAMILIES, P_REVIEW = range(8)
P_SKIPPED, P_OPTIONS, P_ROOT, P_PROGRAM = range(8, 12)


@dataclass(frozen=True, slots=True)
class Status:
    """Everything the status line shows. ``singles`` counts the single-document families
    shown (when singletons are on); ``options`` is the scan options summary ("" when
    every option is the default)."""

    root: str = ""
    documents: int = 0
    skipped: int = 0
    families: int = 0
    k: int = 3
    mode: str = "chain"
    watch: str = "off"
    pipeline: str = ""
    shown_families: int | None = None
    singles: int | None = None
    options: str = ""
    review: str = ""  # review progress, e.g. "312 of 601 reviewed" ("" without a review store)
    marked: int = 0  # documents marked for comparison in the selected family


class StatusBar(CachedStyles, Widget):
    """Top status line; ``status`` is replaced as a whole via :meth:`show`."""

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

    def show(self, status: Status) -> None:
        """Show ``status``; the line is redrawn only when it differs from the one shown."""
        if status != self.status:
            self.status = status
            self.refresh()

    def render_line(self, y: int) -> Strip:
        return self.remembered_line(y, self.status)

    def render(self) -> Text:
        return self.render_status()

    def render_status(self) -> Text:
        """The line fitted to the widget's width (see the module docstring)."""
        return fit_parts(self.parts(), self.content_size.width)

    def parts(self) -> list[Part]:
        """The segments in display order, each with its priority."""
        s = self.status
        muted = self.cached_style("status-bar--muted")
        families = f"{s.families:,}"
        if s.shown_families is not None and s.shown_families != s.families:
            families = f"{s.shown_families:,}/{s.families:,}"
        fam = "family" if families == "1" else "families"
        state = s.watch if s.watch in ("watching", "paused", "rescanning") else "off"
        parts = [
            Part("ditto-tui ", P_PROGRAM, "bold"),
            Part(shown(s.root), P_ROOT, "bold underline", crop="left", min_cells=MIN_ROOT),
            Part(f"{s.documents:,} docs", P_DOCS, "bold", sep="  "),
            Part(f"{s.skipped:,} skipped", P_SKIPPED, short=f"{s.skipped:,} skip", sep=SEP),
            Part(f"{families} {fam}", P_FAMILIES, "bold", short=f"{families} fam", sep=SEP),
        ]
        if s.singles:
            parts.append(Part(f"+ {s.singles:,} single", P_FAMILIES, sep=" "))
        parts += [
            Part(f"k={s.k}", P_K, "bold", sep=SEP),
            Part(s.mode, P_MODE, sep=SEP),
        ]
        if s.marked:
            parts.append(Part(f"{s.marked} marked", P_MARKED, "bold", sep=SEP))
        if s.review:
            parts.append(Part(s.review, P_REVIEW, short=s.review.replace(" of ", "/"), sep=SEP))
        parts += [
            Part(s.watch, P_WATCH, self.cached_style(f"status-bar--{state}"), sep=SEP),
            Part(s.pipeline, P_PIPELINE, muted, short=s.pipeline.split(";")[0], sep=SEP),
        ]
        if s.options:
            parts.append(Part(s.options, P_OPTIONS, muted, crop="right", min_cells=12, sep=SEP))
        return parts
