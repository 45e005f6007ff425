"""Checking a file against what was fingerprinted and planned: its sha256 read once
(:func:`hash_at`, :func:`hash_in_gate`), its (size, mtime, inode) key (:func:`same_key`),
the re-check right before acting (:func:`verify_at`) and the reference's
(:func:`check_reference`). Every failed check raises
:class:`~ditto_tui.corpus.actions.outcomes.Refused` with the reason."""

from __future__ import annotations

import errno
import hashlib
import os
import stat

from ditto_tui.corpus.actions.folders import At, lstat_at, plain_parts, split_rel
from ditto_tui.corpus.actions.outcomes import Refused
from ditto_tui.corpus.actions.plan import Step
from ditto_tui.corpus.actions.run_state import Run
from ditto_tui.corpus.rootdir import FILE_FLAGS, RootDir
from ditto_tui.corpus.rootdir import Refused as GateRefused

__all__ = [
    "CHUNK",
    "check_reference",
    "gate_lstat",
    "hash_at",
    "hash_in_gate",
    "same_key",
    "verify_at",
]

#: Bytes read at a time when hashing or copying a file.
CHUNK = 1 << 20


def _read_fd(fd: int, keep: bool) -> tuple[str, bytes | None, os.stat_result]:
    """sha256 of an open file (and its bytes when ``keep``) and its fstat; Refused when
    it changed while being read."""
    st = os.fstat(fd)
    h = hashlib.sha256()
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, CHUNK)
        if not chunk:
            break
        h.update(chunk)
        if keep:
            chunks.append(chunk)
    after = os.fstat(fd)
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        raise Refused("changed while being checked")
    return h.hexdigest(), b"".join(chunks) if keep else None, st


def hash_at(dfd: int, name: str, keep: bool = False) -> tuple[str, bytes | None, os.stat_result]:
    """:func:`_read_fd` of the regular file ``name`` in folder ``dfd`` (never a symlink)."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dfd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused("a symlink (only regular files are acted on)") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused("not a regular file")
        return _read_fd(fd, keep)
    finally:
        os.close(fd)


def hash_in_gate(gate: RootDir, rel: str, keep: bool) -> tuple[str, bytes | None, os.stat_result]:
    """:func:`_read_fd` of the regular file ``rel`` opened through the corpus gate (inside
    the root, no symlink on the way); Refused with the gate's reason otherwise."""
    try:
        fd, _ = gate.open_file_stat(rel)
    except GateRefused as exc:
        raise Refused(str(exc)) from None
    try:
        return _read_fd(fd, keep)
    finally:
        os.close(fd)


def same_key(st: os.stat_result, size: int, mtime_ns: int, inode: int) -> str | None:
    """Why ``st`` is not the fingerprinted (size, mtime_ns, inode), or None."""
    if st.st_size != size:
        return f"changed since it was fingerprinted (size {size} -> {st.st_size})"
    if st.st_mtime_ns != mtime_ns:
        return "changed since it was fingerprinted (modified)"
    if st.st_ino != inode:
        return "replaced by another file since it was fingerprinted"
    return None


def gate_lstat(gate: RootDir, rel: str) -> os.stat_result:
    """lstat of a plain ``rel`` through the gate: Refused for a symlink (on the way or
    itself) and anything but a regular file; FileNotFoundError when it is missing."""
    plain_parts(rel)
    try:
        st = gate.lstat(rel)
    except GateRefused as exc:
        raise Refused(str(exc)) from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused("a symlink (only regular files are acted on)")
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not a regular file")
    return st


def verify_at(dfd: int, name: str, step: Step) -> os.stat_result:
    """Re-check a planned file in its open folder right before acting: same key, same
    sha256 (the bytes read, and fingerprinted, when planning)."""
    st = lstat_at(dfd, name)
    if st is None:
        raise Refused("no longer exists")
    if stat.S_ISLNK(st.st_mode):
        raise Refused("a symlink (only regular files are acted on)")
    why = same_key(st, step.size, step.mtime_ns, step.inode)
    if why is not None:
        raise Refused(why)
    digest, _, st = hash_at(dfd, name)
    if st.st_ino != step.inode:
        raise Refused("replaced by another file while being checked")
    if digest != step.sha256:
        raise Refused("content changed since it was checked")
    return st


def check_reference(run: Run, step: Step, digest: str) -> At:
    """The step's reference, which must still be the regular file planned (inode) with
    sha256 ``digest`` (hashed once per run while its stat stays the same)."""
    ref = step.reference
    rparent, rname = split_rel(ref)
    try:
        rfd = run.folder(rparent)
    except FileNotFoundError:
        raise Refused(f"its reference {ref} is gone") from None
    except Refused as exc:
        raise Refused(f"its reference {ref}: {exc.reason}") from None
    rst = lstat_at(rfd, rname)
    if rst is None:
        raise Refused(f"its reference {ref} is gone")
    if not stat.S_ISREG(rst.st_mode):
        raise Refused(f"its reference {ref} is not a regular file any more")
    if step.ref_inode and rst.st_ino != step.ref_inode:
        raise Refused("its reference was replaced since the plan")
    if digest:
        key = (rst.st_ino, rst.st_size, rst.st_mtime_ns, rst.st_ctime_ns)
        if run.refs.get(ref) != key:
            got, _, st = hash_at(rfd, rname)
            if got != digest or (step.ref_inode and st.st_ino != step.ref_inode):
                raise Refused(f"its reference {ref} changed since the plan")
            run.refs[ref] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return At(run.root, rparent, rfd, rname, ref)
