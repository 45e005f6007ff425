"""Discovering documents in a folder, and the ditto-compatible fingerprint stream for the CLI.

:class:`Walker` visits a root depth-first with the names of every folder in byte order
(``os.fsencode``), like Go's ``filepath.WalkDir``, using only ``lstat``-level information: it
never opens a file (so a FIFO or a device can never block it). It yields a
:class:`FileEntry` for every candidate file and a :class:`Skipped` for everything it refuses,
and silently leaves out ignored paths and maildir ``tmp/`` folders. Reading and
fingerprinting happen later (:mod:`ditto_tui.corpus.scan`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions, Skipped
from ditto_tui.corpus.ignore import IgnoreRules
from ditto_tui.corpus.mail import MAILDIR_PARTS, MESSAGE_FOLDERS
from ditto_tui.corpus.reading import kind_reason, os_reason, too_large

if TYPE_CHECKING:
    from ditto_tui.core.pipeline import Pipeline
    from ditto_tui.core.simhash import Fingerprint
    from ditto_tui.corpus.cache import FingerprintCache

HTML_SUFFIXES = (".html", ".htm", ".xhtml")
#: Longest path (bytes) the walker will hand to the OS.
PATH_MAX = 4096
if hasattr(os, "pathconf"):
    with contextlib.suppress(OSError, ValueError):
        PATH_MAX = os.pathconf("/", "PC_PATH_MAX")


class FileEntry(NamedTuple):
    """A file the walker accepted as a candidate document (not read yet).

    ``id`` is root-relative (``/``-separated); ``kind`` is ``"text"``, ``"html"`` or
    ``"maildir"`` (an mbox is only recognised when read); ``size``/``mtime_ns``/``inode``
    come from ``stat`` of the file (through a symlink inside the root when followed).
    """

    id: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    inode: int

    @property
    def key(self) -> tuple[int, int, int]:
        """The change-detection key (size, mtime_ns, inode)."""
        return (self.size, self.mtime_ns, self.inode)


def walk_order_key(rel: str) -> list[bytes]:
    """Sort key putting root-relative ids in walk order (depth-first, names by bytes)."""
    return [os.fsencode(part) for part in rel.split("/")]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Walker:
    """Walks one corpus root (a folder, or a single file) under given options.

    ``accepts`` is the pipeline's ``accepts(name)``; files it refuses are skipped with a
    reason. All methods are safe to call from any thread (no shared mutable state).
    """

    def __init__(
        self,
        root: str,
        options: ScanOptions = DEFAULT_OPTIONS,
        *,
        rules: IgnoreRules | None = None,
        accepts: Callable[[str], bool] | None = None,
        pipeline_name: str = "",
    ) -> None:
        self.root = os.path.abspath(root)
        self.root_real = os.path.realpath(self.root)
        self.options = options
        is_dir = os.path.isdir(self.root)
        self.rules = rules or (
            IgnoreRules.for_root(self.root, options.ignore) if is_dir else IgnoreRules(())
        )
        self.accepts = accepts
        self.pipeline_name = pipeline_name

    # -- helpers ------------------------------------------------------------------------
    def abspath(self, rel: str) -> str:
        """Absolute path of a root-relative id (``""`` is the root)."""
        return os.path.join(self.root, *rel.split("/")) if rel else self.root

    def _skip(self, rel: str, path: str, reason: str) -> Skipped:
        return Skipped(rel or os.path.basename(self.root), path, reason)

    def _target(self, path: str, rel: str) -> os.stat_result | Skipped:
        """Stat through a symlink, refusing links that loop, dangle or leave the root."""
        if not self.options.follow_symlinks_inside_root:
            return self._skip(rel, path, "symlink (not followed)")
        try:
            st = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return self._skip(rel, path, "symlink loop")
            if exc.errno == errno.ENOENT:
                return self._skip(rel, path, "broken symlink")
            return self._skip(rel, path, os_reason(exc))
        if not _inside(os.path.realpath(path), self.root_real):
            return self._skip(rel, path, "symlink leaves the folder")
        return st

    def _file(
        self, rel: str, path: str, st: os.stat_result, in_messages: bool, name: str = ""
    ) -> FileEntry | Skipped:
        if not stat.S_ISREG(st.st_mode):
            return self._skip(rel, path, kind_reason(st.st_mode) or "not a regular file")
        if not name:
            name = rel.rsplit("/", 1)[-1] if rel else os.path.basename(path)
        if self.accepts is not None and not self.accepts(name):
            label = f"the {self.pipeline_name} pipeline" if self.pipeline_name else "the pipeline"
            return self._skip(rel, path, f"not accepted by {label}")
        if st.st_size > self.options.max_size:
            return self._skip(rel, path, too_large(st.st_size, self.options.max_size))
        if in_messages:
            kind = "maildir"
        elif name.lower().endswith(HTML_SUFFIXES):
            kind = "html"
        else:
            kind = "text"
        return FileEntry(rel or name, path, kind, st.st_size, st.st_mtime_ns, st.st_ino)

    # -- walking ------------------------------------------------------------------------
    def walk(self, rel: str = "") -> Iterator[FileEntry | Skipped]:
        """Everything under root-relative ``rel`` (the whole root by default), in walk order.

        ``rel`` may name a file, a folder or a path that no longer exists (then nothing is
        yielded). Context is honoured: a path below an ignored folder yields nothing, a file
        in a maildir's ``cur``/``new`` is a ``"maildir"`` entry.
        """
        if rel and self._context_hidden(rel):
            return
        path = self.abspath(rel)
        if len(os.fsencode(path)) >= PATH_MAX:
            yield self._skip(rel, path, "path too long for the system")
            return
        try:
            st = os.lstat(path)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                yield self._skip(rel, path, os_reason(exc))
            return
        in_messages = self._in_message_folder(rel)
        if stat.S_ISLNK(st.st_mode):
            target = self._target(path, rel)
            if isinstance(target, Skipped):
                yield target
                return
            st = target
        if stat.S_ISDIR(st.st_mode):
            if rel and self.rules.is_ignored(rel, True):
                return
            yield from self._walk_dir(rel, path, self._ancestors(rel) | {(st.st_dev, st.st_ino)})
        else:
            if rel and self.rules.is_ignored(rel):
                return
            yield self._file(rel, path, st, in_messages)

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
        base = self.abspath(rel)
        return all(os.path.isdir(os.path.join(base, p)) for p in MAILDIR_PARTS)

    def _in_message_folder(self, rel: str) -> bool:
        """True when the file ``rel`` sits in a maildir's ``cur``/``new`` folder."""
        return "/" in rel and self._in_maildir_folder(rel.rsplit("/", 1)[0])

    def _ancestors(self, rel: str) -> set[tuple[int, int]]:
        """(dev, inode) of the root and every folder above ``rel`` (loop detection)."""
        out: set[tuple[int, int]] = set()
        parts = rel.split("/") if rel else []
        for i in range(len(parts)):
            try:
                st = os.stat(self.abspath("/".join(parts[:i])))
            except OSError:
                continue
            out.add((st.st_dev, st.st_ino))
        return out

    def _walk_dir(
        self, rel: str, path: str, ancestors: set[tuple[int, int]]
    ) -> Iterator[FileEntry | Skipped]:
        """Depth-first walk below one folder with an explicit stack (no recursion limit)."""
        opened = self._open_dir(rel, path, self._in_maildir_folder(rel), ancestors)
        if isinstance(opened, Skipped):
            yield opened
            return
        stack: list[_Frame] = [opened]
        while stack:
            frame = stack[-1]
            entry = next(frame.entries, None)
            if entry is None:
                stack.pop()
                continue
            name = entry.name
            c_rel = f"{frame.rel}/{name}" if frame.rel else name
            c_path = frame.path + "/" + name if frame.path != "/" else "/" + name
            if len(c_path) * 4 >= PATH_MAX and len(os.fsencode(c_path)) >= PATH_MAX:
                yield self._skip(c_rel, c_path, "path too long for the system")
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                if exc.errno != errno.ENOENT:  # vanished since listing: nothing to report
                    yield self._skip(c_rel, c_path, os_reason(exc))
                continue
            if stat.S_ISLNK(st.st_mode):
                target = self._target(c_path, c_rel)
                if isinstance(target, Skipped):
                    yield target
                    continue
                st = target
            if stat.S_ISDIR(st.st_mode):
                if self.rules.is_ignored(c_rel, True) or (frame.is_maildir and name == "tmp"):
                    continue
                if (st.st_dev, st.st_ino) in frame.ancestors:
                    yield self._skip(c_rel, c_path, "symlink loop")
                    continue
                child = self._open_dir(
                    c_rel,
                    c_path,
                    frame.is_maildir and name in MESSAGE_FOLDERS,
                    frame.ancestors | {(st.st_dev, st.st_ino)},
                )
                if isinstance(child, Skipped):
                    yield child
                else:
                    stack.append(child)
                continue
            if self.rules.is_ignored(c_rel):
                continue
            yield self._file(c_rel, c_path, st, frame.messages, name)

    def _in_maildir_folder(self, rel: str) -> bool:
        """True when folder ``rel`` is the ``cur``/``new`` folder of a maildir."""
        parts = rel.split("/") if rel else []
        return bool(parts) and parts[-1] in MESSAGE_FOLDERS and self._is_maildir(
            "/".join(parts[:-1])
        )

    def _open_dir(
        self, rel: str, path: str, messages: bool, ancestors: set[tuple[int, int]]
    ) -> _Frame | Skipped:
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: os.fsencode(e.name))
        except OSError as exc:
            return self._skip(rel, path, "cannot open folder: " + os_reason(exc))
        dirs = {e.name for e in entries if e.name in MAILDIR_PARTS and _is_dir(e)}
        is_maildir = len(dirs) == len(MAILDIR_PARTS)
        return _Frame(rel, path, iter(entries), messages, is_maildir, ancestors)


