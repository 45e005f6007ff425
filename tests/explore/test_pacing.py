"""Scan pacing: held scan batches wait longer when applying them costs more."""

from __future__ import annotations

from types import SimpleNamespace

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus.documents import ChangeBatch
from ditto_tui.explore import pacing
from ditto_tui.explore.pacing import HOLD_MAX, ScanPacer


def batch(first: int, n: int) -> ChangeBatch:
    return ChangeBatch(added={f"d{i}": Fingerprint(i) for i in range(first, first + n)})


def test_held_batches_wait_in_proportion_to_what_applying_them_took(monkeypatch) -> None:
    now = [100.0]
    monkeypatch.setattr(pacing, "time", SimpleNamespace(monotonic=lambda: now[0]))
    pacer = ScanPacer()
    pacer.began()
    assert pacer.hold(1, batch(0, 10), indexed=1000)  # small against the index: held
    now[0] += HOLD_MAX
    assert pacer.overdue()  # applying costs nothing yet: HOLD_MAX
    assert pacer.release() is not None
    pacer.applied(3.0)  # a rebuild that took 3 s
    assert pacer.hold_max == 3.0 * pacing.COST_RATIO
    assert pacer.hold(1, batch(10, 10), indexed=1000)
    now[0] += HOLD_MAX
    assert not pacer.overdue() and pacer.hold(1, batch(20, 10), indexed=1000)
    assert 0 < (pacer.wait() or 0) <= pacer.hold_max - HOLD_MAX
    now[0] += pacer.hold_max
    assert pacer.overdue() and not pacer.hold(1, batch(30, 10), indexed=1000)
    held = pacer.release()
    assert held is not None and len(held.batch.added) == 30  # nothing lost while held
    pacer.began()  # a new scan measures again
    assert pacer.hold_max == HOLD_MAX
