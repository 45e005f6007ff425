"""ScanProgress: progress bar of the initial scan with documents/s and an ETA."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


def rate_and_eta(done: int, total: int | None, elapsed: float) -> tuple[float, float | None]:
    """Documents per second so far and the seconds left (None while the total is unknown)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    if total is None or rate <= 0:
        return rate, None
    return rate, max(0.0, (total - done) / rate)


def describe(done: int, total: int | None, elapsed: float) -> str:
    """``1,234/5,000 docs · 812 docs/s · ETA 5s`` (``?`` for an unknown total)."""
    rate, eta = rate_and_eta(done, total, elapsed)
    of = f"{total:,}" if total is not None else "?"
    text = f"{done:,}/{of} docs · {rate:,.0f} docs/s"
    if eta is not None:
        minutes, seconds = divmod(int(eta + 0.5), 60)
        text += f" · ETA {minutes}m{seconds:02d}s" if minutes else f" · ETA {seconds}s"
    return text


class ScanProgress(Horizontal):
    """Hidden unless a scan is running: shown by :meth:`update_progress`, hidden by
    :meth:`hide` (the screen calls both)."""

    DEFAULT_CSS = """
    ScanProgress {
        height: 1;
        padding: 0 1;
    }
    ScanProgress > Label { width: 1fr; padding-left: 2; color: $foreground-muted; }
    ScanProgress > ProgressBar { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Label(Text("Scanning…"), id="scan-title")
        yield ProgressBar(total=None, show_eta=False, id="scan-bar")
        yield Label(Text(""), id="scan-rate")

    def update_progress(self, done: int, total: int | None, elapsed: float) -> None:
        """Show the scan's progress (``total`` None: not known yet)."""
        self.display = True
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=done)
        self.query_one("#scan-rate", Label).update(Text(describe(done, total, elapsed)))

    def hide(self) -> None:
        """The scan ended."""
        self.display = False
