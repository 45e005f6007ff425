"""MemberTable: the documents of one family: file name and folder, distance to the
representative (with its similarity), file size, modification time, and subject/sender
for mail. A ✓ marks documents chosen for comparison. Virtual: a family of any size is
shown whole (no row cap).

The table paints the rows it is given; the pane that owns it sorts and filters them
(:func:`sort_members`, :func:`filter_members`, off the UI thread for large families) and
binds ``s`` and ``/`` while the table has focus; a click on a header asks for that column.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from textual.message import Message

from ditto_tui.core.text.id_filter import id_matcher
from ditto_tui.ui.fit import split_path
from ditto_tui.ui.listing import format_mtime, format_size, path_cell, shown
from ditto_tui.ui.widgets.bit_diff import similarity_text
from ditto_tui.ui.widgets.borders import set_border_subtitle
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.virtual_table import VirtualTable

COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("name", "Name", 16, weight=3),
    ColumnSpec("distance", "To rep.", 7),
    ColumnSpec("similarity", "Similar", 7, optional=True, drop=2),
    ColumnSpec("folder", "Folder", 8, weight=2, optional=True, drop=1),
    ColumnSpec("size", "File size", 9, optional=True, drop=3),
    ColumnSpec("modified", "Modified (UTC)", 10, weight=1, max_width=16, optional=True, drop=4),
    ColumnSpec("decision", "Decision", 10),
)
MAIL_COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("name", "Name", 10, weight=2),
    ColumnSpec("distance", "To rep.", 7),
    ColumnSpec("subject", "Subject", 12, weight=3, optional=True),
    ColumnSpec("sender", "From", 10, weight=2, optional=True),
    ColumnSpec("similarity", "Similar", 7, optional=True, drop=2),
    ColumnSpec("folder", "Folder", 8, weight=1, optional=True, drop=1),
    ColumnSpec("size", "File size", 9, optional=True, drop=3),
    ColumnSpec("modified", "Modified (UTC)", 10, weight=1, max_width=16, optional=True, drop=4),
    ColumnSpec("decision", "Decision", 10),
)
#: how a decision reads in the Decision column (a stale one: "stale " before it)
DECISION_LABELS = {"keep": "keep", "duplicate": "duplicate", "not-duplicate": "not dup"}
#: what ``s`` cycles through (mail adds subject and sender)
SORT_ORDER = ("distance", "name", "folder", "size", "modified")
MAIL_SORT_ORDER = ("distance", "name", "subject", "sender", "folder", "size", "modified")
SORT_LABELS = {
    "distance": "distance to the representative",
    "name": "name",
    "folder": "folder",
    "size": "file size (largest first)",
    "modified": "modification time (newest first)",
    "subject": "subject",
    "sender": "sender",
    "similarity": "distance to the representative",
}


@dataclass(frozen=True, slots=True)
class Member:
    """One row of the member list (``distance`` to the family's representative)."""

    id: str
    distance: int
    size: int
    mtime_ns: int
    subject: str = ""
    sender: str = ""


def _sort_key(key: str) -> Callable[[Member], tuple[Any, ...]]:
    if key == "name":
        return lambda m: (split_path(m.id)[0].casefold(), m.id)
    if key == "folder":
        return lambda m: (split_path(m.id)[1].casefold(), split_path(m.id)[0].casefold(), m.id)
    if key == "size":
        return lambda m: (-m.size, m.id)
    if key == "modified":
        return lambda m: (-m.mtime_ns, m.id)
    if key == "subject":
        return lambda m: (m.subject.casefold(), m.id)
    if key == "sender":
        return lambda m: (m.sender.casefold(), m.id)
    return lambda m: (m.distance, m.id)


def sort_members(members: Sequence[Member], key: str) -> list[Member]:
    """Members in display order for sort ``key`` (see :data:`SORT_LABELS`); ties by id.
    O(n log n): call it off the UI thread for large families."""
    return sorted(members, key=_sort_key(key))


def filter_members(members: Sequence[Member], pattern: str) -> list[Member]:
    """Members whose path matches ``pattern`` (substring or glob, as the family filter),
    or whose subject or sender contains it (mail). Every member for a blank pattern."""
    if not pattern.strip():
        return list(members)
    match = id_matcher(pattern)
    needle = pattern.strip().casefold()
    return [
        m
        for m in members
        if match(m.id) or needle in m.subject.casefold() or needle in m.sender.casefold()
    ]


def _has_decisions(review: Any) -> bool:
    """Whether ``review`` (a ReviewState, or None) holds any decision, current or stale."""
    return review is not None and review.active and bool(review.decisions or review.stale)


class MemberTable(VirtualTable[Member]):
    """Member list of the selected family."""

    DEFAULT_CSS = """
    MemberTable > .member-table--match { color: $accent; }
    MemberTable > .member-table--outdated { color: $foreground-disabled; }
    """
    COMPONENT_CLASSES = VirtualTable.COMPONENT_CLASSES | {
        "member-table--match", "member-table--outdated",
    }
    COLUMNS = COLUMNS
    RIGHT_ALIGNED = frozenset({"distance", "similarity", "size"})
    CELL_STYLES = {"modified": "muted", "folder": "muted"}
    MIDDLE_CROPPED = frozenset({"name"})
    LEFT_CROPPED = frozenset({"folder"})
    DATE_COLUMNS = frozenset({"modified"})

    class SortRequested(Message):
        """Sort by ``key`` (None: the next column)."""

        def __init__(self, table: MemberTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> MemberTable:
            return self.table

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
        self.sort_key = "distance"
        #: the rows are another family's (the family shown is being listed): dimmed
        self.outdated = False

    def watch_cursor_row(self, old: int, new: int) -> None:
        if old != new:  # (the watcher also runs once when the table is mounted)
            self.chosen = True
        super().watch_cursor_row(old, new)

    @property
    def members(self) -> Sequence[Member]:
        return self.rows

    def column_specs(self) -> Sequence[ColumnSpec]:
        columns = MAIL_COLUMNS if self.mail else COLUMNS
        if not _has_decisions(self.review):
            return tuple(c for c in columns if c.key != "decision")
        return columns

    def set_review(self, review: Any) -> None:
        """Show the decisions of ``review`` (a ReviewState): the Decision column is there
        only while the review holds some decision (current or stale)."""
        had = _has_decisions(self.review)
        self.review = review
        if had != _has_decisions(review):
            self.relayout()
        self.refresh()

    def sort_columns(self) -> tuple[str, ...]:
        """The sort columns ``s`` cycles through."""
        return MAIL_SORT_ORDER if self.mail else SORT_ORDER

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

    def header_label(self, spec: ColumnSpec) -> str:
        if spec.key == "name" and "folder" not in self.shown_keys:
            return "Path"
        return spec.label

    def cell(self, member: Member, key: str) -> str:
        if key == "mark":
            if member.id in self._marked:
                return "✓"
            return "»" if member.id in self.matching else " "
        if key in ("name", "folder"):  # the whole path under name when the folder is not shown
            return path_cell(member.id, key, self.shown_keys)
        if key == "distance":
            return str(member.distance)
        if key == "similarity":
            return similarity_text(member.distance)
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

    def listing(self, size: int) -> None:
        """The rows of another family (``size`` members) are being built: the rows on
        screen are dimmed and the bottom border says so, until :meth:`listed`."""
        set_border_subtitle(self, f"listing {size:,} members…")
        if not self.outdated:
            self.outdated = True
            self.refresh()

    def listed(self) -> None:
        """The rows shown are the family's (see :meth:`listing`)."""
        if self.outdated:
            self.outdated = False
            set_border_subtitle(self, "")
            self.refresh()

    def row_style(self, row: Member) -> Style:
        if self.outdated:
            return self.cached_style("member-table--outdated", partial=True)
        if row.id in self.matching:
            return self.cached_style("member-table--match", partial=True)
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

    # -- intentions --------------------------------------------------------------------
    def post_header(self, key: str) -> None:
        if key in SORT_LABELS:
            self.post_message(self.SortRequested(self, key))
