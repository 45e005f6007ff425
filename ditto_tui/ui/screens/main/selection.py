"""Selection: the family and member the user has picked on the main screen, shown in the
detail pane and kept across views; and the family tree that follows it.

Until the user picks a family or a member, the cursors stay on the first rows while the
list fills in (a scan), instead of following whichever family happened to be first;
afterwards the pick follows its family: the explorer keeps it in every view it builds
(:meth:`~ditto_tui.explore.Explorer.set_keep`). Moving to another family drops the
member picked in the last one; the marks made there stay, but act (and count) only there.

The selection drives the panes it is given (:class:`Panes`, the main screen meets it);
what is on screen (the view, its snapshot, the review) comes with each call. O(1) on the
UI thread, except what the detail pane does with the family (its own contract).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import FamilyView
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.screens.main.view_settings import ViewSettings
from ditto_tui.ui.widgets.detail_pane import DetailPane
from ditto_tui.ui.widgets.families_pane import FamiliesPane
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.family_tree import TreeContext
from ditto_tui.ui.widgets.member_table import MemberTable

__all__ = ["Panes", "Selection", "tree_context"]


class Panes(Protocol):
    """The widgets a selection reads and drives, and where it says things."""

    @property
    def is_mounted(self) -> bool: ...

    @property
    def families_pane(self) -> FamiliesPane: ...

    @property
    def table(self) -> FamilyTable: ...

    @property
    def detail(self) -> DetailPane: ...

    @property
    def member_table(self) -> MemberTable: ...

    def notify(self, message: str, *, title: str = "", markup: bool = True) -> None: ...

    def update_status(self) -> None:
        """Say again what the status line says (the marks counted are the family's)."""
        ...


def tree_context(view: FamilyView | None, settings: ViewSettings, review: ReviewState) -> TreeContext:
    """What the family tree follows: the k and grouping of ``view`` (of ``settings`` before
    the first view), and ``review``'s ignored pairs when the view cuts families at them
    (there are some, and ignored ones are not shown)."""
    request = view.request if view is not None else None
    k = request.k if request is not None else settings.k
    mode = request.mode if request is not None else settings.mode
    show_ignored = request.show_ignored if request is not None else settings.show_ignored
    cut = bool(review.pairs) and not show_ignored
    return TreeContext(k, mode, review.partners() if cut else {}, review.serial if cut else 0)


class Selection:
    """The pick on ``panes`` (see the module docstring); ``explorer`` keeps it in views."""

    def __init__(self, panes: Panes, explorer: Explorer) -> None:
        self._panes = panes
        self._explorer = explorer
        self._family_moves = 0  # the family list's cursor moves when a family was last shown
        #: the member picked last (saved with the session)
        self.last_selected: str | None = None

    @property
    def chosen(self) -> bool:
        """Whether the user has picked a family or member (the panes are mounted)."""
        panes = self._panes
        return panes.is_mounted and (panes.table.chosen or panes.member_table.chosen)

    def keep(self) -> tuple[str | None, int | None]:
        """The member and family identity a new view should keep under the cursors:
        (None, None) until the user has picked."""
        if not self.chosen:
            return None, None
        return self._panes.detail.selected_member(), self._panes.families_pane.selected_identity()

    def show_family(
        self,
        family: ShownFamily | None,
        *,
        view: FamilyView | None,
        snapshot: Snapshot,
        pattern: str,
        tree: TreeContext,
    ) -> None:
        """Members and preview of ``family`` (the one under the cursor) of ``view``, the
        family filter of the view (``pattern`` before the first one) marking members;
        nothing is rebuilt when the detail pane shows that family already."""
        panes = self._panes
        pattern = view.request.pattern if view is not None else pattern
        table = panes.table
        if table.moves != self._family_moves:  # the user went to another family:
            self._family_moves = table.moves  # no member is picked in it yet
            panes.member_table.chosen = False
        note = None
        if family is not None and view is not None:
            note = view.notes.get(family.centre)
        detail = panes.detail
        detail.tree_control.context = tree
        detail.show_family(family, snapshot, pattern=pattern, note=note)
        if detail.marked:  # marks act in their own family only: the count shown follows
            panes.update_status()
        self.moved()

    def moved(self) -> None:
        """The highlighted member changed: remember it, and have the explorer keep it."""
        panes = self._panes
        self.last_selected = panes.detail.selected_member()
        if self.chosen:
            self._explorer.set_keep(panes.detail.selected_member(),
                                    panes.families_pane.selected_identity())
        else:
            self._explorer.set_keep(None, None)

    def toggle_tree(self, mode: str, tree: Callable[[], TreeContext]) -> None:
        """Open the family tree of the selected family beside its members (chain grouping,
        ``mode``, only; ``tree`` says what it follows), or close it."""
        panes = self._panes
        control = panes.detail.tree_control
        if control.is_open:
            control.close()
            return
        if mode != "chain":
            panes.notify("The family tree shows chain families: press g to group as chains.",
                         markup=False)
            return
        if panes.table.selected is None:
            panes.notify("Select a family first.", markup=False)
            return
        control.context = tree()
        control.open()
