"""FamiliesPane: the family list with its title, fed whole views built off the UI thread.

The pane paints what it is given: :meth:`show_view` swaps in a
:class:`~ditto_tui.explore.view.FamilyView` (families in display order with their row map)
at the cost of a few attribute assignments, whatever the number of families. The cursor
follows the selected document, or the selected family when that document is gone (a
family keeps its identity while it changes).

A live change (files changed on disk) never moves the selected family on the screen: the
list scrolls so that it stays on the same screen row while the families around it take
their new places (the order is always the true one; only what the eye is on holds still).
A change the user asked for (k, grouping, sort, filter) scrolls as little as needed.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.containers import Vertical

from ditto_tui.explore.view import DocumentLike, FamilyView
from ditto_tui.ui.fit import Part, fit_parts
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.widgets.borders import set_border_subtitle, set_border_title
from ditto_tui.ui.widgets.family_table import FamilyTable


class FamiliesPane(Vertical):
    """The left pane: a :class:`FamilyTable` showing one view at a time."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: FamilyView | None = None

    def compose(self) -> ComposeResult:
        yield FamilyTable(id="families")

    def on_mount(self) -> None:
        set_border_title(self, "Families")

    @property
    def table(self) -> FamilyTable:
        return self.query_one(FamilyTable)

    @property
    def selected(self) -> ShownFamily | None:
        return self.table.selected

    def selected_identity(self) -> int | None:
        """Identity (in the current view) of the family under the cursor."""
        view = self.view
        row = self.table.cursor_row
        if view is None or not 0 <= row < len(view.identity):
            return None
        return view.identity[row]

    def show_view(
        self,
        view: FamilyView,
        documents: Mapping[str, DocumentLike],
        excerpts: Mapping[str, str],
        *,
        keep: str | None,
        placeholder: str,
    ) -> None:
        """Swap in ``view`` (O(1): everything was computed by the view builder). The
        cursor goes to the view's ``keep_row`` when the selection is still the one the
        view was asked for (its document, else its family), else stays on its row."""
        row = view.keep_row if keep == view.request.keep else None
        self.view = view
        table = self.table
        screen_row = table.cursor_row - int(table.scroll_offset.y)
        table.sort_key = view.request.sort
        table.placeholder = placeholder
        table.show_rows(
            view.families, documents, excerpts, row, newest=view.newest, notes=view.notes,
            states=view.states,
        )
        if view.delta is not None and row is not None and screen_row >= 0:
            # a live change: the selected family stays where the user is looking
            table.scroll_to(y=max(0, table.cursor_row - screen_row), animate=False, immediate=True)
        self._set_title()
        set_border_subtitle(self, "")

    def _set_title(self) -> None:
        """``Families at k=3 (chain) · 601 + 12 single · by size``, fitted to the border
        (the counts agree with the status line's)."""
        view = self.view
        if view is None:
            return
        request = view.request
        multi = view.shown_multi if view.shown_multi >= 0 else len(view)
        count = f"{multi:,}"
        if request.singletons and len(view) > multi:
            count += f" + {len(view) - multi:,} single"
        parts = [
            Part("Families", 0),
            Part(f" at k={request.k} ({request.mode})", 2, short=f" k={request.k}"),
            Part(count, 1, sep=" · "),
            Part(f"by {request.sort}", 3, sep=" · "),
        ]
        width = self.size.width - 4  # the corners and a space on each side
        title = fit_parts(parts, width).plain if width > 0 else "".join(
            (p.sep + p.text) for p in parts
        )
        set_border_title(self, title)

    def on_resize(self) -> None:
        self._set_title()

    def show_waiting(self, text: str = "clustering…") -> None:
        """Say that a new view is being built (the old one stays meanwhile)."""
        set_border_subtitle(self, text)
