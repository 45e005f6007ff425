"""The one gate to user files: paths are opened inside a corpus root, and nowhere else.

A :class:`RootDir` holds the root folder open as a directory descriptor. Every path is
opened relative to it one component at a time, each with ``O_NOFOLLOW``, so the kernel
never resolves a symlink on our behalf: a symlinked component is read with ``readlink``
and either refused or (where the caller allows it) resolved here, by name, staying inside
the root; ``..`` never climbs above it. On Linux the opened descriptor's real path
(``/proc/self/fd``) is checked too, which catches a folder moved out of the root while
it was being walked. Files are classified with ``lstat`` before they are opened (a FIFO or
a device is refused, never opened), opened with ``O_NONBLOCK`` as a guard, and compared
with ``fstat`` after the open.

Refusals are :class:`Refused` (an ``OSError`` whose ``strerror`` is the reason a user
reads); other failures are the ``OSError`` the system raised.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator

__all__ = [
    "FILE_FLAGS",
    "LEAVES",
    "LOOP",
    "NEW_FILE_FLAGS",
    "THROUGH_SYMLINK",
    "Refused",
    "RootDir",
    "is_inside",
    "kind_reason",
    "relative_inside",
]

#: Reasons of refusals (what the user reads).
LEAVES = "symlink leaves the folder"
LOOP = "symlink loop"
THROUGH_SYMLINK = "path goes through a symlink"
OUTSIDE = "not inside the folder any more"
#: Symlinks resolved in one path before calling it a loop (Linux's own limit).
MAX_LINKS = 40
#: Folder descriptors a :meth:`RootDir.batch` keeps open.
BATCH_FOLDERS = 8

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
#: Opening an existing file by one name, read-only, never through a symlink (and never
#: waiting on a FIFO: ``O_NONBLOCK``).
FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW | _CLOEXEC
#: Creating a new file by one name, exclusively (an existing name raises FileExistsError),
#: never through a symlink.
NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
_PROC_FD = "/proc/self/fd"


def relative_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str | None:
    """``path`` relative to ``root``, both resolved (``"."`` for the root itself, ``/``
    between names), or None when it lies outside. Resolves by path string: for a check
    before acting, never for an open (that goes through :class:`RootDir`)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    if real == top:
        return "."
    if real.startswith(top.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, top).replace(os.sep, "/")
    return None


