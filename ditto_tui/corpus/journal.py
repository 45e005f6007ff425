"""Action journals: the write-ahead record that makes every file action undoable.

One JSON-lines file per action, in a folder beside the fingerprint cache (never inside the
corpus). The first line is a header (action, root, creation time), then one line per
planned file operation with everything needed to check and reverse it (source, exact
destination, size, mtime, inode, mode, sha256). The file is fsync'ed, and its folder too,
*before* the first file moves. Then each outcome is appended (``{"n", "status",
"reason"}``; fsync'ed in batches and at the end) and a final ``{"state": ...}`` line closes
it: ``done``, ``undone`` or ``rolled-back``. A journal without a final state was
interrupted; :func:`ditto_tui.corpus.actions.recover` rolls it back, deciding each
operation from the disk (so outcomes lost in a crash do not matter).

Paths are stored as JSON strings; names that are not UTF-8 round-trip as ``\\udcXX``
escapes. A torn last line (a crash while appending) is ignored on reading. While an action
or an undo runs, its journal is locked (``flock``), so another process never rolls back a
journal that is still being worked on.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["Journal", "journal_folder", "journals"]

VERSION = 1
FSYNC_EVERY = 256
FSYNC_SECONDS = 0.5
FINAL_STATES = ("done", "undone", "rolled-back")

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]


def journal_folder(cache_db: str | os.PathLike[str]) -> Path:
    """The journal folder of a corpus whose review/cache database is ``cache_db``."""
    path = Path(cache_db)
    return path.with_name(path.stem + ".journals")


def _fsync_dir(folder: str | os.PathLike[str]) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _dump(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


class Journal:
    """One action's journal (see the module docstring).

    ``header`` and ``ops`` are what was planned; ``outcomes[n]`` is the last status
    recorded for op ``n`` (``"done"``, ``"refused"``, ``"failed"``, ``"undone"``, ...);
    ``state`` is the final state or ``None`` while (or because it was never) finished.
    """

    def __init__(self, path: Path, header: dict[str, Any], ops: list[dict[str, Any]]) -> None:
        self.path = path
        self.header = header
        self.ops = ops
        self.outcomes: dict[int, dict[str, Any]] = {}
        self.state: str | None = None
        self._fd: int | None = None
        self._unsynced = 0
        self._last_sync = time.monotonic()

    @property
    def id(self) -> str:
        return self.path.stem

    @property
    def action(self) -> str:
        return str(self.header.get("action", "?"))

    @property
    def created(self) -> float:
        return float(self.header.get("created", 0.0))

    # -- writing ------------------------------------------------------------------------
    @classmethod
    def create(
        cls, folder: str | os.PathLike[str], header: dict[str, Any], ops: list[dict[str, Any]]
    ) -> Journal:
        """Write header and ops durably (file and folder fsync'ed) and return the journal,
        open and locked for appending."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        path = folder / f"{stamp}-{uuid.uuid4().hex[:8]}.jsonl"
        header = {"journal": VERSION, "created": time.time(), **header}
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        journal = cls(path, header, ops)
        journal._fd = fd
        journal._lock()
        chunks = [_dump({"header": header})]
        chunks += [_dump({"op": op}) for op in ops]
        data = b"".join(chunks)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        _fsync_dir(folder)
        return journal

    def _lock(self) -> None:
        if fcntl is not None and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def open_for_append(self) -> bool:
        """Open and lock an existing journal; False when another process holds it."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._fd = fd
        try:
            self._lock()
        except OSError:
            os.close(fd)
            self._fd = None
            return False
        return True

    def record(self, n: int, status: str, reason: str = "", **extra: Any) -> None:
        """Append the outcome of op ``n`` (fsync'ed every ``FSYNC_EVERY`` records)."""
        entry = {"n": n, "status": status, "reason": reason, **extra}
        self.outcomes[n] = entry
        self._append(_dump(entry))
        self._unsynced += 1
        now = time.monotonic()
        if self._unsynced >= FSYNC_EVERY or now - self._last_sync >= FSYNC_SECONDS:
            self.sync()

    def _append(self, data: bytes) -> None:
        assert self._fd is not None, "journal not open"
        os.write(self._fd, data)

    def sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
        self._unsynced = 0
        self._last_sync = time.monotonic()

    def finish(self, state: str) -> None:
        """Append the final state durably and close (and unlock) the journal."""
        self.state = state
        self._append(_dump({"state": state, "at": time.time()}))
        self.sync()
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    # -- reading ------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Journal:
        """Read a journal; a torn or unreadable line ends the read (what follows is lost
        anyway: it was being written when the process stopped). Raises ValueError when
        the file has no header."""
        path = Path(path)
        header: dict[str, Any] | None = None
        ops: list[dict[str, Any]] = []
        outcomes: dict[int, dict[str, Any]] = {}
        state: str | None = None
        with open(path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                try:
                    entry = json.loads(raw)
                except ValueError:
                    break
                if "header" in entry:
                    header = entry["header"]
                elif "op" in entry:
                    ops.append(entry["op"])
                elif "state" in entry:
                    state = entry["state"]
                elif "n" in entry:
                    outcomes[int(entry["n"])] = entry
        if header is None:
            raise ValueError(f"{path}: not an action journal")
        journal = cls(path, header, ops)
        journal.outcomes = outcomes
        journal.state = state
        return journal

    def done_ops(self) -> Iterator[dict[str, Any]]:
        """The ops whose last recorded outcome is ``done``."""
        for op in self.ops:
            outcome = self.outcomes.get(int(op["n"]))
            if outcome is not None and outcome.get("status") == "done":
                yield op


def journals(folder: str | os.PathLike[str]) -> list[Journal]:
    """Every readable journal in ``folder``, oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found: list[Journal] = []
    for path in sorted(folder.glob("*.jsonl")):
        with contextlib.suppress(OSError, ValueError):
            found.append(Journal.load(path))
    found.sort(key=lambda j: (j.created, j.path.name))
    return found
