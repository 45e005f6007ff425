"""MemberTable: the documents of one family with distance to the representative, size,
modification time, and subject/sender for mail. A ✓ marks documents chosen for comparison."""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from ditto_tui.ui.listing import format_mtime, format_size, shown
from ditto_tui.ui.widgets.columns import ColumnSpec, fit_columns

COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("path", "Path", 24, weight=1),
    ColumnSpec("distance", "Dist", 4),
    ColumnSpec("size", "Size", 8, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 16, optional=True),
)
MAIL_COLUMNS = (
    ColumnSpec("mark", "✓", 1),
    ColumnSpec("path", "Path", 20, weight=2),
    ColumnSpec("distance", "Dist", 4),
    ColumnSpec("subject", "Subject", 12, weight=3, optional=True),
    ColumnSpec("sender", "From", 10, weight=2, optional=True),
    ColumnSpec("size", "Size", 8, optional=True),
    ColumnSpec("modified", "Modified (UTC)", 16, optional=True),
)


@dataclass(frozen=True, slots=True)
class Member:
    """One row of the member list (``distance`` to the family's representative)."""

    id: str
    distance: int
    size: int
    mtime_ns: int
    subject: str = ""
    sender: str = ""


class MemberTable(DataTable):
    """Member list of the selected family; rows keyed by document id."""

    DEFAULT_CSS = """
    MemberTable { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.members: list[Member] = []

        self.mail = False
        self._layout: list[tuple[ColumnSpec, int]] = []
        self._columns: list[str] = []
        self._marked: Collection[str] = ()

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        if self._fit():
            keep = self.selected.id if self.selected else None
            self.show(self.members, self._marked, keep=keep, mail=self.mail)

    def _fit(self) -> bool:
        """Rebuild the columns for the current width and kind; True if they changed."""
        layout = fit_columns(MAIL_COLUMNS if self.mail else COLUMNS, max(self.size.width - 2, 30))
        if layout == self._layout:
            return False
        self._layout = layout
        self.clear(columns=True)
        for spec, width in layout:
            self.add_column(Text(spec.label), width=width, key=spec.key)
        self._columns = [spec.key for spec, _width in layout]
        return True

    def show(
        self,
        members: Sequence[Member],
        marked: Collection[str],
        *,
        keep: str | None = None,
        mail: bool = False,
    ) -> None:
        """Replace the rows; the cursor goes to ``keep`` when it is a member, else row 0.
        ``mail`` adds Subject and From columns."""
        self.members = list(members)
        self._marked = marked
        self.mail = mail
        if not self._fit():
            self.clear()
        for member in self.members:
            cells = self._cells(member, member.id in marked)
            self.add_row(*(cells[key] for key in self._columns), key=member.id)
        ids = [m.id for m in self.members]
        if keep in ids:
            self.move_cursor(row=ids.index(keep))

    @staticmethod
    def _cells(member: Member, marked: bool) -> dict[str, Text]:
        return {
            "mark": Text("✓" if marked else " ", style="bold"),
            "path": Text(shown(member.id), no_wrap=True, overflow="ellipsis"),
            "distance": Text(str(member.distance), justify="right"),
            "size": Text(format_size(member.size), justify="right"),
            "modified": Text(format_mtime(member.mtime_ns), style="dim"),
            "subject": Text(shown(member.subject), no_wrap=True, overflow="ellipsis"),
            "sender": Text(shown(member.sender), no_wrap=True, overflow="ellipsis"),
        }

    def set_marked(self, marked: Collection[str]) -> None:
        """Redraw the ✓ column for the current rows."""
        self._marked = marked
        for member in self.members:
            with contextlib.suppress(CellDoesNotExist, RowDoesNotExist, KeyError):
                self.update_cell(
                    member.id, "mark", Text("✓" if member.id in marked else " ", style="bold")
                )

    @property
    def selected(self) -> Member | None:
        if not self.members or not 0 <= self.cursor_row < len(self.members):
            return None
        return self.members[self.cursor_row]
