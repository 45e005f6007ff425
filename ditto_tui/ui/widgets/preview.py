"""Preview: a read-only, lazily rendered view of one document's display lines.

Lines are given already made visible (control characters escaped), and are drawn as plain
segments: nothing in a document is ever interpreted as markup or as a terminal escape.
Long lines are soft-wrapped at the view width (by characters). ``/`` finds text (every
match highlighted, the current one distinct), ``:`` goes to a line: see
:class:`~ditto_tui.ui.widgets.searchable.Searchable`.

:meth:`Preview.read` shows a document of the corpus: it is read (its first
``PREVIEW_LIMIT`` bytes) through the reader given, in a thread worker that replaces the
one running; a read that lands after another document was asked for is dropped, and one
that fails shows why (``failed``). Until another document's text is read the body says
``loading…``: the text of one document never shows under another's heading.
:func:`preview_heading` is what the line above the preview says of it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Any

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from ditto_tui.core.text.display import html_text, visible_lines, wrap_points
from ditto_tui.core.text.find import parse_line_number
from ditto_tui.corpus.documents import MAIL_KINDS, Document
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.fit import Part
from ditto_tui.ui.listing import format_size, shown
from ditto_tui.ui.widgets.scrollbar import SteadyScrollBars
from ditto_tui.ui.widgets.searchable import (
    FIND_BINDINGS,
    FIND_CLASSES,
    FIND_CSS,
    Searchable,
)

__all__ = ["LOADING", "PREVIEW_LIMIT", "Preview", "preview_heading"]

PREVIEW_LIMIT = 4 * 1024 * 1024  # bytes of a document read for its preview
LOADING = "loading…"  # the body while a document's text is read

#: what the body shows of a document: (id, kind, HTML as source)
_Form = tuple[str, str, bool]


def preview_heading(
    doc_id: str, doc: Document | None, snapshot: Snapshot | None, *, html_source: bool
) -> list[Part]:
    """The preview's heading: the document's name, then (when known) its kind and size,
    for HTML whether its text or its source shows, and its fingerprint (narrow: the first
    8 digits, so that the name keeps a place)."""
    heading = [Part(shown(doc_id), 3, "bold", crop="middle", min_cells=8)]
    if doc is not None:
        heading.append(Part(doc.kind, 0, sep="  "))
        heading.append(Part(format_size(doc.size), 0, sep=" · "))
        if doc.kind == "html":
            heading.append(
                Part("source" if html_source else "text (h: source)", 4,
                     short="source" if html_source else "text", sep=" · ", quiet=True)
            )
    if snapshot is not None and doc_id in snapshot:
        fp = f"{snapshot.fingerprint(doc_id):016x}"
        heading.append(Part(fp, 1, short=fp[:8] + "…", sep=" · "))
    return heading


class Preview(Searchable, SteadyScrollBars, ScrollView, can_focus=True):
    """Shows ``lines``; the first ``header_lines`` are styled as headers (mail, title)."""

    DEFAULT_CSS = """
    Preview {
        background: $surface;
        scrollbar-gutter: stable;
    }
    Preview > .preview--header { color: $primary; text-style: bold; }
    Preview > .preview--placeholder { color: $foreground-muted; text-style: italic; }
    """ + FIND_CSS.format(name="Preview")

    COMPONENT_CLASSES = {"preview--header", "preview--placeholder"} | FIND_CLASSES
    BINDINGS = [*FIND_BINDINGS]

    wrap: reactive[bool] = reactive(True)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[str] = []
        self.header_lines = 0
        self.placeholder = ""
        self._rows: list[tuple[int, int, int]] = []  # (line index, start, stop) per display row
        self._rows_width = -1
        self._longest = 0
        #: the corpus document shown or being read (None: none), and whether it failed
        self.document: str | None = None
        self.failed = False
        self._wanted: _Form | None = None  # the form being read (or shown)
        self._shown: _Form | None = None  # the form whose text the lines are
        #: another document is being read: the body says LOADING (its lines are kept, not
        #: shown: replacing them would lay the screen out again, a cost every k step paid)
        self.reading = False

    def show(self, lines: list[str], *, header_lines: int = 0, placeholder: str = "") -> None:
        """Display ``lines`` (or ``placeholder`` when empty) from the top."""
        self.reading = False
        self.lines = lines
        self.header_lines = header_lines
        self.placeholder = placeholder
        self._longest = max((len(line) for line in lines), default=0)
        self._rows_width = -1
        self._layout_rows()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()
        self.search_again()

    # -- a document of the corpus -----------------------------------------------------------
    def read(self, doc_id: str, kind: str, html_source: bool, reader: Callable[[], Any]) -> None:
        """Show document ``doc_id`` of ``kind`` ("html" as readable text unless
        ``html_source``; a mail's header block styled), read through ``reader()`` (the
        corpus source, asked in the worker). Meanwhile the body says :data:`LOADING`,
        unless it shows this very form of the document already (read again after a
        change on disk: the old text stays, where it was scrolled, until the new one)."""
        self.document = doc_id
        self.failed = False
        form = self._wanted = (doc_id, kind, html_source)
        if form != self._shown:
            self._shown = None
            self.reading = True
            self.refresh()
        self.load_document(doc_id, kind, html_source, reader)

    def clear(self, placeholder: str) -> None:
        """Show no document, only ``placeholder``."""
        self.document = None
        self.failed = False
        self._wanted = self._shown = None
        self.show([], placeholder=placeholder)

    @work(thread=True, exclusive=True, group="preview")
    def load_document(
        self, doc_id: str, kind: str, source: bool, reader: Callable[[], Any]
    ) -> None:
        worker = get_current_worker()
        try:
            text = reader().read_text(doc_id, limit=PREVIEW_LIMIT)
        except Exception as exc:  # the corpus reports why; show it instead of the text
            if not worker.is_cancelled:
                self.app.call_from_thread(self._show_failure, (doc_id, kind, source), str(exc))
            return
        if kind == "html" and not source:
            text = html_text(text)
        lines = visible_lines(text)
        header = 0
        if kind in MAIL_KINDS:  # the message's own header block, up to the first blank line
            header = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_document, (doc_id, kind, source), lines, header)

    def _show_failure(self, form: _Form, reason: str) -> None:
        if form != self._wanted:
            return
        self.failed = True
        self._shown = None
        self.show([], placeholder=f"cannot read: {reason}")

    def _show_document(self, form: _Form, lines: list[str], header_lines: int) -> None:
        if form != self._wanted:
            return
        again = form == self._shown  # the same document read again: stay where it was
        scroll = self.scroll_offset
        self._shown = form
        self.show(lines, header_lines=header_lines, placeholder="(empty document)")
        if again:
            self.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)

    def watch_wrap(self) -> None:
        self._rows_width = -1
        self._layout_rows()
        self.refresh()

    def _layout_rows(self) -> None:
        width = max(1, self.scrollable_content_region.width)
        if self.wrap:
            if width != self._rows_width:
                rows: list[tuple[int, int, int]] = []
                for index, line in enumerate(self.lines):
                    if len(line) <= width:
                        rows.append((index, 0, len(line)))
                    else:
                        rows.extend((index, a, b) for a, b in wrap_points(line, width))
                self._rows = rows
                self._rows_width = width
            self.set_content_size(Size(width, len(self._rows)))
        else:
            self._rows = [(index, 0, len(line)) for index, line in enumerate(self.lines)]
            self._rows_width = -1
            self.set_content_size(Size(max(width, self._longest), len(self._rows)))

    def on_resize(self) -> None:
        self._layout_rows()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def row_of_line(self, line: int, column: int = 0) -> int:
        """The display row showing column ``column`` of ``line``."""
        rows = self._rows
        row = bisect_left(rows, (line, -1, -1))
        while row + 1 < len(rows) and rows[row + 1][0] == line and rows[row + 1][1] <= column:
            row += 1
        return min(row, max(len(rows) - 1, 0))

    # -- find (Searchable) -------------------------------------------------------------
    def find_sides(self) -> tuple[list[list[str]], list[np.ndarray | None]]:
        return [[] if self.reading else self.lines], [None]  # (nothing found in what is not shown)

    def find_top_row(self) -> int:
        rows = self._rows
        top = int(self.scroll_offset.y)
        return rows[top][0] if 0 <= top < len(rows) else 0

    def find_reveal(self, side: int, line: int, start: int, stop: int) -> None:
        row = self.row_of_line(line, start)
        height = self.scrollable_content_region.height
        top = int(self.scroll_offset.y)
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 3), animate=False, immediate=True)
        if not self.wrap:
            width = self.scrollable_content_region.width
            x = int(self.scroll_offset.x)
            if start < x or stop > x + width:
                self.scroll_to(x=max(0, start - width // 3), animate=False, immediate=True)

    def find_go_to(self, text: str) -> str | None:
        line = parse_line_number(text, len(self.lines))
        if line is None:
            return f"no line {text.strip()!r}" if self.lines else "nothing to go to"
        self.scroll_to(y=self.row_of_line(line), animate=False, immediate=True)
        return None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base: Style = self.rich_style
        if not self.lines or self.reading:
            placeholder = LOADING if self.reading else self.placeholder
            if y == 0 and placeholder:
                style = base + self.get_component_rich_style("preview--placeholder")
                return Strip([Segment(placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        index = int(self.scroll_offset.y) + y
        if index >= len(self._rows):
            return Strip.blank(width, base)
        line_index, start, stop = self._rows[index]
        line = self.lines[line_index]
        style = base
        if line_index < self.header_lines:
            style = base + self.get_component_rich_style("preview--header")
        if self.wrap:
            x = start
            chunk = line[start:stop]
        else:
            x = int(self.scroll_offset.x)
            chunk = line[x : x + width + 1]
        spans = self.match_spans(0, line_index)
        if not spans:
            return Strip([Segment(chunk, style)]).crop_extend(0, width, base)
        every, current = self.match_styles()
        segments = []
        cursor = 0
        for lo, hi, is_current in spans:
            lo, hi = max(lo - x, cursor), min(hi - x, len(chunk))
            if hi <= lo:
                continue
            if lo > cursor:
                segments.append(Segment(chunk[cursor:lo], style))
            segments.append(Segment(chunk[lo:hi], style + (current if is_current else every)))
            cursor = hi
        if cursor < len(chunk):
            segments.append(Segment(chunk[cursor:], style))
        return Strip(segments).crop_extend(0, width, base)


__all__ = ["Preview", "wrap_points"]
