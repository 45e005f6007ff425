"""CompareScreen: two documents, bit by bit (fingerprints) and line by line (text).

Both texts are read and diffed in a thread worker; until then the summary line says
"computing diff…". The diff is over display lines (control characters made visible), so what is
compared is exactly what is shown.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import get_current_worker

from ditto_tui.core.text.diff import TextDiff, diff_lines
from ditto_tui.core.text.display import html_text, visible_lines
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.fit import Part
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.bit_diff import BitDiff
from ditto_tui.ui.widgets.explain_panel import ExplainPanel
from ditto_tui.ui.widgets.explained_diff import ExplainedDiff
from ditto_tui.ui.widgets.find_bar import FindBar, FindBarHolder
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.side_by_side import SideBySideDiff
from ditto_tui.ui.widgets.title_line import TitleLine

COMPARE_LIMIT = 16 * 1024 * 1024


class CompareScreen(FindBarHolder, Screen[None]):
    """Bit-diff of the fingerprints above a side-by-side diff of the texts.

    ``snapshot`` gives the fingerprints and document kinds, ``reader`` (the corpus
    source) the texts, read in a worker."""

    #: a focus change (the find bar and back) repaints the widgets it restyles, not the
    #: whole screen (see MainScreen.focused)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("n", "next_change", "Next change"),
        Binding("p", "previous_change", "Prev change"),
        Binding("b", "toggle_bits", "Bits on/off"),
        Binding("w", "toggle_wrap", "Wrap on/off"),
        Binding("s", "swap", "Swap sides"),
        Binding("t", "toggle_source", "HTML text/source", show=False),
        Binding("e", "explain", "Explain why"),
    ]

    def __init__(self, left: str, right: str, *, snapshot: Snapshot, reader: Any) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.reader = reader
        self.left = left
        self.right = right
        self.html_source = False
        self.diff: TextDiff | None = None
        self.elapsed: float | None = None

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="compare-title")
        yield BitDiff(id="bits")
        yield ExplainPanel(id="explain")
        yield TitleLine(Text(""), id="diff-summary")
        yield ExplainedDiff(id="diff")
        yield FindBar(id="diff-find")
        yield Footer()

    AUTO_FOCUS = "#diff"

    def on_mount(self) -> None:
        self.attach_find_bar(self.query_one(ExplainedDiff))
        self.load()

    def load(self, *, swapped: bool = False) -> None:
        """Show the pair; ``swapped``: the sides were exchanged and the diff on screen
        is turned round (in a worker) instead of being computed again."""
        snapshot = self.snapshot
        bits = self.query_one(BitDiff)
        bits.max_k = snapshot.max_k
        bits.a = snapshot.fingerprints.get(self.left, 0)
        bits.b = snapshot.fingerprints.get(self.right, 0)
        # both paths always show, each cut in the middle so its file name stays
        title = [
            Part("A ", 0, "bold"),
            Part(shown(self.left), 0, crop="middle", min_cells=10),
            Part("   ⟷   ", 0, "bold", short=" ⟷ "),
            Part("B ", 0, "bold"),
            Part(shown(self.right), 0, crop="middle", min_cells=10),
        ]
        self.query_one("#compare-title", TitleLine).update(title)
        if self.query_one(ExplainPanel).shown:
            self.action_explain(again=True)
        if swapped and self.diff is not None:
            self.swap_diff(self.diff, self.elapsed or 0.0)
            return
        self.query_one("#diff-summary", TitleLine).update(Text("computing diff…"))
        self.diff = None
        self.query_one(SideBySideDiff).set_diff(None)
        self.compute(self.left, self.right, self.html_source)

    @work(thread=True, exclusive=True, group="diff")
    def swap_diff(self, diff: TextDiff, elapsed: float) -> None:
        """The diff on screen seen from the other side (no line compared again)."""
        turned = diff.swapped()
        turned.line_rows()
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, turned, elapsed, keep_view=True)

    @work(thread=True, exclusive=True, group="diff")
    def compute(self, left: str, right: str, source: bool) -> None:
        worker = get_current_worker()
        session = self.reader
        documents = self.snapshot.documents
        start = time.perf_counter()
        sides = []
        for doc_id in (left, right):
            try:
                text = session.read_text(doc_id, limit=COMPARE_LIMIT)
            except Exception as exc:
                text = f"(cannot read: {exc})"
            doc = documents.get(doc_id)
            if doc is not None and doc.kind == "html" and not source:
                text = html_text(text)
            sides.append(visible_lines(text))
        if worker.is_cancelled:
            return
        diff = diff_lines(sides[0], sides[1])
        diff.line_rows()  # for find and go-to-line, here rather than on the UI thread
        elapsed = time.perf_counter() - start
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, diff, elapsed)

    def _show(self, diff: TextDiff, elapsed: float, *, keep_view: bool = False) -> None:
        self.diff = diff
        self.elapsed = elapsed
        view = self.query_one(SideBySideDiff)
        hunk, y = view.current_hunk, view.scroll_offset.y
        view.set_diff(diff)
        if keep_view:  # a swap: same rows, same place
            view.scroll_to(y=y, animate=False, immediate=True)
            view.current_hunk = hunk
        self.update_summary(view.current_hunk)

    def update_summary(self, current: int) -> None:
        diff = self.diff
        if diff is None:
            return
        text = Text(no_wrap=True, overflow="ellipsis")
        if diff.identical:
            text.append("texts identical" if diff.same_text
                        else "same words (only spacing or line breaks differ)", style="bold")
        else:
            text.append(f"+{diff.inserted} inserted", style="bold")
            text.append(f"  -{diff.deleted} deleted", style="bold")
            text.append(f"  ~{diff.changed} changed", style="bold")
            where = f"{current + 1}/{len(diff.hunks)}" if current >= 0 else f"–/{len(diff.hunks)}"
            text.append(f"  · change {where} (n/p)")
        text.append(f"  · {len(diff.a):,} ⟷ {len(diff.b):,} lines")
        self.query_one("#diff-summary", TitleLine).update(text)

    @on(SideBySideDiff.HunkChanged)
    def hunk_changed(self, event: SideBySideDiff.HunkChanged) -> None:
        self.update_summary(event.index)

    def action_next_change(self) -> None:
        self.query_one(SideBySideDiff).action_next_change()

    def action_previous_change(self) -> None:
        self.query_one(SideBySideDiff).action_previous_change()

    def action_toggle_wrap(self) -> None:
        self.query_one(SideBySideDiff).action_toggle_wrap()

    def action_toggle_bits(self) -> None:
        bits = self.query_one(BitDiff)
        bits.display = not bits.display

    def action_explain(self, again: bool = False) -> None:
        """Show (or hide) why the two documents are this far apart, computed in a worker."""
        panel, bits = self.query_one(ExplainPanel), self.query_one(BitDiff)
        if panel.shown and not again:
            panel.hide(self.query_one(ExplainedDiff))
            bits.display = True
            return
        mapped = tuple(self.html_source or not self._is_html(d) for d in (self.left, self.right))
        bits.display = False  # the panel has its own bit grid, with the margins
        panel.explain(self.reader, self.reader.pipeline, self.left, self.right,
                      target=self.query_one(ExplainedDiff), mapped=mapped)  # type: ignore[arg-type]

    def _is_html(self, doc_id: str) -> bool:
        """Whether ``doc_id`` is an HTML document of the snapshot (shown as its text)."""
        doc = self.snapshot.documents.get(doc_id)
        return doc is not None and doc.kind == "html"

    def action_swap(self) -> None:
        self.left, self.right = self.right, self.left
        self.load(swapped=True)

    def action_toggle_source(self) -> None:
        self.html_source = not self.html_source
        self.load()
