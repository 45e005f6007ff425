"""FindBar: the one-line find / go-to-line bar under a searchable view.

The holder (the detail pane, the compare screen) mixes in :class:`FindBarHolder`: it
attaches its bar to a view mixing in :class:`~ditto_tui.ui.widgets.searchable.Searchable`
and forwards the view's messages: :meth:`FindBar.open` for ``FindRequested``,
:meth:`FindBar.show_status` for ``FindChanged``.
Typing searches as you type; enter returns to the view (n/N then move between matches),
escape ends the find and returns. In "line" mode enter goes to the line typed.
What the bar shows is a ``Text`` built from plain strings: never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.dom import DOMNode
from textual.widgets import Input

from ditto_tui.ui.widgets.searchable import FindChanged, FindRequested, Searchable
from ditto_tui.ui.widgets.title_line import TitleLine


class FindBar(Horizontal):
    """Hidden until opened; ``mode`` is "find" or "line"."""

    DEFAULT_CSS = """
    FindBar {
        height: 1;
        display: none;
        background: $panel;
    }
    FindBar.-open { display: block; }
    FindBar > #find-label { width: auto; padding: 0 1; color: $accent; text-style: bold; }
    FindBar > Input { width: 1fr; }
    FindBar > #find-status { width: 24; padding: 0 1; }
    """

    BINDINGS = [Binding("escape", "close", "Close", show=False)]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.target: Searchable | None = None
        self.mode = "find"

    def compose(self) -> ComposeResult:
        yield TitleLine(Text("Find"), id="find-label")
        yield Input(placeholder="text to find (lower case: any case)", compact=True)
        yield TitleLine(Text(""), id="find-status")

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    def open(self, mode: str) -> None:
        """Show the bar in ``mode`` and put the cursor in it."""
        self.mode = mode
        field = self.input
        label = self.query_one("#find-label", TitleLine)
        if mode == "line":
            label.update(Text("Go to line"))
            field.placeholder = "line number, then enter"
            field.value = ""
            self.show_status(Text(""))
        else:
            label.update(Text("Find"))
            field.placeholder = "text to find (lower case: any case)"
            field.value = self.target.find_query if self.target is not None else ""
        self.add_class("-open")
        field.focus()

    def show_status(self, status: Text, active: bool = True) -> None:
        """What the search found ("3 of 17"); ``active`` False hides the bar."""
        self.query_one("#find-status", TitleLine).update(status)
        if not active and self.mode == "find" and not self.input.has_focus:
            self.remove_class("-open")

    def _back(self) -> None:
        target = self.target
        if target is not None:
            target.focus()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.mode == "find" and self.target is not None and event.value != self.target.find_query:
            self.target.search(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        target = self.target
        if target is None:
            return
        if self.mode == "line":
            error = target.find_go_to(event.value)
            if error:
                self.show_status(Text(error, style="bold red"))
                return
            if target.find_query:  # a find is still active: the bar shows it again
                self.open("find")
                self.show_status(target.find_status())
            else:
                self.remove_class("-open")
        elif not event.value:
            self.remove_class("-open")
        self._back()

    def action_close(self) -> None:
        """Escape: end the find (or leave go-to-line) and return to the view."""
        self.remove_class("-open")
        if self.mode == "find" and self.target is not None:
            self.target.search("")
        self._back()


if TYPE_CHECKING:  # the mixin is always mixed into a widget or screen: type it as one
    _HolderBase = DOMNode
else:  # (not a DOMNode at run time: Textual takes the CSS of the first DOMNode base)
    _HolderBase = object


class FindBarHolder(_HolderBase):
    """Mixin for the widget or screen that holds a :class:`FindBar` and the view it searches:
    :meth:`attach_find_bar` wires them, and the view's messages reach the bar (handlers by
    name, which Textual finds through any base class)."""

    def attach_find_bar(self, target: Searchable) -> None:
        """Make the (only) find bar below this holder search ``target``."""
        bar = self.query_one(FindBar)
        bar.target = target
        target.open_find_bar = bar.open

    def on_find_requested(self, event: FindRequested) -> None:
        event.stop()
        self.query_one(FindBar).open(event.mode)

    def on_find_changed(self, event: FindChanged) -> None:
        event.stop()
        self.query_one(FindBar).show_status(event.status, event.active)
