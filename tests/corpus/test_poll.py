"""Polling (``--poll``, and the fallback when inotify cannot be set up) stays inside the root.

The hostile case from the field: a symlink to ``/`` and a symlink to an outside folder in
the root. The poller must list nothing outside, report nothing under the links, still see
real changes, and stop at once when asked, even in the middle of a snapshot.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pytest

import ditto_tui.corpus.poll as poll_mod
from ditto_tui.corpus.poll import TreePoller
from ditto_tui.corpus.rootdir import RootDir, fd_path
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.watch import FolderWatcher

from .conftest import TEXT_A, TEXT_B, wait_for, write


@pytest.fixture
def hostile(root: Path, tmp_path: Path) -> Path:
    write(root, "a.txt", TEXT_A)
    write(root, "sub/b.txt", TEXT_B)
    (root / "sysroot").symlink_to("/", target_is_directory=True)
    write(tmp_path, "outside/secret.txt", "secret")
    (root / "sub" / "outlink").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "loop").symlink_to(".", target_is_directory=True)
    return root


class Recorder:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, rels: list[str]) -> None:
        with self.lock:
            self.paths.extend(rels)

    def seen(self) -> set[str]:
        with self.lock:
            return set(self.paths)


def test_snapshot_lists_only_the_root_and_never_through_links(
    hostile: Path, monkeypatch
) -> None:
    listed: list[str] = []
    real_scandir = os.scandir

    def spy(fd):
        where = fd_path(fd) if isinstance(fd, int) else os.fspath(fd)
        listed.append(where or "?")
        return real_scandir(fd)

    monkeypatch.setattr(poll_mod.os, "scandir", spy)
    snap = TreePoller(RootDir(hostile), Recorder()).snapshot()
    assert snap is not None
    assert sorted(snap) == ["a.txt", "loop", "sub", "sub/b.txt", "sub/outlink", "sysroot"]
    real_root = os.path.realpath(hostile)
    assert all(p == real_root or p.startswith(real_root + "/") for p in listed), listed
    assert len(listed) == 2  # the root and sub/: no link was descended


def test_poll_watch_sees_changes_inside_and_nothing_under_links(
    hostile: Path, tmp_path: Path, pipeline
) -> None:
    with CorpusSession(hostile, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        assert sorted(s.documents) == ["a.txt", "sub/b.txt"]
        got: list = []
        s.start_watching(got.append, poll=True)
        s._watcher.poll_interval = 0.1  # type: ignore[union-attr]
        assert isinstance(s._watcher._observer, TreePoller)  # type: ignore[union-attr]
        write(hostile, "c.txt", TEXT_B)
        (tmp_path / "outside" / "secret.txt").write_text("changed secret " * 30)
        assert wait_for(lambda: "c.txt" in s.documents)
        assert sorted(s.documents) == ["a.txt", "c.txt", "sub/b.txt"]
        assert not any("secret" in d or "sysroot/" in d for d in s.documents)
        stopped = time.monotonic()
        s.stop_watching()
        assert time.monotonic() - stopped < 5


def test_stop_ends_a_snapshot_in_progress(root: Path, monkeypatch) -> None:
    for i in range(200):
        (root / f"d{i:03}").mkdir()
    real_scandir = os.scandir
    entered = threading.Event()

    def slow(fd):
        entered.set()
        time.sleep(0.05)  # 200 folders: a 10 s snapshot
        return real_scandir(fd)

    monkeypatch.setattr(poll_mod.os, "scandir", slow)
    poller = TreePoller(RootDir(root), Recorder(), interval=0.1)
    starter = threading.Thread(target=poller.start)  # start() takes the first snapshot
    starter.start()
    assert entered.wait(5)
    poller.stop()
    starter.join(2)
    assert not starter.is_alive()
    poller.join(2)
    assert not poller.is_alive()


def test_inotify_failure_falls_back_to_the_safe_poller(hostile: Path, monkeypatch) -> None:
    from watchdog.observers import Observer

    def no_room(self, *a, **kw):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(Observer, "schedule", no_room)
    got: list = []
    watcher = FolderWatcher(str(hostile), lambda paths, mode: got.append((paths, mode)),
                            poll_interval=0.1, reconcile_every=None)
    watcher.start()
    try:
        assert isinstance(watcher._observer, TreePoller)
        assert any("polling instead" in n for n in watcher.notices)
        assert wait_for(lambda: (set(), "rescan") in got)
        write(hostile, "new.txt", TEXT_A)
        assert wait_for(lambda: any("new.txt" in p for p, _ in got))
    finally:
        watcher.stop()
    assert watcher.state == "off"


def test_polling_stays_within_its_cpu_budget() -> None:
    """The wait after a snapshot keeps polling's share of a core at CPU_BUDGET at most:
    a cheap snapshot waits the interval, a costly one waits longer."""
    assert poll_mod.next_wait(2.0, 0.001) == 2.0
    for cost in (0.05, 0.26, 1.0, 30.0):
        wait = poll_mod.next_wait(2.0, cost)
        assert wait >= 2.0
        assert cost / (wait + cost) <= poll_mod.CPU_BUDGET + 1e-12


def test_a_costly_tree_is_polled_less_often_and_says_so(hostile: Path, monkeypatch) -> None:
    clock = iter(range(0, 10**6, 1))  # every snapshot "costs" one second of CPU
    monkeypatch.setattr(poll_mod.time, "thread_time", lambda: float(next(clock)))
    told: list[tuple[float, int]] = []
    poller = TreePoller(RootDir(hostile), Recorder(), interval=0.05,
                        on_period=lambda s, n: told.append((s, n)))
    poller.start()
    try:
        assert poller.period == poll_mod.next_wait(0.05, 1.0) > 40
        assert told == [(poller.period, len(poller.snapshot() or {}))]
    finally:
        poller.stop()
        poller.join(5)


def test_the_watcher_tells_the_user_how_often_it_polls(hostile: Path, monkeypatch) -> None:
    clock = iter(range(0, 10**6, 1))
    monkeypatch.setattr(poll_mod.time, "thread_time", lambda: float(next(clock)))
    watcher = FolderWatcher(str(hostile), lambda paths, mode: None, poll=True)
    watcher.start()
    try:
        assert any(n.startswith(f"Polling {hostile} every 49 s") for n in watcher.notices)
    finally:
        watcher.stop()
