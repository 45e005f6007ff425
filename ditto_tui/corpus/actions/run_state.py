"""What one execute or undo holds (:class:`Run`: its folders, the references already
checked, the folders it made and touched) and the test seam :func:`about_to_act`."""

from __future__ import annotations

import contextlib
import os

from ditto_tui.corpus.actions.folders import At, Folders
from ditto_tui.corpus.actions.outcomes import Refused
from ditto_tui.corpus.rootdir import RootDir

__all__ = ["Run", "about_to_act"]


def about_to_act(rel: str) -> None:
    """Test seam: called after a file's last check, right before it is acted on (in
    :func:`~ditto_tui.corpus.actions.execution.execute` and in undo, always through this
    module so one replacement covers both); a test replaces it to swap a folder at that
    moment."""


class Run:
    """What one execute or undo holds: ``folders`` (the descriptors it opened), ``refs``
    (each reference hashed this run, by its (inode, size, mtime_ns, ctime_ns): hashed again
    only when that changes), ``made`` (trash and quarantine folders created) and
    ``touched`` (the (base, rel) folders whose names changed: fsync'ed by :meth:`sync`).
    Not thread-safe: one run, one thread; :meth:`close` when done."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.folders = Folders()
        self.refs: dict[str, tuple[int, int, int, int]] = {}
        self.made: set[str] = set()
        self.touched: set[tuple[str, str]] = set()
        self._above: dict[str, str] = {}

    def base_of(self, path: str) -> str:
        """The folder above the folder of ``path`` (a trash folder from a file in its
        ``files/`` or ``info/``), remembered per folder."""
        folder = path.rpartition("/")[0]
        base = self._above.get(folder)
        if base is None:
            base = self._above[folder] = os.path.dirname(folder)
        return base

    @property
    def gate(self) -> RootDir:
        """The gate on the corpus root."""
        return self.folders.gate(self.root)

    def folder(self, rel: str, *, create: bool = False) -> int:
        """Folder ``rel`` below the corpus root (see :meth:`Folders.open`)."""
        return self.folders.open(self.root, rel, create=create)

    def folder_or_none(self, base: str, rel: str, check: bool = True) -> int | None:
        """Folder ``rel`` below ``base``, None when it is missing."""
        try:
            return self.folders.open(base, rel, check=check)
        except FileNotFoundError:
            return None

    def still_at(self, at: At) -> bool:
        """Whether the folder of ``at`` is still where it was."""
        return self.folders.still_at(at.base, at.rel, at.fd)

    def sync(self) -> None:
        """fsync every folder a name was added to or removed from (errors ignored)."""
        for base, rel in self.touched:
            with contextlib.suppress(OSError, Refused):
                os.fsync(self.folders.open(base, rel))
        self.touched.clear()

    def close(self) -> None:
        """Close every folder descriptor of the run."""
        self.folders.close()
