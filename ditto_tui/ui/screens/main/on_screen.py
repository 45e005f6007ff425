"""OnScreen: what the main screen's command objects may read of it, typed.

:class:`~ditto_tui.ui.screens.main.screen.MainScreen` meets it; the command objects
(:mod:`.review_commands`, :mod:`.document_commands`) hold one and never the screen's
class, so they import nothing of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.app import App
from textual.message import Message

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.families.tree import TreeNode
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import FamilyView
from ditto_tui.ui.listing import ShownFamily

__all__ = ["OnScreen"]


class OnScreen(Protocol):
    """The view on screen with its snapshot and review state, k and grouping, the
    selection and the marks; and where a command says things, opens screens or posts."""

    @property
    def explorer(self) -> Explorer: ...

    @property
    def review(self) -> ReviewState: ...

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def view(self) -> FamilyView | None: ...

    @property
    def k(self) -> int: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def marked(self) -> list[str]:
        """The documents marked for comparison in the family on screen (two at most),
        oldest first; marks made in another family do not act here."""
        ...

    def set_marks(self, marks: list[str]) -> None:
        """Replace the marks (every family's) with ``marks``: the member list's ✓ column
        and the status line follow."""
        ...

    @property
    def tree_node(self) -> TreeNode | None:
        """The node of the family tree whose members the member list shows, if any."""
        ...

    @property
    def app(self) -> App[Any]: ...

    def selected_member(self) -> str | None:
        """The member under the member list's cursor."""
        ...

    def selected_family(self) -> ShownFamily | None:
        """The family under the family list's cursor (singletons too)."""
        ...

    def notify(self, message: str, *, title: str = "", markup: bool = True) -> None: ...

    def post_message(self, message: Message) -> bool: ...
