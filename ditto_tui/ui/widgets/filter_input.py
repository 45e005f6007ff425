"""FilterInput: a one-line Input for a filter whose typing is answered in one frame.

Two differences from Textual's Input, both for typing speed in a large corpus:

- Its width is fixed by the layout, so the screen is not laid out again at every key
  (Textual's Input sets ``virtual_size`` per edit, a reactive that lays out the whole
  screen: about 10 ms per key at 120x40, more than drawing the changed widgets).
- ``on_edit`` (given by the owner) runs as soon as the value changes, before anything
  is drawn: the owner can hold the frame until the answer (the filtered list) is ready,
  so that the typed character and the list it selects appear together.

:meth:`FilterInput.open` focuses the box and builds the search text of what it filters
in a worker while the user starts typing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events, on, work
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.ui.widgets.fitted_input import FittedInput

__all__ = ["FILTER_PLACEHOLDERS", "FilterInput"]

#: the family filter box's placeholders, longest first (the first that fits is shown)
FILTER_PLACEHOLDERS = ("filter: path substring or glob  (/)", "filter: path or glob (/)",
                       "filter (/)")


class FilterInput(FittedInput):
    """A :class:`~ditto_tui.ui.widgets.fitted_input.FittedInput` of fixed size;
    ``on_edit()`` runs per edit. Out of the tab order except while in use (opened with
    ``/`` or a click): letters typed in the list never become filter text by surprise."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
    #: (a class default: Input's constructor sets a given value, which runs the watcher)
    _on_edit: Callable[[], None] | None = None

    def __init__(self, *args: Any, on_edit: Callable[[], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_edit = on_edit

    def watch_value(self) -> None:
        if self._on_edit is not None and self.is_mounted:
            self._on_edit()

    def on_mount(self) -> None:
        self.can_focus = False

    def open(self, listing: FamilyListing | None) -> None:
        """Focus the box to filter ``listing`` (the families at the current k)."""
        self.can_focus = True
        self.focus()
        self.prepare_search(listing)

    @on(events.Click)
    def clicked(self) -> None:
        self.can_focus = True
        self.focus()

    @on(Input.Blurred)
    def left(self, event: Input.Blurred) -> None:
        self.can_focus = False

    @work(thread=True, exclusive=True, group="search")
    def prepare_search(self, listing: FamilyListing | None) -> None:
        """Build the listing's search text while the user starts typing (at 100,000
        documents about 0.1 s, else paid by the first key)."""
        if listing is not None:
            listing.prepare_search()
