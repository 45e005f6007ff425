"""Messages between the UI's parts and the app.

The explorer calls back from its own threads; the app posts one :class:`ExplorerMessage`
per event (posting is thread-safe) and handles it on the UI thread. Bursts collapse: a
queued view or progress message is replaced by a newer one of the same kind.
:class:`OpenExternal` goes up from a screen to the app, which owns the terminal;
:class:`KeptNotice` asks the app to keep a notice in the session's log (``L``).
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


class OpenExternal(Message):
    """Open ``doc_id`` in the program named by the environment ``variable`` (``EDITOR``,
    ``PAGER``); the app suspends the UI meanwhile."""

    def __init__(self, doc_id: str, variable: str) -> None:
        super().__init__()
        self.doc_id = doc_id
        self.variable = variable


class KeptNotice(Message):
    """Say ``text`` (a toast titled ``title``) and keep it in the notices of the session
    (the log screen, ``L``): what the user did that is worth finding again, such as where
    an export was written. Never markup."""

    def __init__(self, text: str, *, title: str = "") -> None:
        super().__init__()
        self.text = text
        self.title = title
