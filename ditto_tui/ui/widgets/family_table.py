"""FamilyTable: one row per near-duplicate family (members, diameter, representative,
excerpt or note, newest change), virtual (only the visible rows are drawn; no row cap).

A family that is trivial shows its note (``◆ empty files``, ``◆ identical``) instead of
the excerpt; a chain family far wider than k keeps its excerpt and shows the hint in the
Diameter column (``19 ≫``: try star grouping, ``g``; the member list's title says it in
full). The representative's path is cut in the middle so its file name stays.

Cells are built from :func:`~ditto_tui.ui.listing.shown` strings as plain segments: nothing
from the corpus is interpreted as markup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.message import Message

from ditto_tui.core.families.notes import IDENTICAL
from ditto_tui.explore.view import DocumentLike, FamilyState, newest_change
from ditto_tui.ui.listing import ShownFamily, format_mtime, shown
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.virtual_table import VirtualTable

COLUMNS = (
    ColumnSpec("size", "Members", 7),
    ColumnSpec("diameter", "Diameter", 8),
    ColumnSpec("name", "Representative", 18, weight=3),
    ColumnSpec("excerpt", "Excerpt", 12, weight=2, optional=True),
    ColumnSpec("newest", "Newest (UTC)", 10, weight=1, max_width=16, optional=True),
)
NOTE_MARK = "◆ "  # starts a family note in the excerpt column
WIDE_MARK = " ≫"  # after a diameter far above k: try star grouping
#: before the member count of a family marked in the review
STATE_MARKS: Mapping[FamilyState, str] = {"reviewed": "✓ ", "ignored": "⊘ "}
RIGHT_ALIGNED = frozenset({"size", "diameter"})


def is_star_hint(note: str) -> bool:
    """The note of a chain family far wider than k (``diameter D ≫ k=K: try star ...``)."""
    return note.startswith("diameter ") and "star" in note


def list_note(note: str) -> str | None:
    """A family note as the excerpt column shows it, or None when the excerpt stays (the
    star hint: the Diameter column marks it, the member list's title says it in full)."""
    if is_star_hint(note):
        return None
    if note == IDENTICAL:
        return "identical"
    return note


class FamilyTable(VirtualTable[ShownFamily]):
    """The family list. ``families`` holds what is shown, in display order."""

    COLUMNS = COLUMNS
    RIGHT_ALIGNED = RIGHT_ALIGNED
    CELL_STYLES = {"excerpt": "excerpt", "newest": "muted"}
    BOLD_ON_CURSOR = "name"
    MIDDLE_CROPPED = frozenset({"name"})
    DATE_COLUMNS = frozenset({"newest"})

    class Highlighted(Message):
        """The cursor moved to ``family`` (None when the list is empty)."""

        def __init__(self, table: FamilyTable, family: ShownFamily | None) -> None:
            super().__init__()
            self.table = table
            self.family = family

        @property
        def control(self) -> FamilyTable:
            return self.table

    class Selected(Highlighted):
        """Enter (or a click on the highlighted row) on ``family``."""

    class SortRequested(Message):
        """A column header was clicked."""

        def __init__(self, table: FamilyTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> FamilyTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.sort_key = "size"
        self.placeholder = "Loading…"  # (until the first view says what it holds)
        self._row_of: Mapping[str, int] = {}
        self._documents: Mapping[str, DocumentLike] = {}
        self._excerpts: Mapping[str, str] = {}
        self._newest: dict[str, int] = {}
        self._newest_given: Mapping[str, int] = {}
        self._notes: Mapping[str, str] = {}
        self._states: Mapping[str, FamilyState] = {}
        #: the cursor was moved (by the user, or on purpose by code): not just set by a
        #: new listing
        self.chosen = False
        #: how many times the cursor was moved that way
        self.moves = 0

    def watch_cursor_row(self, old: int, new: int) -> None:
        if old != new:  # (the watcher also runs once when the table is mounted)
            self.chosen = True
            self.moves += 1
        super().watch_cursor_row(old, new)

    # -- data ----------------------------------------------------------------------------
    @property
    def families(self) -> Sequence[ShownFamily]:
        return self.rows

    @staticmethod
    def row_key(family: ShownFamily) -> str:
        return family.centre

    def show(
        self,
        families: Sequence[ShownFamily],
        documents: Mapping[str, DocumentLike],
        excerpts: Mapping[str, str],
        *,
        keep: str | None = None,
        row_of: Mapping[str, int] | None = None,
        newest: Mapping[str, int] | None = None,
        fallback_row: int | None = None,
    ) -> None:
        """Replace the listing. The cursor goes to the family holding document ``keep``
        when there is one, else to ``fallback_row`` (e.g. the row of the same family after
        a change), else stays at the same row index; the scroll position is kept.

        ``row_of`` (member -> row) and ``newest`` (centre -> newest mtime) may be given
        precomputed (a view built in a worker): then nothing here is O(rows)."""
        self._documents = documents
        self._excerpts = excerpts
        self._newest = {}
        self._newest_given = newest or {}
        if row_of is None:
            built: dict[str, int] = {}
            for index, family in enumerate(families):
                for member in family.members:
                    built.setdefault(member, index)
            row_of = built
        self._row_of = row_of
        target = self._row_of.get(keep, -1) if keep is not None else -1
        if target < 0 and fallback_row is not None:
            target = fallback_row
        self.set_rows(families, cursor=target)

    def show_rows(
        self,
        families: Sequence[ShownFamily],
        documents: Mapping[str, DocumentLike],
        excerpts: Mapping[str, str],
        cursor: int | None,
        *,
        newest: Mapping[str, int] | None = None,
        notes: Mapping[str, str] | None = None,
        states: Mapping[str, FamilyState] | None = None,
    ) -> None:
        """Replace the listing in O(1): the cursor goes to row ``cursor`` (None: the same
        row index). :meth:`row_of` is not available afterwards (the rows' owner has it).
        ``states`` (centre -> review state) marks the member count (✓ reviewed,
        ⊘ ignored)."""
        self._documents = documents
        self._excerpts = excerpts
        self._newest = {}
        self._newest_given = newest or {}
        self._notes = notes or {}
        self._states = states or {}
        self._row_of = {}
        self.set_rows(families, cursor=cursor)

    def row_of(self, doc_id: str) -> int | None:
        """Row index of the family holding ``doc_id`` (None if not shown)."""
        return self._row_of.get(doc_id)

    @property
    def selected(self) -> ShownFamily | None:
        """The family under the cursor."""
        if 0 <= self.cursor_row < len(self.rows):
            return self.rows[self.cursor_row]
        return None

    def set_excerpt(self, centre: str, excerpt: str) -> None:
        """An excerpt arrived (already stored in the shared mapping): redraw its row if
        it is on screen."""
        top = int(self.scroll_offset.y)
        for row in range(top, min(top + self.size.height, len(self.rows))):
            if self.rows[row].centre == centre:
                self.refresh_line(row)

    # -- messages ------------------------------------------------------------------------
    def post_highlighted(self, row: int) -> None:
        self.post_message(self.Highlighted(self, self.selected))

    def post_selected(self, row: int) -> None:
        if self.selected is not None:
            self.post_message(self.Selected(self, self.selected))

    def post_header(self, key: str) -> None:
        self.post_message(self.SortRequested(self, key))

    # -- rendering ---------------------------------------------------------------------------
    def cell(self, family: ShownFamily, key: str) -> str:
        if key == "size":
            state = self._states.get(family.centre)
            return STATE_MARKS[state] + str(family.size) if state else str(family.size)
        if key == "diameter":  # ≤: an upper bound (very large families)
            text = str(family.diameter) if family.diameter_exact else f"≤{family.diameter}"
            note = self._notes.get(family.centre)
            return text + WIDE_MARK if note is not None and is_star_hint(note) else text
        if key == "name":
            return shown(family.centre)
        if key == "excerpt":
            note = self._notes.get(family.centre)
            listed = list_note(note) if note is not None else None
            if listed is not None:
                return NOTE_MARK + listed
            return self._excerpts.get(family.centre, "")
        newest = self._newest_given.get(family.centre)
        if newest is None:
            newest = self._newest.get(family.centre)
        if newest is None:
            newest = self._newest[family.centre] = newest_change(family, self._documents)
        return format_mtime(newest)
