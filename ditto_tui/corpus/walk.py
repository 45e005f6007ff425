"""Discovering documents in a folder.

:class:`Walker` visits a root depth-first with the names of every folder in byte order
(``os.fsencode``), like Go's ``filepath.WalkDir``, using only ``lstat``-level information
gathered through the root's :class:`~ditto_tui.corpus.rootdir.RootDir`: it never opens a
file (so a FIFO or a device can never block it) and never lists a folder outside the root.
It yields a :class:`FileEntry` for every candidate file and a :class:`Skipped` for
everything it refuses, and silently leaves out ignored paths and maildir ``tmp/`` folders.
Reading and fingerprinting happen later (:mod:`ditto_tui.corpus.scan`).

One document per file: a symlink to a file inside the root and a second hard link to a
file already seen are skipped as aliases (reason ``"same file as X"``, ``same_as`` X);
symlinked folders are not descended unless ``ScanOptions.follow_symlinks`` (and then only
inside the root, the files met twice being aliases too); links leaving the root, broken
links and loops are skipped with their reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ditto_tui.core.html.sniff import HTML_SUFFIXES, has_html_name
from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions, Skipped, human_size
from ditto_tui.corpus.ignore import IGNORE_FILE, IgnoreRules
from ditto_tui.corpus.mail import MAILDIR_PARTS, MESSAGE_FOLDERS
from ditto_tui.corpus.reading import os_reason, too_large
from ditto_tui.corpus.records import FileEntry
from ditto_tui.corpus.rootdir import LEAVES, LOOP, Refused, RootDir, kind_reason

if TYPE_CHECKING:
    from ditto_tui.corpus.reconcile import TreeRecord

__all__ = [
    "EMPTY", "FileEntry", "HTML_SUFFIXES", "PATH_MAX", "Walker", "too_small", "walk_order_key"
]

EMPTY = "empty file"
#: Longest path (bytes) the walker will hand to the OS.
PATH_MAX = 4096
if hasattr(os, "pathconf"):
    with contextlib.suppress(OSError, ValueError):
        PATH_MAX = os.pathconf("/", "PC_PATH_MAX")
SAME_FILE = "same file as "
LINKED_FOLDER = "symlinked folder, not followed"
BROKEN = "broken symlink"

#: (st_dev, st_ino) -> the id of the document that file is, within one walk.
Seen = dict[tuple[int, int], str]


def too_small(size: int, limit: int) -> str:
    """The skip reason for a file of ``size`` bytes under the ``min_size`` limit."""
    return f"smaller than the minimum size ({human_size(size)} < {human_size(limit)})"


def walk_order_key(rel: str) -> list[bytes]:
    """Sort key putting root-relative ids in walk order (depth-first, names by bytes)."""
    return [os.fsencode(part) for part in rel.split("/")]


class Walker:
    """Walks one corpus root (a folder, or a single file) under given options.

    ``accepts`` is the pipeline's ``accepts(name)``; a file it refuses becomes a ``sniff``
    entry (its first bytes decide when it is read), or is taken as it is with
    ``ScanOptions.html_any``, or is skipped with a reason when ``sniff`` is False. Files
    under ``min_size``, or empty with ``skip_empty``, are skipped with their reason.
    ``rootdir`` is the gate every open goes through (readers use it too). All
    methods are safe to call from any thread (no shared mutable state); :meth:`close`
    releases the root's descriptor.
    """

    def __init__(
        self,
        root: str,
        options: ScanOptions = DEFAULT_OPTIONS,
        *,
        rules: IgnoreRules | None = None,
        accepts: Callable[[str], bool] | None = None,
        pipeline_name: str = "",
        sniff: bool = True,
    ) -> None:
        self.root = os.path.abspath(root)
        self.root_real = os.path.realpath(self.root)
        self.options = options
        self.follow = options.follow_symlinks
        self.is_dir = os.path.isdir(self.root)
        if self.is_dir:
            self.rootdir = RootDir(self.root, follow=self.follow)
        else:
            self.rootdir = RootDir.for_file(self.root)
        self.rules = rules or (
            IgnoreRules.for_root(self.rootdir, options.ignore) if self.is_dir else IgnoreRules(())
        )
        self.accepts = accepts
        self.pipeline_name = pipeline_name
        self.sniff = sniff

    def close(self) -> None:
        """Release the root's descriptor (a later use reopens it)."""
        self.rootdir.close()

    # -- helpers ------------------------------------------------------------------------
    def abspath(self, rel: str) -> str:
        """Absolute path of a root-relative id (``""`` is the root)."""
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def _skip(self, rel: str, path: str, reason: str, same_as: str | None = None) -> Skipped:
        return Skipped(rel or os.path.basename(self.root), path, reason, same_as)

    def _link(self, rel: str, path: str) -> tuple[str, os.stat_result] | Skipped:
        """Where the symlink ``rel`` leads inside the root, or why it is refused."""
        try:
            return self.rootdir.resolve(rel)
        except Refused as exc:
            return self._skip(rel, path, str(exc.strerror))
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return self._skip(rel, path, BROKEN)
            if exc.errno == errno.ELOOP:
                return self._skip(rel, path, LOOP)
            return self._skip(rel, path, os_reason(exc))

    def _file(
        self,
        rel: str,
        path: str,
        st: os.stat_result,
        in_messages: bool,
        seen: Seen | None,
        known: Callable[[int, int], str | None] | None,
        name: str = "",
    ) -> FileEntry | Skipped:
        if not stat.S_ISREG(st.st_mode):
            return self._skip(rel, path, kind_reason(st.st_mode) or "not a regular file")
        if not name:
            name = rel.rsplit("/", 1)[-1] if rel else os.path.basename(path)
        # A name the pipeline refuses is still a page (kind "html": the only pipeline that
        # refuses names reads HTML) with html_any, or if its first bytes say so (sniff).
        refused = self.accepts is not None and not self.accepts(name)
        if refused and not self.sniff and not self.options.html_any:
            label = f"the {self.pipeline_name} pipeline" if self.pipeline_name else "the pipeline"
            return self._skip(rel, path, f"not accepted by {label}")
        if (st.st_nlink > 1 or self.follow) and seen is not None and self.is_dir:
            node = (st.st_dev, st.st_ino)
            owner = seen.get(node)
            if owner is None and known is not None:
                owner = known(st.st_dev, st.st_ino)
            if owner is not None and owner != rel:
                return self._skip(rel, path, SAME_FILE + owner, owner)
            seen[node] = rel
        if st.st_size > self.options.max_size:
            return self._skip(rel, path, too_large(st.st_size, self.options.max_size))
        if st.st_size == 0 and self.options.skip_empty:
            return self._skip(rel, path, EMPTY)
        if st.st_size < self.options.min_size:
            return self._skip(rel, path, too_small(st.st_size, self.options.min_size))
        if in_messages:
            kind = "maildir"
        elif refused or has_html_name(name):
            kind = "html"
        else:
            kind = "text"
        sniff = refused and not self.options.html_any
        return FileEntry(rel or name, path, kind, st.st_size, st.st_mtime_ns, st.st_ino, sniff)

    def _lstat(self, rel: str) -> os.stat_result:
        """lstat of ``rel`` (``""``: the root itself, or the file of a single-file root)."""
        if not self.is_dir:
            return self.rootdir.lstat(self.rootdir.file_rel(rel))
        if not rel:
            return os.fstat(self.rootdir.fd)
        return self.rootdir.lstat(rel)

    # -- walking ------------------------------------------------------------------------
    def walk(
        self,
        rel: str = "",
        *,
        seen: Seen | None = None,
        known: Callable[[int, int], str | None] | None = None,
        record: TreeRecord | None = None,
    ) -> Iterator[FileEntry | Skipped]:
        """Everything under root-relative ``rel`` (the whole root by default), in walk order.

        ``rel`` may name a file, a folder or a path that no longer exists or no longer
        lies inside the root through real folders (then nothing is yielded: the symlink on
        the way is reported where it is). Context is honoured: a path below an ignored folder
        yields nothing, a file in a maildir's ``cur``/``new`` is a ``"maildir"`` entry.
        ``seen`` (shared by consecutive walks) and ``known(dev, ino)`` (the id of a document
        outside this walk) decide which name of a multiply-linked file is the document.
        A whole walk first reports a ``.dittoignore`` that could not be read. ``record``
        receives each folder listed (stamp and names) and the ``lstat`` of each file
        skipped, for the watcher's reconcile (:mod:`~ditto_tui.corpus.reconcile`).
        """
        if seen is None:
            seen = {}
        if not rel and self.rules.problem is not None:
            yield self._skip(IGNORE_FILE, self.abspath(IGNORE_FILE), self.rules.problem)
        if rel and self._context_hidden(rel):
            return
        path = self.abspath(rel)
        if len(os.fsencode(path)) >= PATH_MAX:
            yield self._skip(rel, path, "path too long for the system")
            return
        try:
            st = self._lstat(rel)
        except Refused:
            return  # a symlink on the way: reported at its own place
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                yield self._skip(rel, path, os_reason(exc))
            return
        in_messages = self._in_message_folder(rel)
        if stat.S_ISLNK(st.st_mode):
            if rel and self.rules.is_ignored(rel):
                return
            item = self._symlink(rel, path)
            if item is not None:
                yield item
                return
            try:
                st = self.rootdir.resolve(rel)[1]
            except OSError as exc:  # changed since
                yield self._skip(rel, path, os_reason(exc))
                return
        if stat.S_ISDIR(st.st_mode):
            if rel and self.rules.is_ignored(rel, True):
                return
            ancestors = self._ancestors(rel) | {(st.st_dev, st.st_ino)}
            yield from self._walk_dir(rel, path, ancestors, seen, known, record)
        else:
            if rel and self.rules.is_ignored(rel):
                return
            found = self._file(rel, path, st, in_messages, seen, known)
            if record is not None and isinstance(found, Skipped):
                record.skipped_file(rel, st)
            yield found

    def _symlink(self, rel: str, path: str) -> Skipped | None:
        """The skip for the symlink ``rel``, or None when it is a folder to descend."""
        target = self._link(rel, path)
        if isinstance(target, Skipped):
            return target
        real, st = target
        if stat.S_ISDIR(st.st_mode):
            return None if self.follow else self._skip(rel, path, LINKED_FOLDER)
        if stat.S_ISREG(st.st_mode):
            return self._skip(rel, path, SAME_FILE + real, real)
        return self._skip(rel, path, kind_reason(st.st_mode) or "not a regular file")

    def _context_hidden(self, rel: str) -> bool:
        """True when a folder above ``rel`` is ignored or is a maildir ``tmp`` folder."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            prefix = "/".join(parts[:i])
            if self.rules.is_ignored(prefix, True):
                return True
            if parts[i - 1] == "tmp" and self._is_maildir("/".join(parts[: i - 1])):
                return True
        return parts[-1] == "tmp" and self._is_maildir("/".join(parts[:-1]))

    def _is_maildir(self, rel: str) -> bool:
        """True when folder ``rel`` holds ``cur``, ``new`` and ``tmp`` folders."""
        if not self.is_dir:
            return False
        for part in MAILDIR_PARTS:
            try:
                st = self.rootdir.lstat(f"{rel}/{part}" if rel else part)
            except OSError:
                return False
            if not stat.S_ISDIR(st.st_mode):
                return False
        return True

    def _in_message_folder(self, rel: str) -> bool:
        """True when the file ``rel`` sits in a maildir's ``cur``/``new`` folder."""
        return "/" in rel and self._in_maildir_folder(rel.rsplit("/", 1)[0])

    def _ancestors(self, rel: str) -> set[tuple[int, int]]:
        """(dev, inode) of the root and every folder above ``rel`` (loop detection)."""
        out: set[tuple[int, int]] = set()
        parts = rel.split("/") if rel else []
        for i in range(len(parts)):
            try:
                st = self.rootdir.resolve("/".join(parts[:i]))[1] if i else os.fstat(
                    self.rootdir.fd
                )
            except OSError:
                continue
            out.add((st.st_dev, st.st_ino))
        return out

    def _walk_dir(
        self,
        rel: str,
        path: str,
        ancestors: set[tuple[int, int]],
        seen: Seen,
        known: Callable[[int, int], str | None] | None,
        record: TreeRecord | None,
    ) -> Iterator[FileEntry | Skipped]:
        """Depth-first walk below one folder with an explicit stack (no recursion limit)."""
        opened = self._open_dir(rel, path, self._in_maildir_folder(rel), ancestors, record)
        if isinstance(opened, Skipped):
            yield opened
            return
        stack: list[_Frame] = [opened]
        while stack:
            frame = stack[-1]
            listed = next(frame.entries, None)
            if listed is None:
                stack.pop()
                continue
            name, st_or_error = listed
            c_rel = f"{frame.rel}/{name}" if frame.rel else name
            c_path = frame.path + "/" + name if frame.path != "/" else "/" + name
            if len(c_path) * 4 >= PATH_MAX and len(os.fsencode(c_path)) >= PATH_MAX:
                yield self._skip(c_rel, c_path, "path too long for the system")
                continue
            if isinstance(st_or_error, OSError):
                if st_or_error.errno != errno.ENOENT:  # vanished since listing: nothing to say
                    yield self._skip(c_rel, c_path, os_reason(st_or_error))
                continue
            st = st_or_error
            if stat.S_ISLNK(st.st_mode):
                if self.rules.is_ignored(c_rel):
                    continue
                skip = self._symlink(c_rel, c_path)
                if skip is not None:
                    yield skip
                    continue
                try:
                    st = self.rootdir.resolve(c_rel)[1]
                except OSError as exc:  # changed since
                    yield self._skip(c_rel, c_path, os_reason(exc))
                    continue
            if stat.S_ISDIR(st.st_mode):
                if self.rules.is_ignored(c_rel, True) or (frame.is_maildir and name == "tmp"):
                    continue
                if (st.st_dev, st.st_ino) in frame.ancestors:
                    yield self._skip(c_rel, c_path, LOOP)
                    continue
                child = self._open_dir(
                    c_rel,
                    c_path,
                    frame.is_maildir and name in MESSAGE_FOLDERS,
                    frame.ancestors | {(st.st_dev, st.st_ino)},
                    record,
                )
                if isinstance(child, Skipped):
                    yield child
                else:
                    stack.append(child)
                continue
            if self.rules.is_ignored(c_rel):
                continue
            item = self._file(c_rel, c_path, st, frame.messages, seen, known, name)
            if record is not None and isinstance(item, Skipped):
                record.skipped_file(c_rel, st)
            yield item

    def _in_maildir_folder(self, rel: str) -> bool:
        """True when folder ``rel`` is the ``cur``/``new`` folder of a maildir."""
        parts = rel.split("/") if rel else []
        return bool(parts) and parts[-1] in MESSAGE_FOLDERS and self._is_maildir(
            "/".join(parts[:-1])
        )

    def _open_dir(
        self,
        rel: str,
        path: str,
        messages: bool,
        ancestors: set[tuple[int, int]],
        record: TreeRecord | None = None,
    ) -> _Frame | Skipped:
        """List folder ``rel`` through the root's gate: names in byte order with their lstat
        (and into ``record`` the folder's ``fstat`` taken before listing, with its names)."""
        try:
            fd = self.rootdir.open_dir(rel)
        except Refused as exc:
            reason = str(exc.strerror)
            return self._skip(rel, path, reason if reason in (LEAVES, LOOP) else
                              "cannot open folder: " + reason)
        except OSError as exc:
            return self._skip(rel, path, "cannot open folder: " + os_reason(exc))
        try:
            before = os.fstat(fd) if record is not None else None
            with os.scandir(fd) as it:
                names = sorted((e.name for e in it), key=os.fsencode)
            if before is not None and record is not None:
                record.folder(rel, before, names)
            listed: list[tuple[str, os.stat_result | OSError]] = []
            for name in names:
                try:
                    listed.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
                except OSError as exc:
                    listed.append((name, exc))
        except OSError as exc:
            return self._skip(rel, path, "cannot open folder: " + os_reason(exc))
        finally:
            os.close(fd)
        dirs = {n for n, st in listed if n in MAILDIR_PARTS and not isinstance(st, OSError)
                and stat.S_ISDIR(st.st_mode)}
        is_maildir = len(dirs) == len(MAILDIR_PARTS)
        return _Frame(rel, path, iter(listed), messages, is_maildir, ancestors)


@dataclass(slots=True)
class _Frame:
    """One listed folder of a walk: its names with their lstat, and its context."""

    rel: str
    path: str
    entries: Iterator[tuple[str, os.stat_result | OSError]]
    messages: bool  # files here are maildir messages
    is_maildir: bool  # this folder holds cur/new/tmp
    ancestors: set[tuple[int, int]]  # (dev, inode) of folders above, for loop detection
