"""Reading user files safely: the only code that reads a document's bytes.

Every file is opened through :class:`~ditto_tui.corpus.rootdir.RootDir` (inside its root,
no symlink on the way, never a FIFO or a device). :func:`read_document_bytes` never reads
more than the size limit and copes with a file that vanishes, grows or is replaced while
being read: it re-reads a few times and then gives up with :class:`SkipFile`. Every failure
is a :class:`SkipFile` carrying a short human reason.
"""

from __future__ import annotations

import errno
import os

from ditto_tui.corpus import early_bytes
from ditto_tui.corpus.documents import human_size
from ditto_tui.corpus.rootdir import Refused, RootDir, kind_reason

__all__ = [
    "SkipFile",
    "is_binary",
    "kind_reason",
    "os_reason",
    "over_limit",
    "read_document_bytes",
    "read_document_file",
    "read_head",
    "read_range",
    "read_walked",
    "too_large",
]

#: Bytes inspected for a NUL byte to call a file binary.
BINARY_PROBE = 8192
#: Attempts at reading a file that keeps changing underneath us.
READ_ATTEMPTS = 3


class SkipFile(Exception):  # noqa: N818 - it is a skip, not an error
    """A file cannot be a document; ``reason`` is what the user sees."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def os_reason(exc: OSError) -> str:
    """A short human phrase for an OS error met while opening or reading a path."""
    if isinstance(exc, Refused):
        return str(exc.strerror)
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.ENOENT:
        return "vanished while reading"
    if code == errno.ENAMETOOLONG:
        return "path too long for the system"
    if code == errno.ELOOP:
        return "symlink loop"
    if code == errno.EISDIR:
        return "is a folder"
    return f"unreadable ({exc.strerror or exc.__class__.__name__})"


def is_binary(head: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte (the binary-file rule)."""
    return b"\0" in head[:BINARY_PROBE]


def _open_regular(root: RootDir, rel: str) -> tuple[int, os.stat_result]:
    """Open ``rel`` under ``root`` read-only (see RootDir.open_file); return (fd, fstat)."""
    try:
        return root.open_file_stat(rel)
    except OSError as exc:
        raise SkipFile(os_reason(exc)) from exc


def _read_all(fd: int, limit: int, expect: int) -> bytes:
    """Read until EOF or ``limit + 1`` bytes (one more than allowed, to notice growth).

    A short read once ``expect`` bytes (the size ``fstat`` gave) are in is taken as the
    end of the file, which saves the extra read that would return nothing; a file that
    grew meanwhile is caught by the caller's ``fstat`` after the read.
    """
    chunks: list[bytes] = []
    got = 0
    want = limit + 1
    while got < want:
        size = min(want - got, max(expect - got + 1, 1 << 20))  # the whole file at once
        chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        if len(chunk) < size and got >= expect:
            break
    return b"".join(chunks)


def read_document_bytes(
    root: RootDir, rel: str, *, max_size: int, want_binary: bool = True
) -> tuple[bytes, os.stat_result, bool]:
    """Read the whole regular file ``rel`` under ``root``; return (data, stat, binary flag).

    Raises :class:`SkipFile` when the file is not regular, exceeds ``max_size``, cannot be
    opened or read, or keeps changing while being read (``READ_ATTEMPTS`` tries). Binary
    files are returned (flag True); with ``want_binary=False`` only their first 8 KiB are
    read and returned, since the caller will refuse them anyway.
    """
    for _ in range(READ_ATTEMPTS):
        fd, st = _open_regular(root, rel)
        try:
            if st.st_size > max_size:
                raise SkipFile(too_large(st.st_size, max_size))
            try:
                early = early_bytes.take(st)
                if early is not None:
                    if not want_binary and is_binary(early[:BINARY_PROBE]):
                        return early[:BINARY_PROBE], st, True
                    data = early
                elif not want_binary:
                    head = os.read(fd, BINARY_PROBE)
                    if is_binary(head):
                        return head, st, True
                    if len(head) < BINARY_PROBE and len(head) >= st.st_size:
                        data = head  # the whole (small) file: no second read
                    else:
                        os.lseek(fd, 0, os.SEEK_SET)
                        data = _read_all(fd, max_size, st.st_size)
                else:
                    data = _read_all(fd, max_size, st.st_size)
                after = os.fstat(fd)
            except OSError as exc:
                raise SkipFile(os_reason(exc)) from exc
        finally:
            os.close(fd)
        if len(data) > max_size:
            raise SkipFile(too_large(len(data), max_size))
        if (
            len(data) != st.st_size
            or after.st_size != st.st_size
            or after.st_mtime_ns != st.st_mtime_ns
        ):
            continue  # written to while we read: try again
        return data, st, is_binary(data)
    raise SkipFile("kept changing while being read")