def is_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when ``path`` (resolved) is ``root`` (resolved) or below it."""
    return relative_inside(path, root) is not None


class Refused(OSError):
    """A path the gate will not open; ``strerror`` (and ``str()``) is the reason."""

    def __init__(self, reason: str, code: int = errno.EXDEV) -> None:
        super().__init__(code, reason)

    def __str__(self) -> str:
        return str(self.strerror)


def _proc_fd_works() -> bool:
    try:
        fd = os.open("/", _DIR_FLAGS)
    except OSError:
        return False
    try:
        return os.readlink(f"{_PROC_FD}/{fd}") == "/"
    except OSError:
        return False
    finally:
        os.close(fd)


_HAVE_PROC = _proc_fd_works()


def fd_path(fd: int) -> str | None:
    """The path the kernel holds for an open descriptor (Linux), or None when unknown."""
    if not _HAVE_PROC:
        return None
    try:
        path = os.readlink(f"{_PROC_FD}/{fd}")
    except OSError:
        return None
    return path.removesuffix(" (deleted)")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class RootDir:
    """A corpus root folder held open; every open of a user file goes through one of these.

    ``path`` may be given through symlinks (the user's choice); what is held is its real
    folder. ``leaf`` names the one file of a single-file root (see :meth:`for_file`). Relative paths (``rel``) are ``/``-separated and resolved below it.
    ``follow`` allows symlinked *folders* as inner components (resolved inside the root);
    without it any symlink on the way is refused. The last component of a file open is
    never a symlink. Thread-safe; picklable (a worker process reopens the folder).
    """

    def __init__(
        self, path: str | os.PathLike[str], *, follow: bool = False, leaf: str | None = None
    ) -> None:
        self.given = os.path.abspath(os.fspath(path))
        self.path = os.path.realpath(self.given)
        self.follow = follow
        self.leaf = leaf
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._local = threading.local()
        self._pid = os.getpid()

    @classmethod
    def for_file(cls, path: str | os.PathLike[str]) -> RootDir:
        """The root of a single-file corpus: the file's real folder, with ``leaf`` its name."""
        real = os.path.realpath(os.fspath(path))
        return cls(os.path.dirname(real), leaf=os.path.basename(real))

    def file_rel(self, rel: str) -> str:
        """The path below the held folder of the file a document id ``rel`` lives in
        (``leaf`` for a single-file root; the id itself otherwise)."""
        return self.leaf if self.leaf is not None else rel

    def __reduce__(self) -> tuple[object, ...]:
        return (_reopen, (self.given, self.path, self.follow, self.leaf))

    # -- the root descriptor ------------------------------------------------------------
    @property
    def fd(self) -> int:
        """The root folder's descriptor (opened on first use, once per process)."""
        fd = self._fd
        if fd is not None and self._pid == os.getpid():
            return fd
        with self._lock:
            if self._fd is None or self._pid != os.getpid():
                self._fd = os.open(self.path, _DIR_FLAGS)
                self._pid = os.getpid()
            return self._fd

    def close(self) -> None:
        """Close the root descriptor (idempotent; a later use reopens it)."""
        with self._lock:
            if self._fd is not None and self._pid == os.getpid():
                os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RootDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown
            self.close()

    # -- naming -------------------------------------------------------------------------
    def abspath(self, rel: str) -> str:
        """The absolute path of ``rel`` under the real root (for messages)."""
        return os.path.join(self.path, *rel.split("/")) if rel else self.path

    def inner(self, target: str) -> list[str] | None:
        """Components below the root of an absolute link target, or None when it is outside."""
        for base in (self.path, self.given):
            if _inside(target, base):
                return target[len(base):].split("/")
        return None

    # -- walking names ------------------------------------------------------------------
    def _walk(
        self, rel: str, *, follow_dirs: bool, follow_leaf: bool, leaf: str
    ) -> tuple[int, str, list[str], os.stat_result | None]:
        """Resolve ``rel`` below the root.

        Returns (descriptor, name, canonical components, lstat) where the meaning depends
        on ``leaf``: ``"lstat"`` gives the parent folder's descriptor and the last name with
        its lstat (never opened); ``"dir"``/``"file"`` give the opened leaf (name ``""``).
        The returned descriptor is the caller's to close. The canonical components name the
        leaf with no symlink in them.
        """
        pending = [p for p in reversed(rel.split("/")) if p not in ("", ".")]
        canon: list[str] = []
        cur = os.dup(self.fd)
        links = 0
        try:
            if not pending:
                if leaf != "dir":
                    raise Refused("is a folder", errno.EISDIR)
                return self._checked(cur, leaf), "", canon, None
            while pending:
                name = pending.pop()
                if name in ("", "."):
                    continue
                if name == "..":
                    if not canon:
                        raise Refused(LEAVES)
                    canon.pop()
                    new = self._reopen_canonical(canon)
                    os.close(cur)
                    cur = new
                    continue
                last = not pending
                if last and leaf != "dir":
                    st = os.stat(name, dir_fd=cur, follow_symlinks=False)
                    if stat.S_ISLNK(st.st_mode):
                        if not follow_leaf:
                            raise Refused(THROUGH_SYMLINK, errno.ELOOP)
                        links = self._expand(name, cur, pending, links)
                        if self._restart(pending):
                            canon, cur = self._to_root(cur)
                        continue
                    if leaf == "lstat":
                        return cur, name, canon + [name], st
                    fd, after = self._open_file(name, cur, st)
                    os.close(cur)
                    cur = -1
                    canon.append(name)
                    return self._checked(fd, leaf), "", canon, after
                try:
                    new = os.open(name, _DIR_FLAGS, dir_fd=cur)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                        raise
                    if not _is_link(name, cur):
                        raise
                    if not (follow_leaf if last else follow_dirs):
                        raise Refused(THROUGH_SYMLINK, errno.ELOOP) from None
                    links = self._expand(name, cur, pending, links)
                    if self._restart(pending):
                        canon, cur = self._to_root(cur)
                    continue
                os.close(cur)
                cur = new
                canon.append(name)
            # the path ended on a folder reached by ".." or a symlink: it is the leaf
            if leaf == "lstat":
                return cur, "", canon, os.fstat(cur)
            if leaf == "file":
                raise Refused("is a folder", errno.EISDIR)
            fd, cur = cur, -1
            return self._checked(fd, leaf), "", canon, None
        except BaseException:
            if cur >= 0:
                os.close(cur)
            raise

    _ROOT_MARK = "\0root"

    def _expand(self, name: str, cur: int, pending: list[str], links: int) -> int:
        """Push the components of the symlink ``name`` (in folder ``cur``) onto ``pending``."""
        links += 1
        if links > MAX_LINKS:
            raise Refused(LOOP, errno.ELOOP)
        target = os.readlink(name, dir_fd=cur)
        if not target:
            raise FileNotFoundError(errno.ENOENT, "broken symlink")
        if target.startswith("/"):
            parts = self.inner(target)
            if parts is None:
                raise Refused(LEAVES)
            pending.extend(reversed([p for p in parts if p not in ("", ".")]))
            pending.append(self._ROOT_MARK)
        else:
            pending.extend(reversed([p for p in target.split("/") if p not in ("", ".")]))
        return links

    def _restart(self, pending: list[str]) -> bool:
        if pending and pending[-1] == self._ROOT_MARK:
            pending.pop()
            return True
        return False

    def _to_root(self, cur: int) -> tuple[list[str], int]:
        os.close(cur)
        return [], os.dup(self.fd)

    def _reopen_canonical(self, canon: list[str]) -> int:
        cur = os.dup(self.fd)
        try:
            for name in canon:
                new = os.open(name, _DIR_FLAGS, dir_fd=cur)
                os.close(cur)
                cur = new
        except BaseException:
            os.close(cur)
            raise
        return cur

    def _open_file(self, name: str, cur: int, st: os.stat_result) -> tuple[int, os.stat_result]:
        if not stat.S_ISREG(st.st_mode):
            code = errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL
            raise Refused(kind_reason(st.st_mode) or "not a regular file", code)
        fd = os.open(name, FILE_FLAGS, dir_fd=cur)
        try:
            after = os.fstat(fd)
            if (after.st_dev, after.st_ino) != (st.st_dev, st.st_ino) or not stat.S_ISREG(
                after.st_mode
            ):
                raise Refused("replaced while being opened", errno.EAGAIN)
        except BaseException:
            os.close(fd)
            raise
        return fd, after

    def _checked(self, fd: int, leaf: str) -> int:
        """``fd`` if its real location is inside the root (where the OS tells), else Refused."""
        if leaf == "lstat":
            return fd
        where = fd_path(fd)
        if where is not None:
            root_now = getattr(self._local, "root_now", None) or fd_path(self.fd) or self.path
            if not _inside(where, root_now):
                os.close(fd)
                raise Refused(OUTSIDE)
        return fd

    # -- public operations --------------------------------------------------------------
    def open_file(self, rel: str) -> int:
        """Open the regular file ``rel`` read-only (non-blocking); the caller closes it.

        Refused when it is not a regular file, when its last component is a symlink, or
        when an inner component is a symlink (unless ``follow``, and then only inside the
        root); OSError as the system reports otherwise.
        """
        return self.open_file_stat(rel)[0]

    def open_file_stat(self, rel: str) -> tuple[int, os.stat_result]:
        """:meth:`open_file` and the ``fstat`` of what was opened."""
        folders: dict[str, int] | None = getattr(self._local, "folders", None)
        if folders is None:
            fd, _, _, st = self._walk(rel, follow_dirs=self.follow, follow_leaf=False, leaf="file")
            assert st is not None
            return fd, st
        parent, _, name = rel.rpartition("/")
        if name in ("", ".", ".."):
            raise Refused("not a file name", errno.EINVAL)
        dfd = self._batch_folder(parent)
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            raise Refused(THROUGH_SYMLINK, errno.ELOOP)
        fd, after = self._open_file(name, dfd, st)
        # One name opened with O_NOFOLLOW in a folder whose descriptor was checked inside
        # the root when the batch opened it: the file is inside as well.
        return fd, after

    def open_walked(self, rel: str, inode: int) -> tuple[int, os.stat_result] | None:
        """Inside a :meth:`batch`: open the file ``rel`` that a walk just saw as a regular
        file with ``inode``, by one O_NOFOLLOW name in its folder, and ``fstat`` it.

        None (nothing left open) when anything differs from the walk (not a regular file,
        another inode, a symlink, an error): the caller then takes the careful path
        (:meth:`open_file_stat`), which says why. Saves that path's ``lstat``: the walk's
        ``lstat`` plays its part, and the ``fstat`` after the open checks the same thing.
        """
        parent, _, name = rel.rpartition("/")
        try:
            dfd = self._batch_folder(parent)
            fd = os.open(name, FILE_FLAGS, dir_fd=dfd)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            return None
        if st.st_ino != inode or not stat.S_ISREG(st.st_mode):
            os.close(fd)
            return None
        return fd, st

    def _batch_folder(self, parent: str) -> int:
        """The batch's descriptor of folder ``parent`` (opened through the gate once)."""
        folders: dict[str, int] = self._local.folders
        dfd = folders.get(parent)
        if dfd is None:
            dfd = self.open_dir(parent) if parent else os.dup(self.fd)
            folders[parent] = dfd
            if len(folders) > BATCH_FOLDERS:  # keep the most recent few open
                os.close(folders.pop(next(iter(folders))))
        return dfd

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Within this block (in this thread), :meth:`open_file` and :meth:`lstat` reuse the
        descriptor of a folder met before in the block: for many files of a walk at once. Every open still goes through the same checks; a folder
        swapped during the block is seen at the next block (the folder's real path is
        checked when it is opened; its files are then opened by one name, O_NOFOLLOW)."""
        if getattr(self._local, "folders", None) is not None:
            yield
            return
        self._local.folders = {}
        self._local.root_now = fd_path(self.fd)
        try:
            yield
        finally:
            folders = self._local.folders
            self._local.folders = None
            self._local.root_now = None
            for fd in folders.values():
                os.close(fd)

    def open_dir(self, rel: str) -> int:
        """Open the folder ``rel`` (``""`` is the root) for listing; the caller closes it.

        With ``follow``, ``rel`` itself may be a symlinked folder (resolved inside the root).
        """
        fd, _, _, _ = self._walk(rel, follow_dirs=self.follow, follow_leaf=self.follow, leaf="dir")
        return fd

    def make_dirs(self, rel: str, mode: int = 0o777) -> int:
        """:meth:`open_dir` of ``rel``, creating the folders that are missing first, one
        at a time relative to the descriptor of the one above (``mkdirat``), each then
        opened with ``O_NOFOLLOW``: a symlink put in the way is refused, never followed.
        The caller closes the descriptor."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise Refused(LEAVES)
        have = len(parts)
        while True:
            try:
                fd = self.open_dir("/".join(parts[:have]))
                break
            except FileNotFoundError:
                if have == 0:
                    raise
                have -= 1
        try:
            for name in parts[have:]:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, mode, dir_fd=fd)
                try:
                    new = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, fd):
                        raise Refused(THROUGH_SYMLINK, errno.ELOOP) from None
                    raise
                os.close(fd)
                fd = new
        except BaseException:
            os.close(fd)
            raise
        return self._checked(fd, "dir")

    def lstat(self, rel: str) -> os.stat_result:
        """``lstat`` of ``rel`` reached under the same rules as :meth:`open_file`."""
        if getattr(self._local, "folders", None) is not None:
            parent, _, name = rel.rpartition("/")
            if name not in ("", ".", ".."):
                return os.stat(name, dir_fd=self._batch_folder(parent), follow_symlinks=False)
        fd, _, _, st = self._walk(rel, follow_dirs=self.follow, follow_leaf=False, leaf="lstat")
        os.close(fd)
        assert st is not None
        return st

    def resolve(self, rel: str) -> tuple[str, os.stat_result]:
        """Where ``rel`` really is: its symlink-free path below the root and its ``lstat``.

        Every symlink on the way is followed while it stays inside the root; Refused with
        ``LEAVES`` or ``LOOP`` otherwise, FileNotFoundError for a broken link. Nothing is
        opened but folders inside the root.
        """
        fd, _, canon, st = self._walk(rel, follow_dirs=True, follow_leaf=True, leaf="lstat")
        os.close(fd)
        assert st is not None
        return "/".join(canon), st


def _reopen(given: str, path: str, follow: bool, leaf: str | None) -> RootDir:
    root = RootDir.__new__(RootDir)
    root.given, root.path, root.follow, root.leaf = given, path, follow, leaf
    root._fd = None
    root._lock = threading.Lock()
    root._local = threading.local()
    root._pid = os.getpid()
    return root


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def kind_reason(mode: int) -> str | None:
    """Why a file of this ``st_mode`` cannot be read as a document, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO), not read"
    if stat.S_ISSOCK(mode):
        return "socket, not read"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device, not read"
    if stat.S_ISDIR(mode):
        return "is a folder"
    return "not a regular file"
