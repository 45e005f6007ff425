"""ViewSettings: what the user chose to see on the main screen, as one value.

The main screen holds these as reactives (a change asks the explorer for a new view,
:meth:`ViewSettings.request`); ``MainScreen.settings()`` freezes them into a
:class:`ViewSettings` for the pure functions that read them (the status line, the session
saved on exit, the empty list's message, the family tree's context).
"""

from __future__ import annotations

from dataclasses import dataclass

from ditto_tui.core.families.clusters import Mode
from ditto_tui.explore.view import SortKey, ViewRequest

__all__ = ["ViewSettings"]


@dataclass(frozen=True, slots=True)
class ViewSettings:
    """k and grouping, the family sort, whether singletons show, the family filter, and
    the review's two filters (unreviewed families only; ignored ones shown again)."""

    k: int = 3
    mode: Mode = "chain"
    sort_key: SortKey = "size"
    singletons: bool = False
    pattern: str = ""
    unreviewed_only: bool = False
    show_ignored: bool = False

    def request(self, serial: int, keep: str | None, keep_identity: int | None) -> ViewRequest:
        """The view request for these settings, numbered ``serial``, keeping the member
        ``keep`` and the family ``keep_identity`` under the cursors (None: the first rows)."""
        return ViewRequest(
            k=self.k,
            mode=self.mode,
            pattern=self.pattern,
            sort=self.sort_key,
            singletons=self.singletons,
            serial=serial,
            unreviewed_only=self.unreviewed_only,
            show_ignored=self.show_ignored,
            keep=keep,
            keep_identity=keep_identity,
        )
