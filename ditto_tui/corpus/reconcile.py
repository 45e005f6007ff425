"""The watcher's safety net without walking everything: an incremental, paced reconcile.

inotify can miss a change without saying so (a folder created and filled before its watch
was set, a file system that sends no events). A reconcile finds such changes by looking
at the disk. Walking the whole tree to do it costs seconds of CPU at 100,000 files, so
:class:`Reconciler` looks in two cheaper ways, and each call does a bounded amount of it:

- **Folders, by their stamp.** A folder's mtime and ctime change whenever an entry is
  added to it, removed from it or renamed in or out of it. Every walk records, for each
  folder it lists, its stamp (device, inode, mtime, ctime; taken *before* the listing, so
  a change during the listing shows at the next look) and its names. A reconcile stats
  folders only (``FOLDERS_PER_CALL`` per call, all of them when there are fewer) and
  lists again just those whose stamp moved, comparing each entry with what the session
  knows. A folder whose ctime is less than ``RACY_SECONDS`` older than the moment its
  stamp was taken is listed again whatever its stamp says (a coarse clock could hide a
  change made in the same tick); ctime, because nobody can set it (``tar`` and ``touch``
  set mtimes, in the future too).
- **Files, by rolling re-stat.** Rewriting a file in place leaves its folder's stamp alone.
  inotify reports those reliably, so they are covered slowly: each call ``lstat``\\ s the
  next ``FILES_PER_CALL`` known files (and walker skips) and compares size, mtime and
  inode, so the whole corpus is covered once every ``ceil(files / FILES_PER_CALL)``
  calls (100,000 files: 10 calls, 5 minutes at the watcher's 30 s period).

What it finds is a set of root-relative paths for the session to re-walk; nothing here
reads a file or changes the session. Work is done in runs of at most ``RUN_SECONDS``
with a ``REST_SECONDS`` sleep between them, so another Python thread (the UI) never waits
long for the GIL. Every look goes through the root's
:class:`~ditto_tui.corpus.rootdir.RootDir` (folder descriptors, no symlink followed out of
the root). Until a complete walk of the whole root has been recorded, :attr:`ready` is
False and the caller must reconcile by walking everything.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ditto_tui.corpus.records import Resolved
from ditto_tui.corpus.rootdir import RootDir

__all__ = ["FILES_PER_CALL", "FOLDERS_PER_CALL", "Findings", "Reconciler", "TreeRecord"]

#: Known files (and skips) re-statted per call.
FILES_PER_CALL = 10_000
#: Folders whose stamp is checked per call (a tree with fewer is checked whole every call).
FOLDERS_PER_CALL = 20_000
#: Longest run of work between two rests (seconds), and the rest.
RUN_SECONDS = 0.002
REST_SECONDS = 0.002
#: A folder modified this close to the moment its stamp was taken is looked at again.
RACY_SECONDS = 2.0

#: (st_dev, st_ino, st_mtime_ns, st_ctime_ns) of a folder.
Stamp = tuple[int, int, int, int]
#: (st_mode, st_size, st_mtime_ns, st_ino, st_ctime_ns) of a file the walker skipped.
State = tuple[int, int, int, int, int]
_RACY_NS = int(RACY_SECONDS * 1e9)


def _stamp(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _racy(st: os.stat_result) -> bool:
    """True when a folder changed too recently for its stamp to be trusted."""
    return time.time_ns() - st.st_ctime_ns < _RACY_NS


def _state(st: os.stat_result) -> State:
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class Folder:
    """One listed folder: its stamp before the listing, its names, and whether the stamp
    is too recent to trust (``racy``)."""

    stamp: Stamp
    names: tuple[str, ...]
    racy: bool = False


@dataclass(slots=True)
class TreeRecord:
    """What one walk saw: each folder it listed, each file it skipped with its ``lstat``.

    Filled by :meth:`Walker.walk <ditto_tui.corpus.walk.Walker.walk>`; owned by one walk
    (not thread-safe), then handed to :meth:`Reconciler.replace` or :meth:`Reconciler.merge`.
    """

    folders: dict[str, Folder] = field(default_factory=dict)
    skipped: dict[str, State] = field(default_factory=dict)

    def folder(self, rel: str, st: os.stat_result, names: Iterable[str]) -> None:
        """Record folder ``rel`` whose ``fstat`` before listing was ``st``."""
        self.folders[rel] = Folder(_stamp(st), tuple(names), _racy(st))

    def skipped_file(self, rel: str, st: os.stat_result) -> None:
        """Record the ``lstat`` of a file the walker skipped (size, kind, alias)."""
        self.skipped[rel] = _state(st)


@dataclass(slots=True)
class Findings:
    """What one :meth:`Reconciler.find_changes` call found.

    ``paths``: root-relative paths to re-walk (empty when nothing changed). ``relisted``:
    folders listed again, recorded by :meth:`Reconciler.commit` once ``paths`` are applied.
    ``complete`` is False when the call was cancelled (then commit nothing).
    """

    paths: set[str] = field(default_factory=set)
    relisted: dict[str, Folder] = field(default_factory=dict)
    complete: bool = True


class _Pace:
    """Rests ``REST_SECONDS`` whenever ``RUN_SECONDS`` of work have gone by."""

    def __init__(self, cancelled: Callable[[], bool]) -> None:
        self._cancelled = cancelled
        self._since = time.perf_counter()
        self._count = 0

    def step(self) -> bool:
        """Count one item of work; rest when the run is long. False once cancelled."""
        self._count += 1
        if self._count & 3:
            return True
        if time.perf_counter() - self._since >= RUN_SECONDS:
            return self.rest()
        return True

    def rest(self) -> bool:
        """Rest now (before a step that is one block of work). False once cancelled."""
        time.sleep(REST_SECONDS)
        self._since = time.perf_counter()
        return not self._cancelled()


class _Rolling:
    """A cursor over a list taken afresh whenever it has been gone through."""

    def __init__(self) -> None:
        self._items: list[str] = []
        self._pos = 0

    def take(self, n: int, fresh: Callable[[], list[str]]) -> list[str]:
        if self._pos >= len(self._items):
            self._items, self._pos = fresh(), 0
        out = self._items[self._pos:self._pos + n]
        self._pos += len(out)
        return out


def _never() -> bool:
    return False


class Reconciler:
    """Finds what changed under a root since its walks were recorded; see the module.

    ``is_ignored(rel, is_dir)`` are the walker's rules (ignored entries are not changes).
    Call :meth:`find_changes` from one thread at a time (the watcher's); :meth:`replace`,
    :meth:`merge`, :meth:`forget` and :meth:`commit` may run in another thread (the
    record is copy-on-write) but must be serialised among themselves (the session's update
    lock). Memory: the names of every folder, about 60 bytes per entry.
    """

    def __init__(self, rootdir: RootDir, is_ignored: Callable[[str, bool], bool]) -> None:
        self.rootdir = rootdir
        self._is_ignored = is_ignored
        self._folders: dict[str, Folder] = {}
        self._skipped: dict[str, State] = {}
        self._ready = False
        self._folder_cursor = _Rolling()
        self._file_cursor = _Rolling()
        self._lock = threading.Lock()  # guards the swap of the two maps together

    @property
    def ready(self) -> bool:
        """True once a complete walk of the whole root has been recorded."""
        return self._ready

    # -- recording (under the session's update lock) ----------------------------------
    def replace(self, record: TreeRecord) -> None:
        """Take a complete walk of the whole root as the new record."""
        with self._lock:
            self._folders, self._skipped = record.folders, record.skipped
            self._ready = True

    def forget(self) -> None:
        """Drop the record (a whole walk was cancelled): the next reconcile walks all."""
        with self._lock:
            self._folders, self._skipped = {}, {}
            self._ready = False

    def merge(self, scopes: list[str], record: TreeRecord) -> None:
        """Take a walk of ``scopes`` (minimal root-relative paths): what was recorded at
        or below them is replaced by ``record``."""
        with self._lock:
            folders, skipped = self._folders, self._skipped
            # Only a folder we listed has anything of ours below it.
            listed = {s for s in scopes if s in folders}
            if listed:
                def kept(rel: str) -> bool:
                    if rel in listed:
                        return False
                    i = rel.find("/")
                    while i != -1:
                        if rel[:i] in listed:
                            return False
                        i = rel.find("/", i + 1)
                    return True

                folders = {r: f for r, f in folders.items() if kept(r)}
                skipped = {r: s for r, s in skipped.items() if kept(r)}
            else:
                folders, skipped = dict(folders), dict(skipped)
            for scope in scopes:
                skipped.pop(scope, None)
            folders.update(record.folders)
            skipped.update(record.skipped)
            self._folders, self._skipped = folders, skipped

    def commit(self, findings: Findings) -> None:
        """Record the folders ``findings`` listed again (call after applying its paths).

        A folder dropped meanwhile (re-walked as gone) stays dropped."""
        if not findings.complete or not findings.relisted:
            return
        with self._lock:
            folders = dict(self._folders)
            for rel, folder in findings.relisted.items():
                if rel in folders:
                    folders[rel] = folder
            self._folders = folders

    # -- looking -------------------------------------------------------------------------
    def find_changes(
        self,
        files: Mapping[str, Resolved],
        skips: Mapping[str, object],
        *,
        unchanged: Callable[[Resolved], bool],
        cancelled: Callable[[], bool] = _never,
    ) -> Findings:
        """Look for changes against ``files`` (the session's files by id) and ``skips``
        (its skipped ids); blocking, paced (see the module), without any lock held.

        ``unchanged(resolved)`` says whether a file whose ``lstat`` still matches may keep
        its result (False: re-walk it anyway, e.g. an unreadable file to retry). Checks
        the next slice of folders, lists again those whose stamp moved, then re-stats the
        next slice of files.
        """
        with self._lock:
            folders, skipped = self._folders, self._skipped
        found = Findings()
        pace = _Pace(cancelled)
        root = self.rootdir
        moved: list[str] = []
        with root.batch():
            for rel in self._folder_cursor.take(FOLDERS_PER_CALL, lambda: list(folders)):
                if not pace.step():
                    found.complete = False
                    return found
                known = folders.get(rel)
                if known is None:
                    continue  # dropped since the slice was taken
                now = self._folder_stamp(rel)
                if now is None or now[:2] != known.stamp[:2]:
                    found.paths.add(rel)  # gone, no longer a folder, or another folder
                elif now != known.stamp or known.racy:
                    moved.append(rel)
        if not pace.rest():  # the next slice starts with a copy of the ids
            found.complete = False
            return found
        for rel in moved:
            if not self._relist(rel, folders, files, skips, skipped, found, pace):
                found.complete = False
                return found
        with root.batch():
            for rel in self._file_cursor.take(FILES_PER_CALL, lambda: _ids(files, skips)):
                if not pace.step():
                    found.complete = False
                    return found
                if self._file_changed(rel, files, skips, skipped, unchanged):
                    found.paths.add(rel)
        return found

    def _folder_stamp(self, rel: str) -> Stamp | None:
        """The stamp of folder ``rel`` now (through a followed symlink when allowed)."""
        root = self.rootdir
        try:
            st = os.fstat(root.fd) if not rel else root.lstat(rel)
            if stat.S_ISLNK(st.st_mode) and root.follow:
                st = root.resolve(rel)[1]
        except OSError:
            return None
        return _stamp(st) if stat.S_ISDIR(st.st_mode) else None

    def _relist(
        self,
        rel: str,
        folders: Mapping[str, Folder],
        files: Mapping[str, Resolved],
        skips: Mapping[str, object],
        skipped: Mapping[str, State],
        found: Findings,
        pace: _Pace,
    ) -> bool:
        """List folder ``rel`` again; every entry that is new, gone or different is a path
        to re-walk. The folder itself is one when it cannot be listed. False when
        cancelled."""
        try:
            fd = self.rootdir.open_dir(rel)
        except OSError:
            found.paths.add(rel)
            return True
        try:
            st = os.fstat(fd)
            with os.scandir(fd) as it:
                names = sorted(e.name for e in it)
            listed: list[tuple[str, os.stat_result | None]] = []
            for name in names:
                if not pace.step():
                    return False
                try:
                    listed.append((name, os.stat(name, dir_fd=fd, follow_symlinks=False)))
                except OSError:
                    listed.append((name, None))
        except OSError:
            found.paths.add(rel)
            return True
        finally:
            os.close(fd)
        prefix = rel + "/" if rel else ""
        for name, est in listed:
            if not pace.step():
                return False
            child = prefix + name
            if est is None:
                found.paths.add(child)
                continue
            is_dir = stat.S_ISDIR(est.st_mode)
            if self._is_ignored(child, is_dir):
                continue
            known = files.get(child)
            if known is not None:
                if not stat.S_ISREG(est.st_mode) or known.entry.key != (
                    est.st_size, est.st_mtime_ns, est.st_ino
                ):
                    found.paths.add(child)
                continue
            sub = folders.get(child)
            if sub is not None:
                if not is_dir or sub.stamp[:2] != (est.st_dev, est.st_ino):
                    found.paths.add(child)
                continue  # its own stamp is checked with the other folders
            if skipped.get(child) != _state(est):
                found.paths.add(child)  # new, or a skip we hold no state for
        now = set(names)
        for name in folders[rel].names:
            child = prefix + name
            if name not in now and (child in files or child in folders or child in skips):
                found.paths.add(child)
        found.relisted[rel] = Folder(_stamp(st), tuple(names), _racy(st))
        return True

    def _file_changed(
        self,
        rel: str,
        files: Mapping[str, Resolved],
        skips: Mapping[str, object],
        skipped: Mapping[str, State],
        unchanged: Callable[[Resolved], bool],
    ) -> bool:
        known = files.get(rel)
        state = skipped.get(rel)
        if known is None and (rel not in skips or self._is_ignored(rel, False)):
            return False  # gone since the slice was taken, or a note about an ignored file
        try:
            st = self.rootdir.lstat(rel)
        except OSError:
            return True
        if known is not None:
            return (
                not stat.S_ISREG(st.st_mode)
                or known.entry.key != (st.st_size, st.st_mtime_ns, st.st_ino)
                or not unchanged(known)
            )
        # A skip: compared when the walker recorded its lstat; looked at again otherwise
        # (a symlink, an unreadable folder: what they point at may have changed).
        return state != _state(st)


def _ids(files: Mapping[str, Resolved], skips: Mapping[str, object]) -> list[str]:
    """Every known file id, then the skips that are not files."""
    return [*files, *(skips.keys() - files.keys())]
