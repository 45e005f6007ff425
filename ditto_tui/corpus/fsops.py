"""Renames between folder descriptors that never replace a file: ``renameat2`` on Linux.

Python's :func:`os.rename` takes ``src_dir_fd``/``dst_dir_fd`` but always replaces what is
at the destination, and ``RENAME_NOREPLACE``/``RENAME_EXCHANGE`` are not in :mod:`os`. The
one PyPI wrapper (``renameat2``, last released 2022) is Linux-only and unmaintained, for
one libc call, so it is reached here through :mod:`ctypes` (glibc 2.28+, musl 1.2.2+).

Where it is missing (macOS, the BSDs, an old libc) or the filesystem refuses the flag
(``EINVAL``: some network and FUSE filesystems), :func:`rename_noreplace` falls back to
"check, then rename" relative to the same descriptors: a file created at the destination
between the check and the rename would then be replaced (the window is one system call
wide, and the destinations are ditto-tui's own trash, quarantine and temporary names), and
:func:`exchange` reports that it cannot (the caller takes its own fallback).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

__all__ = ["HAVE_RENAMEAT2", "exchange", "rename_noreplace"]

RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2


def _load() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load()
#: True where :func:`rename_noreplace` and :func:`exchange` are atomic system calls.
HAVE_RENAMEAT2 = _RENAMEAT2 is not None
_UNSUPPORTED = (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP)


def _renameat2(src_fd: int, src: str, dst_fd: int, dst: str, flags: int) -> bool:
    """True when done; False when the call or the flag is unsupported here; OSError else."""
    fn = _RENAMEAT2
    if fn is None:
        return False
    rc = fn(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst), flags)  # type: ignore[operator]
    if rc == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), dst)


def rename_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Rename ``src`` (a name in folder ``src_fd``) to ``dst`` (in folder ``dst_fd``);
    FileExistsError when something is at ``dst``, ``OSError`` (``EXDEV`` across
    filesystems) as the system reports. Atomic with ``renameat2``; elsewhere see the module
    docstring."""
    if _renameat2(src_fd, src, dst_fd, dst, RENAME_NOREPLACE):
        return
    try:
        os.stat(dst, dir_fd=dst_fd, follow_symlinks=False)
    except FileNotFoundError:
        pass
    else:
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst)
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def exchange(fd_a: int, a: str, fd_b: int, b: str) -> bool:
    """Swap the names ``a`` (in ``fd_a``) and ``b`` (in ``fd_b``) atomically; False where
    that cannot be done here (nothing changed), ``OSError`` when the call fails."""
    return _renameat2(fd_a, a, fd_b, b, RENAME_EXCHANGE)
