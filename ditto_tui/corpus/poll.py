"""Polling for changes without leaving the root (network file systems, inotify fallback).

:class:`TreePoller` takes an ``lstat``-level snapshot of the root every ``interval``
seconds through the root's :class:`~ditto_tui.corpus.rootdir.RootDir` and reports the
paths whose entry appeared, vanished or changed. It never follows a symlink (a link is one
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
from collections.abc import Callable

from ditto_tui.corpus.rootdir import RootDir

__all__ = ["TreePoller"]

_log = logging.getLogger(__name__)
#: What identifies an entry's state in a snapshot.
State = tuple[int, int, int, int, int]


def _state(st: os.stat_result) -> State:
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class TreePoller(threading.Thread):
    """A daemon thread polling one root; ``report(rels)`` gets changed root-relative paths.

    ``rootdir`` is the root (for a single-file root, the folder and its ``leaf``: only that
    file is polled, reported as ``""``). ``is_ignored(rel, is_dir)`` prunes folders and
    files. ``report`` runs in this thread. Same lifecycle calls as a watchdog observer
    (``start``, ``stop``, ``join``, ``is_alive``).
    """

    def __init__(
        self,
        rootdir: RootDir,
        report: Callable[[list[str]], None],
        *,
        interval: float = 2.0,
        is_ignored: Callable[[str, bool], bool] | None = None,
    ) -> None:
        super().__init__(name=f"ditto-tui poller {rootdir.path}", daemon=True)
        self.rootdir = rootdir
        self.report = report
        self.interval = interval
        self.is_ignored = is_ignored
        self._stop_event = threading.Event()
        self._baseline: dict[str, State] | None = None

    def start(self) -> None:
        """Take the first snapshot here, then poll in the thread: a change made once
        ``start`` has returned is always reported (a baseline taken later by the thread
        could already contain it)."""
        self._baseline = self.snapshot()
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

    def run(self) -> None:
        try:
            before, self._baseline = self._baseline, None
            if before is None:
                before = self.snapshot()
            while before is not None and not self._stop_event.wait(self.interval):
                now = self.snapshot()
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