@dataclass(slots=True)
class _Frame:
    """One open folder of a walk: its listing iterator and its context."""

    rel: str
    path: str
    entries: Iterator[os.DirEntry[str]]
    messages: bool  # files here are maildir messages
    is_maildir: bool  # this folder holds cur/new/tmp
    ancestors: set[tuple[int, int]]  # (dev, inode) of folders above, for loop detection


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


# -- the CLI stream ---------------------------------------------------------------------
def go_clean(path: str) -> str:
    """Go's ``filepath.Clean`` for ``/``-separated paths."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(comp)
    out = "/".join(parts)
    if rooted:
        return "/" + out
    return out or "."


def go_join(*elems: str) -> str:
    """Go's ``filepath.Join``: non-empty elements joined by ``/`` then cleaned."""
    kept = [e for e in elems if e]
    return go_clean("/".join(kept)) if kept else ""


def iter_fingerprints(
    paths: Sequence[str],
    pipeline: Pipeline,
    *,
    options: ScanOptions = DEFAULT_OPTIONS,
    jobs: int | None = None,
    cache: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    notices: list[str] | None = None,
) -> Iterator[tuple[str, Fingerprint] | Skipped]:
    """Fingerprints of every document under ``paths``, in ditto's order, with ditto's ids.

    A folder argument is walked depth-first in byte order of names and a document's id is
    ``go_join(argument, relative path)`` (``"."`` gives bare relative paths); a file argument
    is one document whose id is the argument as given (an mbox gives ``arg#N`` messages).
    Results are yielded in walk order as ``(id, Fingerprint)``; refused paths come as
    :class:`Skipped` at their place in that order (their ``id`` uses the same joining). A
    missing argument is a Skipped with reason "no such file or folder".

    Files are read in worker processes when there are many (``jobs`` defaults to the CPU
    count); memory stays bounded by a few chunks in flight. With ``use_cache`` each folder
    argument uses its own fingerprint cache database: by default in the user cache folder
    (``cache_dir`` overrides that folder); ``cache`` names the database file when there is
    one folder argument, and with several each folder gets ``<stem>-<root digest><suffix>``
    beside it. Cache problems are appended to ``notices`` and never stop the stream; a
    ``cache`` inside a folder argument raises ValueError before anything is yielded.
    """
    from ditto_tui.core.simhash import Fingerprint
    from ditto_tui.corpus.scan import resolve_entries

    folders = [p for p in paths if os.path.isdir(p)]
    if use_cache and folders:  # only folders have a cache (sqlite3 costs start-up time)
        from ditto_tui.corpus.cache import cache_file_for, is_inside, open_cache_for_root
    if cache is not None and use_cache:
        for folder in folders:
            if is_inside(os.path.dirname(os.path.abspath(cache)), folder):
                raise ValueError(f"the cache {cache} must not be inside {folder}")
    for arg in paths:
        if not os.path.lexists(arg):
            yield Skipped(arg, os.path.abspath(arg), "no such file or folder")
            continue
        walker = Walker(
            arg, options, accepts=pipeline.accepts, pipeline_name=getattr(pipeline, "name", "")
        )
        is_dir = os.path.isdir(arg)
        if is_dir:
            # go_join(arg, rel) without cleaning each id: walked names are never "", "."
            # or "..", so joining them to the cleaned argument is already clean.
            clean = go_clean(arg)
            prefix = "" if clean == "." else clean if clean.endswith("/") else clean + "/"

            def ident(rel: str, arg: str = arg, base: str = prefix) -> str:
                return base + rel if rel else go_join(arg, rel)
        else:
            def ident(rel: str, arg: str = arg, base: str = os.path.basename(walker.root)) -> str:
                return arg + rel[len(base):] if rel.startswith(base) else arg

        store: FingerprintCache | None = None
        if use_cache and is_dir:
            db = None
            if cache is not None:
                db = cache if len(folders) == 1 else cache_file_for(cache, walker.root)
            store = open_cache_for_root(walker.root, cache=db, cache_dir=cache_dir, notices=notices)
        try:
            rows = store.load(pipeline.identity) if store is not None else None
            seen: set[str] = set()
            for item in resolve_entries(
                walker.walk(), pipeline, options=options, jobs=jobs, cache=store, rows=rows
            ):
                if not isinstance(item, Skipped):
                    seen.add(item.entry.id)
                    if item.skip is not None:
                        item = item.skip

                if isinstance(item, Skipped):
                    yield Skipped(ident(item.id), item.path, item.reason)
                else:
                    for doc, fp in item.docs:
                        yield ident(doc.id), Fingerprint(fp)
            if store is not None and rows is not None:
                store.forget(pipeline.identity, [p for p in rows if p not in seen])
        finally:
            if store is not None:
                store.close()
