"""Action journals: the write-ahead record that makes every file action undoable.

One JSON-lines file per action, in a folder beside the fingerprint cache (never inside the
corpus). The first line is a header (action, root, creation time), then one line per
planned file operation with everything needed to check and reverse it (source, exact
destination, size, mtime, inode, mode, sha256). The file is fsync'ed, and its folder too,
*before* the first file moves. Then each outcome is appended (``{"n", "status",
"reason"}``; fsync'ed in batches and at the end) and a final ``{"state": ...}`` line closes
it: ``done``, ``undone`` or ``rolled-back``. A journal without a final state was
interrupted; :func:`ditto_tui.corpus.actions.undo.recover` rolls it back, deciding each
operation from the disk (so outcomes lost in a crash do not matter).

Paths are stored as JSON strings; names that are not UTF-8 round-trip as ``\\udcXX``
escapes. A torn last line (a crash while appending) is ignored on reading. Any other line
that does not parse, or whose fields are missing or of the wrong type, is *damage*: it is
skipped, the rest is still read, and the journal says what it lost
(:attr:`Journal.damage`, :meth:`Journal.damage_note`: the lines and how many planned
files are unaccounted for); reading never raises on a damaged journal. While an action
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
from typing import Any, TypeGuard

from ditto_tui.corpus.atomic import write_all

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
        self.damage: list[str] = []
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
        value = self.header.get("created", 0.0)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else 0.0

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
        write_all(fd, b"".join(chunks))
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
        """Read a journal. A torn last line (no newline: being written when the process
        stopped) is ignored; every other line that does not parse or is ill-typed is
        skipped and noted in :attr:`damage`. Never raises for the content (only OSError
        when the file cannot be read); a journal without a usable header has ``usable``
        False."""
        path = Path(path)
        header: dict[str, Any] | None = None
        ops: list[dict[str, Any]] = []
        outcomes: dict[int, dict[str, Any]] = {}
        state: str | None = None
        damage: list[str] = []
        with open(path, "rb") as handle:
            data = handle.read()
        lines = data.decode("ascii", "surrogateescape").split("\n")  # written as ASCII
        torn = lines.pop()  # "" when the file ends with a newline
        for number, raw in enumerate(lines, 1):
            try:
                entry = json.loads(raw)
            except ValueError:
                damage.append(f"line {number} does not parse")
                continue
            problem = None
            if not isinstance(entry, dict):
                problem = "is not a record"
            elif "header" in entry:
                if header is not None:
                    problem = "is a second header"
                elif _header_problem(entry["header"]) is not None:
                    problem = _header_problem(entry["header"])
                else:
                    header = entry["header"]
                    created = header.get("created", 0.0)
                    if isinstance(created, bool) or not isinstance(created, (int, float)):
                        problem = "has a header with an ill-typed created"
            elif "op" in entry:
                problem = _op_problem(entry["op"])
                if problem is None:
                    ops.append(entry["op"])
            elif "state" in entry:
                if isinstance(entry["state"], str):
                    state = entry["state"]
                else:
                    problem = "has an ill-typed state"
            elif "n" in entry:
                n, status = entry.get("n"), entry.get("status")
                if _is_int(n) and isinstance(status, str) and isinstance(
                        entry.get("reason", ""), str):
                    outcomes[n] = entry
                else:
                    problem = "is an ill-typed outcome"
            else:
                problem = "is not a journal record"
            if problem is not None:
                damage.append(f"line {number} {problem}")
        if torn and not lines and header is None:
            damage.append("line 1 is cut short")
        journal = cls(path, header or {}, ops)
        journal.outcomes = outcomes
        journal.state = state
        journal.damage = damage
        if header is None and not damage:
            journal.damage = ["no header"]
        return journal

    @property
    def usable(self) -> bool:
        """Whether the header says what was done where (else nothing can be undone)."""
        return bool(self.header) and _header_problem(self.header) is None

    @property
    def unaccounted(self) -> int:
        """Planned files the journal no longer describes (lines lost to damage): the
        header's count of files less the operations read, or 1 at least when the header
        itself is lost."""
        if not self.damage:
            return 0
        files = self.header.get("files")
        if _is_int(files):
            known = {op["n"] for op in self.ops}
            return max(0, files - len(known))
        return 0 if self.header else max(1, len(self.ops))

    def damage_note(self) -> str:
        """One line on what is lost ("" for a whole journal)."""
        if not self.damage:
            return ""
        shown = "; ".join(self.damage[:5]) + ("; ..." if len(self.damage) > 5 else "")
        note = f"journal {self.path.name} is damaged ({shown})"
        lost = self.unaccounted
        if not self.usable:
            note += ": it no longer says what was done where"
            if self.ops:
                dests = ", ".join(str(op.get("dest", "")) for op in self.ops[:3])
                note += f"; {len(self.ops)} file(s) it still names are at {dests}"
                note += ", ..." if len(self.ops) > 3 else ""
        elif lost:
            note += f": {lost} file(s) unaccounted for"
            if self.header.get("action") in ("trash", "move"):
                note += " (look for them in the trash or quarantine folder)"
        return note

    def done_ops(self) -> Iterator[dict[str, Any]]:
        """The ops whose last recorded outcome is ``done``."""
        for op in self.ops:
            outcome = self.outcomes.get(op["n"])
            if outcome is not None and outcome.get("status") == "done":
                yield op


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_OP_FIELDS: dict[str, type] = {
    "n": int, "id": str, "dest": str, "sha256": str, "size": int, "mtime_ns": int,
    "inode": int, "mode": int, "atime_ns": int, "info": str, "reference": str,
    "ref_inode": int,
}
_OP_OPTIONAL: dict[str, type] = {"ref_sha256": str}
_OP_ITEMS = tuple(_OP_FIELDS.items())


def _op_problem(op: Any) -> str | None:
    """Why a stored operation cannot be used, or None (``type() is``: a bool is no int)."""
    if type(op) is not dict:
        return "is not an operation"
    for name, kind in _OP_ITEMS:
        if type(op.get(name)) is not kind:
            return f"has a missing or ill-typed {name}"
    for name, kind in _OP_OPTIONAL.items():
        value = op.get(name)
        if value is not None and type(value) is not kind:
            return f"has an ill-typed {name}"
    return None


def _header_problem(header: Any) -> str | None:
    if not isinstance(header, dict):
        return "has an ill-typed header"
    if not isinstance(header.get("action"), str) or not isinstance(header.get("root"), str):
        return "has a header without action or root"
    for name in ("files",):
        if name in header and not _is_int(header[name]):
            return f"has a header with an ill-typed {name}"
    if "quarantine" in header and not isinstance(header["quarantine"], (str, type(None))):
        return "has a header with an ill-typed quarantine"
    return None


def journals(folder: str | os.PathLike[str]) -> list[Journal]:
    """Every journal in ``folder``, damaged ones included (see :attr:`Journal.damage`),
    oldest first; only a file that cannot be read at all is left out."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found: list[Journal] = []
    for path in sorted(folder.glob("*.jsonl")):
        with contextlib.suppress(OSError):
            found.append(Journal.load(path))
    found.sort(key=lambda j: (j.created, j.path.name))
    return found
