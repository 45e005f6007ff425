"""Acting on marked documents, non-destructively: trash, quarantine, hard link, removal list.

The flow is always *plan, show, confirm, execute*, and every executed action can be undone:

- :func:`plan_action` checks each target without touching anything: a regular file (never
  a symlink, never a mail message: those are export-only) reached from the root through
  real folders only, still with the size, mtime and inode it had when it was fingerprinted,
  its family reference still present; it records the file's sha256 and the exact
  destination. Problems become per-file refusals with a reason.
- :func:`execute` writes the plan to a journal (:mod:`ditto_tui.corpus.journal`, fsync'ed)
  *before* the first file moves, then for each file checks it again (size, mtime, inode,
  sha256 now) and acts; every file gets its own outcome and a failure never stops the rest.
- :func:`undo_last` / :func:`undo_journal` put files back byte for byte; :func:`recover`
  rolls back any journal an interrupted process left unfinished (call it at start-up).

Actions: ``trash`` renames the file into the freedesktop trash (:mod:`.trash`) after writing
its ``.trashinfo`` (where the system trash is another thing, macOS and Windows, planning it
raises :class:`~ditto_tui.corpus.trash.TrashUnavailable` unless a trash folder is given);
``move`` renames it into a quarantine folder under its root-relative
path; ``link`` replaces it with a hard link to its reference, only when both are
byte-identical at that moment (undo writes a fresh copy of the same bytes with the
original mode and times); ``list`` writes CSV, JSON lines and a shell script
(:func:`write_removal_list`) and touches nothing. Files are renamed, never copied, except
across filesystems (then copied, fsync'ed and checked before the original goes).

``DITTO_TUI_ACTION_PAUSE_AFTER=N`` makes :func:`execute` stop for an hour after N files (a
test hook for interrupting an action at a known point).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shlex
import stat
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ditto_tui.corpus.journal import Journal, journals
from ditto_tui.corpus.reading import os_reason
from ditto_tui.corpus.rootdir import Refused as GateRefused
from ditto_tui.corpus.rootdir import RootDir
from ditto_tui.corpus.trash import (
    TrashUnavailable,
    check_trash,
    ensure_trash,
    trash_folder_for,
    trash_name,
    write_trashinfo,
)

__all__ = [
    "ACTIONS",
    "Outcome",
    "Plan",
    "Report",
    "Step",
    "Target",
    "TrashUnavailable",
    "execute",
    "plan_action",
    "recover",
    "undo_journal",
    "undo_last",
    "write_removal_list",
]

ACTIONS = ("trash", "move", "link", "list")
MAIL_KINDS = ("maildir", "mbox")
PAUSE_ENV = "DITTO_TUI_ACTION_PAUSE_AFTER"
MAIL_REASON = "a mail message: mailboxes are never modified in place (export it instead)"
_CHUNK = 1 << 20


class Refused(Exception):  # noqa: N818 - a refusal with a reason, not a bug
    """A file the action leaves alone, with a short human reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Busy(Exception):  # noqa: N818
    """Another process is working on this journal."""


@dataclass(frozen=True)
class Target:
    """A document marked for action: its root-relative id, the (size, mtime_ns, inode) it
    had when fingerprinted, its kind, its keeper (``reference``: the copy that stays, within
    k of it) and its distance in bits from that keeper (None when not known)."""

    id: str
    size: int
    mtime_ns: int
    inode: int
    kind: str = "text"
    reference: str | None = None
    distance: int | None = None

    @classmethod
    def from_document(cls, doc: Any, reference: str | None,
                      distance: int | None = None) -> Target:
        """From a :class:`~ditto_tui.corpus.documents.Document`."""
        return cls(doc.id, doc.size, doc.mtime_ns, doc.inode, doc.kind, reference, distance)


@dataclass
class Step:
    """One planned file operation (what the journal stores)."""

    n: int
    id: str
    reference: str
    dest: str
    info: str
    sha256: str
    size: int
    mtime_ns: int
    inode: int
    mode: int
    atime_ns: int
    ref_inode: int = 0


