"""A user keeps the folder open while files change: every change arrives, in coalesced batches."""

from __future__ import annotations

import logging
import os
import shutil
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ditto_tui.corpus.documents import ChangeBatch
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, TEXT_B, wait_for, write


class Mirror:
    """What a UI would hold: the fingerprints, kept current from delivered batches only."""

    def __init__(self, session: CorpusSession) -> None:
        self.fps = dict(session.fingerprints)
        self.batches: list[ChangeBatch] = []
        self.times: list[float] = []
        self.states: list[str] = []
        self._lock = threading.Lock()
        self.session = session

    def on_change(self, batch: ChangeBatch) -> None:
        with self._lock:
            self.states.append(self.session.watch_state)
            self.batches.append(batch)
            self.times.append(time.monotonic())
            for ident in batch.removed:
                self.fps.pop(ident, None)
            self.fps.update(batch.added)
            self.fps.update(batch.changed)

    def ids(self) -> set[str]:
        with self._lock:
            return set(self.fps)


@pytest.fixture
def live(root: Path, pipeline, cache_path: Path) -> Iterator[tuple[CorpusSession, Mirror]]:
    write(root, "keep.txt", TEXT_A)
    write(root, "sub/inner.txt", TEXT_B)
    session = CorpusSession(root, pipeline, cache=cache_path, jobs=1, reconcile_every=None)
    session.scan()
    mirror = Mirror(session)
    session.start_watching(mirror.on_change)
    try:
        yield session, mirror
    finally:
        session.close()
        assert session.watch_state == "off"


def test_create_modify_delete_and_rename(live, root: Path, pipeline) -> None:
    session, mirror = live
    assert session.watch_state == "watching"
    written = time.monotonic()
    write(root, "new.txt", TEXT_A + " new")
    assert wait_for(lambda: "new.txt" in mirror.ids())
    assert mirror.times[0] - written < 1.0  # target: ~0.3 s after a burst's last event
    write(root, "new.txt", TEXT_B)
    assert wait_for(lambda: mirror.fps.get("new.txt") == pipeline.fingerprint(TEXT_B.encode()))
    os.rename(root / "new.txt", root / "renamed.txt")
    assert wait_for(lambda: mirror.ids() == {"keep.txt", "sub/inner.txt", "renamed.txt"})
    os.unlink(root / "renamed.txt")
    assert wait_for(lambda: mirror.ids() == {"keep.txt", "sub/inner.txt"})
    assert mirror.fps == dict(session.fingerprints)


def test_folder_moves_in_out_and_within(live, root: Path, tmp_path: Path) -> None:
    session, mirror = live
    outside = tmp_path / "outside"
    write(outside, "a/one.txt", TEXT_A + " one")
    write(outside, "a/deep/two.txt", TEXT_B + " two")
    os.rename(outside / "a", root / "moved-in")
    assert wait_for(lambda: {"moved-in/one.txt", "moved-in/deep/two.txt"} <= mirror.ids())
    os.rename(root / "moved-in", root / "sub" / "renamed")
    want = {"keep.txt", "sub/inner.txt", "sub/renamed/one.txt", "sub/renamed/deep/two.txt"}
    assert wait_for(lambda: mirror.ids() == want)
    os.rename(root / "sub", tmp_path / "gone")  # moved out of the root
    assert wait_for(lambda: mirror.ids() == {"keep.txt"})
    os.mkdir(root / "fresh")
    write(root, "fresh/x/y.txt", TEXT_A + " y")
    shutil.rmtree(tmp_path / "gone")
    assert wait_for(lambda: mirror.ids() == {"keep.txt", "fresh/x/y.txt"})
    assert mirror.fps == dict(session.fingerprints)


def test_atomic_save_is_one_change(live, root: Path, pipeline) -> None:
    session, mirror = live
    tmp = write(root, ".keep.txt.swp", TEXT_B + " saved")
    os.replace(tmp, root / "keep.txt")
    want = pipeline.fingerprint((TEXT_B + " saved").encode())
    assert wait_for(lambda: mirror.fps.get("keep.txt") == want)
    assert ".keep.txt.swp" not in mirror.ids()
    time.sleep(0.5)  # let any straggling event arrive
    changed = [b for b in mirror.batches if "keep.txt" in b.changed]
    assert len(changed) == 1 and not any(b.removed for b in mirror.batches)


def test_a_burst_of_5000_files_loses_nothing(live, root: Path) -> None:
    session, mirror = live
    for i in range(5000):
        write(root, f"burst/{i % 10}/{i:05}.txt", f"{TEXT_A[:60]} burst file {i}")
    want = {f"burst/{i % 10}/{i:05}.txt" for i in range(5000)} | {"keep.txt", "sub/inner.txt"}
    assert wait_for(lambda: mirror.ids() == want, timeout=30)
    assert mirror.fps == dict(session.fingerprints)
    # Coalesced: far fewer batches than files.
    assert len(mirror.batches) < 200


def test_reading_the_files_makes_no_events(live, root: Path, monkeypatch) -> None:
    # every read opens and closes a file: those are not even queued by the kernel (a scan
    # of a million files made two million events, overflowed the queue and rescanned)
    from ditto_tui.corpus import watch

    session, mirror = live
    seen: list[str] = []  # every event the observer hands to the watcher
    handle = watch._Handler.on_any_event
    monkeypatch.setattr(
        watch._Handler, "on_any_event",
        lambda self, event: (seen.append(event.event_type), handle(self, event))[1],
    )
    for _ in range(200):
        (root / "keep.txt").read_bytes()
        (root / "sub" / "inner.txt").read_bytes()
    session.read_text("keep.txt")
    time.sleep(0.5)
    assert seen == []
    before = mirror.fps["keep.txt"]
    write(root, "keep.txt", TEXT_B)  # a change still comes
    assert wait_for(lambda: mirror.fps.get("keep.txt") not in (None, before))
    assert seen


