"""TreeControl: the family tree beside the detail pane's member list.

Open or closed, what it follows (:class:`~ditto_tui.ui.widgets.family_tree.TreeContext`:
the view's k and grouping, the ignored pairs that cut families), and the node whose
members the member list shows (``node``). The tree widget computes and draws; this keeps
it in step with the family on screen: another family, k or state of the corpus computes
the tree again, star grouping or no family closes it with a notice, and a chosen node
that is no longer a node of the tree is dropped (the list shows the whole family again,
with a notice).

It drives the pane it is given (:class:`TreeHost`, which the detail pane meets): O(1) on
the UI thread; the tree is computed in the tree widget's worker.
"""

from __future__ import annotations

from typing import Protocol

from textual.message import Message

from ditto_tui.core.families.tree import TreeNode
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.widgets.borders import set_border_subtitle, set_border_title
from ditto_tui.ui.widgets.family_tree import FamilyTreeView, TreeContext
from ditto_tui.ui.widgets.member_table import MemberTable

__all__ = ["TreeControl", "TreeHost", "TreeShown"]


class TreeShown(Message):
    """The family tree opened (``shown`` True) or closed."""

    def __init__(self, shown: bool) -> None:
        super().__init__()
        self.shown = shown


class TreeHost(Protocol):
    """The pane holding the tree beside its member list, and the family it shows."""

    @property
    def family(self) -> ShownFamily | None: ...

    @property
    def snapshot(self) -> Snapshot | None: ...

    @property
    def family_tree(self) -> FamilyTreeView: ...

    @property
    def member_table(self) -> MemberTable: ...

    def set_class(self, add: bool, *class_names: str, update: bool = True) -> object: ...

    def post_message(self, message: Message) -> bool: ...

    def notify(self, message: str, *, title: str = "", markup: bool = True) -> None: ...

    def refresh_members(self) -> None:
        """Show the member list again (the tree's chosen node changed)."""
        ...


class TreeControl:
    """The tree of ``host`` (see the module docstring); ``host`` gets the class ``-tree``
    and posts :class:`TreeShown` while the tree is open."""

    def __init__(self, host: TreeHost) -> None:
        self._host = host
        self.is_open = False
        self.context = TreeContext()
        #: the chosen node of the tree: the member list shows only its members
        self.node: TreeNode | None = None

    def open(self) -> None:
        """Show the tree of the family on screen beside the members (computed in a
        worker) and focus it."""
        if self.is_open:
            return
        self.is_open = True
        host = self._host
        tree = host.family_tree
        tree.display = True
        host.set_class(True, "-tree")
        host.post_message(TreeShown(True))
        self.follow()
        if self.is_open:
            tree.focus()

    def close(self, notice: str | None = None) -> None:
        """Hide the tree (saying why: ``notice``); the member list shows the whole family
        again."""
        if not self.is_open:
            return
        host = self._host
        tree = host.family_tree
        had_focus = tree.has_focus
        self.is_open = False
        tree.forget()
        tree.display = False
        host.set_class(False, "-tree")
        host.post_message(TreeShown(False))
        if self.node is not None:
            self.node = None
            host.refresh_members()
        if had_focus:
            host.member_table.focus()
        if notice:
            host.notify(notice, title="Family tree", markup=False)

    def clear_node(self) -> bool:
        """Show every member again (esc); False when no tree node was chosen."""
        if self.node is None:
            return False
        self._host.family_tree.choose(None)
        return True

    def family_shown(self) -> None:
        """The pane shows another family or state of it: a chosen node that is not part
        of it is dropped, and the tree follows it."""
        family = self._host.family
        node = self.node
        if node is not None and (family is None or not set(node.members) <= set(family.members)):
            self.node = None  # another family: its members, all of them
            self._host.family_tree.chosen = None
        self.follow()

    def follow(self) -> None:
        """Compute the tree of the family on screen (when it changed), or close the tree."""
        if not self.is_open:
            return
        context = self.context
        if context.mode != "chain":
            self.close("Closed: the tree shows chain families (g groups as chains again).")
            return
        family, snapshot = self._host.family, self._host.snapshot
        if family is None or snapshot is None:
            self.close("Closed: no family is selected.")
            return
        tree = self._host.family_tree
        set_border_title(tree, f"Tree · k={context.k}")
        set_border_subtitle(tree, "enter: members · esc: all")
        tree.show(family.members, snapshot, context.k, context.partners, context.partners_serial)

    def chosen(self, node: TreeNode | None) -> None:
        """The user chose ``node`` in the tree (None: the root): the list shows its
        members."""
        if node is self.node:
            return
        self.node = node
        self._host.refresh_members()

    def computed(self) -> None:
        """The tree was computed again: the chosen node is the same members in it, or, when
        they are no longer one node, the list shows the whole family again."""
        if self.node is None:
            return
        chosen = self._host.family_tree.chosen
        if chosen is None:  # the chosen members are no longer one node of the tree
            self.node = None
            self._host.refresh_members()
            self._host.notify("The family changed: the member list shows all of it again.",
                              title="Family tree", markup=False)
        else:
            self.node = chosen  # the same members, in the tree computed now
