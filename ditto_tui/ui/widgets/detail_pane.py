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

from ditto_tui.core.display import html_text, visible_lines
from ditto_tui.core.family_tree import TreeNode
from ditto_tui.core.id_filter import id_matcher
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.fit import Part, fit_parts
from ditto_tui.ui.listing import FamilyLike, format_size, shown
from ditto_tui.ui.widgets.borders import set_border_subtitle, set_border_title
from ditto_tui.ui.widgets.family_tree import FamilyTreeView, TreeContext
from ditto_tui.ui.widgets.find_bar import FindBar, FindBarHolder
from ditto_tui.ui.widgets.member_table import (
    SORT_LABELS,
    Member,
    MemberTable,
    filter_members,
    sort_members,
)
from ditto_tui.ui.widgets.preview import Preview
from ditto_tui.ui.widgets.title_line import TitleLine

PREVIEW_LIMIT = 4 * 1024 * 1024
MAIL_KINDS = ("maildir", "mbox")
INLINE_MEMBERS = 300  # larger families get their rows built in a worker


def member_rows(
    family: FamilyLike,
    snapshot: Snapshot,
    mail_infos: dict[str, tuple[str, str, str]],
    *,
    sort: str = "distance",
    pattern: str = "",
    only: TreeNode | None = None,
) -> list[Member]:
    """The member rows of ``family``: distance to the representative, size, time, mail
    headers when known; those matching ``pattern`` (all when blank) and, with ``only``
    (a node of the family's tree), those of that node; sorted by ``sort`` (default
    (distance, id)). O(family size · log)."""
    fps = snapshot.fingerprints
    documents = snapshot.documents
    centre = fps.get(family.centre, 0)
    members = []
    inside = frozenset(only.members) if only is not None else None
    for doc_id in family.members:
        if inside is not None and doc_id not in inside:
            continue
        fp = fps.get(doc_id)
        if fp is None:
            continue
        doc = documents.get(doc_id)
        subject, sender, _ = mail_infos.get(doc_id, ("", "", ""))
        members.append(
            Member(
                doc_id,
                (fp ^ centre).bit_count(),
                doc.size if doc else 0,
                doc.mtime_ns if doc else 0,
                subject,
                sender,
            )
        )
    return sort_members(filter_members(members, pattern), sort)


