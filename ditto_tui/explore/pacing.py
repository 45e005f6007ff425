"""Scan pacing: when the writer applies the batches of a running scan.

Applying a batch rebuilds or extends the index; a scan sends one every quarter second.
:class:`ScanPacer` holds them back while that pays: until they hold more documents than
the index (so the index is rebuilt each time it doubles, not once per batch: a warm start
of stored fingerprints and pairs is mostly one rebuild, whose pairs the store has), or,
for a large held batch, until a scan about to end has ended (one rebuild instead of one
per doubling). Never longer than :data:`HOLD_MAX`, or :data:`COST_RATIO` times what
applying the last held batches took when that is longer: a rebuild of a large index with
many pairs takes seconds (8 s at a million files with 24M pairs), and applying one every
:data:`HOLD_MAX` would keep the writer rebuilding while the scan's batches pile up.
Figures: ``benchmarks/bench_ui.py`` (folder warm start) and
``tests/explore/test_snapshot_sharing.py`` (one rebuild).

Only the writer thread calls :meth:`ScanPacer.hold` and :meth:`ScanPacer.release`; the
scan thread reports its progress with :meth:`ScanPacer.progressed` (one tuple assignment).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ditto_tui.corpus.documents import ChangeBatch

HOLD_MAX = 2.0  # while scanning: scan batches wait at most this long to be applied
HOLD_BULK = 10_000  # held documents from which waiting for a scan's end pays (see hold)
#: held batches wait at least this many times as long as applying the last ones took (the
#: writer then spends at most a fifth of a scan applying; 2 made 11 rebuilds of a scan
#: of 1M real files instead of 9, and ended 2 s later)
COST_RATIO = 4.0


@dataclass(slots=True)
class Held:
    """Scan batches of one epoch folded into one, not applied yet."""

    epoch: int
    batch: ChangeBatch
    since: float


class ScanPacer:
    """The scan batches held back and the pace of the running scan."""

    def __init__(self) -> None:
        self.held: Held | None = None
        self._began = 0.0
        # the latest scan progress: (epoch, done, total, when); see _ends_soon
        self._progress: tuple[int, int, int | None, float] | None = None
        self._cost = 0.0  # seconds applying the last held batches took

    def began(self) -> None:
        """A scan starts (its pace is measured from now)."""
        self._progress = None
        self._began = time.monotonic()
        self._cost = 0.0

    def applied(self, seconds: float) -> None:
        """Applying the batches :meth:`release` gave took ``seconds``."""
        self._cost = seconds

    @property
    def hold_max(self) -> float:
        """The longest held batches wait now (see the module docstring)."""
        return max(HOLD_MAX, COST_RATIO * self._cost)

    def progressed(self, epoch: int, done: int, total: int | None, when: float) -> None:
        """The running scan of ``epoch`` has resolved ``done`` of ``total`` documents."""
        self._progress = (epoch, done, total, when)

    def wait(self) -> float | None:
        """Seconds until the held batches must be applied (None when none are held)."""
        if self.held is None:
            return None
        return max(0.0, self.hold_max - (time.monotonic() - self.held.since))

    def overdue(self) -> bool:
        """Whether the held batches have waited :attr:`hold_max`."""
        return self.held is not None and time.monotonic() - self.held.since >= self.hold_max

    def release(self) -> Held | None:
        """Take the held batches (None when there are none)."""
        held, self.held = self.held, None
        return held

    def hold(self, epoch: int, batch: ChangeBatch, indexed: int) -> bool:
        """Keep a scan batch with the ones held before it; True while they should wait,
        given ``indexed`` documents in the index (see the module docstring)."""
        held = self.held
        if held is None or held.epoch != epoch:
            merged = ChangeBatch()
            merged.extend(batch)
            held = self.held = Held(epoch, merged, time.monotonic())
        else:
            held.batch.extend(batch)
        size = len(held.batch.added) + len(held.batch.changed) + len(held.batch.removed)
        if time.monotonic() - held.since >= self.hold_max:
            return False
        if size <= indexed:
            return True
        # a large batch (its rebuild costs real time) waits for a scan about to end;
        # small ones are shown at once (cheap, and the list fills as the scan goes)
        return size >= HOLD_BULK and self._ends_soon(epoch, indexed)

    def _ends_soon(self, epoch: int, indexed: int) -> bool:
        """Whether the running scan should be over within :attr:`hold_max` at the pace
        it has kept so far."""
        progress = self._progress
        if progress is None or progress[0] != epoch:
            return not indexed  # the first batch: wait for the pace (at most HOLD_MAX)
        _, done, total, when = progress
        if total is None or done <= 0:
            return False
        pace = (when - self._began) / done  # seconds per document so far
        return (total - done) * pace <= self.hold_max - (time.monotonic() - when)
