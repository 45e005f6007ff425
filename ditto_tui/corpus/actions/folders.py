"""Folders and names inside them: plain root-relative paths, the folder descriptors of a
run (:class:`Folders`, each opened through a gate and checked still in place before it is
reused) and a name in an open folder (:class:`At`)."""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import NamedTuple

from ditto_tui.corpus.actions.outcomes import Refused
from ditto_tui.corpus.rootdir import Refused as GateRefused
from ditto_tui.corpus.rootdir import RootDir, fd_path

__all__ = [
    "At",
    "Folders",
    "lstat_at",
    "plain_parts",
    "split_rel",
    "unlink_quietly",
]

#: Folder descriptors kept open at once by one run (the least recently used is closed).
_FOLDERS_KEPT = 16


def plain_parts(rel: str) -> list[str]:
    """The names of a plain root-relative path; Refused for an empty or absolute path or
    one with an empty, ``.`` or ``..`` part."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise Refused("not a plain path inside the folder")
    return parts


def split_rel(rel: str) -> tuple[str, str]:
    """(parent folder, name) of a plain root-relative path."""
    parts = plain_parts(rel)
    return "/".join(parts[:-1]), parts[-1]


def _still_at(gate: RootDir, rel: str, fd: int, root_now: str | None = None) -> bool:
    """Whether the folder open as ``fd`` is still the folder ``rel`` below the gate's root:
    by the descriptor's real path where the system tells (Linux), else by a fresh walk
    through the gate compared by (device, inode). ``root_now`` is the root's real path
    if known (a root moved since then makes every folder below it fail: never a false
    yes)."""
    where = fd_path(fd)
    if where is not None:
        if root_now is None:
            root_now = fd_path(gate.fd)
        if root_now is None:
            return False
        return where == (os.path.join(root_now, *rel.split("/")) if rel else root_now)
    try:
        fresh = gate.open_dir(rel)
    except OSError:
        return False
    try:
        a, b = os.fstat(fresh), os.fstat(fd)
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    finally:
        os.close(fresh)


class Folders:
    """The folder descriptors of one run, each opened through a gate (the corpus root, a
    trash or quarantine folder) and reused while it is still where it was."""

    def __init__(self) -> None:
        self.gates: dict[str, RootDir] = {}
        self._roots: dict[str, str | None] = {}
        self._want: dict[tuple[str, str], str] = {}
        self._fds: OrderedDict[tuple[str, str], int] = OrderedDict()

    def gate(self, base: str) -> RootDir:
        """The gate on ``base``, opened at first use and kept for the run."""
        gate = self.gates.get(base)
        if gate is None:
            gate = self.gates[base] = RootDir(base)
            self._roots[base] = fd_path(gate.fd)  # the root's real path, read once a run
        return gate

    def open(self, base: str, rel: str, *, create: bool = False, check: bool = True) -> int:
        """The descriptor of folder ``rel`` below ``base`` (created when ``create``);
        Refused with the gate's reason (a symlink on the way, ...). A descriptor kept from
        an earlier step is reused once checked still in place (``check=False``: the caller
        checks after acting, and undoes the step when it moved)."""
        key = (base, rel)
        gate = self.gate(base)
        fd = self._fds.get(key)
        if fd is not None:
            if not check or self.still_at(base, rel, fd):
                self._fds.move_to_end(key)
                return fd
            self.forget(base, rel)
        try:
            fd = gate.make_dirs(rel) if create else gate.open_dir(rel)
        except GateRefused as exc:
            raise Refused(f"the folder {rel or '.'} on its path: {exc}") from None
        self._fds[key] = fd
        while len(self._fds) > _FOLDERS_KEPT:
            os.close(self._fds.popitem(last=False)[1])
        return fd

    def still_at(self, base: str, rel: str, fd: int) -> bool:
        """Whether ``fd`` is still folder ``rel`` below ``base`` (never a false yes)."""
        key = (base, rel)
        want = self._want.get(key)
        if want is None:
            root_now = self._roots.get(base)
            if root_now is None:
                return _still_at(self.gate(base), rel, fd)
            want = self._want[key] = os.path.join(root_now, *rel.split("/")) if rel else root_now
        where = fd_path(fd)
        return where == want if where is not None else _still_at(self.gate(base), rel, fd)

    def forget(self, base: str, rel: str) -> None:
        """Close the kept descriptor of folder ``rel`` below ``base``, if any."""
        fd = self._fds.pop((base, rel), None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        """Close every descriptor and gate of the run."""
        while self._fds:
            os.close(self._fds.popitem()[1])
        for gate in self.gates.values():
            gate.close()
        self.gates.clear()


def lstat_at(dfd: int, name: str) -> os.stat_result | None:
    """lstat of ``name`` in folder ``dfd``, None when nothing is there."""
    try:
        return os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def unlink_quietly(dfd: int, name: str) -> None:
    """Remove ``name`` from folder ``dfd``; nothing there is no error."""
    try:  # noqa: SIM105 - per file in undo: no context manager on this path
        os.unlink(name, dir_fd=dfd)
    except FileNotFoundError:
        pass


class At(NamedTuple):
    """A name in an open folder: ``fd`` is folder ``rel`` below gate ``base``."""

    base: str
    rel: str
    fd: int
    name: str
    show: str
