"""Bytes of whole files read ahead of need, handed over once (see :mod:`readahead`).

:mod:`~ditto_tui.corpus.readahead` registers the files it reads early; the readers of
:mod:`~ditto_tui.corpus.reading` :func:`take` their bytes when they open the same file,
unchanged, instead of reading it again. Standard library only: imported by the readers.
"""

from __future__ import annotations

import os
import threading

__all__ = ["Early", "register", "take"]


class Early:
    """One file read early: its bytes and the size and mtime they were read at, once
    ``done`` is set (``data`` None when the read failed)."""

    __slots__ = ("path", "done", "data", "size", "mtime_ns")

    def __init__(self, path: str) -> None:
        self.path = path
        self.done = threading.Event()
        self.data: bytes | None = None
        self.size = self.mtime_ns = -1


_early: dict[tuple[int, int], Early] = {}  # (device, inode) -> its early read
_owner = 0  # the process that started the reads (a forked child never takes them)
_reader: threading.Thread | None = None  # the thread reading them (it takes none itself)


def known(key: tuple[int, int]) -> bool:
    """Whether the file with this (device, inode) is registered."""
    return key in _early


def register(reads: dict[tuple[int, int], Early], reader: threading.Thread) -> None:
    """``reader`` (not started yet) reads ``reads``; this process takes their bytes."""
    global _owner, _reader
    _early.update(reads)
    _owner = os.getpid()
    _reader = reader


def take(st: os.stat_result) -> bytes | None:
    """The bytes read early of the file whose ``fstat`` (taken at its open) is ``st``,
    waiting for that read to end; None when it was not read early, was not read to the
    end, or has changed since."""
    if not _early or _owner != os.getpid() or threading.current_thread() is _reader:
        return None
    early = _early.pop((st.st_dev, st.st_ino), None)
    if early is None:
        return None
    early.done.wait()
    data, early.data = early.data, None
    if data is None or (early.size, early.mtime_ns) != (st.st_size, st.st_mtime_ns):
        return None
    return data
