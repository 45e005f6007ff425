"""ExcerptReader: the first line of each family's representative, read ahead of the rows
the family list shows.

The list shows an excerpt per family. The reader keeps those read (``excerpts``, shared
with the list), and reads the missing ones in a thread worker of the screen through the
corpus source: first those of the rows on screen, then the rows just below, then the first
rows at the neighbouring k (so that a k step finds its excerpts read and is drawn once,
complete). While a key waits for its frame only the rows on screen are read; the rest is
put off until the frame is painted (:meth:`ExcerptReader.read_put_off`).

Contracts: on the UI thread every method is O(rows read ahead), never O(corpus); the
worker hands excerpts over with ``call_from_thread`` and they are dropped when the family
list is gone (the app closing). A document that cannot be read (yet) is left blank and
tried again on the next view.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from textual.app import App
from textual.worker import Worker, get_current_worker

from ditto_tui.core.text.display import excerpt, html_text
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import Excerpts
from ditto_tui.explore.view import FamilyView
from ditto_tui.ui.widgets.family_table import FamilyTable

__all__ = ["EXCERPT_LIMIT", "EXCERPT_ROWS", "NEIGHBOUR_EXCERPT_ROWS", "ExcerptReader", "ListHost"]

EXCERPT_LIMIT = 4096  # bytes read of each representative
EXCERPT_ROWS = 200  # representatives read ahead of the visible rows
NEIGHBOUR_EXCERPT_ROWS = 60  # and of the first rows at k - 1 and k + 1


class ListHost(Protocol):
    """What the reader needs of the screen showing the family list: the view and snapshot
    on screen, the explorer (its source and maximum k), the list, and a place to run its
    worker."""

    @property
    def view(self) -> FamilyView | None: ...

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def explorer(self) -> Explorer: ...

    @property
    def table(self) -> FamilyTable: ...

    @property
    def showing_families(self) -> bool: ...

    @property
    def is_mounted(self) -> bool: ...

    @property
    def app(self) -> App[Any]: ...

    def run_worker(
        self,
        work: Callable[[], None],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[None]: ...


class ExcerptReader:
    """Reads the excerpts of ``host``'s family list (see the module docstring).

    ``rows_read`` runs on the UI thread after each batch of excerpts is shown."""

    def __init__(self, host: ListHost, *, rows_read: Callable[[], None]) -> None:
        self._host = host
        self._rows_read = rows_read
        #: representative id -> its excerpt (shared with the family list)
        self.excerpts: dict[str, str] = {}
        self._put_off = False  # excerpts to read once the key's frame is painted

    def wanted(self) -> list[str]:
        """Representatives without an excerpt yet: those near the visible rows, then those
        of the first rows at the neighbouring k (size order, no filter). O(rows read
        ahead); empty when everything is read (then no worker is started)."""
        host = self._host
        view = host.view
        if view is None:
            return []
        top = int(host.table.scroll_offset.y)
        excerpts = self.excerpts
        wanted = dict.fromkeys(
            f.centre
            for f in view.families[max(0, top - 20) : top + EXCERPT_ROWS]
            if f.centre not in excerpts
        )
        request = view.request
        if request.sort == "size" and not request.pattern.strip():
            for k in (request.k + 1, request.k - 1):
                if not 0 <= k <= host.explorer.max_k:
                    continue
                listing = host.snapshot.listing(k, request.mode)
                if listing is None:
                    continue
                for family in listing[:NEIGHBOUR_EXCERPT_ROWS]:
                    if family.centre not in excerpts:
                        wanted.setdefault(family.centre)
        return list(wanted)

    def visible_in(self, missing: list[str]) -> int:
        """How many of ``missing`` (in order) to read to have every row on screen."""
        host = self._host
        view = host.view
        if not missing or view is None:
            return 0
        table = host.table
        top = int(table.scroll_offset.y)
        shown = {f.centre for f in view.families[top : top + max(1, table.size.height - 1)]}
        return max((i + 1 for i, centre in enumerate(missing) if centre in shown), default=0)

    def read_for_view(self, *, urgent: bool) -> int:
        """A view was shown: read the excerpts it misses. With ``urgent`` (a key waits for
        this frame) the rows on screen are read now, the rest (read ahead for rows below
        and for k±1) once the frame is painted. Returns how many of the missing are rows
        on screen (0: the frame need not wait for any)."""
        missing = self.wanted()
        shown_first = self.visible_in(missing)
        if missing and urgent:
            if shown_first:
                self.load(missing[:shown_first], shown_first)
            self._put_off = len(missing) > shown_first
        elif missing:
            self.load(missing, shown_first)
        return shown_first

    def listing_warmed(self, k: int, mode: str, *, urgent: bool) -> None:
        """The listing at ``k`` was computed ahead: when it is the next one up or down,
        read the excerpts of its first rows now (the view shown asked for them before the
        listing existed), or, ``urgent``, once the key's frame is painted."""
        view = self._host.view
        if view is None or mode != view.request.mode or abs(k - view.request.k) != 1:
            return
        if not self._host.showing_families:  # (the app is closing: its widgets are going)
            return
        if urgent:  # a key waits for its frame: read once it is painted
            self._put_off = True
            return
        self._read_ahead()

    def read_put_off(self) -> None:
        """Read the excerpts put off while a key waited for its frame (if any)."""
        if self._put_off:
            self._put_off = False
            if self._host.is_mounted and self._host.showing_families:
                self._read_ahead()

    def forget(self, doc_ids: frozenset[str] | None = None) -> None:
        """Documents changed: their excerpts are read again (None: every excerpt)."""
        if doc_ids is None:
            self.excerpts.clear()
            return
        for doc_id in doc_ids:
            self.excerpts.pop(doc_id, None)

    def load(self, missing: list[str], first: int = 0) -> Worker[None]:
        """Read the representatives ``missing`` (in order) in a worker that replaces the
        one running; the first ``first`` (those on screen) are handed over as soon as they
        are read."""
        return self._host.run_worker(
            partial(self._read, missing, first),
            name="load_excerpts",
            group="excerpts",
            description="load_excerpts",
            exclusive=True,
            thread=True,
        )

    def _read_ahead(self) -> None:
        missing = self.wanted()
        if missing:  # (rows on screen still missing theirs come first, as in read_for_view)
            self.load(missing, self.visible_in(missing))

    def _read(self, missing: list[str], first: int) -> None:
        """The worker: read, hand over in batches of 64 (and at ``first``)."""
        worker = get_current_worker()
        host = self._host
        source = host.explorer.source
        documents = host.snapshot.documents
        pending: list[tuple[str, str]] = []
        for index, centre in enumerate(missing):
            if worker.is_cancelled:
                break
            doc = documents.get(centre)
            try:
                if isinstance(source, Excerpts):  # mail: subject — sender; empty: "empty file"
                    line = source.excerpt(centre, 80)
                else:
                    text = source.read_text(centre, limit=EXCERPT_LIMIT)
                    if doc is not None and doc.kind == "html":
                        text = html_text(text)
                    line = excerpt(text, 80)
                pending.append((centre, line))
            except Exception:  # not readable (yet): left blank, read again at the next refresh
                pass
            # (handed over at ``first`` even when none was readable: a key's frame that
            # waits for the rows on screen is drawn now, not at the hold's time limit)
            if len(pending) >= 64 or index + 1 in (first, len(missing)):
                host.app.call_from_thread(self.set_excerpts, pending)
                pending = []
        if pending and not worker.is_cancelled:
            host.app.call_from_thread(self.set_excerpts, pending)

    def set_excerpts(self, pairs: list[tuple[str, str]]) -> None:
        """Show excerpts read (UI thread); dropped once the family list is gone."""
        host = self._host
        if not host.showing_families:  # (the app closed while they were read)
            return
        table = host.table
        for centre, text in pairs:
            self.excerpts[centre] = text
            table.set_excerpt(centre, text)
        self._rows_read()
