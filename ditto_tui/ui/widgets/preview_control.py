"""PreviewControl: which document the detail pane's preview shows, and its heading.

The preview (:class:`~ditto_tui.ui.widgets.preview.Preview`) reads and draws a document;
this decides which one and how: the document under the member cursor, under a heading
of its name, kind, size and fingerprint (:func:`preview_heading`, from the snapshot it
is given), HTML as readable text or as its source. A document previewed before its record
was known (a scan still under way) is shown again, whole, once the record arrives. O(1)
on the UI thread; the reading happens in the preview's worker through ``reader()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from rich.text import Text

from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.widgets.preview import Preview, preview_heading
from ditto_tui.ui.widgets.title_line import TitleLine

__all__ = ["PreviewControl", "PreviewHost"]


class PreviewHost(Protocol):
    """The pane holding the preview and its heading line."""

    @property
    def preview(self) -> Preview: ...

    @property
    def preview_title(self) -> TitleLine: ...


class PreviewControl:
    """The preview's document and heading for ``host`` (see the module docstring);
    documents are read through ``reader()`` (the corpus source now)."""

    def __init__(self, host: PreviewHost, reader: Callable[[], Any]) -> None:
        self._host = host
        self._reader = reader
        self.html_source = False  # HTML shown as its source, not as readable text
        self._unknown = False  # previewed before its document was known

    @property
    def document(self) -> str | None:
        """The document the preview shows (or is reading)."""
        return self._host.preview.document

    @property
    def failed(self) -> bool:
        """Whether the preview could not read its document (it says why)."""
        return self._host.preview.failed

    def show(self, doc_id: str | None, snapshot: Snapshot | None, *, force: bool = False) -> None:
        """Preview ``doc_id`` (None: none) under its heading from ``snapshot``; the same
        document again only with ``force``."""
        preview, title = self._host.preview, self._host.preview_title
        if doc_id == preview.document and not force:
            return
        if doc_id is None:
            preview.clear("No document selected")
            title.update(Text("Preview"))
            return
        doc = snapshot.documents.get(doc_id) if snapshot is not None else None
        title.update(preview_heading(doc_id, doc, snapshot, html_source=self.html_source))
        self._unknown = doc is None
        preview.read(doc_id, doc.kind if doc else "text", self.html_source, self._reader)

    def known(self, snapshot: Snapshot) -> None:
        """A new snapshot: a document previewed before its record was known is shown
        again, whole (kind, size), once ``snapshot`` has it."""
        if self._unknown and self.document in snapshot.documents:
            self.show(self.document, snapshot, force=True)
