"""Searchable: find and go-to-line for a scrolling text view (the preview, the comparison).

A view mixes this in and says what it shows (:meth:`Searchable.find_sides`: one list of
display lines, or two for a comparison, with the display row of each line) and how to
bring a row into sight. The search itself runs in a thread worker
(:func:`~ditto_tui.core.text.find.find_in_sides`: vectorised); a result for an older query is
dropped by a counter, so typing never waits for a search. The view posts
:class:`FindRequested` (open the bar) and :class:`FindChanged` (what the bar should say)
upwards; whoever holds the :class:`~ditto_tui.ui.widgets.find_bar.FindBar` wires the two.

Keys while the view has focus: ``/`` find, ``n``/``N`` next/previous match (only while a
find is active: otherwise the key keeps its meaning on the screen), ``:`` or ``ctrl+g`` go
to line, ``escape`` ends the find.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from ditto_tui.core.text.find import Found, find_in_sides

FIND_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("slash", "open_find", "Find", key_display="/"),
    Binding("n", "next_match", "Next match"),
    Binding("N", "previous_match", "Prev match"),
    Binding("colon,ctrl+g", "open_go_to", "Go to line", key_display=":", show=False),
    Binding("escape", "end_find", "End find", show=False),
]

FIND_CSS = """
{name} > .find--match {{ background: $warning 35%; color: $foreground; }}
{name} > .find--current {{ background: $accent; color: $background; text-style: bold; }}
"""

FIND_CLASSES = {"find--match", "find--current"}


class FindRequested(Message):
    """The user asked for the find bar (``mode`` "find") or the go-to-line bar ("line")."""

    def __init__(self, view: Searchable, mode: str) -> None:
        super().__init__()
        self.view = view
        self.mode = mode


class FindChanged(Message):
    """What the find bar should say changed; ``active`` False: the find ended."""

    def __init__(self, view: Searchable, status: Text, active: bool) -> None:
        super().__init__()
        self.view = view
        self.status = status
        self.active = active


if TYPE_CHECKING:  # the mixin is always mixed into a widget: type it as one
    _WidgetBase = Widget
else:
    _WidgetBase = object


class Searchable(_WidgetBase):
    """Mixin for a ``ScrollView`` (put it first among the bases). See the module docstring."""

    found: Found | None = None
    #: set by the holder of the find bar: opens it at once (keys typed right after ``/``
    #: then reach the bar, not the screen); without it a FindRequested is posted
    open_find_bar: Callable[[str], None] | None = None
    find_query: str = ""
    find_current: int = -1  # navigation position of the current match, -1 for none
    _find_serial: int = 0

    # -- what the view provides -----------------------------------------------------------
    def find_sides(self) -> tuple[Sequence[Sequence[str]], Sequence[np.ndarray | None]]:
        """The lines searched (one list per side) and each side's line -> display row map
        (None: row = line)."""
        raise NotImplementedError

    def find_top_row(self) -> int:
        """The display row at the top of the view (the search starts there)."""
        raise NotImplementedError

    def find_reveal(self, side: int, line: int, start: int, stop: int) -> None:
        """Scroll so that columns ``[start, stop)`` of ``line`` of ``side`` are in sight."""
        raise NotImplementedError

    def find_go_to(self, text: str) -> str | None:
        """Go to the line the user typed; an error message when there is no such line."""
        raise NotImplementedError

    # -- searching ------------------------------------------------------------------------
    def search(self, query: str) -> None:
        """Find ``query`` (empty: end the find). The result arrives from a worker."""
        self._find_serial += 1
        if bool(query) != bool(self.find_query):
            self.refresh_bindings()  # n/N (and Esc) step through matches only during a find
        self.find_query = query
        if not query:
            self.found = None
            self.find_current = -1
            self.refresh()
            self._post_find(active=False)
            return
        sides, rows = self.find_sides()
        self._find_worker(list(sides), list(rows), query, self._find_serial)
        self._post_find(active=True, searching=True)

    def search_again(self) -> None:
        """The text changed: search it for the same query (keeps the find open)."""
        if self.find_query:
            self.search(self.find_query)

    @work(thread=True, exclusive=True, group="find")
    def _find_worker(
        self,
        sides: list[Sequence[str]],
        rows: list[np.ndarray | None],
        query: str,
        serial: int,
    ) -> None:
        found = find_in_sides(sides, query, rows)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._found, found, serial)

    def _found(self, found: Found, serial: int) -> None:
        if serial != self._find_serial:
            return  # an older query: dropped
        self.found = found
        self.find_current = -1
        if len(found):
            position = found.first_at_or_after(self.find_top_row())
            self._go_to_match(position if position < len(found) else 0)
        self.refresh()
        self._post_find(active=True)

    def _go_to_match(self, position: int) -> None:
        found = self.found
        assert found is not None
        self.find_current = position
        side, index = int(found.side[position]), int(found.index[position])
        matches = found.sides[side]
        self.find_reveal(
            side, int(matches.line[index]), int(matches.start[index]), int(matches.stop[index])
        )
        self.refresh()
        self._post_find(active=True)

    def find_status(self, *, searching: bool = False) -> Text:
        """What the bar says: "3 of 17", "no match", "searching…"."""
        text = Text(no_wrap=True)
        found = self.found
        if searching or found is None or found.query != self.find_query:
            text.append("searching…", style="italic")
        elif not len(found):
            text.append("no match", style="bold red")
        else:
            current = self.find_current + 1 if self.find_current >= 0 else 0
            text.append(f"{current:,} of {len(found):,}", style="bold")
            text.append("  n/N", style="dim")
        return text

    def _post_find(self, *, active: bool, searching: bool = False) -> None:
        self.post_message(
            FindChanged(self, self.find_status(searching=searching), active)
        )

    # -- rendering help ---------------------------------------------------------------------
    def match_spans(self, side: int, line: int) -> list[tuple[int, int, bool]]:
        """``(start, stop, current)`` of every match on ``line`` of ``side``."""
        found = self.found
        if found is None or side >= len(found.sides):
            return []
        matches = found.sides[side]
        hits = matches.on_line(line)
        if not hits:
            return []
        current = -1
        if self.find_current >= 0 and int(found.side[self.find_current]) == side:
            current = int(found.index[self.find_current])
        return [(int(matches.start[i]), int(matches.stop[i]), i == current) for i in hits]

    def match_styles(self) -> tuple[Style, Style]:
        """(every match, the current match): colours and weight to lay over the text (the
        backgrounds are blended with the view's, so a translucent colour stays distinct)."""
        get = self.get_component_rich_style
        every, current = get("find--match"), get("find--current")
        return (
            Style(color=every.color, bgcolor=every.bgcolor, bold=every.bold),
            Style(color=current.color, bgcolor=current.bgcolor, bold=current.bold),
        )

    # -- actions ------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_match", "previous_match", "end_find"):
            return bool(self.find_query)  # otherwise the screen's binding of the key runs
        return super().check_action(action, parameters)

    def action_open_find(self) -> None:
        self._open_bar("find")

    def action_open_go_to(self) -> None:
        self._open_bar("line")

    def _open_bar(self, mode: str) -> None:
        if self.open_find_bar is not None:
            self.open_find_bar(mode)
        else:
            self.post_message(FindRequested(self, mode))

    def action_end_find(self) -> None:
        self.search("")

    def action_next_match(self) -> None:
        self._step(1)

    def action_previous_match(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        found = self.found
        if found is None or not len(found):
            self.app.bell()
            return
        if self.find_current < 0:
            position = found.first_at_or_after(self.find_top_row())
            if direction < 0:
                position -= 1
        else:
            position = self.find_current + direction
        if not 0 <= position < len(found):
            self.app.bell()  # wrapped round
            position %= len(found)
        self._go_to_match(position)
