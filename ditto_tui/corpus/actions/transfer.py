"""Moving one file between open folders, with checks after: :func:`move_at` renames (or,
across filesystems, :func:`copy_at` copies, checks and removes), :func:`exchange_in` swaps
two names atomically and :func:`rename_over` replaces a name where no exchange is
possible. After each, the file must be the one expected and every folder still where it
was; otherwise the step is put back and refused
(:class:`~ditto_tui.corpus.actions.outcomes.Refused`) or, when it cannot be put back,
recorded done with the reason (:class:`~ditto_tui.corpus.actions.outcomes.DoneAnyway`).

Without ``renameat2`` (macOS, the BSDs) :func:`rename_over` replaces the name by a plain
``renameat``: a file another process puts at that very name between the last check and
the rename would be replaced (see :mod:`~ditto_tui.corpus.fsops`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Sequence

from ditto_tui.corpus.actions.folders import At, lstat_at, unlink_quietly
from ditto_tui.corpus.actions.messages import moved_reason, write_reason
from ditto_tui.corpus.actions.outcomes import DoneAnyway, Failed, Refused
from ditto_tui.corpus.actions.run_state import Run
from ditto_tui.corpus.actions.verify import CHUNK
from ditto_tui.corpus.atomic import write_all
from ditto_tui.corpus.fsops import exchange, rename_noreplace
from ditto_tui.corpus.rootdir import FILE_FLAGS, NEW_FILE_FLAGS

__all__ = ["copy_at", "exchange_in", "move_at", "rename_over"]


def copy_at(
    src: At, dst: At, sha256: str, original: tuple[int, int, int] | None, side: str
) -> None:
    """Copy ``src`` to the free name ``dst`` through ``<name>.ditto-part`` in the same
    folder: fsync'ed, sha256 checked, then renamed into place without replacing anything.
    Mode and (atime_ns, mtime_ns) are the source's, or ``original`` = (mode, atime_ns,
    mtime_ns). On any error the part file is removed; a failed write raises
    :class:`Failed` naming ``side``; other content than ``sha256`` raises Refused."""
    part = dst.name + ".ditto-part"
    fd_in = os.open(src.name, FILE_FLAGS, dir_fd=src.fd)
    try:
        st = os.fstat(fd_in)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file")
        if original is None:
            original = (st.st_mode, st.st_atime_ns, st.st_mtime_ns)
        mode, atime_ns, mtime_ns = original
        unlink_quietly(dst.fd, part)  # left by an earlier crash: ours by its name
        try:
            fd_out = os.open(part, NEW_FILE_FLAGS, 0o600, dir_fd=dst.fd)
        except OSError as exc:
            raise Failed(f"writing the copy in {side} failed: {write_reason(exc)}") from None
        try:
            h = hashlib.sha256()
            try:
                while True:
                    chunk = os.read(fd_in, CHUNK)
                    if not chunk:
                        break
                    h.update(chunk)
                    try:
                        write_all(fd_out, chunk)
                    except OSError as exc:
                        raise Failed(f"writing the copy in {side} failed: "
                                     f"{write_reason(exc)}") from None
                try:
                    os.fchmod(fd_out, stat.S_IMODE(mode))
                    os.utime(fd_out, ns=(atime_ns, mtime_ns))
                    os.fsync(fd_out)
                except OSError as exc:
                    raise Failed(f"writing the copy in {side} failed: "
                                 f"{write_reason(exc)}") from None
            finally:
                os.close(fd_out)
            if h.hexdigest() != sha256:
                raise Refused("content changed while being copied")
            try:
                rename_noreplace(dst.fd, part, dst.fd, dst.name)
            except FileExistsError:
                raise Refused(f"{dst.show} appeared while copying") from None
        except BaseException:
            unlink_quietly(dst.fd, part)
            raise
    finally:
        os.close(fd_in)


def move_at(run: Run, src: At, dst: At, inode: int, sha256: str, side: str,
            *, src_checked: bool = True) -> None:
    """Rename ``src`` to the free name ``dst`` (across filesystems: copy, check, remove the
    original); afterwards the moved file must be ``inode`` and both folders where they
    were (the source's only with ``src_checked``: undo takes a file *out of* ditto-tui's
    own trash or quarantine, by inode), else it is put back and Refused."""
    try:
        rename_noreplace(src.fd, src.name, dst.fd, dst.name)
    except FileExistsError:
        raise Refused(f"{dst.show} already exists") from None
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        copy_at(src, dst, sha256, None, side)
        problem = None
        st = lstat_at(src.fd, src.name)
        if st is None or st.st_ino != inode:
            problem = "replaced by another file while acting"
        elif not run.still_at(src):
            problem = moved_reason(src)
        elif not run.still_at(dst):
            problem = moved_reason(dst)
        if problem is not None:
            unlink_quietly(dst.fd, dst.name)
            raise Refused(problem) from None
        os.unlink(src.name, dir_fd=src.fd)
        run.touched.add((src.base, src.rel))
        return
    problem = None
    if src_checked:  # (undo: taken from ditto-tui's own 0700 folder, its inode just read)
        moved = lstat_at(dst.fd, dst.name)
        if moved is None or moved.st_ino != inode:
            problem = "replaced by another file while acting"
        elif not run.still_at(src):
            problem = moved_reason(src)
    if problem is None and not run.still_at(dst):
        problem = moved_reason(dst)
    if problem is None:
        return
    try:
        rename_noreplace(dst.fd, dst.name, src.fd, src.name)
    except OSError:
        raise DoneAnyway(f"{problem}; it could not be put back and is at {dst.show}") from None
    raise Refused(problem + " (left as it was)")


def exchange_in(run: Run, at: At, new: str, expect_out: int, others: Sequence[At] = ()) -> bool:
    """Exchange ``new`` and ``at.name`` in their folder and check what came out is
    ``expect_out`` and every folder is where it was; on a failed check exchange back and
    raise Refused. False (nothing done) where exchanging is not possible here; after
    True, ``new`` names the file that was at ``at.name`` (the caller removes it)."""
    if not exchange(at.fd, new, at.fd, at.name):
        return False
    out = lstat_at(at.fd, new)
    problem = None
    if out is None or out.st_ino != expect_out:
        problem = "replaced by another file while acting"
    else:
        for place in (at, *others):
            if not run.still_at(place):
                problem = moved_reason(place)
                break
    if problem is not None:
        if not exchange(at.fd, new, at.fd, at.name):
            raise DoneAnyway(f"{problem}; it could not be undone here")
        raise Refused(problem + " (left as it was)")
    return True


def rename_over(run: Run, at: At, new: str, expect_out: int, others: Sequence[At] = ()) -> None:
    """Where no exchange is possible: check, then rename ``new`` over ``at.name`` (a file
    put at that name in between would be replaced: see the module docstring)."""
    for place in (at, *others):
        if not run.still_at(place):
            raise Refused(moved_reason(place) + " (left as it was)")
    st = lstat_at(at.fd, at.name)
    if st is None or st.st_ino != expect_out:
        raise Refused("replaced by another file while acting (left as it was)")
    os.rename(new, at.name, src_dir_fd=at.fd, dst_dir_fd=at.fd)
