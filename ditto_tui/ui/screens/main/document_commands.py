"""DocumentCommands: what the user does with the highlighted document on the main screen.

Mark it for comparison (marks belong to the family they were made in: see
:mod:`.compare_pair`) or clear the marks, compare it (with the other marked one, its
representative, or any document picked by name), list its neighbours within k, follow its links to the representative, open it in
``$EDITOR`` or ``$PAGER`` (the app runs them: :class:`~ditto_tui.ui.messages.OpenExternal`
goes up), or copy its path. Each command reads the selection through
:class:`~ditto_tui.ui.screens.main.on_screen.OnScreen` and opens its screen on the app;
without a highlighted document a command does nothing.
"""

from __future__ import annotations

from ditto_tui.ui.listing import shown
from ditto_tui.ui.messages import OpenExternal
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.main.compare_pair import compare_pair, toggle_mark
from ditto_tui.ui.screens.main.on_screen import OnScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.screens.picker import DocumentPicker

__all__ = ["DocumentCommands"]


class DocumentCommands:
    """The commands on the highlighted document of ``host`` (see the module docstring)."""

    def __init__(self, host: OnScreen) -> None:
        self._host = host

    def mark(self) -> None:
        """Mark the highlighted document for comparison, or unmark it; a third mark drops
        the oldest, with a notice, and marks left in another family go. Nothing without
        a highlighted document."""
        host = self._host
        doc_id = host.selected_member()
        if doc_id is None:
            return
        marked = list(host.marked)  # this family's: those of another one go
        dropped = toggle_mark(marked, doc_id)
        host.set_marks(marked)
        if dropped is not None:
            host.notify(
                f"Unmarked {shown(dropped)} (two marks at most); "
                f"c compares {shown(marked[0])} with {shown(marked[1])}.",
                title="Mark replaced",
                markup=False,
            )

    def unmark_all(self) -> bool:
        """Clear the marks of the family on screen (and any left in another family), with
        a notice; False when nothing in this family was marked (nothing changed)."""
        host = self._host
        count = len(host.marked)
        if not count:
            return False
        host.set_marks([])
        host.notify(f"Unmarked {count} document{'s' if count > 1 else ''}.", markup=False)
        return True

    def clear_marks(self) -> None:
        """The clear-marks key: :meth:`unmark_all`, or say that nothing is marked here."""
        if not self.unmark_all():
            self._host.set_marks([])  # (marks left in another family go too)
            self._host.notify("No document is marked in this family.", markup=False)

    def open_compare(self, left: str, right: str) -> None:
        """Compare ``left`` with ``right`` in the snapshot on screen."""
        host = self._host
        host.app.push_screen(
            CompareScreen(left, right, snapshot=host.snapshot, reader=host.explorer.source)
        )

    def compare(self) -> None:
        """Compare the pair :func:`compare_pair` makes of the marks and the selection."""
        host = self._host
        pair = compare_pair(host.marked, host.selected_member(), host.selected_family(),
                            host.snapshot.fingerprints)
        if pair is None:
            host.notify(
                "Mark two documents with space, or press a to compare with any document.",
                markup=False,
            )
            return
        self.open_compare(*pair)

    def compare_any(self) -> None:
        """Compare the one marked document (else the highlighted one) with any document
        the user picks by name."""
        host = self._host
        marked = host.marked
        origin = marked[0] if len(marked) == 1 else host.selected_member()
        if origin is None:
            return

        def picked(other: str | None) -> None:
            if other is not None:
                self.open_compare(origin, other)

        host.app.push_screen(DocumentPicker(list(host.snapshot.fingerprints), origin=origin),
                             picked)

    def neighbours(self) -> None:
        """Every document within k bits of the highlighted one."""
        host = self._host
        doc_id = host.selected_member()
        if doc_id is not None:
            host.app.push_screen(NeighboursScreen(doc_id, host.k, explorer=host.explorer))

    def chain_path(self) -> None:
        """The links joining the member to its representative (or to the one marked)."""
        from ditto_tui.ui.screens.chain_path import ChainPathScreen

        host = self._host
        doc_id = host.selected_member()
        if doc_id is not None:
            marked = host.marked
            other = marked[0] if len(marked) == 1 and marked[0] != doc_id else None
            host.app.push_screen(ChainPathScreen(doc_id, other, host.k, live=host.explorer))

    def open_external(self, variable: str) -> None:
        """Open the highlighted document in the program named by ``variable``."""
        doc_id = self._host.selected_member()
        if doc_id is not None:
            self._host.post_message(OpenExternal(doc_id, variable))

    def copy_path(self) -> None:
        """Copy the highlighted document's path to the clipboard."""
        host = self._host
        doc_id = host.selected_member()
        if doc_id is None:
            return
        doc = host.snapshot.documents.get(doc_id)
        path = doc.path if doc is not None else doc_id
        host.app.copy_to_clipboard(path)
        host.notify(f"Copied {path}", markup=False)