@dataclass(frozen=True)
class Outcome:
    """What happened to one file: ``status`` is ``done``, ``refused``, ``failed``,
    ``undone`` or ``not-done`` (found untouched while rolling back)."""

    id: str
    status: str
    reason: str = ""
    dest: str = ""


@dataclass
class Plan:
    """A checked action, not yet executed: ``steps`` will be acted on, ``refused`` not."""

    root: str
    action: str
    tag: str
    steps: list[Step]
    refused: list[Outcome]
    quarantine: str | None = None
    trash_dir: str | None = None

    def listing(self) -> list[str]:
        """One line per file for the dry run (ids rendered by the caller if needed)."""
        verb = {"trash": "trash", "move": "move", "link": "link", "list": "list"}[self.action]
        lines = []
        for s in self.steps:
            where = f" -> {s.dest}" if self.action == "move" else ""
            lines.append(f"{verb}\t{s.id}{where}\t(keeps {s.reference})")
        lines += [f"refuse\t{o.id}\t({o.reason})" for o in self.refused]
        return lines

    @property
    def bytes(self) -> int:
        return sum(s.size for s in self.steps)


@dataclass
class Report:
    """Per-file outcomes of an execute, undo or roll-back, and the journal used."""

    action: str
    journal: str | None
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("refused", "failed")]


# -- checks ---------------------------------------------------------------------------


def _inside(path: str, root: str) -> str | None:
    """``path`` (resolved) relative to the real ``root`` (``"."`` for the root itself), or
    None when it lies outside."""
    real = os.path.realpath(path)
    if real == root:
        return "."
    if real.startswith(root.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, root).replace(os.sep, "/")
    return None


def _parts(rel: str) -> list[str]:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise Refused("not a plain path inside the folder")
    return parts


def safe_file(root: str, rel: str) -> tuple[str, os.stat_result]:
    """The absolute path of ``rel`` under the real ``root`` and its lstat, after checking
    that every folder on the way is a real folder (no symlink) and the file is a regular
    file (no symlink). Raises Refused (or OSError when something is missing)."""
    parts = _parts(rel)
    cur = root
    for part in parts[:-1]:
        cur = os.path.join(cur, part)
        st = os.lstat(cur)
        if stat.S_ISLNK(st.st_mode):
            raise Refused(f"the folder {part!r} on its path is a symlink")
        if not stat.S_ISDIR(st.st_mode):
            raise Refused(f"{part!r} on its path is not a folder")
    path = os.path.join(cur, parts[-1])
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise Refused("a symlink (only regular files are acted on)")
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not a regular file")
    return path, st


def _safe_parent(root: str, rel: str) -> str:
    """Create (if needed) the folders of ``rel`` under ``root``, refusing symlinks."""
    parts = _parts(rel)
    cur = root
    for part in parts[:-1]:
        cur = os.path.join(cur, part)
        try:
            st = os.lstat(cur)
        except FileNotFoundError:
            os.mkdir(cur)
            continue
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise Refused(f"{cur} is not a real folder")
    return os.path.join(cur, parts[-1])


def _hash(root: str, rel: str) -> tuple[str, os.stat_result]:
    """sha256 of the regular file ``rel`` under ``root`` and its fstat, opened through the
    corpus gate (:class:`~ditto_tui.corpus.rootdir.RootDir`: inside the root, no symlink on
    the way); Refused when it changed while being read or the gate refuses it."""
    gate = RootDir(root)
    try:
        fd, st = gate.open_file_stat(rel)
    except GateRefused as exc:
        raise Refused(str(exc)) from None
    finally:
        gate.close()
    try:
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            h.update(chunk)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        raise Refused("changed while being checked")
    return h.hexdigest(), st


