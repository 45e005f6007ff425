"""Polling for changes without leaving the root (network file systems, inotify fallback).

:class:`TreePoller` takes an ``lstat``-level snapshot of the root every ``interval``
seconds through the root's :class:`~ditto_tui.corpus.rootdir.RootDir` and reports the
paths whose entry appeared, vanished or changed. A snapshot of a large tree costs CPU
(about 2.6 us an entry here): the next one waits until polling has used at most
:data:`CPU_BUDGET` of a core on average (:func:`next_wait`), so a tree of 100,000
entries is looked at every ~13 s, not every 2 s at 13 % of a core. It never follows a symlink (a link is one
entry, compared by its own ``lstat``), never lists a folder outside the root, skips ignored
folders, and checks its stop flag between folders, so :meth:`TreePoller.stop` returns
promptly even in the middle of a snapshot of a huge tree.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable

from ditto_tui.corpus.rootdir import RootDir

__all__ = ["TreePoller"]

_log = logging.getLogger(__name__)

#: The share of one core polling uses at most, on average (see :func:`next_wait`).
CPU_BUDGET = 0.02


def next_wait(interval: float, cost: float) -> float:
    """Seconds between the end of a snapshot that took ``cost`` seconds of CPU and the
    start of the next: ``interval``, or longer so that polling stays within
    :data:`CPU_BUDGET` of a core."""
    return max(interval, cost / CPU_BUDGET - cost)
#: What identifies an entry's state in a snapshot.
State = tuple[int, int, int, int, int]


def _state(st: os.stat_result) -> State:
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class TreePoller(threading.Thread):
    """A daemon thread polling one root; ``report(rels)`` gets changed root-relative paths.

    ``rootdir`` is the root (for a single-file root, the folder and its ``leaf``: only that
    file is polled, reported as ``""``). ``is_ignored(rel, is_dir)`` prunes folders and
    files. ``report`` runs in this thread. ``on_period(seconds, entries)`` runs (in this
    thread too) when the wait between snapshots first exceeds ``interval`` and whenever
    it doubles or halves since then; ``period`` is the current wait. Same lifecycle
    calls as a watchdog observer (``start``, ``stop``, ``join``, ``is_alive``).
    """

    def __init__(
        self,
        rootdir: RootDir,
        report: Callable[[list[str]], None],
        *,
        interval: float = 2.0,
        is_ignored: Callable[[str, bool], bool] | None = None,
        on_period: Callable[[float, int], None] | None = None,
    ) -> None:
        super().__init__(name=f"ditto-tui poller {rootdir.path}", daemon=True)
        self.rootdir = rootdir
        self.report = report
        self.interval = interval
        self.is_ignored = is_ignored
        self.on_period = on_period
        self.period = interval
        self._announced = interval  # the period last told to on_period
        self._stop_event = threading.Event()
        self._baseline: dict[str, State] | None = None

    def start(self) -> None:
        """Take the first snapshot here, then poll in the thread: a change made once
        ``start`` has returned is always reported (a baseline taken later by the thread
        could already contain it)."""
        self._baseline = self._timed_snapshot()
        super().start()

    def stop(self) -> None:
        """Ask the thread to end (it stops between two folders at the latest)."""
        self._stop_event.set()

    def snapshot(self) -> dict[str, State] | None:
        """Every entry below the root with its state; None when stopped meanwhile."""
        out: dict[str, State] = {}
        root = self.rootdir
        if root.leaf is not None:
            with contextlib.suppress(OSError):
                out[""] = _state(root.lstat(root.leaf))
            return out
        folders = [""]
        while folders:
            if self._stop_event.is_set():
                return None
            rel = folders.pop()
            try:
                fd = root.open_dir(rel)
            except OSError:
                continue  # vanished or replaced since listed: its parent's entry tells
            try:
                with os.scandir(fd) as it:
                    names = [e.name for e in it]
                for name in names:
                    c_rel = f"{rel}/{name}" if rel else name
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        continue
                    is_dir = stat.S_ISDIR(st.st_mode)
                    if self.is_ignored is not None and self.is_ignored(c_rel, is_dir):
                        continue
                    out[c_rel] = _state(st)
                    if is_dir:
                        folders.append(c_rel)
            except OSError:
                continue
            finally:
                os.close(fd)
        return out

    def _timed_snapshot(self) -> dict[str, State] | None:
        """:meth:`snapshot`, and the wait before the next one from its CPU time."""
        started = time.thread_time()
        got = self.snapshot()
        self.period = next_wait(self.interval, time.thread_time() - started)
        if got is not None and self.on_period is not None:
            last = self._announced
            if self.period > 2 * last or (last > self.interval and self.period < last / 2):
                self._announced = self.period
                self.on_period(self.period, len(got))
        return got

    def run(self) -> None:
        try:
            before, self._baseline = self._baseline, None
            if before is None:
                before = self._timed_snapshot()
            while before is not None and not self._stop_event.wait(self.period):
                now = self._timed_snapshot()
                if now is None:
                    return
                changed = [rel for rel, st in now.items() if before.get(rel) != st]
                changed += [rel for rel in before if rel not in now]
                before = now
                if changed:
                    try:
                        self.report(changed)
                    except Exception:  # noqa: BLE001 - keep polling whatever happens
                        _log.exception("poll report failed")
        finally:
            self.rootdir.close()
