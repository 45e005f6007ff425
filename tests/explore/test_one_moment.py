"""Every published snapshot is one moment: its documents and fingerprints have the same
ids, and each fingerprint is the one of the content its document record describes.

The folder test writes every version of a file with its own modification time (written
aside, then renamed into place, so the watcher never sees a half-made version): a
document record's ``mtime_ns`` then names the content it was read from.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus import session as session_module
from ditto_tui.corpus.documents import ChangeBatch, Document, FixedDocuments
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.explore import Explorer, MemorySource, pacing, writer
from ditto_tui.explore.events import ExplorerEvent, IndexUpdated
from ditto_tui.explore.snapshot import Snapshot

WORDS = [
    "tide", "harbour", "boat", "chart", "port", "sync", "engine", "offline", "club", "price",
    "release", "quay",
]


def text(i: int, version: int) -> bytes:
    words = [WORDS[(i * 7 + j * (version + 3)) % len(WORDS)] for j in range(40)]
    return (f"document {i} version {version}\n" + " ".join(words) + "\n").encode()


class Folder:
    """A folder whose every file version has a distinct modification time."""

    def __init__(self, root: Path, staging: Path) -> None:
        self.root, self.staging = root, staging
        self.versions: dict[tuple[str, int], bytes] = {}  # (id, mtime_ns) -> content
        self.clock = 1_600_000_000 * 10**9

    def write(self, doc_id: str, data: bytes) -> None:
        self.clock += 10**9
        temp = self.staging / doc_id.replace("/", "_")
        temp.write_bytes(data)
        os.utime(temp, ns=(self.clock, self.clock))
        os.replace(temp, self.root / doc_id)
        self.versions[(doc_id, self.clock)] = data


def collect(explorer_events: list[Snapshot]) -> Callable[[ExplorerEvent], None]:
    lock = threading.Lock()

    def on_event(event: ExplorerEvent) -> None:
        if isinstance(event, IndexUpdated):
            with lock:
                explorer_events.append(event.snapshot)

    return on_event


def check_one_moment(snapshots: list[Snapshot], versions: Mapping[tuple[str, int], bytes]) -> None:
    pipeline = make_pipeline()
    expected: dict[bytes, int] = {}
    for snap in snapshots:
        fps, docs = snap.fingerprints, snap.documents
        assert set(docs) == set(fps), f"generation {snap.generation}: ids differ"
        assert len(docs) == len(fps)
        for doc_id, fp in fps.items():
            data = versions[(doc_id, docs[doc_id].mtime_ns)]
            if data not in expected:
                expected[data] = int(pipeline.fingerprint(data))
            assert fp == expected[data], f"generation {snap.generation}: {doc_id}"


def test_snapshots_of_a_scan_and_a_watch_burst_are_each_one_moment(tmp_path, monkeypatch):
    monkeypatch.setattr(session_module, "BATCH_SECONDS", 0.0)  # a batch every 128 files
    monkeypatch.setattr(writer, "PUBLISH_INTERVAL", 0.0)
    monkeypatch.setattr(pacing, "HOLD_MAX", 0.0)  # apply every scan batch
    monkeypatch.setattr(pacing, "COST_RATIO", 0.0)
    root, staging = tmp_path / "root", tmp_path / "staging"
    root.mkdir()
    staging.mkdir()
    folder = Folder(root, staging)
    n = 1200
    for i in range(n):
        folder.write(f"f{i:04d}.txt", text(i, 0))
    snapshots: list[Snapshot] = []
    session = CorpusSession(root, make_pipeline(), use_cache=False, jobs=1, reconcile_every=None)
    explorer = Explorer(session, max_k=3, watch=True, on_event=collect(snapshots))
    explorer.start()
    try:
        assert explorer.wait_idle(60)
        during_scan = [s for s in snapshots if s.scanning and len(s)]
        assert len(during_scan) >= 2, "the scan should publish partial snapshots"
        # a burst: rewrite, delete, create, touch without a content change
        for i in range(0, 300):
            folder.write(f"f{i:04d}.txt", text(i, 1))
        for i in range(300, 350):
            os.unlink(root / f"f{i:04d}.txt")
        for i in range(n, n + 50):
            folder.write(f"f{i:04d}.txt", text(i, 0))
        for i in range(400, 420):
            folder.write(f"f{i:04d}.txt", text(i, 0))  # same bytes, a new time
        expected_ids = {f"f{i:04d}.txt" for i in range(n + 50)} - {
            f"f{i:04d}.txt" for i in range(300, 350)
        }
        until = time.monotonic() + 60
        while time.monotonic() < until:
            snap = explorer.snapshot
            if set(snap.fingerprints) == expected_ids and all(
                snap.documents[f"f{i:04d}.txt"].mtime_ns
                == max(t for (d, t) in folder.versions if d == f"f{i:04d}.txt")
                for i in (0, 299, 410, n + 49)
            ):
                break
            time.sleep(0.05)
        assert explorer.wait_idle(60)
        last = explorer.snapshot
        assert set(last.fingerprints) == expected_ids
        touched = last.documents["f0410.txt"]
        assert touched.mtime_ns == max(t for (d, t) in folder.versions if d == "f0410.txt")
        check_one_moment(snapshots + [last], folder.versions)
    finally:
        explorer.close()
        session.close()


class _Fixed(FixedDocuments):
    def __init__(self, records: dict[str, Document]) -> None:
        self._records = records

    def __getitem__(self, doc_id: str) -> Document:
        return self._records[doc_id]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)


class FixedSource(MemorySource):
    """Hands over one fixed mapping of every record with each batch (as stored results do)."""

    def scan(self, *, on_progress=None, on_batch=None, cancelled=lambda: False):  # type: ignore[no-untyped-def]
        records = {i: Document(i, "/" + i, "text", 10, 0, 0) for i in self.disk}
        fixed = _Fixed(records)
        ids = list(self.disk)
        total = ChangeBatch(documents=fixed)
        for start in range(0, len(ids), self.batch):
            piece = ChangeBatch(
                added={i: Fingerprint(self.disk[i]) for i in ids[start : start + self.batch]},
                documents=fixed,
            )
            total.extend(piece)
            if on_batch is not None:
                on_batch(piece)
        self._docs = dict(records)
        self._fps = dict(total.added)
        return total


def test_fixed_records_are_shown_only_for_the_documents_indexed_so_far(monkeypatch):
    monkeypatch.setattr(writer, "PUBLISH_INTERVAL", 0.0)
    monkeypatch.setattr(pacing, "HOLD_MAX", 0.0)
    monkeypatch.setattr(pacing, "COST_RATIO", 0.0)
    disk = {f"d{i:04d}": (i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(3000)}
    snapshots: list[Snapshot] = []
    explorer = Explorer(FixedSource(disk, batch=100), max_k=3, watch=False,
                        on_event=collect(snapshots))
    explorer.start()
    try:
        assert explorer.wait_idle(60)
        assert len(snapshots) >= 2
        for snap in snapshots:
            assert set(snap.documents) == set(snap.fingerprints)
            assert all(d in snap.documents for d in snap.fingerprints)
            missing = next((d for d in disk if d not in snap.fingerprints), None)
            if missing is not None:
                assert missing not in snap.documents
                with pytest.raises(KeyError):
                    snap.documents[missing]
        assert len(explorer.snapshot.documents) == len(disk)
    finally:
        explorer.close()


def test_a_batch_folds_its_records_with_later_ones():
    a = Document("a", "/a", "text", 1, 1, 1)
    a2 = Document("a", "/a", "text", 2, 2, 1)
    b = Document("b", "/b", "text", 1, 1, 2)
    first = ChangeBatch(added={"a": Fingerprint(1), "b": Fingerprint(2)}, documents={"a": a, "b": b})
    first.extend(ChangeBatch(changed={"a": Fingerprint(3)}, documents={"a": a2}))
    first.extend(ChangeBatch(removed=["b"]))
    assert dict(first.documents) == {"a": a2}
    assert first.added == {"a": Fingerprint(3)}
    touched = ChangeBatch(documents={"a": a})
    assert touched  # a record re-read with its fingerprint unchanged is a change
    fixed = _Fixed({"a": a})
    assert not ChangeBatch(documents=fixed)
    mixed = ChangeBatch(documents={"a": a})
    with pytest.raises(ValueError):
        mixed.extend(ChangeBatch(added={"b": Fingerprint(2)}, documents=fixed))