def _hash_path(path: str) -> tuple[str, os.stat_result]:
    """sha256 of a file ditto-tui itself put in the trash or quarantine (outside the corpus,
    so not through the corpus gate), opened without following a symlink, and its fstat."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            h.update(chunk)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        raise Refused("changed while being checked")
    return h.hexdigest(), st


def _same_key(st: os.stat_result, size: int, mtime_ns: int, inode: int) -> str | None:
    """Why ``st`` is not the fingerprinted (size, mtime_ns, inode), or None."""
    if st.st_size != size:
        return f"changed since it was fingerprinted (size {size} -> {st.st_size})"
    if st.st_mtime_ns != mtime_ns:
        return "changed since it was fingerprinted (modified)"
    if st.st_ino != inode:
        return "replaced by another file since it was fingerprinted"
    return None


def _reference(root: str, rel: str) -> tuple[str, os.stat_result]:
    """The family reference, which must still be a regular file under the root."""
    try:
        return safe_file(root, rel)
    except FileNotFoundError:
        raise Refused(f"its reference {rel} is gone") from None
    except Refused as exc:
        raise Refused(f"its reference {rel}: {exc.reason}") from None


def _verify(root: str, step: Step) -> tuple[str, os.stat_result]:
    """Re-check a planned file right before acting: same key, same sha256."""
    try:
        path, st = safe_file(root, step.id)
    except FileNotFoundError:
        raise Refused("no longer exists") from None
    why = _same_key(st, step.size, step.mtime_ns, step.inode)
    if why is not None:
        raise Refused(why)
    digest, st = _hash(root, step.id)
    if digest != step.sha256:
        raise Refused("content changed since it was checked")
    return path, st


# -- planning -------------------------------------------------------------------------


def plan_action(
    root: str | os.PathLike[str],
    action: str,
    targets: Iterable[Target],
    *,
    quarantine: str | os.PathLike[str] | None = None,
    trash_dir: str | os.PathLike[str] | None = None,
) -> Plan:
    """Check every target for ``action`` without changing anything (see the module docs).

    ``quarantine`` is required for ``move`` (created when acting); ``trash_dir`` overrides
    the trash location (else ``DITTO_TUI_TRASH_DIR``, else the freedesktop trash). Without
    either, ``trash`` on a platform whose system trash is not the freedesktop trash (macOS,
    Windows, ...) raises :class:`TrashUnavailable` (a ValueError) with a one-line reason
    before anything is checked (:func:`~ditto_tui.corpus.trash.system_trash_refusal`).
    """
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r} (expected one of {', '.join(ACTIONS)})")
    if action == "trash":
        check_trash(trash_dir)
    if action == "move" and quarantine is None:
        raise ValueError("the move action needs a quarantine folder")
    real = os.path.realpath(root)
    qdir = os.path.abspath(quarantine) if quarantine is not None else None
    qrel = _inside(qdir, real) if qdir is not None else None
    if qrel == ".":
        raise ValueError("the quarantine folder cannot be the corpus folder itself")
    tag = f"ditto-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"
    targets = list(dict((t.id, t) for t in targets).values())
    marked = {t.id for t in targets}
    steps: list[Step] = []
    refused: list[Outcome] = []
    ref_hashes: dict[str, tuple[str, os.stat_result]] = {}
    for t in targets:
        try:
            if t.kind in MAIL_KINDS:
                raise Refused(MAIL_REASON)
            if not t.reference:
                raise Refused("no copy is kept in its family")
            if t.reference in marked:
                raise Refused(f"its reference {t.reference} is marked too")
            if qrel is not None and (t.id == qrel or t.id.startswith(qrel + "/")):
                raise Refused("already in the quarantine folder")
            try:
                path, st = safe_file(real, t.id)
            except FileNotFoundError:
                raise Refused("no longer exists") from None
            why = _same_key(st, t.size, t.mtime_ns, t.inode)
            if why is not None:
                raise Refused(why)
            ref_path, ref_st = _reference(real, t.reference)
            digest, st = _hash(real, t.id)
            n = len(steps)
            dest = info = ""
            ref_inode = 0
            if action == "trash":
                folder = trash_folder_for(path, trash_dir)
                inside = _inside(str(folder), real)
                if inside is not None and not inside.split("/")[0].startswith(".Trash"):
                    raise Refused(f"the trash folder {folder} is inside the corpus folder")
                name = trash_name(f"{tag}-{n}", path)
                dest = str(folder / "files" / name)
                info = str(folder / "info" / f"{name}.trashinfo")
                if os.path.lexists(dest) or os.path.lexists(info):
                    raise Refused(f"{dest} already exists in the trash")
            elif action == "move":
                assert qdir is not None
                dest = os.path.join(qdir, *t.id.split("/"))
                if os.path.lexists(dest):
                    raise Refused(f"{dest} already exists")
            elif action == "link":
                if ref_st.st_dev != st.st_dev:
                    raise Refused("on another filesystem than its reference")
                if ref_st.st_ino == st.st_ino:
                    raise Refused("already a hard link to its reference")
                if t.reference not in ref_hashes:
                    ref_hashes[t.reference] = _hash(real, t.reference)
                if ref_hashes[t.reference][0] != digest or ref_st.st_size != st.st_size:
                    raise Refused(f"not byte-identical to its reference {t.reference}")
                ref_inode = ref_st.st_ino
                dest = os.path.join(os.path.dirname(path), f".{tag}-{n}.link")
            steps.append(Step(n, t.id, t.reference, dest, info, digest, st.st_size,
                              st.st_mtime_ns, st.st_ino, st.st_mode, st.st_atime_ns, ref_inode))
        except Refused as exc:
            refused.append(Outcome(t.id, "refused", exc.reason))
        except OSError as exc:
            refused.append(Outcome(t.id, "refused", os_reason(exc)))
    return Plan(real, action, tag, steps, refused, qdir,
                None if trash_dir is None else os.path.abspath(trash_dir))


# -- executing ------------------------------------------------------------------------


def _fsync_dir(folder: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _copy_verified(
    src: str, dst: str, sha256: str, original: tuple[int, int, int] | None = None
) -> None:
    """Copy ``src`` to ``dst`` (which must not exist) through ``dst.ditto-part``: fsync,
    sha256 checked, then renamed into place. Mode and (atime_ns, mtime_ns) are those of
    ``src``, or ``original`` = (mode, atime_ns, mtime_ns)."""
    part = dst + ".ditto-part"
    h = hashlib.sha256()
    fd_in = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if original is None:
            st = os.fstat(fd_in)
            original = (st.st_mode, st.st_atime_ns, st.st_mtime_ns)
        mode, atime_ns, mtime_ns = original
        fd_out = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            while True:
                chunk = os.read(fd_in, _CHUNK)
                if not chunk:
                    break
                h.update(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd_out, view):]
            os.fchmod(fd_out, stat.S_IMODE(mode))
            os.fsync(fd_out)
        finally:
            os.close(fd_out)
    finally:
        os.close(fd_in)
    if h.hexdigest() != sha256:
        os.unlink(part)
        raise Refused("content changed while being copied")
    os.utime(part, ns=(atime_ns, mtime_ns))
    if os.path.lexists(dst):
        os.unlink(part)
        raise Refused(f"{dst} appeared while copying")
    os.rename(part, dst)
    _fsync_dir(os.path.dirname(dst))


def _move(src: str, dst: str, step: Step) -> None:
    """Rename ``src`` to the free name ``dst``; across filesystems copy, check, remove."""
    if os.path.lexists(dst):
        raise Refused(f"{dst} already exists")
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        _copy_verified(src, dst, step.sha256)
        os.unlink(src)
        return
    if os.lstat(dst).st_ino != step.inode:  # swapped between the check and the rename
        os.rename(dst, src)
        raise Refused("replaced by another file while acting")


def _do(plan: Plan, step: Step, made: set[str], touched: set[str]) -> str:
    """Act on one planned file; return the destination shown to the user."""
    path, st = _verify(plan.root, step)
    ref_path, ref_st = _reference(plan.root, step.reference)
    if plan.action == "trash":
        folder = os.path.dirname(os.path.dirname(step.dest))
        if folder not in made:
            ensure_trash(Path(folder))
            made.add(folder)
        write_trashinfo(step.info, path)
        try:
            _move(path, step.dest, step)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(step.info)
            raise
        return step.dest
    if plan.action == "move":
        parent = os.path.dirname(step.dest)
        if parent not in made:
            assert plan.quarantine is not None
            os.makedirs(plan.quarantine, exist_ok=True)
            try:
                _safe_parent(plan.quarantine, step.id)
            except Refused:
                raise Refused(f"{parent} leads out of the quarantine folder (a symlink)") from None
            made.add(parent)
        _move(path, step.dest, step)
        return step.dest
    if plan.action == "link":
        if ref_st.st_ino != step.ref_inode:
            raise Refused("its reference was replaced since the plan")
        digest, _ = _hash(plan.root, step.reference)
        if digest != step.sha256:
            raise Refused("no longer byte-identical to its reference")
        os.link(ref_path, step.dest)
        try:
            os.rename(step.dest, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(step.dest)
            raise
        touched.add(os.path.dirname(path))
        return step.reference
    raise ValueError(f"{plan.action} is not executed file by file")


def execute(
    plan: Plan,
    journal_dir: str | os.PathLike[str],
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Carry out a plan (``trash``, ``move`` or ``link``) with a journal in ``journal_dir``.

    The journal is durable before the first file is touched; each file is re-verified just
    before it is acted on; each gets an :class:`Outcome` (the plan's refusals included) and
    nothing stops the run but the end of the plan. ``on_progress(done, total)`` is called
    after each file.
    """
    if plan.action not in ("trash", "move", "link"):
        raise ValueError("only trash, move and link change files; use write_removal_list")
    report = Report(plan.action, None, list(plan.refused))
    if not plan.steps:
        return report
    header = {"action": plan.action, "root": plan.root, "tag": plan.tag,
              "quarantine": plan.quarantine, "files": len(plan.steps)}
    journal = Journal.create(journal_dir, header, [dict(vars(s)) for s in plan.steps])
    report.journal = journal.id
    pause_after = int(os.environ.get(PAUSE_ENV, "0") or 0)
    made: set[str] = set()
    touched: set[str] = set()
    try:
        for count, step in enumerate(plan.steps, 1):
            try:
                dest = _do(plan, step, made, touched)
                journal.record(step.n, "done")
                report.outcomes.append(Outcome(step.id, "done", "", dest))
            except Refused as exc:
                journal.record(step.n, "refused", exc.reason)
                report.outcomes.append(Outcome(step.id, "refused", exc.reason))
            except OSError as exc:
                reason = os_reason(exc)
                journal.record(step.n, "failed", reason)
                report.outcomes.append(Outcome(step.id, "failed", reason))
            if on_progress is not None:
                on_progress(count, len(plan.steps))
            if pause_after and count == pause_after:
                journal.sync()
                time.sleep(3600)
        for folder in touched:
            _fsync_dir(folder)
        journal.finish("done")
    finally:
        journal.close()
    return report


