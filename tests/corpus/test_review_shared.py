"""One review store held by several processes at once (the tabs of ``ditto-tui serve``):
no decision lost, the later write of one row wins, a new store made by two at once."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from ditto_tui.core.review.decisions import Identity
from ditto_tui.corpus.review import ReviewStore

from .conftest import busy_when_opened

WRITER = """
import sys
from ditto_tui.core.review.decisions import Identity
from ditto_tui.corpus.review import ReviewStore
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with ReviewStore(path) as store:
    for i in range(count):  # one transaction each, as a tab records key after key
        store.set_decision(f"{name}/{i}.txt", Identity(i, i, i, i), "keep" if i % 2 else "duplicate")
        store.set_decision("shared.txt", Identity(1, 1, 1, 1), "keep" if name == "a" else "duplicate")
"""


def test_two_processes_deciding_at_once_lose_nothing(tmp_path: Path):
    path = tmp_path / "review.sqlite"
    ReviewStore(path).close()
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "150"])
               for name in ("a", "b")]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]
    with ReviewStore(path) as store:
        records = {r.path: r.value for r in store.decision_records()}
    for name in ("a", "b"):
        for i in range(150):
            assert records[f"{name}/{i}.txt"] == ("keep" if i % 2 else "duplicate")
    assert records["shared.txt"] in ("keep", "duplicate")  # one of the two, whole
    assert len(records) == 301
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_a_new_store_opened_by_two_at_once_is_made_once(tmp_path: Path):
    for round_ in range(40):
        path = tmp_path / f"review-{round_}.sqlite"
        barrier = threading.Barrier(2)
        notices: list[str] = []
        stores: list[ReviewStore] = []

        def open_one(path: Path, barrier: threading.Barrier, stores: list[ReviewStore],
                     notices: list[str]) -> None:
            barrier.wait()
            stores.append(ReviewStore(path, notices=notices))

        threads = [threading.Thread(target=open_one, args=(path, barrier, stores, notices))
                   for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stores[0].set_decision("x", Identity(1, 1, 1, 1), "keep")
        assert [r.value for r in stores[1].decision_records()] == ["keep"]
        for store in stores:
            store.close()
        assert notices == [] and not list(tmp_path.glob("*.corrupt-*"))


def test_changed_elsewhere_sees_the_other_writer_only(tmp_path: Path):
    path = tmp_path / "review.sqlite"
    with ReviewStore(path) as mine, ReviewStore(path) as other:
        assert not mine.changed_elsewhere()
        mine.set_decision("a", Identity(1, 1, 1, 1), "keep")
        assert not mine.changed_elsewhere()  # its own write
        other.set_decision("b", Identity(2, 2, 2, 2), "duplicate")
        assert mine.changed_elsewhere()
        assert not mine.changed_elsewhere()  # once per change


def test_a_store_busy_while_opening_is_waited_for_not_set_aside(tmp_path: Path, monkeypatch):
    """SQLite can say "database is locked" at once (no busy wait) when two connections
    switch a new file to WAL together: that store is busy, not damaged."""
    path = tmp_path / "review.sqlite"
    with ReviewStore(path) as first:
        first.set_decision("kept.txt", Identity(1, 1, 1, 1), "keep")
    busy_when_opened(monkeypatch, ReviewStore)
    notices: list[str] = []
    with ReviewStore(path, notices=notices) as again:
        assert [r.path for r in again.decision_records()] == ["kept.txt"]
    assert notices == [] and not list(tmp_path.glob("*.corrupt-*"))
