"""MemberFilter: the detail pane's box that filters the member list (``/`` in the list).

Out of the tab order except while in use: :meth:`MemberFilter.open` makes it focusable
and focuses it, and it leaves the tab order again when it loses focus. Its value is the
filter; the pane follows its ``Input.Changed``.
"""

from __future__ import annotations

from textual import on
from textual.widgets import Input

from ditto_tui.ui.widgets.fitted_input import FittedInput

__all__ = ["MemberFilter"]


class MemberFilter(FittedInput):
    """A :class:`~ditto_tui.ui.widgets.fitted_input.FittedInput` that is focusable only while in use."""

    def on_mount(self) -> None:
        self.can_focus = False

    def open(self) -> None:
        """Let the user type a filter (focus the box)."""
        self.can_focus = True
        self.screen.set_focus(self)

    @on(Input.Blurred)
    def left(self, event: Input.Blurred) -> None:
        event.stop()
        self.can_focus = False