def same_family(a: FamilyLike | None, b: FamilyLike | None) -> bool:
    """Whether ``a`` and ``b`` show the same: members, representative and diameter."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return (
        a.centre == b.centre
        and a.diameter == b.diameter
        and getattr(a, "diameter_exact", True) == getattr(b, "diameter_exact", True)
        and tuple(a.members) == tuple(b.members)
    )


def matching_rows(rows: list[Member], pattern: str) -> list[int]:
    """Indices of the rows whose path matches the family filter ``pattern`` (the rule of
    the filter box: substring or glob); none when there is no pattern. O(rows)."""
    if not pattern.strip():
        return []
    match = id_matcher(pattern)
    return [index for index, member in enumerate(rows) if match(member.id)]


class DetailPane(FindBarHolder, Vertical):
    """Right pane: :class:`MemberTable`, a title line and the :class:`Preview`; the
    family tree (:class:`FamilyTreeView`) beside the members while it is open.

    With a family filter, the members whose path matches it are marked (» in the first
    column), the cursor goes to the first of them when the family is shown, and ``n`` in
    the member list steps through them (going round).

    The tree shows the family on screen at the k of the view (``set_tree_context``, from
    the screen); choosing one of its nodes shows only that node's members (``tree_node``)
    until the root is chosen or :meth:`clear_tree_node` (esc). Another family, k or
    state of the corpus computes the tree again: a chosen node whose members are still a
    node of it stays chosen, else the filter goes, with a notice. Star grouping or no
    family closes the tree, with a notice."""

    # Only while the member table has focus (see check_action): elsewhere the screen's
    # s (sort families), / (filter families) and n (neighbours) apply. s and / are handled
    # here, at once, so that keys typed right after `/` go to the member filter box; n
    # steps through the members matching the family filter (N is the review's "not a
    # duplicate" on the main screen).
    BINDINGS = [
        Binding("n", "next_matching(1)", "Next match", show=False),
        Binding("s", "sort_members", "Sort members", tooltip="sort the members by the next column"),
        Binding(
            "slash", "filter_members", "Filter members",
            tooltip="show only the members matching a text (path, subject, sender)",
            key_display="/",
        ),
    ]

    class TreeShown(Message):
        """The family tree opened (``shown`` True) or closed."""

        def __init__(self, shown: bool) -> None:
            super().__init__()
            self.shown = shown

    class MemberHighlighted(Message):
        """The highlighted member changed (``doc_id`` None when there is none)."""

        def __init__(self, doc_id: str | None) -> None:
            super().__init__()
            self.doc_id = doc_id

    def __init__(self, reader: Callable[[], Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._reader = reader
        self.family: FamilyLike | None = None
        self.snapshot: Snapshot | None = None
        self.marked: list[str] = []
        self.html_source = False
        self.previewed: str | None = None
        self.preview_failed = False
        self._preview_unknown = False
        self.mail_infos: dict[str, tuple[str, str, str]] = {}
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
        #: the family tree: open or not, and what the screen shows (k, grouping, the
        #: ignored pairs of the review when they cut families)
        self.tree_open = False
        self.tree_context = TreeContext()
        #: the chosen node of the tree: the member list shows only its members
        self.tree_node: TreeNode | None = None

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="filter members: path, subject or sender  (/ in the list)",
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
        self.query_one("#member-filter", Input).can_focus = False
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

    # -- members ------------------------------------------------------------------------
    def show_family(
        self,
        family: FamilyLike | None,
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
        if self._preview_unknown and self.previewed in snapshot.documents:
            # shown before its document was known (kind, size): show it again, whole
            self.show_preview(self.previewed, force=True)
        if keep is None or family is None or keep not in family.members:
            # the highlighted member stays only if the user picked it: a member that was
            # merely first while the family filled in (a scan) does not hold the cursor
            current = self.selected_member() if table.chosen else None
            current = self.renames.get(current, current) if current is not None else None
            keep = current if family is not None and current in family.members else None
        if family is not self.family or note is not None:
            self.note = note
        if same_family(family, self.family):
            # the same family in another object (e.g. at a new k, where it did not change):
            # nothing to rebuild; workers already under way for it still land
            family = self.family
        self.family = family
        node = self.tree_node
        if node is not None and (family is None or not set(node.members) <= set(family.members)):
            self.tree_node = None  # another family: its members, all of them
            self.family_tree.chosen = None
        self._sync_tree()
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
        node = self.tree_node
        state = (family, snapshot.generation, self.member_sort, self.member_pattern, self.pattern,
                 node)
        if state == self._rows_for and keep in (None, self.selected_member()):
            self._set_title()
            return
        self._rows_for = state
        if family.size <= INLINE_MEMBERS:
            rows = member_rows(
                family, snapshot, self.mail_infos, sort=self.member_sort,
                pattern=self.member_pattern, only=node,
            )
            self._show_rows(family, rows, keep, matching_rows(rows, self.pattern), self.pattern)
        else:
            self.build_rows(family, snapshot, dict(self.mail_infos), keep, self.pattern)
        self.load_mail_infos(family)

    def _set_title(self) -> None:
        """``Members · 3,274 · diameter 9 · identical fingerprints · 12 match "x" · by name``
        fitted to the border."""
        table = self.member_table
        table.sort_key = self.member_sort
        family = self.family
        if family is None:
            set_border_title(table, "Members")
            return
        node = self.tree_node
        if node is not None:  # only the members of a node of the tree
            count = f"{self._shown_count:,}"
            parts = [
                Part("Members", 0),
                Part(f"{count} of {family.size:,} in tree node k={node.k}", 0,
                     short=f"{count}/{family.size:,} · node k={node.k}", sep=" · "),
                Part("esc: all", 2, sep=" · "),
                Part(f"diameter {node.diameter}", 3, short=f"diam. {node.diameter}", sep=" · ",
                     quiet=True),
            ]
        else:
            parts = [Part("Members", 0), Part(f"{family.size:,}", 0, sep=" · ")]
        if node is None and not (self.note or "").startswith("diameter"):  # (the star hint says it)
            parts.append(
                Part(f"diameter {family.diameter}", 3, short=f"diam. {family.diameter}", sep=" · ")
            )
        if self.note and node is None:
            parts.append(Part(self.note, 1, crop="right", min_cells=12, sep=" · "))
        if self.member_pattern.strip():
            parts.append(
                Part(f"{self._shown_count:,} match {self.member_pattern.strip()!r}", 2,
                     short=f"{self._shown_count:,} match", sep=" · ")
            )
        if self.member_sort != "distance":
            parts.append(Part(f"by {self.member_sort}", 4, sep=" · "))
        width = table.size.width - 4
        set_border_title(
            table,
            fit_parts(parts, width).plain
            if width > 0
            else "".join((p.sep if i else "") + p.text for i, p in enumerate(parts)),
        )

    def on_resize(self) -> None:
        self._set_title()

    # -- family tree --------------------------------------------------------------------
    def set_tree_context(self, context: TreeContext) -> None:
        """What the tree follows: the view's k and grouping, and the ignored pairs that cut
        its families (empty when they do not)."""
        self.tree_context = context

    def open_tree(self) -> None:
        """Show the family tree beside the members (computed in a worker) and focus it."""
        if self.tree_open:
            return
        self.tree_open = True
        tree = self.family_tree
        tree.display = True
        self.add_class("-tree")
        self.post_message(self.TreeShown(True))
        self._sync_tree()
        if self.tree_open:
            tree.focus()

    def close_tree(self, notice: str | None = None) -> None:
        """Hide the tree; the member list shows the whole family again."""
        if not self.tree_open:
            return
        tree = self.family_tree
        had_focus = tree.has_focus
        self.tree_open = False
        tree.forget()
        tree.display = False
        self.remove_class("-tree")
        self.post_message(self.TreeShown(False))
        if self.tree_node is not None:
            self.tree_node = None
            self._refresh_members()
        if had_focus:
            self.member_table.focus()
        if notice:
            self.notify(notice, title="Family tree", markup=False)

    def clear_tree_node(self) -> bool:
        """Show every member again (esc); False when no tree node was chosen."""
        if self.tree_node is None:
            return False
        self.family_tree.choose(None)
        return True

    def _sync_tree(self) -> None:
        """Compute the tree of the family on screen (when it changed), or close it."""
        if not self.tree_open:
            return
        context = self.tree_context
        if context.mode != "chain":
            self.close_tree("Closed: the tree shows chain families (g groups as chains again).")
            return
        family, snapshot = self.family, self.snapshot
        if family is None or snapshot is None:
            self.close_tree("Closed: no family is selected.")
            return
        tree = self.family_tree
        set_border_title(tree, f"Tree · k={context.k}")
        set_border_subtitle(tree, "enter: members · esc: all")
        tree.show(family.members, snapshot, context.k, context.partners, context.partners_serial)

    @on(FamilyTreeView.Chosen)
    def tree_node_chosen(self, event: FamilyTreeView.Chosen) -> None:
        event.stop()
        if event.node is self.tree_node:
            return
        self.tree_node = event.node
        self._refresh_members()

    @on(FamilyTreeView.Computed)
    def tree_computed(self, event: FamilyTreeView.Computed) -> None:
        event.stop()
        chosen = self.family_tree.chosen
        if self.tree_node is None:
            return
        if chosen is None:  # the chosen members are no longer one node of the tree
            self.tree_node = None
            self._refresh_members()
            self.notify("The family changed: the member list shows all of it again.",
                        title="Family tree", markup=False)
        else:
            self.tree_node = chosen  # the same members, in the tree computed now

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
        box = self.query_one("#member-filter", Input)
        box.can_focus = True  # out of the tab order except while in use
        self.screen.set_focus(box)

    @on(Input.Blurred, "#member-filter")
    def member_filter_left(self, event: Input.Blurred) -> None:
        event.stop()
        event.input.can_focus = False

    @on(MemberTable.SortRequested, "#members")
    def sort_requested(self, event: MemberTable.SortRequested) -> None:
        event.stop()
        self.sort_members(event.key)

    def sort_members(self, key: str | None) -> None:
        """Sort the member list by ``key`` (None: the next column of the table's cycle)."""
        order = self.member_table.sort_columns()
        if key == "similarity":
            key = "distance"
        if key is None:
            index = order.index(self.member_sort) if self.member_sort in order else -1
            key = order[(index + 1) % len(order)]
        self.member_sort = key
        self.notify(f"Members by {SORT_LABELS.get(key, key)}", markup=False, timeout=2)
        self._refresh_members()

    @on(Input.Changed, "#member-filter")
    def member_filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.member_pattern = event.value
        self._refresh_members()

    @on(Input.Submitted, "#member-filter")
    def member_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.member_table.focus()

    def clear_member_filter(self) -> bool:
        """Esc in the member filter: clear it, hide it, back to the list. False when the
        filter box was not focused."""
        box = self.query_one("#member-filter", Input)
        if self.screen.focused is not box:
            return False
        box.value = ""
        self.member_pattern = ""
        self._refresh_members()
        self.member_table.focus()
        return True

    def step_back(self) -> None:
        """Esc outside the family filter: clear the member filter (when in its box), else
        show all the members of a chosen tree node, else close the tree (when focused)."""
        if self.clear_member_filter():
            return
        if self.clear_tree_node():  # the members of a tree node: all of them again
            return
        if self.tree_open and self.family_tree.has_focus:
            self.close_tree()

    def next_member(self) -> None:
        """Move the member cursor one row down (it stays on the last)."""
        table = self.member_table
        if table.cursor_row < len(table.rows) - 1:
            table.move_cursor(row=table.cursor_row + 1)

    def toggle_html_source(self) -> None:
        """Show HTML as readable text, or as its source (the preview is read again)."""
        self.html_source = not self.html_source
        self.show_preview(self.selected_member(), force=True)

    def _refresh_members(self) -> None:
        if self.family is not None and self.snapshot is not None:
            self._rows_for = None
            self.show_family(self.family, self.snapshot, keep=self.selected_member())
        else:
            self._set_title()

    @work(thread=True, exclusive=True, group="members")
    def build_rows(
        self,
        family: FamilyLike,
        snapshot: Snapshot,
        mail_infos: dict[str, tuple[str, str, str]],
        keep: str | None,
        pattern: str,
    ) -> None:
        rows = member_rows(
            family, snapshot, mail_infos, sort=self.member_sort, pattern=self.member_pattern,
            only=self.tree_node,
        )
        matching = matching_rows(rows, pattern)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_rows, family, rows, keep, matching, pattern)

    def _show_rows(
        self,
        family: FamilyLike,
        rows: list[Member],
        keep: str | None,
        matching: list[int],
        pattern: str,
    ) -> None:
        if family is not self.family or pattern != self.pattern:
            return  # another family or filter meanwhile: dropped
        if keep is None and self.member_table.chosen:
            keep = self.selected_member()
        self.matching = matching
        if matching and self._jumped != (family.centre, pattern):
            self._jumped = (family.centre, pattern)
            if keep not in {rows[i].id for i in matching}:
                keep = rows[matching[0]].id  # the first member that matched the filter
            self.member_table.chosen = True  # held like a member the user picked
        mail = self._is_mail(family)
        table = self.member_table
        matching_ids = frozenset(rows[i].id for i in matching)
        placeholder = (
            f"No member matches {self.member_pattern.strip()!r} (esc in the box clears it)"
            if self.member_pattern.strip()
            else "No family selected"
        )
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
        count = len(self.matching)
        where = ""
        row = table.cursor_row
        if count and row in self.matching:
            where = f"{self.matching.index(row) + 1} of "
        noun = "member matches" if count == 1 else "members match"
        set_border_subtitle(table, f"» {where}{count:,} {noun} the filter · n: next")

    def action_next_matching(self, direction: int) -> None:
        """Move the member cursor to the next (or previous) member matching the filter."""
        table, matching = self.member_table, self.matching
        row = table.cursor_row
        if direction > 0:
            after = [r for r in matching if r > row]
            target = after[0] if after else matching[0]
        else:
            before = [r for r in matching if r < row]
            target = before[-1] if before else matching[-1]
        if (direction > 0 and not after) or (direction < 0 and not before):
            self.app.bell()  # went round
        table.move_cursor(row=target)

    def _is_mail(self, family: FamilyLike) -> bool:
        documents = self.snapshot.documents if self.snapshot is not None else {}
        for m in family.members[:64]:
            doc = documents.get(m)
            if doc is not None and doc.kind in MAIL_KINDS:
                return True
        return False

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
    def forget(self, ids: frozenset[str] | set[str]) -> None:
        """Documents changed on disk: drop what was read of them; reread the preview."""
        for doc_id in ids:
            self.mail_infos.pop(doc_id, None)
        if self.previewed is not None and (self.previewed in ids or self.preview_failed):
            self.show_preview(self.selected_member(), force=True)

    def reset(self) -> None:
        """A new corpus source: forget marks, mail headers and the preview."""
        self.marked.clear()
        self.member_table.set_marked(self.marked)
        self.mail_infos.clear()
        self._rows_for = None
        self.show_preview(None, force=True)

    def show_preview(self, doc_id: str | None, *, force: bool = False) -> None:
        if doc_id == self.previewed and not force:
            return
        self.previewed = doc_id
        self.preview_failed = False
        preview = self.query_one(Preview)
        title = self.query_one("#preview-title", TitleLine)
        if doc_id is None:
            preview.show([], placeholder="No document selected")
            title.update(Text("Preview"))
            return
        snapshot = self.snapshot
        doc = snapshot.documents.get(doc_id) if snapshot is not None else None
        heading = [Part(shown(doc_id), 3, "bold", crop="middle", min_cells=8)]
        if doc is not None:
            heading.append(Part(doc.kind, 0, sep="  "))
            heading.append(Part(format_size(doc.size), 0, sep=" · "))
            if doc.kind == "html":
                heading.append(
                    Part("source" if self.html_source else "text (h: source)", 4,
                         short="source" if self.html_source else "text", sep=" · ",
                         quiet=True)
                )
        if snapshot is not None and doc_id in snapshot:
            fp = f"{snapshot.fingerprint(doc_id):016x}"
            # narrow: the first 8 digits, so that the file name keeps a place
            heading.append(Part(fp, 1, short=fp[:8] + "…", sep=" · "))
        title.update(heading)
        self._preview_unknown = doc is None
        self.load_preview(doc_id, doc.kind if doc else "text", self.html_source)

    @work(thread=True, exclusive=True, group="preview")
    def load_preview(self, doc_id: str, kind: str, source: bool) -> None:
        worker = get_current_worker()
        try:
            text = self._reader().read_text(doc_id, limit=PREVIEW_LIMIT)
        except Exception as exc:  # the corpus reports why; show it instead of the text
            if not worker.is_cancelled:
                self.app.call_from_thread(self._show_failure, doc_id, str(exc))
            return
        if kind == "html" and not source:
            text = html_text(text)
        lines = visible_lines(text)
        header = 0
        if kind in MAIL_KINDS:  # the message's own header block, up to the first blank line
            header = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_lines, doc_id, lines, header)

    def _show_failure(self, doc_id: str, reason: str) -> None:
        if doc_id != self.previewed:
            return
        self.preview_failed = True
        self.query_one(Preview).show([], placeholder=f"cannot read: {reason}")

    def _show_lines(self, doc_id: str, lines: list[str], header_lines: int) -> None:
        if doc_id != self.previewed:
            return
        self.query_one(Preview).show(
            lines, header_lines=header_lines, placeholder="(empty document)"
        )

    # -- mail headers -------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="mail")
    def load_mail_infos(self, family: FamilyLike) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        documents = snapshot.documents
        wanted = [
            m
            for m in family.members[:2000]
            if m not in self.mail_infos
            and (doc := documents.get(m)) is not None
            and doc.kind in MAIL_KINDS
        ]
        if not wanted:
            return
        reader = self._reader()
        found = {}
        for doc_id in wanted:
            try:
                info = reader.mail_info(doc_id)
            except Exception:
                info = None
            found[doc_id] = (info.subject, info.sender, info.date) if info else ("", "", "")
        self.app.call_from_thread(self._set_mail_infos, family, found)

    def _set_mail_infos(self, family: FamilyLike, found: dict[str, tuple[str, str, str]]) -> None:
        self.mail_infos.update(found)
        if self.family is family and self.snapshot is not None:
            self._rows_for = None
            self.show_family(family, self.snapshot, keep=self.selected_member())
