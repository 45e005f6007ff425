"""Messages that carry the explorer's events into the UI.

The explorer calls back from its own threads; the app posts one :class:`ExplorerMessage`
per event (posting is thread-safe) and handles it on the UI thread. Bursts collapse: a
queued view or progress message is replaced by a newer one of the same kind.
"""

from __future__ import annotations

from textual.message import Message

from ditto_tui.explore.events import ExplorerEvent, ScanProgressed, ViewBuilt


class ExplorerMessage(Message):
    """One event of the explorer (``event``), delivered on the UI thread."""

    def __init__(self, event: ExplorerEvent) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, ExplorerMessage):
            return False
        mine, theirs = self.event, message.event
        if isinstance(mine, ScanProgressed) and isinstance(theirs, ScanProgressed):
            return True
        return (
            isinstance(mine, ViewBuilt)
            and isinstance(theirs, ViewBuilt)
            and mine.view.request.serial >= theirs.view.request.serial
        )
