"""FittedInput: an Input whose placeholder always fits its width, whole or with ``…``.

Textual's Input cuts a long placeholder at the box's edge without a sign. A
:class:`FittedInput` is given its placeholders longest first (``placeholders``) and shows
the first that fits its width, else the shortest cut with an ellipsis; it chooses again
whenever it is resized.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from textual import events, on
from textual.widgets import Input

from ditto_tui.ui.fit import right_crop

__all__ = ["FittedInput", "fitted"]


def fitted(placeholders: Sequence[str], width: int) -> str:
    """The first of ``placeholders`` (longest first) that fits ``width`` cells, else the
    last cut to ``width`` with an ellipsis ("" when there are none)."""
    for text in placeholders:
        if cell_len(text) <= width:
            return text
    return right_crop(placeholders[-1], width) if placeholders else ""


class FittedInput(Input):
    """An Input whose placeholder is the longest of ``placeholders`` that fits."""

    def __init__(self, *args: Any, placeholders: Sequence[str] = (), **kwargs: Any) -> None:
        self.placeholders = tuple(placeholders) or (str(kwargs.get("placeholder", "")),)
        kwargs["placeholder"] = self.placeholders[0]
        super().__init__(*args, **kwargs)

    def set_placeholders(self, *placeholders: str) -> None:
        """Offer ``placeholders`` (longest first) instead."""
        self.placeholders = placeholders
        self._fit(self.content_size.width)

    @on(events.Resize)
    def _resized(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        if width > 0:
            self.placeholder = fitted(self.placeholders, width)
