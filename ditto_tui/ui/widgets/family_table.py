"""FamilyTable: one row per near-duplicate family (size, diameter, newest change,
representative, excerpt).

Rows are keyed by the family's representative. Every cell is a ``rich.text.Text`` built from
:func:`~ditto_tui.ui.listing.shown` strings: DataTable would interpret a plain ``str`` as
markup, and a file named ``[bold]x`` must display as such.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from ditto_tui.ui.listing import DocumentLike, FamilyLike, format_mtime, newest_change, shown
from ditto_tui.ui.widgets.columns import ColumnSpec, fit_columns

COLUMNS = (
    ColumnSpec("size", "Size", 4),
    ColumnSpec("diameter", "Diam", 4),
    ColumnSpec("name", "Representative", 20, weight=5),
    ColumnSpec("excerpt", "Excerpt", 10, weight=4, optional=True),
    ColumnSpec("newest", "Newest (UTC)", 16, optional=True),
)


FIRST_ROWS = 60
CHUNK_ROWS = 300


class FamilyTable(DataTable):
    """The family list. ``families`` holds what is shown, in display order."""

    DEFAULT_CSS = """
    FamilyTable { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            id=id, classes=classes, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="renderable"
        )
        self.families: list[FamilyLike] = []
        self._row_of: dict[str, int] = {}
        self._layout: list[tuple[ColumnSpec, int]] = []
        self._documents: Mapping[str, DocumentLike] = {}
        self._excerpts: Mapping[str, str] = {}
        self._fill_generation = 0

    def on_mount(self) -> None:
        self._fit(self.size.width)

    def on_resize(self) -> None:
        if self._fit(self.size.width):
            self.show(self.families, self._documents, self._excerpts)

    def _fit(self, width: int) -> bool:
        """Rebuild the columns for ``width`` if their layout changes; True if it did."""
        layout = fit_columns(COLUMNS, max(width - 2, 40))
        if layout == self._layout:
            return False
        self._layout = layout
        self.clear(columns=True)
        for spec, size in layout:
            self.add_column(Text(spec.label), width=size, key=spec.key)
        return True

    @staticmethod
    def row_key(family: FamilyLike) -> str:
        return family.centre

    def show(
        self,
        families: Sequence[FamilyLike],
        documents: Mapping[str, DocumentLike],
        excerpts: Mapping[str, str],
        *,
        keep: str | None = None,
    ) -> None:
        """Replace the rows with ``families``. The cursor goes to the family holding document
        ``keep`` when there is one, else stays at the same row index; the scroll position is
        kept.

        Only the rows up to a screenful past the cursor are added at once; the rest follow in
        chunks on later frames, so a listing of thousands of families repaints at once.
        ``families`` (the attribute) always holds the complete listing.
        """
        old_row = self.cursor_row
        scroll_y = self.scroll_y
        self._documents = documents
        self._excerpts = excerpts
        self._row_of = {}
        unique = []
        keys: set[str] = set()
        for family in families:
            key = self.row_key(family)
            if key in keys:
                continue  # never expected: families are disjoint
            keys.add(key)
            index = len(unique)
            unique.append(family)
            self._row_of[key] = index
            for member in family.members:
                self._row_of.setdefault(member, index)
        self.families = unique
        self._fill_generation += 1
        self.clear()
        target = self._row_of.get(keep, -1) if keep is not None else -1
        if target < 0:
            target = min(max(old_row, 0), max(len(unique) - 1, 0))
        first = max(FIRST_ROWS, target + self.size.height + 1, int(scroll_y) + self.size.height + 1)
        self._fill(first)
        if unique:
            self.scroll_y = scroll_y
            self.move_cursor(row=target, scroll=target != old_row)
        if self.row_count < len(unique):
            self._schedule_fill(self._fill_generation)

    def _fill(self, upto: int) -> None:
        """Add the rows of ``families`` up to index ``upto`` (exclusive)."""
        start = self.row_count
        stop = min(upto, len(self.families))
        for family in self.families[start:stop]:
            self.add_row(*self._cells(family, self._documents, self._excerpts), key=self.row_key(family))

    def _schedule_fill(self, generation: int) -> None:
        def more() -> None:
            if generation != self._fill_generation:
                return  # a newer listing replaced this one
            self._fill(self.row_count + CHUNK_ROWS)
            if self.row_count < len(self.families):
                self._schedule_fill(generation)

        self.set_timer(0.02, more)

    @property
    def complete(self) -> bool:
        """True when every family of the listing has its row."""
        return self.row_count == len(self.families)

    def _cells(
        self, family: FamilyLike, documents: Mapping[str, DocumentLike], excerpts: Mapping[str, str]
    ) -> list[Text]:
        cells = {
            "size": lambda: Text(str(family.size), justify="right"),
            "diameter": lambda: Text(str(family.diameter), justify="right"),
            "name": lambda: Text(shown(family.centre), no_wrap=True, overflow="ellipsis"),
            "excerpt": lambda: Text(
                excerpts.get(family.centre, ""), no_wrap=True, overflow="ellipsis", style="italic"
            ),
            "newest": lambda: Text(format_mtime(newest_change(family, documents)), style="dim"),
        }
        return [cells[spec.key]() for spec, _width in self._layout]

    def set_excerpt(self, centre: str, excerpt: str) -> None:
        """Fill in the excerpt cell of the family represented by ``centre``, if shown."""
        if not any(spec.key == "excerpt" for spec, _width in self._layout):
            return
        with contextlib.suppress(CellDoesNotExist, RowDoesNotExist, KeyError):
            self.update_cell(
                centre, "excerpt", Text(excerpt, no_wrap=True, overflow="ellipsis", style="italic")
            )

    def row_of(self, doc_id: str) -> int | None:
        """Row index of the family holding ``doc_id`` (None if not shown)."""
        return self._row_of.get(doc_id)

    @property
    def selected(self) -> FamilyLike | None:
        """The family under the cursor."""
        if not self.families or self.cursor_row < 0 or self.cursor_row >= len(self.families):
            return None
        return self.families[self.cursor_row]