def test_overflow_triggers_a_rescan(live, root: Path, monkeypatch) -> None:
    session, mirror = live
    # The kernel drops events (what an overflowing inotify queue does)...
    monkeypatch.setattr(session._watcher, "note_paths", lambda *a, **kw: None)
    write(root, "lost.txt", TEXT_A + " lost")
    time.sleep(0.5)
    assert "lost.txt" not in mirror.ids()
    monkeypatch.undo()
    # ...and watchdog reports the overflow on its logger: a rescan finds the lost change.
    logging.getLogger("watchdog.observers.inotify_buffer").warning("Inotify queue overflowed")
    assert wait_for(lambda: "lost.txt" in mirror.ids())
    rescans = [s for b, s in zip(mirror.batches, mirror.states, strict=True) if b.rescan]
    assert rescans == ["rescanning"]
    assert wait_for(lambda: session.watch_state == "watching")


def test_kernel_overflow_event_is_not_dropped(live, root: Path, caplog) -> None:
    from watchdog.observers import inotify_c

    session, mirror = live
    mask = inotify_c.InotifyConstants.IN_Q_OVERFLOW
    buffer = struct.pack("iIII", -1, mask, 0, 0)  # what the kernel sends on overflow
    with caplog.at_level(logging.WARNING, logger="watchdog.observers.inotify_c"):
        events = list(inotify_c.Inotify._parse_event_buffer(buffer))
    assert [e[:2] for e in events] == [(-1, mask)]
    assert "Inotify queue overflowed" in caplog.text
    assert wait_for(lambda: any(b.rescan for b in mirror.batches))


def test_pause_holds_changes_until_resume(live, root: Path) -> None:
    session, mirror = live
    session.pause_watching()
    write(root, "while-paused.txt", TEXT_B + " paused")
    time.sleep(0.6)
    assert "while-paused.txt" not in mirror.ids()
    session.resume_watching()
    assert wait_for(lambda: "while-paused.txt" in mirror.ids())


def test_periodic_reconcile_and_polling(root: Path, pipeline, cache_path: Path) -> None:
    write(root, "a.txt", TEXT_A)
    with CorpusSession(root, pipeline, cache=cache_path, reconcile_every=0.3) as session:
        session.scan()
        mirror = Mirror(session)
        session.start_watching(mirror.on_change, poll=True)
        write(root, "b.txt", TEXT_B)
        assert wait_for(lambda: mirror.ids() == {"a.txt", "b.txt"})
        os.unlink(root / "a.txt")
        assert wait_for(lambda: mirror.ids() == {"b.txt"})


def test_a_failed_watch_falls_back_to_polling(root: Path, pipeline, monkeypatch) -> None:
    from watchdog.observers import inotify

    def no_watch(self) -> None:
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(inotify.InotifyEmitter, "on_thread_start", no_watch)
    write(root, "a.txt", TEXT_A)
    with CorpusSession(root, pipeline, use_cache=False, reconcile_every=None) as session:
        session.scan()
        mirror = Mirror(session)
        session.start_watching(mirror.on_change)
        assert any("polling instead" in n for n in session.notices)
        assert wait_for(lambda: any(b.rescan for b in mirror.batches))
        write(root, "b.txt", TEXT_B)
        assert wait_for(lambda: mirror.ids() == {"a.txt", "b.txt"})


def test_an_mbox_opened_alone_is_followed(tmp_path: Path, pipeline) -> None:
    box = write(tmp_path, "mail/archive.mbox", b"From a@x Mon Jan  1 00:00:00 2024\nSubject: 1\n\none\n")
    with CorpusSession(box, pipeline, use_cache=False, reconcile_every=None) as session:
        session.scan()
        assert list(session.fingerprints) == ["archive.mbox#1"]
        mirror = Mirror(session)
        session.start_watching(mirror.on_change)
        with open(box, "ab") as f:
            f.write(b"\nFrom b@x Mon Jan  1 00:00:00 2024\nSubject: 2\n\ntwo\n")
        assert wait_for(lambda: mirror.ids() == {"archive.mbox#1", "archive.mbox#2"})
        write(tmp_path, "mail/other.txt", TEXT_A)  # a neighbour is not part of this corpus
        time.sleep(0.4)
        assert mirror.ids() == {"archive.mbox#1", "archive.mbox#2"}


def test_maildir_delivery_appears_as_one_message(live, root: Path) -> None:
    session, mirror = live
    for part in ("cur", "new", "tmp"):
        (root / "box" / part).mkdir(parents=True)
    tmp = write(root, "box/tmp/17.1.host", b"Subject: hello\n\n" + TEXT_A.encode())
    time.sleep(0.3)  # the delivery in progress is never a document
    os.rename(tmp, root / "box/new/17.1.host")  # the maildir delivery protocol
    assert wait_for(lambda: "box/new/17.1.host" in mirror.ids())
    assert session.documents["box/new/17.1.host"].kind == "maildir"
    assert session.mail_info("box/new/17.1.host").subject == "hello"
    assert not any(i.startswith("box/tmp") for b in mirror.batches for i in b.added)
