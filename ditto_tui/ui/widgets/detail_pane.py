"""DetailPane: the members of the selected family and the preview of the selected member.

Attributes down: the screen sets :meth:`show_family` (a family, the snapshot it belongs
to, the marks) and the pane does the rest. Member rows of a large family are built in a
thread worker; file reads (preview, mail headers) go through the ``reader`` given at
construction (the explorer's current source) in thread workers. Nothing here blocks the
UI thread on I/O or on work proportional to the corpus.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input
from textual.worker import get_current_worker

from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.widgets.borders import set_border_subtitle, set_border_title
from ditto_tui.ui.widgets.family_tree import FamilyTreeView
from ditto_tui.ui.widgets.find_bar import FindBar, FindBarHolder
from ditto_tui.ui.widgets.mail_headers import MailHeaders
from ditto_tui.ui.widgets.member_filter import MemberFilter
from ditto_tui.ui.widgets.member_rows import (
    INLINE_MEMBERS,
    MailInfo,
    has_member,
    is_mail,
    matches_subtitle,
    matching_rows,
    member_rows,
    members_placeholder,
    members_title,
    next_match,
    same_family,
    sort_key_after,
)
from ditto_tui.ui.widgets.member_table import SORT_LABELS, Member, MemberTable
from ditto_tui.ui.widgets.preview import Preview
from ditto_tui.ui.widgets.preview_control import PreviewControl
from ditto_tui.ui.widgets.title_line import TitleLine
from ditto_tui.ui.widgets.tree_control import TreeControl


class DetailPane(FindBarHolder, Vertical):
    """Right pane: :class:`MemberTable`, a title line and the :class:`Preview`; the
    family tree (:class:`FamilyTreeView`) beside the members while it is open.

    With a family filter, the members whose path matches it are marked (» in the first
    column), the cursor goes to the first of them when the family is shown, and ``n`` in
    the member list steps through them (going round).

    The tree shows the family on screen at the k of the view (``tree_control.context``,
    from the screen); choosing one of its nodes shows only that node's members
    (``tree_control.node``) until the root is chosen or esc (:meth:`step_back`); see
    :class:`TreeControl`.

    Its parts: the rows and titles of the member list (:mod:`.member_rows`), the tree
    (:class:`TreeControl`), mail headers (:class:`MailHeaders`), the preview's document
    and heading (:class:`PreviewControl`)."""

    # Only while the member table has focus (see check_action): elsewhere the screen's
    # s (sort families) and / (filter families) apply. s and / are handled here, at once,
    # so that keys typed right after `/` go to the member filter box; . and , step through
    # the members matching the family filter (keys of their own: n is Neighbours
    # everywhere, N the review's "not a duplicate").
    BINDINGS = [
        Binding("full_stop", "next_matching(1)", "Next match", show=False, key_display="."),
        Binding("comma", "next_matching(-1)", "Previous match", show=False, key_display=","),
        Binding("s", "sort_members", "Sort members", tooltip="sort the members by the next column"),
        Binding(
            "slash", "filter_members", "Filter members",
            tooltip="show only the members matching a text (path, subject, sender)",
            key_display="/",
        ),
    ]

    class MemberHighlighted(Message):
        """The highlighted member changed (``doc_id`` None when there is none)."""

        def __init__(self, doc_id: str | None) -> None:
            super().__init__()
            self.doc_id = doc_id

    def __init__(self, reader: Callable[[], Any], *, keys_waiting: Callable[[], bool] = bool,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        #: whether keys wait for their frames (bool(): never): a large family's rows wait
        self._keys_waiting = keys_waiting
        self._rows_put_off: tuple[ShownFamily, Snapshot, str | None] | None = None
        self.family: ShownFamily | None = None
        self.snapshot: Snapshot | None = None
        self.marked: list[str] = []
        self.preview_control = PreviewControl(self, reader)
        self.mail_headers = MailHeaders(self, reader, read=self._mail_read)
        self._rows_for: tuple[Any, ...] | None = None
        self.pattern = ""
        #: old id -> new id of the documents renamed by the latest live change
        self.renames: dict[str, str] = {}
        self.matching: list[int] = []  # member rows matching the filter, in row order
        self._jumped: tuple[str, str] | None = None  # (family centre, pattern) jumped to
        #: how the member list is ordered and which members it shows (kept across families)
        self.member_sort = "distance"
        self.member_pattern = ""
        self.note: str | None = None
        self._shown_count = 0
        #: the family tree beside the members, and the node whose members they are
        self.tree_control = TreeControl(self)

    def compose(self) -> ComposeResult:
        yield MemberFilter(
            placeholders=("filter members: path, subject or sender  (/ in the list)",
                          "filter members: path, subject, sender (/)", "filter members (/)"),
            id="member-filter",
            compact=True,
        )
        with Horizontal(id="members-row"):
            yield FamilyTreeView(id="family-tree")
            yield MemberTable(id="members")
        yield TitleLine(Text("Preview"), id="preview-title")
        yield Preview(id="preview")
        yield FindBar(id="preview-find")

    def on_mount(self) -> None:
        set_border_title(self.member_table, "Members")
        self.family_tree.display = False
        preview = self.query_one(Preview)
        preview.show([], placeholder="No document selected")
        self.attach_find_bar(preview)

    @property
    def member_table(self) -> MemberTable:
        return self.query_one(MemberTable)

    @property
    def family_tree(self) -> FamilyTreeView:
        return self.query_one(FamilyTreeView)

    def selected_member(self) -> str | None:
        member = self.member_table.selected
        return member.id if member else None

    @property
    def preview(self) -> Preview:
        return self.query_one(Preview)

    @property
    def preview_title(self) -> TitleLine:
        return self.query_one("#preview-title", TitleLine)

    @property
    def previewed(self) -> str | None:
        """The document the preview shows (or is reading)."""
        return self.preview_control.document

    # -- members ------------------------------------------------------------------------
    def show_family(
        self,
        family: ShownFamily | None,
        snapshot: Snapshot,
        *,
        keep: str | None = None,
        pattern: str | None = None,
        note: str | None = None,
    ) -> None:
        """Show ``family`` of ``snapshot``; the cursor goes to ``keep`` (default: the
        highlighted member) when it is a member. ``pattern`` (default: unchanged) is the
        family filter: its matching members are marked, and the cursor goes to the first
        one the first time the family is shown for that filter. ``note`` says what the
        family is when that is trivial (shown in the title)."""
        table = self.member_table
        self.snapshot = snapshot
        if pattern is not None:
            self.pattern = pattern
        self.preview_control.known(snapshot)
        if keep is None or family is None or not has_member(family, keep):
            # the highlighted member stays only if the user picked it: a member that was
            # merely first while the family filled in (a scan) does not hold the cursor
            current = self.selected_member() if table.chosen else None
            current = self.renames.get(current, current) if current is not None else None
            keep = current if family is not None and has_member(family, current) else None
        if family is not self.family or note is not None:
            self.note = note
        if same_family(family, self.family):
            # the same family in another object (e.g. at a new k, where it did not change):
            # nothing to rebuild; workers already under way for it still land
            family = self.family
        self.family = family
        self.tree_control.family_shown()
        if family is None:
            self._rows_for = None
            self.matching = []
            table.matching = frozenset()
            set_border_subtitle(table, "")
            self._shown_count = 0
            table.show([], self.marked)
            self._set_title()
            self.show_preview(None)
            return
        node = self.tree_control.node
        state = (family, snapshot.generation, self.member_sort, self.member_pattern, self.pattern,
                 node)
        if state == self._rows_for and keep in (None, self.selected_member()):
            self._set_title()
            return
        self._rows_for = state
        if family.size <= INLINE_MEMBERS:
            rows = member_rows(
                family, snapshot, self.mail_headers.infos, sort=self.member_sort,
                pattern=self.member_pattern, only=node,
            )
            self._show_rows(family, rows, keep, matching_rows(rows, self.pattern), self.pattern)
        elif not self._keys_waiting():
            table.listing(family.size)
            self.build_rows(family, snapshot, dict(self.mail_headers.infos), keep, self.pattern)
        else:  # a key waits for its frame (maybe a held key's): built once keys settle
            table.listing(family.size)
            self._rows_put_off = (family, snapshot, keep)
        self.mail_headers.load(family, snapshot)

    def build_put_off(self) -> None:
        """Keys settled: build the rows of the large family put off meanwhile."""
        put_off, self._rows_put_off = self._rows_put_off, None
        if put_off is not None and put_off[0] is self.family:
            family, snapshot, keep = put_off
            self.build_rows(family, snapshot, dict(self.mail_headers.infos), keep, self.pattern)

    def _set_title(self) -> None:
        """The member list's border title (:func:`members_title`), fitted to the border."""
        table = self.member_table
        table.sort_key = self.member_sort
        family = self.family
        if family is None:
            set_border_title(table, "Members")
            return
        set_border_title(table, members_title(
            family, node=self.tree_control.node, shown=self._shown_count, note=self.note,
            pattern=self.member_pattern, sort=self.member_sort, width=table.size.width - 4,
        ))

    def on_resize(self) -> None:
        self._set_title()

    # -- family tree --------------------------------------------------------------------
    @on(FamilyTreeView.Chosen)
    def tree_node_chosen(self, event: FamilyTreeView.Chosen) -> None:
        event.stop()
        self.tree_control.chosen(event.node)

    @on(FamilyTreeView.Computed)
    def tree_computed(self, event: FamilyTreeView.Computed) -> None:
        event.stop()
        self.tree_control.computed()

    # -- member sort and filter ------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("sort_members", "filter_members"):
            return self.screen.focused is self.member_table
        if action == "next_matching":  # only in the member list, only with matches
            return bool(self.matching) and self.member_table.has_focus
        return True

    def action_sort_members(self) -> None:
        self.sort_members(None)

    def action_filter_members(self) -> None:
        self.query_one(MemberFilter).open()

    @on(MemberTable.SortRequested, "#members")
    def sort_requested(self, event: MemberTable.SortRequested) -> None:
        event.stop()
        self.sort_members(event.key)

    def sort_members(self, key: str | None) -> None:
        """Sort the member list by ``key`` (None: the next column of the table's cycle)."""
        key = sort_key_after(self.member_table.sort_columns(), self.member_sort, key)
        self.member_sort = key
        self.notify(f"Members by {SORT_LABELS.get(key, key)}", markup=False, timeout=2)
        self.refresh_members()

    @on(Input.Changed, "#member-filter")
    def member_filter_changed(self, event: Input.Changed) -> None:
        self.member_pattern = event.value  # (and on to the screen, which saves it)
        self.refresh_members()

    @on(Input.Submitted, "#member-filter")
    def member_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.member_table.focus()

    def clear_member_filter(self) -> bool:
        """Esc in the member filter, or in the member list while a member filter is set:
        clear it, back to the list. False when there was nothing to clear there."""
        box = self.query_one(MemberFilter)
        focused = self.screen.focused
        if focused is not box and not (focused is self.member_table and box.value):
            return False
        box.value = ""
        self.member_pattern = ""
        self.refresh_members()
        self.member_table.focus()
        return True

    def step_back(self) -> None:
        """Esc outside the family filter: clear the member filter (when in its box), else
        show all the members of a chosen tree node, else close the tree (when focused)."""
        if self.clear_member_filter():
            return
        if self.tree_control.clear_node():  # the members of a tree node: all of them again
            return
        if self.tree_control.is_open and self.family_tree.has_focus:
            self.tree_control.close()

    def next_member(self) -> None:
        """Move the member cursor one row down (it stays on the last)."""
        table = self.member_table
        if table.cursor_row < len(table.rows) - 1:
            table.move_cursor(row=table.cursor_row + 1)

    def toggle_html_source(self) -> None:
        """Show HTML as readable text, or as its source (the preview is read again)."""
        self.preview_control.html_source = not self.preview_control.html_source
        self.show_preview(self.selected_member(), force=True)

    def refresh_members(self) -> None:
        if self.family is not None and self.snapshot is not None:
            self._rows_for = None
            self.show_family(self.family, self.snapshot, keep=self.selected_member())
        else:
            self._set_title()

    @work(thread=True, exclusive=True, group="members")
    def build_rows(
        self,
        family: ShownFamily,
        snapshot: Snapshot,
        mail_infos: dict[str, MailInfo],
        keep: str | None,
        pattern: str,
    ) -> None:
        worker = get_current_worker()
        rows = member_rows(
            family, snapshot, mail_infos, sort=self.member_sort, pattern=self.member_pattern,
            only=self.tree_control.node,
        )
        matching = matching_rows(rows, pattern)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_rows, family, rows, keep, matching, pattern)

    def _show_rows(
        self,
        family: ShownFamily,
        rows: list[Member],
        keep: str | None,
        matching: list[int],
        pattern: str,
    ) -> None:
        if family is not self.family or pattern != self.pattern:
            return  # another family or filter meanwhile: dropped
        self.member_table.listed()
        if keep is None and self.member_table.chosen:
            keep = self.selected_member()
        self.matching = matching
        if matching and self._jumped != (family.centre, pattern):
            self._jumped = (family.centre, pattern)
            if keep not in {rows[i].id for i in matching}:
                keep = rows[matching[0]].id  # the first member that matched the filter
            self.member_table.chosen = True  # held like a member the user picked
        mail = is_mail(family, self.snapshot.documents if self.snapshot is not None else {})
        table = self.member_table
        matching_ids = frozenset(rows[i].id for i in matching)
        placeholder = members_placeholder(self.member_pattern)
        # the same rows drawn the same way (e.g. a filter key that matches the same
        # members): nothing to repaint
        repaint = matching_ids != table.matching or placeholder != table.placeholder
        table.matching = matching_ids
        table.placeholder = placeholder
        self._shown_count = len(rows)
        if rows != table.members or mail != table.mail or keep != self.selected_member():
            table.show(rows, self.marked, keep=keep, mail=mail)
        elif repaint:
            table.refresh()
        self._set_title()
        self._say_matches()
        self.show_preview(self.selected_member())

    def _say_matches(self) -> None:
        """The member list's subtitle: how many members match the filter, and the keys."""
        table = self.member_table
        if not self.pattern.strip() or self.family is None:
            set_border_subtitle(table, "")
            return
        set_border_subtitle(table, matches_subtitle(self.matching, table.cursor_row))

    def action_next_matching(self, direction: int) -> None:
        """Move the member cursor to the next (or previous) member matching the filter."""
        table = self.member_table
        target, went_round = next_match(self.matching, table.cursor_row, direction)
        if went_round:
            self.app.bell()
        table.move_cursor(row=target)

    def set_marked(self, marked: list[str]) -> None:
        self.marked = marked
        self.member_table.set_marked(marked)

    @on(MemberTable.RowHighlighted, "#members")
    def member_highlighted(self) -> None:
        self._say_matches()
        doc_id = self.selected_member()
        self.show_preview(doc_id)
        self.post_message(self.MemberHighlighted(doc_id))

    # -- preview ------------------------------------------------------------------------
    def forget(self, ids: frozenset[str] | set[str], snapshot: Snapshot | None = None) -> None:
        """Documents changed on disk: drop what was read of them; reread the preview
        (its heading from ``snapshot``, the newest, when given: size and time now)."""
        for doc_id in ids:
            self.mail_headers.infos.pop(doc_id, None)
        if self.previewed is not None and (self.previewed in ids or self.preview_control.failed):
            self.show_preview(self.selected_member(), force=True, snapshot=snapshot)

    def reset(self) -> None:
        """A new corpus source: forget marks, mail headers and the preview."""
        self.marked.clear()
        self.member_table.set_marked(self.marked)
        self.mail_headers.infos.clear()
        self._rows_for = None
        self.show_preview(None, force=True)

    def show_preview(
        self, doc_id: str | None, *, force: bool = False, snapshot: Snapshot | None = None
    ) -> None:
        """Preview ``doc_id`` (None: none) under its heading (name, kind, size,
        fingerprint, from ``snapshot``, else the family's); the same document again only
        with ``force``."""
        snapshot = snapshot if snapshot is not None else self.snapshot
        self.preview_control.show(doc_id, snapshot, force=force)

    # -- mail headers -------------------------------------------------------------------
    def _mail_read(self, family: ShownFamily) -> None:
        """Headers of ``family``'s messages were read: its rows show them."""
        if self.family is family:
            self.refresh_members()