# -- undo and recovery ----------------------------------------------------------------


def _remove_quietly(path: str) -> None:
    if path:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _is_original(path: str, op: dict[str, Any], *, same_inode: bool = True) -> bool:
    """Whether ``path`` holds the op's original file again (size, mtime, sha256, and the
    inode when it was renamed back)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or (st.st_size, st.st_mtime_ns) != (op["size"], op["mtime_ns"]):
            return False
        if same_inode and st.st_ino != op["inode"]:
            return False
        return _hash_path(path)[0] == op["sha256"]
    except (OSError, Refused):
        return False


def _undo_rename(root: str, op: dict[str, Any], rolling_back: bool, touched: set[str]) -> str:
    rel, dest, info = op["id"], op["dest"], op.get("info", "")
    src = os.path.join(root, *rel.split("/"))
    _remove_quietly(dest + ".ditto-part")
    src_there, dest_there = os.path.lexists(src), os.path.lexists(dest)
    if dest_there and not src_there:
        src = _safe_parent(root, rel)
        try:
            os.rename(dest, src)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            _copy_verified(dest, src, op["sha256"])
            os.unlink(dest)
        touched.add(os.path.dirname(src))
        _remove_quietly(info)
        return "undone"
    if src_there and not dest_there:
        if rolling_back:
            _remove_quietly(info)
            return "not-done"
        if _is_original(src, op):  # restored by an undo interrupted before its record
            _remove_quietly(info)
            return "undone"
        raise Refused(f"{dest} is gone and a file is back at {rel}")
    if src_there and dest_there:
        if rolling_back and os.path.isfile(dest) and _hash_path(dest)[0] == op["sha256"]:
            # a copy across filesystems finished but the original was not removed yet
            _, st = safe_file(root, rel)
            if st.st_ino == op["inode"]:
                _remove_quietly(dest)
                _remove_quietly(info)
                return "not-done"
        raise Refused(f"a file now exists at {rel}; the original stays at {dest}")
    raise Refused(f"no longer at {dest} (was the trash emptied?)")


def _undo_link(root: str, op: dict[str, Any], rolling_back: bool, touched: set[str]) -> str:
    rel = op["id"]
    _remove_quietly(op["dest"])  # a link made but not yet renamed into place
    path = os.path.join(root, *rel.split("/"))
    try:
        st: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and st.st_ino == op["inode"]:
        if rolling_back:
            return "not-done"
        # the file system may give a copy put back by an interrupted undo the inode number
        # the original had before it was linked: judge by content, not by the number
        if _is_original(path, op, same_inode=False):
            return "undone"
        raise Refused("is not linked any more")
    if st is not None and st.st_ino != op["ref_inode"]:
        if _is_original(path, op, same_inode=False):  # an interrupted undo got this far
            return "undone"
        raise Refused("was replaced since the action; left as is")
    source = path
    if st is None:
        source, _ = safe_file(root, op["reference"])
        path = _safe_parent(root, rel)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(op['dest'])}.undo")
    _remove_quietly(tmp)
    try:
        _copy_verified(source, tmp, op["sha256"], (op["mode"], op["atime_ns"], op["mtime_ns"]))
    except Refused:
        raise Refused("its content changed since it was linked; left as is") from None
    os.rename(tmp, path)
    touched.add(os.path.dirname(path))
    return "undone"


def undo_journal(journal: Journal, *, rolling_back: bool = False) -> Report:
    """Reverse a journal's operations, last first, each decided from the disk.

    Normally only operations recorded ``done`` are reversed; ``rolling_back`` (an
    interrupted journal) looks at every operation. The journal ends ``undone`` /
    ``rolled-back``, or ``undo-incomplete`` when some file could not be restored (undo
    can be asked again). Raises :class:`Busy` when another process holds the journal.
    """
    if not journal.open_for_append():
        raise Busy(f"{journal.path} is in use by another process")
    report = Report(journal.action, journal.id)
    root = journal.header["root"]
    undo = _undo_link if journal.action == "link" else _undo_rename
    touched: set[str] = set()
    try:
        for op in reversed(journal.ops):
            n = int(op["n"])
            last = journal.outcomes.get(n, {}).get("status")
            if last in ("undone", "not-done"):
                continue
            if not rolling_back and last != "done":
                continue
            try:
                status = undo(root, op, rolling_back, touched)
                journal.record(n, status)
                report.outcomes.append(Outcome(op["id"], status))
            except Refused as exc:
                journal.record(n, "done", exc.reason)
                report.outcomes.append(Outcome(op["id"], "failed", exc.reason))
            except OSError as exc:
                reason = os_reason(exc)
                journal.record(n, "done", reason)
                report.outcomes.append(Outcome(op["id"], "failed", reason))
        for folder in touched:
            _fsync_dir(folder)
        if report.count("failed"):
            journal.finish("undo-incomplete")
        else:
            journal.finish("rolled-back" if rolling_back else "undone")
    finally:
        journal.close()
    return report


def undoable(journal_dir: str | os.PathLike[str]) -> list[Journal]:
    """Journals that undo can still reverse, oldest first."""
    return [
        j for j in journals(journal_dir)
        if j.state in ("done", "undo-incomplete") and any(True for _ in j.done_ops())
    ]


def undo_last(journal_dir: str | os.PathLike[str]) -> Report | None:
    """Undo the most recent action that still has files to restore (None if none)."""
    candidates = undoable(journal_dir)
    if not candidates:
        return None
    return undo_journal(candidates[-1])


def recover(journal_dir: str | os.PathLike[str]) -> list[Report]:
    """Roll back every journal left unfinished by an interrupted process (those still in
    use by a live process are left alone). Call before planning or undoing."""
    reports = []
    for journal in journals(journal_dir):
        if journal.state is None:
            try:
                reports.append(undo_journal(journal, rolling_back=True))
            except Busy:
                continue
    return reports


# -- removal lists --------------------------------------------------------------------


def _escape(text: str) -> str:
    raw = os.fsencode(text)
    return "".join(
        f"\\x{b:02x}" if b < 0x20 or b == 0x7F else chr(b) if b < 0x80 else f"\\x{b:02x}"
        for b in raw
    ) if any(b < 0x20 or b == 0x7F or b >= 0x80 for b in raw) else text


def write_removal_list(plan: Plan, prefix: str | os.PathLike[str]) -> list[Path]:
    """Write ``<prefix>.csv``, ``<prefix>.jsonl`` and ``<prefix>.sh`` for the plan's
    files (path, reference, size, sha256); nothing in the corpus is touched. The script
    removes each file only if it is still a regular file of the recorded size. Refuses
    to overwrite existing files (FileExistsError)."""
    import csv

    prefix = str(prefix)
    paths = [Path(prefix + ext) for ext in (".csv", ".jsonl", ".sh")]
    for p in paths:
        if p.exists():
            raise FileExistsError(p)
    rows = []
    for s in plan.steps:
        path = os.path.join(plan.root, *s.id.split("/"))
        ref = os.path.join(plan.root, *s.reference.split("/"))
        rows.append((s.id, path, s.reference, ref, s.size, s.sha256))
    with open(paths[0], "x", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("id", "path", "reference", "reference_path", "size", "sha256"))
        writer.writerows(rows)
    with open(paths[1], "x", encoding="ascii") as fh:
        for r in rows:
            fh.write(json.dumps(dict(zip(("id", "path", "reference", "reference_path", "size",
                                          "sha256"), r, strict=True))) + "\n")
    lines = [
        b"#!/bin/sh",
        f"# Written by ditto-tui: {len(rows)} near-duplicate file(s) under".encode(),
        b"# " + _escape(plan.root).encode("ascii", "backslashreplace"),
        b"# Nothing has been removed. Review, then run: sh " + os.fsencode(os.path.basename(paths[2])),
        b"set -u",
        b'remove() {',
        b'    if [ -f "$1" ] && [ ! -L "$1" ] && [ "$(wc -c < "$1")" -eq "$2" ]; then',
        b'        rm -- "$1" && printf \'removed %s\\n\' "$1"',
        b'    else',
        b'        printf \'skipped %s (gone, changed or not a regular file)\\n\' "$1" >&2',
        b'    fi',
        b'}',
    ]
    for r in rows:
        lines.append(b"# keeps " + _escape(r[3]).encode("ascii", "backslashreplace"))
        lines.append(b"remove " + os.fsencode(shlex.quote(r[1])) + b" %d" % r[4])
    with open(paths[2], "xb") as fh:
        fh.write(b"\n".join(lines) + b"\n")
    os.chmod(paths[2], 0o755)
    return paths


def targets_from(
    documents: Sequence[Any], marked: Iterable[int], reference_of: Callable[[int], str | None]
) -> list[Target]:
    """Targets for the marked document indices, each with its family's reference id."""
    return [Target.from_document(documents[i], reference_of(i)) for i in marked]
