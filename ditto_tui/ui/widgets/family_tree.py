"""FamilyTreeView: the selected chain family as a tree by k, beside the member list.

Attributes down: the detail pane calls :meth:`FamilyTreeView.show` with the family's
members, the snapshot they belong to, k and the ignored pairs. The tree is computed in a
thread worker (:func:`~ditto_tui.core.families.tree.family_tree` over the snapshot's
fingerprints: a family of thousands costs a fraction of a second there, nothing on the
UI thread) and drawn lazily: a node's children are added when it is first expanded, at
most ``CHILD_LIMIT`` of them (the rest summed up on one line). The same family at the same
k computed again (a live change elsewhere in the corpus) keeps the tree as it is.

Messages up: :class:`FamilyTreeView.Chosen` when the user picks a node (enter, or a
click): the node whose members the member list should show, or None for the root (the
whole family).

A label is fitted to its line: ``k=2  5 docs  diam 4  name`` (``k2  5  d4  name`` when
narrow); a node too wide for its k is marked ``◆ too wide``, a leaf of several documents
``identical`` (one fingerprint); the chosen node starts with ``●``. The representative's
name is data: escaped (:func:`~ditto_tui.ui.listing.shown`), never markup, and cropped
in its middle with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode as UINode
from textual.worker import get_current_worker

from ditto_tui.core.families.tree import TreeNode, family_tree
from ditto_tui.ui.fit import Part, fit_parts
from ditto_tui.ui.internals import number_tree_lines, redraw_tree_lines
from ditto_tui.ui.listing import shown

__all__ = ["CHILD_LIMIT", "FamilyTreeView", "TreeContext", "node_label_parts"]

#: children shown under one node; the rest are summed up on one line
CHILD_LIMIT = 200
#: a computed tree opens level by level while it shows at most this many lines
OPEN_LINES = 30


@dataclass(frozen=True)
class TreeContext:
    """What the tree of the family on screen follows: the view's ``k`` and grouping
    (``mode``), and the review's ignored pairs when they cut families (``partners``: each
    document's ignored partners, empty when they do not cut; ``partners_serial`` changes
    with them)."""

    k: int = 0
    mode: str = "chain"
    partners: Mapping[str, frozenset[str]] = field(default_factory=dict)
    partners_serial: int = 0


@dataclass(frozen=True, eq=False)
class Item:
    """What a line of the tree stands for: a family of the tree (``node``), or the line
    summing up ``more`` sub-families of ``docs`` documents left out (``node`` None)."""

    node: TreeNode | None
    more: int = 0
    docs: int = 0


def node_label_parts(node: TreeNode, *, chosen: bool = False) -> list[Part]:
    """The parts of a node's label: ``k=2  5 docs  diam 4  name``, with ``◆ too wide``
    after the diameter of a node too wide for its k and ``identical`` for a leaf of several
    documents; short forms ``k=2  5  d4 ◆  name`` before the name is cut below a dozen
    cells; then the diameter goes, and the name is cut further only as the last resort."""
    parts = []
    if chosen:
        parts.append(Part("●", 0, "bold"))
    parts.append(Part(f"k={node.k}", 0, sep=" "))
    if node.size > 1:
        parts.append(Part(f"{node.size:,} docs", 0, short=f"{node.size:,}", sep="  "))
        if node.is_leaf:
            parts.append(Part("identical", 3, short="≡", sep="  "))
        else:
            about = "" if node.diameter_exact else "≤"
            parts.append(Part(f"diam {about}{node.diameter}", 2,
                              short=f"d{about}{node.diameter}", sep="  "))
    if node.too_wide:
        parts.append(Part("◆ too wide", 0, "bold", short="◆", sep=" "))
    parts.append(Part(shown(node.representative), 1, crop="middle", min_cells=14, sep="  "))
    return parts


#: what a tree shows, node by node in walk order: k, size, diameter (exact or not),
#: representative, a leaf's documents and the number of children
Shape = tuple[tuple[int, int, int, bool, str, tuple[str, ...], int], ...]
#: what a tree is computed from: the members, k, the snapshot's generation and epoch, and
#: the serial of the ignored pairs
TreeKey = tuple[tuple[str, ...], int, int, int, int]


def _shape(node: TreeNode) -> Shape:
    """What a tree shows, comparable (the same family computed again compares equal)."""
    return tuple((n.k, n.size, n.diameter, n.diameter_exact, n.representative, n.leaf_members,
                  len(n.children)) for n in node.walk())


def _find(root: TreeNode, members: tuple[str, ...]) -> TreeNode | None:
    """The node of ``root`` holding exactly ``members``."""
    for node in root.walk():
        if node.size == len(members) and node.members == members:
            return node
    return None


class FamilyTreeView(Tree[Item]):
    """The tree of one chain family: the family at k, its sub-families at every lower k
    where it splits, down to documents with one fingerprint."""

    DEFAULT_CSS = """
    FamilyTreeView > .family-tree--wide { color: $warning; }
    FamilyTreeView > .family-tree--chosen { color: $accent; }
    FamilyTreeView > .family-tree--more { color: $foreground-muted; }
    """
    COMPONENT_CLASSES = {"family-tree--wide", "family-tree--chosen", "family-tree--more"}

    BINDINGS = [
        Binding("right", "expand_or_child", "Open", show=False),
        Binding("left", "collapse_or_parent", "Close", show=False),
    ]

    class Chosen(Message):
        """The user picked ``node`` (None: the root, the whole family)."""

        def __init__(self, node: TreeNode | None) -> None:
            super().__init__()
            self.node = node

    class Computed(Message):
        """A tree was computed: ``kept`` False when the chosen node is no longer in it."""

        def __init__(self, root: TreeNode | None, kept: bool) -> None:
            super().__init__()
            self.root = root
            self.kept = kept

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("Family tree", id=id, classes=classes)
        self.auto_expand = False  # enter chooses a node; space and → open it
        self.guide_depth = 3
        self.result: TreeNode | None = None
        self.chosen: TreeNode | None = None
        self.computing = False
        self._key: TreeKey | None = None
        self._serial = 0
        self._shape: Shape | None = None
        self._filled: set[int] = set()

    # -- input ----------------------------------------------------------------------------
    def show(
        self,
        members: Sequence[str],
        snapshot: Any,
        k: int,
        partners: Mapping[str, frozenset[str]],
        partners_serial: int = 0,
    ) -> None:
        """The tree of the family of ``members`` at ``k`` (documents ignored with each
        other in ``partners`` are not linked); computed again only when one of them, or
        the snapshot, changed."""
        key = (tuple(members), k, snapshot.generation, snapshot.epoch, partners_serial)
        if key == self._key:
            return
        self._key = key
        self._serial += 1
        self.computing = True
        if self.result is None or self.result.members != key[0] or self.result.k != k:
            self._say(f"Computing the tree of {len(members):,} documents…")
        keep = self.chosen.members if self.chosen is not None else None
        self._compute(self._serial, key[0], snapshot, k, partners, keep)

    def forget(self) -> None:
        """Drop the tree (closed): the next :meth:`show` computes it anew."""
        self._key = None
        self._serial += 1
        self.result = self.chosen = None
        self._shape = None
        self.computing = False
        self.workers.cancel_group(self, "family-tree")

    @work(thread=True, exclusive=True, group="family-tree")
    def _compute(self, serial: int, members: tuple[str, ...], snapshot: Any, k: int,
                 partners: Mapping[str, frozenset[str]], keep: tuple[str, ...] | None) -> None:
        worker = get_current_worker()
        fps = snapshot.fingerprints
        present = [m for m in members if m in fps]
        root: TreeNode | None = None
        chosen: TreeNode | None = None
        shape: Shape | None = None
        if present:
            ignored: list[tuple[str, str]] = []
            if partners:
                inside = set(present)
                ignored = [(a, b) for a in present for b in partners.get(a, ())
                           if a < b and b in inside]
            root = family_tree(present, [int(fps[m]) for m in present], k, ignored=ignored)
            if keep is not None:
                chosen = _find(root, keep)
            shape = _shape(root)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_result, serial, root, chosen, keep, shape)

    def _show_result(self, serial: int, root: TreeNode | None, chosen: TreeNode | None,
                     keep: tuple[str, ...] | None, shape: Shape | None) -> None:
        if serial != self._serial:
            return  # asked for another family meanwhile
        self.computing = False
        kept = keep is None or chosen is not None
        if root is None:
            self.result = self.chosen = None
            self._shape = None
            self._say("No document of this family is left.")
        elif shape == self._shape and self.result is not None:
            # the same tree again (a change elsewhere): as it is, expansions kept
            self.result, self.chosen = root, chosen
            self._rebind(root)
        else:
            self.result, self.chosen, self._shape = root, chosen, shape
            self._populate(root)
        self.post_message(self.Computed(root, kept))

    # -- drawing ---------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.clear()
        self._filled.clear()
        self.root.data = None
        self.root.set_label(Text(text))
        self.root.allow_expand = False

    def _populate(self, root: TreeNode) -> None:
        self.clear()
        self._filled.clear()
        self.root.data = Item(root)
        self.root.set_label(Text(" "))
        self.root.allow_expand = not root.is_leaf
        self._fill(self.root)
        self.root.expand()
        # open level by level while everything open fits in a screenful
        shown_lines = 1 + len(self.root.children)
        level = list(self.root.children)
        while level:
            below = sum(len(n.data.node.children) if n.data and n.data.node else 0 for n in level)
            if not below or shown_lines + below > OPEN_LINES:
                break
            nxt: list[UINode[Item]] = []
            for n in level:
                if n.data is not None and n.data.node is not None and n.data.node.children:
                    self._fill(n)
                    n.expand()
                    nxt.extend(n.children)
            shown_lines += below
            level = nxt
        self.cursor_line = self._line_of(self.chosen) if self.chosen is not None else 0

    def _rebind(self, root: TreeNode) -> None:
        """Point the lines at the nodes of ``root``, an equal tree computed again."""
        by_order = list(root.walk())
        old = self.root.data.node if self.root.data is not None else None
        where = {id(n): i for i, n in enumerate(old.walk())} if old is not None else {}
        stack = [self.root]
        while stack:
            line = stack.pop()
            item = line.data
            if item is not None and item.node is not None and id(item.node) in where:
                line.data = Item(by_order[where[id(item.node)]])
            stack.extend(line.children)
        redraw_tree_lines(self)

    def _fill(self, line: UINode[Item]) -> None:
        """Add the children of the family on ``line`` (once)."""
        if line.id in self._filled or line.data is None or line.data.node is None:
            return
        self._filled.add(line.id)
        children = line.data.node.children
        for child in children[:CHILD_LIMIT]:
            if child.is_leaf:
                line.add_leaf(Text(" "), Item(child))
            else:
                line.add(Text(" "), Item(child))
        rest = children[CHILD_LIMIT:]
        if rest:
            line.add_leaf(Text(" "), Item(None, len(rest), sum(c.size for c in rest)))

    def _line_of(self, node: TreeNode) -> int:
        """The line showing ``node`` (opening its ancestors); 0 when it has none."""
        path: list[TreeNode] = []

        def find(current: TreeNode) -> bool:
            path.append(current)
            if current is node:
                return True
            for c in current.children:
                if node.size <= c.size and find(c):
                    return True
            path.pop()
            return False

        if self.result is None or not find(self.result):
            return 0
        line = self.root
        for target in path[1:]:
            self._fill(line)
            line.expand()
            found = next((c for c in line.children if c.data is not None and c.data.node is target), None)
            if found is None:
                return 0
            line = found
        number_tree_lines(self)  # (each node's line number)
        return max(0, line.line)

    def render_label(self, node: UINode[Item], base_style: Style, style: Style) -> Text:
        item = node.data
        depth = 0
        parent = node.parent
        while parent is not None:
            depth += 1
            parent = parent.parent
        icon = 2 if node.allow_expand else 0
        # room for the vertical scrollbar kept: a label never runs under it
        room = min(self.scrollable_content_region.width,
                   self.size.width - self.styles.scrollbar_size_vertical)
        width = room - depth * self.guide_depth - icon
        if item is None:
            label = node.label.copy() if isinstance(node.label, Text) else Text(str(node.label))
            label.truncate(max(1, width), overflow="ellipsis")
        elif item.node is None:
            label = fit_parts([Part(f"… {item.more:,} more sub-families ({item.docs:,} docs)", 0,
                                    short=f"… {item.more:,} more")], width)
            label.stylize(self.get_component_rich_style("family-tree--more", partial=True))
        else:
            chosen = item.node is self.chosen
            label = fit_parts(node_label_parts(item.node, chosen=chosen), width)
            if item.node.too_wide:
                at = label.plain.find("◆")
                if at >= 0:
                    end = at + (10 if label.plain.startswith("◆ too wide", at) else 1)
                    label.stylize(self.get_component_rich_style("family-tree--wide", partial=True),
                                  at, end)
            if chosen:
                label.stylize(self.get_component_rich_style("family-tree--chosen", partial=True), 0, 1)
        label.stylize(style)
        if node.allow_expand:
            prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
            return Text.assemble(prefix, label)
        return label

    # -- keys ----------------------------------------------------------------------------------
    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[Item]) -> None:
        self._fill(event.node)

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[Item]) -> None:
        event.stop()
        item = event.node.data
        if item is None or item.node is None:
            if item is not None:
                self.notify("These sub-families are left out of the tree (the largest "
                            f"{CHILD_LIMIT} are listed).", markup=False)
            return
        self.choose(None if event.node.is_root else item.node)

    def choose(self, node: TreeNode | None) -> None:
        """Make ``node`` the chosen one (None: none) and say so up."""
        self.chosen = node
        redraw_tree_lines(self)
        self.post_message(self.Chosen(node))

    def action_expand_or_child(self) -> None:
        line = self.cursor_node
        if line is None or not line.allow_expand:
            return
        if not line.is_expanded:
            line.expand()
        elif line.children:
            self.move_cursor(line.children[0])

    def action_collapse_or_parent(self) -> None:
        line = self.cursor_node
        if line is None:
            return
        if line.allow_expand and line.is_expanded and not line.is_root:
            line.collapse()
        elif line.parent is not None:
            self.move_cursor(line.parent)
