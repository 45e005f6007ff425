"""MemberTable: the documents of one family with distance to the representative, size,
modification time, and subject/sender for mail. A ✓ marks documents chosen for comparison.
Virtual: a family of any size is shown whole (no row cap)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style

from ditto_tui.ui.listing import format_mtime, format_size, shown
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.virtual_table import VirtualTable

COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("path", "Path", 24, weight=1),
    ColumnSpec("distance", "Dist", 4),
    ColumnSpec("size", "Size", 8, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 16, optional=True),
    ColumnSpec("decision", "Decision", 10),
)
MAIL_COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("path", "Path", 20, weight=2),
    ColumnSpec("distance", "Dist", 4),
    ColumnSpec("subject", "Subject", 12, weight=3, optional=True),
    ColumnSpec("sender", "From", 10, weight=2, optional=True),
    ColumnSpec("size", "Size", 8, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 16, optional=True),
    ColumnSpec("decision", "Decision", 10),
)
#: how a decision reads in the Decision column (a stale one: "stale " before it)
DECISION_LABELS = {"keep": "keep", "duplicate": "duplicate", "not-duplicate": "not dup"}


@dataclass(frozen=True, slots=True)
class Member:
    """One row of the member list (``distance`` to the family's representative)."""

    id: str
    distance: int
    size: int
    mtime_ns: int
    subject: str = ""
    sender: str = ""


class MemberTable(VirtualTable):
    """Member list of the selected family."""

    DEFAULT_CSS = """
    MemberTable > .member-table--match { color: $accent; }
    """
    COMPONENT_CLASSES = VirtualTable.COMPONENT_CLASSES | {"member-table--match"}
    COLUMNS = COLUMNS
    RIGHT_ALIGNED = frozenset({"distance", "size"})
    CELL_STYLES = {"modified": "muted"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.mail = False
        self._marked: Collection[str] = ()
        self.review: Any = None  # an explore.review.ReviewState (None: no Decision column)
        self.placeholder = "No family selected"
        #: members whose path matches the family filter (» in the first column)
        self.matching: Collection[str] = frozenset()
        #: the cursor was moved (by the user, or on purpose by code) in this family
        self.chosen = False

    def watch_cursor_row(self, old: int, new: int) -> None:
        if old != new:  # (the watcher also runs once when the table is mounted)
            self.chosen = True
        super().watch_cursor_row(old, new)

    @property
    def members(self) -> Sequence[Member]:
        return self.rows

    def column_specs(self) -> Sequence[ColumnSpec]:
        columns = MAIL_COLUMNS if self.mail else COLUMNS
        if self.review is None or not self.review.active:
            return tuple(c for c in columns if c.key != "decision")
        return columns

    def set_review(self, review: Any) -> None:
        """Show the decisions of ``review`` (a ReviewState; inactive: no Decision column)."""
        had = self.review is not None and self.review.active
        self.review = review
        if had != (review is not None and review.active):
            self.relayout()
        self.refresh()

    def show(
        self,
        members: Sequence[Member],
        marked: Collection[str],
        *,
        keep: str | None = None,
        mail: bool = False,
    ) -> None:
        """Replace the rows; the cursor goes to ``keep`` when it is a member, else row 0.
        ``mail`` adds Subject and From columns. O(rows) only to find ``keep``."""
        self._marked = marked
        if mail != self.mail:
            self.mail = mail
            self.relayout()
        row = 0
        if keep is not None:
            row = next((i for i, m in enumerate(members) if m.id == keep), 0)
        self.set_rows(members, cursor=row)

    def cell(self, member: Member, key: str) -> str:
        if key == "mark":
            if member.id in self._marked:
                return "✓"
            return "»" if member.id in self.matching else " "
        if key == "path":
            return shown(member.id)
        if key == "distance":
            return str(member.distance)
        if key == "size":
            return format_size(member.size)
        if key == "modified":
            return format_mtime(member.mtime_ns)
        if key == "subject":
            return shown(member.subject)
        if key == "sender":
            return shown(member.sender)
        if key == "decision" and self.review is not None:
            value, stale = self.review.decision(member.id)
            if value is None:
                return ""
            label = DECISION_LABELS.get(value, value)
            return f"stale {label}" if stale else label
        return ""

    def row_style(self, row: Member) -> Style:
        if row.id in self.matching:
            return self.get_component_rich_style("member-table--match", partial=True)
        return Style()

    def set_marked(self, marked: Collection[str]) -> None:
        """Redraw the ✓ column for the current rows."""
        self._marked = marked
        self.refresh()

    @property
    def selected(self) -> Member | None:
        if not self.rows or not 0 <= self.cursor_row < len(self.rows):
            return None
        return self.rows[self.cursor_row]
