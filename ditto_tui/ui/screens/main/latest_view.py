"""LatestView: the family view on the main screen answers the newest request, never an
older one.

Every view request is numbered (:meth:`LatestView.next_serial`). A view built for an
older request is dropped when it arrives, and so is a view of an older state of the index
for the same request (:meth:`LatestView.take`): the counter pattern of Textual's
``Log._update_size``, whose worker's result is applied only if the counter it started with
is still current. O(1); UI thread only.
"""

from __future__ import annotations

from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import FamilyView

__all__ = ["LatestView"]


class LatestView:
    """The serial of the newest view request and the view shown (None before the first)."""

    def __init__(self) -> None:
        self.serial = 0
        self.view: FamilyView | None = None

    def next_serial(self) -> int:
        """Number a new request (every earlier one is stale from now on)."""
        self.serial += 1
        return self.serial

    def take(self, view: FamilyView) -> bool:
        """Show ``view`` if it answers the newest request and is not older than the view
        shown for that request; False (dropped) otherwise."""
        if view.request.serial != self.serial:
            return False
        shown = self.view
        if shown is not None and (view.epoch, view.generation) < (
            shown.epoch,
            shown.generation,
        ) and view.request == shown.request:
            return False
        self.view = view
        return True

    def current(self, latest: Snapshot) -> bool:
        """Whether the view shown answers the newest request for the ``latest`` state of
        the index."""
        view = self.view
        return (
            view is not None
            and view.request.serial == self.serial
            and (view.epoch, view.generation) >= (latest.epoch, latest.generation)
        )
