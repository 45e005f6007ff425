"""Messages that workers and the watcher thread post to the app.

Posting is thread-safe. Bursts collapse: a queued progress message is replaced by a newer one
(``can_replace``), and index changes carry no payload beyond what to tell the user, so many
batches arriving while the UI is busy cost one refresh.
"""

from __future__ import annotations

from textual.message import Message

from ditto_tui.ui.listing import Counts


class ScanProgressed(Message):
    """The scan advanced (``done``/``total`` documents after ``elapsed`` seconds)."""

    def __init__(self, done: int, total: int | None, elapsed: float) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.elapsed = elapsed

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ScanProgressed)


class IndexChanged(Message):
    """Documents were added to the live index by the running scan (no notification)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexChanged)


class ScanFinished(Message):
    """The scan ended (``error`` is a message when it failed)."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class CorpusChanged(Message):
    """The watcher applied a change batch to the live index (``counts`` of documents)."""

    def __init__(self, counts: Counts, touched: frozenset[str], rescan: bool = False) -> None:
        super().__init__()
        self.counts = counts
        self.touched = touched
        self.rescan = rescan


class WatchStateChanged(Message):
    """Watching started, paused, resumed or stopped."""