def read_walked(root: RootDir, rel: str, inode: int, max_size: int) -> tuple[bytes, os.stat_result] | None:
    """The whole regular file ``rel`` a walk just saw (inside a ``root.batch()``) in one
    open, one read and one close, with the checks of :func:`read_document_bytes`, or None
    when anything is unusual (replaced, over ``max_size``, changing, unreadable): the
    caller then reads it with :func:`read_document_bytes`, which gives the reason.
    """
    opened = root.open_walked(rel, inode)
    if opened is None:
        return None
    fd, st = opened
    try:
        if st.st_size > max_size:
            return None
        data = early_bytes.take(st)
        if data is None:
            data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:
            return None
        after = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if after.st_size != st.st_size or after.st_mtime_ns != st.st_mtime_ns:
        return None
    return data, st


def read_document_file(path: str, *, max_size: int) -> bytes:
    """The whole content of one regular file named by the user (binary files included).

    The file is opened at its real location (a symlink the user named is followed there,
    once); nothing on the way to it is followed afterwards. Raises OSError whose message is
    ``"<path>: <reason>"`` for every refusal (not a regular file, over ``max_size``,
    unreadable, changing while read).
    """
    try:
        root = RootDir.for_file(path)
        with root:
            return read_document_bytes(root, root.file_rel(""), max_size=max_size)[0]
    except SkipFile as exc:
        raise OSError(f"{path}: {exc.reason}") from exc
    except OSError as exc:
        raise OSError(f"{path}: {os_reason(exc)}") from exc


def read_range(
    root: RootDir, rel: str, offset: int, size: int, *, expect_inode: int | None = None
) -> bytes:
    """Read ``size`` bytes at ``offset`` of a regular file (an mbox message); SkipFile on failure.

    ``expect_inode`` guards against reading a different file that replaced the original.
    """
    fd, st = _open_regular(root, rel)
    try:
        if expect_inode is not None and st.st_ino != expect_inode:
            raise SkipFile("replaced since it was read")
        try:
            data = os.pread(fd, size, offset)
        except OSError as exc:
            raise SkipFile(os_reason(exc)) from exc
    finally:
        os.close(fd)
    if len(data) != size:
        raise SkipFile("changed since it was read")
    return data


def read_head(root: RootDir, rel: str, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (for sniffing); SkipFile on failure."""
    fd, _ = _open_regular(root, rel)
    try:
        return os.read(fd, size)
    except OSError as exc:
        raise SkipFile(os_reason(exc)) from exc
    finally:
        os.close(fd)


def refused_reason(pipeline_name: str) -> str:
    """The skip reason of a file the pipeline named ``pipeline_name`` refuses (by its name,
    or by its first bytes)."""
    return f"not accepted by the {pipeline_name} pipeline"


def too_large(size: int, limit: int) -> str:
    """The skip reason for a file of ``size`` bytes over the ``limit``: both figures shown."""
    return f"larger than the size limit ({human_size(size)} > {human_size(limit)})"


def over_limit(limit: int) -> str:
    """The skip reason for a stream found longer than ``limit`` (its size is unknown)."""
    return f"larger than the size limit (more than {human_size(limit)})"
