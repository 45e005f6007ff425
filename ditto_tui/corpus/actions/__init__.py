"""Acting on marked documents, non-destructively: trash, quarantine, hard link, removal list.

The flow is always *plan, show, confirm, execute*, and every executed action can be undone:

- :func:`plan_action` checks each target without touching anything: a regular file (never
  a symlink, never a mail message: those are export-only) reached from the root through
  real folders only (the corpus gate, :class:`~ditto_tui.corpus.rootdir.RootDir`), still
  with the size, mtime and inode it had when it was fingerprinted, its family reference
  still present. It reads each file (and each reference) once: the sha256 of those bytes
  goes into the plan and, given the ``pipeline``, their fingerprint must be the one the
  user reviewed (``Target.fp``/``ref_fp``), so a file rewritten in place with the same
  size and mtime, whose cached fingerprint is stale, is refused (its id lands in
  ``Plan.stale``). Problems become per-file refusals with a reason.
- :func:`execute` writes the plan to a journal (:mod:`ditto_tui.corpus.journal`, fsync'ed)
  *before* the first file moves, then for each file checks it again (size, mtime, inode,
  sha256 now: the bytes fingerprinted at planning; its reference's sha256 too) and acts;
  every file gets its own outcome and a failure never stops the rest.
- :func:`undo_last` / :func:`undo_journal` put files back byte for byte; :func:`recover`
  rolls back any journal an interrupted process left unfinished (call it at start-up).

Every change is made relative to folder descriptors opened through a gate (the corpus
root's, and one on the trash or quarantine folder), by one name in that folder
(``renameat``/``linkat``/``unlinkat``, ``renameat2`` with ``RENAME_NOREPLACE`` or
``RENAME_EXCHANGE`` where the system has it: :mod:`ditto_tui.corpus.fsops`); no path
string is ever resolved again. After acting, each folder used must still be where it was
(its descriptor's real path, or a fresh walk where the system does not tell): a folder
swapped for a symlink or moved away meanwhile undoes the step and refuses it.

Actions: ``trash`` renames the file into the freedesktop trash (:mod:`.trash`) after writing
its ``.trashinfo`` (where the system trash is another thing, macOS and Windows, planning it
raises :class:`~ditto_tui.corpus.trash.TrashUnavailable` unless a trash folder is given);
``move`` renames it into a quarantine folder under its root-relative
path; ``link`` replaces it with a hard link to its reference, only when both are
byte-identical at that moment (the two names then share one content: an edit in place
through either changes both, see :data:`LINK_WARNING`; undo writes a fresh copy of the
bytes the file had, with the original mode and times); ``list`` writes CSV, JSON lines and
a shell script (:func:`write_removal_list`) and touches nothing. Files are renamed, never
copied, except across filesystems (then copied through ``<name>.ditto-part``, fsync'ed and
checked before the original goes; the part is removed on any error).

Without ``renameat2`` (macOS, the BSDs) ``link`` and its undo replace the name by a plain
``renameat``: a file another process puts at that very name between the last check and
the rename would be replaced (see :mod:`~ditto_tui.corpus.fsops`).

Plans can be saved and acted on later exactly as reviewed: :func:`save_plan`,
:func:`load_plan` and :func:`replan` (``dedupe --dry-run --plan FILE``, ``--apply FILE``).

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
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, NamedTuple

from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.corpus.documents import MAIL_KINDS
from ditto_tui.corpus.fsops import exchange, rename_noreplace
from ditto_tui.corpus.journal import Journal, journals
from ditto_tui.corpus.reading import os_reason
from ditto_tui.corpus.rootdir import Refused as GateRefused
from ditto_tui.corpus.rootdir import RootDir, fd_path
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
    "ActionName",
    "LINK_WARNING",
    "PLAN_VERSION",
    "Failed",
    "Outcome",
    "Plan",
    "PlanError",
    "Report",
    "Step",
    "Target",
    "TrashUnavailable",
    "damaged",
    "execute",
    "load_plan",
    "plan_action",
    "recover",
    "replan",
    "save_plan",
    "undo_journal",
    "undo_last",
    "undoable",
    "write_removal_list",
]

#: What can be done to the duplicates: to the trash, into a quarantine folder, replaced
#: by hard links to their keepers, or only listed (a removal list; nothing is touched).
ActionName = Literal["trash", "move", "link", "list"]
ACTIONS: tuple[ActionName, ...] = ("trash", "move", "link", "list")
PAUSE_ENV = "DITTO_TUI_ACTION_PAUSE_AFTER"
MAIL_REASON = "a mail message: mailboxes are never modified in place (export it instead)"
#: What a hard link means for the user's files, said in the dry run, the confirmation and
#: the README (as fclones and rdfind say it).
LINK_WARNING = (
    "Hard links share one content: after linking, editing either copy in place changes "
    "both, and undo can only bring back the bytes the file had when it was linked."
)
PLAN_VERSION = 1
_CHUNK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(
    os, "O_CLOEXEC", 0)
_FOLDERS_KEPT = 16


class Refused(Exception):  # noqa: N818 - a refusal with a reason, not a bug
    """A file the action leaves alone, with a short human reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Failed(Exception):  # noqa: N818 - an outcome with a reason
    """An operation that failed on the system's side (a write, a rename), with a reason
    that names the side (e.g. ``writing the copy in the trash failed: no space left``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Busy(Exception):  # noqa: N818
    """Another process is working on this journal."""


class PlanError(ValueError):
    """A saved plan that cannot be used (unreadable, another version, another root)."""


@dataclass(frozen=True)
class Target:
    """A document marked for action: its root-relative id, the (size, mtime_ns, inode) it
    had when fingerprinted, its kind, its keeper (``reference``: the copy that stays, within
    k of it) and its distance in bits from that keeper (None when not known).
    ``fp``/``ref_fp`` are the fingerprints the user reviewed (of it and of the keeper),
    checked against the bytes read when planning with a pipeline."""

    id: str
    size: int
    mtime_ns: int
    inode: int
    kind: str = "text"
    reference: str | None = None
    distance: int | None = None
    fp: int | None = None
    ref_fp: int | None = None

    @classmethod
    def from_document(cls, doc: Any, reference: str | None, distance: int | None = None, *,
                      fp: int | None = None, ref_fp: int | None = None) -> Target:
        """From a :class:`~ditto_tui.corpus.documents.Document`."""
        return cls(doc.id, doc.size, doc.mtime_ns, doc.inode, doc.kind, reference, distance,
                   fp, ref_fp)


@dataclass
class Step:
    """One planned file operation (what the journal and a saved plan store).

    ``sha256`` is of the bytes read when planning (and fingerprinted then, ``fp``);
    ``ref_sha256``/``ref_inode``/``ref_fp`` are the reference's; ``distance`` is the
    Hamming distance between the two fingerprints when both are known."""

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
    ref_sha256: str = ""
    fp: int | None = None
    ref_fp: int | None = None
    distance: int | None = None


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
    """A checked action, not yet executed: ``steps`` will be acted on, ``refused`` not.

    ``stale`` lists the ids refused because their bytes no longer give the fingerprint
    they were reviewed with (a cached fingerprint gone stale: scan them again); ``k``,
    ``mode`` and ``pipeline`` (its identity) say what the review was made with."""

    root: str
    action: str
    tag: str
    steps: list[Step]
    refused: list[Outcome]
    quarantine: str | None = None
    trash_dir: str | None = None
    k: int | None = None
    mode: str | None = None
    pipeline: str | None = None
    stale: list[str] = field(default_factory=list)

    def listing(self) -> list[str]:
        """One line per file for the dry run (ids rendered by the caller if needed)."""
        verb = {"trash": "trash", "move": "move", "link": "link", "list": "list"}[self.action]
        lines = []
        for s in self.steps:
            where = f" -> {s.dest}" if self.action == "move" else ""
            near = "" if s.distance is None else f", {s.distance} bits"
            lines.append(f"{verb}\t{s.id}{where}\t(keeps {s.reference}{near})")
        lines += [f"refuse\t{o.id}\t({o.reason})" for o in self.refused]
        return lines

    @property
    def bytes(self) -> int:
        return sum(s.size for s in self.steps)


@dataclass
class Report:
    """Per-file outcomes of an execute, undo or roll-back, and the journal used.
    ``damage`` says what a damaged journal could no longer tell (empty when whole)."""

    action: str
    journal: str | None
    outcomes: list[Outcome] = field(default_factory=list)
    damage: str = ""

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("refused", "failed")]


def _about_to_act(rel: str) -> None:
    """Test seam: called after a file's last check, right before it is acted on (in
    :func:`execute` and in undo); a test replaces it to swap a folder at that moment."""


# -- names and folders ----------------------------------------------------------------


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


def _split(rel: str) -> tuple[str, str]:
    """(parent folder, name) of a plain root-relative path."""
    parts = _parts(rel)
    return "/".join(parts[:-1]), parts[-1]


def _gate_reason(exc: OSError, what: str = "") -> str:
    reason = os_reason(exc)
    return f"{what}: {reason}" if what else reason


def _still_at(gate: RootDir, rel: str, fd: int, root_now: str | None = None) -> bool:
    """Whether the folder open as ``fd`` is still the folder ``rel`` below the gate's root:
    by the descriptor's real path where the system tells (Linux), else by a fresh walk
    through the gate compared by (device, inode). ``root_now`` is the root's real path
    if known (a root moved since then makes every folder below it fail: never a false
    yes)."""
    where = fd_path(fd)
    if where is not None:
        if root_now is None:
            root_now = fd_path(gate.fd)
        if root_now is None:
            return False
        return where == (os.path.join(root_now, *rel.split("/")) if rel else root_now)
    try:
        fresh = gate.open_dir(rel)
    except OSError:
        return False
    try:
        a, b = os.fstat(fresh), os.fstat(fd)
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    finally:
        os.close(fresh)


class _Folders:
    """The folder descriptors of one run, each opened through a gate (the corpus root, a
    trash or quarantine folder) and reused while it is still where it was."""

    def __init__(self) -> None:
        self.gates: dict[str, RootDir] = {}
        self._roots: dict[str, str | None] = {}
        self._want: dict[tuple[str, str], str] = {}
        self._fds: OrderedDict[tuple[str, str], int] = OrderedDict()

    def gate(self, base: str) -> RootDir:
        gate = self.gates.get(base)
        if gate is None:
            gate = self.gates[base] = RootDir(base)
            self._roots[base] = fd_path(gate.fd)  # the root's real path, read once a run
        return gate

    def open(self, base: str, rel: str, *, create: bool = False, check: bool = True) -> int:
        """The descriptor of folder ``rel`` below ``base`` (created when ``create``);
        Refused with the gate's reason (a symlink on the way, ...). A descriptor kept from
        an earlier step is reused once checked still in place (``check=False``: the caller
        checks after acting, and undoes the step when it moved)."""
        key = (base, rel)
        gate = self.gate(base)
        fd = self._fds.get(key)
        if fd is not None:
            if not check or self.still_at(base, rel, fd):
                self._fds.move_to_end(key)
                return fd
            self.forget(base, rel)
        try:
            fd = gate.make_dirs(rel) if create else gate.open_dir(rel)
        except GateRefused as exc:
            raise Refused(f"the folder {rel or '.'} on its path: {exc}") from None
        self._fds[key] = fd
        while len(self._fds) > _FOLDERS_KEPT:
            os.close(self._fds.popitem(last=False)[1])
        return fd

    def still_at(self, base: str, rel: str, fd: int) -> bool:
        key = (base, rel)
        want = self._want.get(key)
        if want is None:
            root_now = self._roots.get(base)
            if root_now is None:
                return _still_at(self.gate(base), rel, fd)
            want = self._want[key] = os.path.join(root_now, *rel.split("/")) if rel else root_now
        where = fd_path(fd)
        return where == want if where is not None else _still_at(self.gate(base), rel, fd)

    def forget(self, base: str, rel: str) -> None:
        fd = self._fds.pop((base, rel), None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        while self._fds:
            os.close(self._fds.popitem()[1])
        for gate in self.gates.values():
            gate.close()
        self.gates.clear()


def _lstat_at(dfd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _unlink_quietly(dfd: int, name: str) -> None:
    try:  # noqa: SIM105 - per file in undo: no context manager on this path
        os.unlink(name, dir_fd=dfd)
    except FileNotFoundError:
        pass


# -- reading and checking -------------------------------------------------------------


def _read_fd(fd: int, keep: bool) -> tuple[str, bytes | None, os.stat_result]:
    """sha256 of an open file (and its bytes when ``keep``) and its fstat; Refused when
    it changed while being read."""
    st = os.fstat(fd)
    h = hashlib.sha256()
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        h.update(chunk)
        if keep:
            chunks.append(chunk)
    after = os.fstat(fd)
    if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
        raise Refused("changed while being checked")
    return h.hexdigest(), b"".join(chunks) if keep else None, st


def _hash_at(dfd: int, name: str, keep: bool = False) -> tuple[str, bytes | None, os.stat_result]:
    """:func:`_read_fd` of the regular file ``name`` in folder ``dfd`` (never a symlink)."""
    try:
        fd = os.open(name, _OPEN_FLAGS, dir_fd=dfd)
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


def _hash(root: str, rel: str) -> tuple[str, os.stat_result]:
    """sha256 of the regular file ``rel`` under ``root`` and its fstat, opened through the
    corpus gate (:class:`~ditto_tui.corpus.rootdir.RootDir`: inside the root, no symlink on
    the way); Refused when it changed while being read or the gate refuses it."""
    with RootDir(root) as gate:
        digest, _, st = _hash_gate(gate, rel, False)
    return digest, st


def _hash_gate(gate: RootDir, rel: str, keep: bool) -> tuple[str, bytes | None, os.stat_result]:
    try:
        fd, _ = gate.open_file_stat(rel)
    except GateRefused as exc:
        raise Refused(str(exc)) from None
    try:
        return _read_fd(fd, keep)
    finally:
        os.close(fd)


def _same_key(st: os.stat_result, size: int, mtime_ns: int, inode: int) -> str | None:
    """Why ``st`` is not the fingerprinted (size, mtime_ns, inode), or None."""
    if st.st_size != size:
        return f"changed since it was fingerprinted (size {size} -> {st.st_size})"
    if st.st_mtime_ns != mtime_ns:
        return "changed since it was fingerprinted (modified)"
    if st.st_ino != inode:
        return "replaced by another file since it was fingerprinted"
    return None


def _gate_lstat(gate: RootDir, rel: str) -> os.stat_result:
    """lstat of a plain ``rel`` through the gate: Refused for a symlink (on the way or
    itself) and anything but a regular file; FileNotFoundError when it is missing."""
    _parts(rel)
    try:
        st = gate.lstat(rel)
    except GateRefused as exc:
        raise Refused(str(exc)) from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused("a symlink (only regular files are acted on)")
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not a regular file")
    return st


def _verify_at(dfd: int, name: str, step: Step) -> os.stat_result:
    """Re-check a planned file in its open folder right before acting: same key, same
    sha256 (the bytes read, and fingerprinted, when planning)."""
    st = _lstat_at(dfd, name)
    if st is None:
        raise Refused("no longer exists")
    if stat.S_ISLNK(st.st_mode):
        raise Refused("a symlink (only regular files are acted on)")
    why = _same_key(st, step.size, step.mtime_ns, step.inode)
    if why is not None:
        raise Refused(why)
    digest, _, st = _hash_at(dfd, name)
    if st.st_ino != step.inode:
        raise Refused("replaced by another file while being checked")
    if digest != step.sha256:
        raise Refused("content changed since it was checked")
    return st


# -- planning -------------------------------------------------------------------------


def plan_action(
    root: str | os.PathLike[str],
    action: str,
    targets: Iterable[Target],
    *,
    quarantine: str | os.PathLike[str] | None = None,
    trash_dir: str | os.PathLike[str] | None = None,
    pipeline: Any = None,
    k: int | None = None,
    mode: str | None = None,
) -> Plan:
    """Check every target for ``action`` without changing anything (see the module docs).

    ``quarantine`` is required for ``move`` (created when acting); ``trash_dir`` overrides
    the trash location (else ``DITTO_TUI_TRASH_DIR``, else the freedesktop trash). Without
    either, ``trash`` on a platform whose system trash is not the freedesktop trash (macOS,
    Windows, ...) raises :class:`TrashUnavailable` (a ValueError) with a one-line reason
    before anything is checked (:func:`~ditto_tui.corpus.trash.system_trash_refusal`).
    With ``pipeline`` (anything with ``fingerprint(bytes)`` and ``identity``), a target
    whose ``fp`` (or whose reference's ``ref_fp``) is not the fingerprint of the bytes read
    now is refused and listed in ``Plan.stale``. ``k`` and ``mode`` are recorded.
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
    stale: list[str] = []
    refs: dict[str, tuple[str, int | None, os.stat_result] | Refused] = {}
    gate = RootDir(real)

    def fingerprint(data: bytes | None) -> int | None:
        return None if pipeline is None or data is None else int(pipeline.fingerprint(data))

    def reference(t: Target) -> tuple[str, int | None, os.stat_result]:
        assert t.reference is not None
        got = refs.get(t.reference)
        if got is None:
            try:
                try:
                    _gate_lstat(gate, t.reference)
                except FileNotFoundError:
                    raise Refused(f"its reference {t.reference} is gone") from None
                except Refused as exc:
                    raise Refused(f"its reference {t.reference}: {exc.reason}") from None
                digest, data, st = _hash_gate(gate, t.reference, pipeline is not None)
                got = (digest, fingerprint(data), st)
            except Refused as exc:
                got = exc
            except OSError as exc:
                got = Refused(f"its reference {t.reference}: {os_reason(exc)}")
            refs[t.reference] = got
        if isinstance(got, Refused):
            raise got
        return got

    try:
        with gate.batch():
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
                        st = _gate_lstat(gate, t.id)
                    except FileNotFoundError:
                        raise Refused("no longer exists") from None
                    why = _same_key(st, t.size, t.mtime_ns, t.inode)
                    if why is not None:
                        raise Refused(why)
                    ref_digest, ref_fp, ref_st = reference(t)
                    digest, data, st = _hash_gate(gate, t.id, pipeline is not None)
                    why = _same_key(st, t.size, t.mtime_ns, t.inode)
                    if why is not None:
                        raise Refused(why)
                    fp = fingerprint(data)
                    if fp is not None and t.fp is not None and fp != t.fp:
                        stale.append(t.id)
                        raise Refused("its content is not what was fingerprinted (rewritten "
                                      "with the same size and time?): scan it again")
                    if ref_fp is not None and t.ref_fp is not None and ref_fp != t.ref_fp:
                        stale.append(t.reference)
                        raise Refused(f"its reference {t.reference} is not what was "
                                      "fingerprinted: scan it again")
                    path = gate.abspath(t.id)
                    n = len(steps)
                    dest = info = ""
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
                        if ref_digest != digest or ref_st.st_size != st.st_size:
                            raise Refused(f"not byte-identical to its reference {t.reference}")
                        dest = os.path.join(os.path.dirname(path), f".{tag}-{n}.link")
                    distance = None
                    if fp is not None and ref_fp is not None:
                        distance = (fp ^ ref_fp).bit_count()
                    steps.append(Step(n, t.id, t.reference, dest, info, digest, st.st_size,
                                      st.st_mtime_ns, st.st_ino, st.st_mode, st.st_atime_ns,
                                      ref_st.st_ino, ref_digest, fp, ref_fp, distance))
                except Refused as exc:
                    refused.append(Outcome(t.id, "refused", exc.reason))
                except OSError as exc:
                    refused.append(Outcome(t.id, "refused", os_reason(exc)))
    finally:
        gate.close()
    return Plan(real, action, tag, steps, refused, qdir,
                None if trash_dir is None else os.path.abspath(trash_dir), k, mode,
                None if pipeline is None else str(getattr(pipeline, "identity", "")) or None,
                sorted(set(stale)))


# -- saved plans ----------------------------------------------------------------------


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> Path:
    """Write ``plan`` to ``path`` as one JSON document (``{"ditto_tui_plan": 1, "root",
    "action", "k", "mode", "pipeline", "quarantine", "trash_dir", "tag", "created",
    "steps": [...], "refused": [...]}``, each step with the member, its reference, sizes,
    mtimes, inodes, sha256s, fingerprints and distance), created exclusively with mode
    0600 (FileExistsError when it exists). Names that are not UTF-8 are ``\\udcXX``."""
    out = Path(path)
    doc = {
        "ditto_tui_plan": PLAN_VERSION,
        "created": time.time(),
        "root": plan.root,
        "action": plan.action,
        "k": plan.k,
        "mode": plan.mode,
        "pipeline": plan.pipeline,
        "quarantine": plan.quarantine,
        "trash_dir": plan.trash_dir,
        "tag": plan.tag,
        "steps": [asdict(s) for s in plan.steps],
        "refused": [asdict(o) for o in plan.refused],
    }
    data = (json.dumps(doc, ensure_ascii=True, indent=1) + "\n").encode("ascii")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        out.unlink(missing_ok=True)
        raise
    os.close(fd)
    return out


_STEP_TYPES: dict[str, tuple[type, ...]] = {
    "n": (int,), "id": (str,), "reference": (str,), "dest": (str,), "info": (str,),
    "sha256": (str,), "size": (int,), "mtime_ns": (int,), "inode": (int,), "mode": (int,),
    "atime_ns": (int,), "ref_inode": (int,), "ref_sha256": (str,),
    "fp": (int, type(None)), "ref_fp": (int, type(None)), "distance": (int, type(None)),
}


def _typed_step(raw: Any) -> Step | None:
    """A :class:`Step` from stored JSON, or None when a field is missing or ill-typed."""
    if not isinstance(raw, dict):
        return None
    values = {}
    for f in fields(Step):
        if f.name not in raw:
            if f.name in ("ref_inode", "ref_sha256", "fp", "ref_fp", "distance"):
                continue
            return None
        value = raw[f.name]
        if isinstance(value, bool) or not isinstance(value, _STEP_TYPES[f.name]):
            return None
        values[f.name] = value
    return Step(**values)


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a plan written by :func:`save_plan`; :class:`PlanError` (one line) when it is
    not one, is of another version, or any field is missing or ill-typed."""
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read())
    except OSError as exc:
        raise PlanError(f"{path}: {os_reason(exc)}") from None
    except ValueError:
        raise PlanError(f"{path}: not a ditto-tui plan (not JSON)") from None
    if not isinstance(doc, dict) or "ditto_tui_plan" not in doc:
        raise PlanError(f"{path}: not a ditto-tui plan")
    if doc["ditto_tui_plan"] != PLAN_VERSION:
        raise PlanError(f"{path}: plan version {doc['ditto_tui_plan']!r}, this ditto-tui "
                        f"reads version {PLAN_VERSION}")
    strings = ("root", "action", "tag")
    optional = {"quarantine": str, "trash_dir": str, "mode": str, "pipeline": str, "k": int}
    if not all(isinstance(doc.get(key), str) for key in strings) or doc["action"] not in ACTIONS:
        raise PlanError(f"{path}: damaged plan (root, action or tag)")
    for key, kind in optional.items():
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            raise PlanError(f"{path}: damaged plan ({key})")
    raw_steps, raw_refused = doc.get("steps"), doc.get("refused", [])
    if not isinstance(raw_steps, list) or not isinstance(raw_refused, list):
        raise PlanError(f"{path}: damaged plan (steps)")
    steps = []
    for i, raw in enumerate(raw_steps):
        step = _typed_step(raw)
        if step is None:
            raise PlanError(f"{path}: damaged plan (step {i + 1})")
        steps.append(step)
    refused = []
    for raw in raw_refused:
        if not (isinstance(raw, dict) and isinstance(raw.get("id"), str)
                and isinstance(raw.get("reason", ""), str)):
            raise PlanError(f"{path}: damaged plan (refusals)")
        refused.append(Outcome(raw["id"], "refused", raw.get("reason", "")))
    return Plan(doc["root"], doc["action"], doc["tag"], steps, refused, doc.get("quarantine"),
                doc.get("trash_dir"), doc.get("k"), doc.get("mode"), doc.get("pipeline"))


def replan(saved: Plan, root: str | os.PathLike[str], *, pipeline: Any = None) -> Plan:
    """Check a saved plan again before acting on exactly it: the same root (PlanError
    otherwise), and every step planned afresh from what it recorded (same action,
    destination folder, reference); a file or reference whose size, mtime, inode,
    sha256 or fingerprint differs from the saved step is refused, and so is any file the
    saved plan did not list. ``pipeline`` must have the saved plan's identity."""
    real = os.path.realpath(root)
    if real != saved.root:
        raise PlanError(f"this plan was made for {saved.root}, not {real}")
    if pipeline is not None and saved.pipeline is not None and \
            str(getattr(pipeline, "identity", "")) != saved.pipeline:
        raise PlanError(f"this plan was made with the pipeline {saved.pipeline}; "
                        f"give the same pipeline options (now {pipeline.identity})")
    targets = [Target(s.id, s.size, s.mtime_ns, s.inode, "text", s.reference, s.fp, s.ref_fp)
               for s in saved.steps]
    fresh = plan_action(real, saved.action, targets, quarantine=saved.quarantine,
                        trash_dir=saved.trash_dir if saved.action == "trash" else None,
                        pipeline=pipeline if saved.pipeline is not None else None,
                        k=saved.k, mode=saved.mode)
    by_id = {s.id: s for s in saved.steps}
    steps: list[Step] = []
    refused = list(fresh.refused)
    for new in fresh.steps:
        old = by_id[new.id]
        why = None
        if new.sha256 != old.sha256:
            why = "content changed since the plan was saved"
        elif old.ref_sha256 and new.ref_sha256 != old.ref_sha256:
            why = f"its reference {old.reference} changed since the plan was saved"
        elif old.ref_inode and new.ref_inode != old.ref_inode:
            why = f"its reference {old.reference} was replaced since the plan was saved"
        elif saved.action == "trash" and os.path.dirname(os.path.dirname(new.dest)) != \
                os.path.dirname(os.path.dirname(old.dest)):
            why = "its trash folder is not the one in the plan"
        if why is not None:
            refused.append(Outcome(new.id, "refused", why))
        else:
            new.n = len(steps)
            steps.append(new)
    fresh.steps = steps
    fresh.refused = refused
    return fresh


# -- executing ------------------------------------------------------------------------


class _DoneAnyway(Exception):  # noqa: N818
    """The file was acted on but a check after it failed and it could not be put back:
    recorded ``done`` (undo can reverse it) with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _write_reason(exc: OSError) -> str:
    """A short phrase for an error met while *writing* (never "unreadable")."""
    code = exc.errno
    if code == errno.ENOSPC:
        return "no space left on the device"
    if code == getattr(errno, "EDQUOT", -1):
        return "disk quota exceeded"
    if code == errno.EROFS:
        return "read-only filesystem"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return str(exc.strerror or type(exc).__name__)


class _At(NamedTuple):
    """A name in an open folder: ``fd`` is folder ``rel`` below gate ``base``."""

    base: str
    rel: str
    fd: int
    name: str
    show: str


class _Run:
    """What one execute or undo holds: the folders it opened and the references checked."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.folders = _Folders()
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
        return self.folders.gate(self.root)

    def folder(self, rel: str, *, create: bool = False) -> int:
        return self.folders.open(self.root, rel, create=create)

    def folder_or_none(self, base: str, rel: str, check: bool = True) -> int | None:
        try:
            return self.folders.open(base, rel, check=check)
        except FileNotFoundError:
            return None

    def still_at(self, at: _At) -> bool:
        return self.folders.still_at(at.base, at.rel, at.fd)

    def sync(self) -> None:
        for base, rel in self.touched:
            with contextlib.suppress(OSError, Refused):
                os.fsync(self.folders.open(base, rel))
        self.touched.clear()

    def close(self) -> None:
        self.folders.close()


def _moved_reason(at: _At) -> str:
    return f"the folder {at.rel or '.'} of {at.show} was replaced or moved while acting"


def _copy_at(
    src: _At, dst: _At, sha256: str, original: tuple[int, int, int] | None, side: str
) -> None:
    """Copy ``src`` to the free name ``dst`` through ``<name>.ditto-part`` in the same
    folder: fsync'ed, sha256 checked, then renamed into place without replacing anything.
    Mode and (atime_ns, mtime_ns) are the source's, or ``original`` = (mode, atime_ns,
    mtime_ns). On any error the part file is removed; a failed write raises
    :class:`Failed` naming ``side``; other content than ``sha256`` raises Refused."""
    part = dst.name + ".ditto-part"
    fd_in = os.open(src.name, _OPEN_FLAGS, dir_fd=src.fd)
    try:
        st = os.fstat(fd_in)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file")
        if original is None:
            original = (st.st_mode, st.st_atime_ns, st.st_mtime_ns)
        mode, atime_ns, mtime_ns = original
        _unlink_quietly(dst.fd, part)  # left by an earlier crash: ours by its name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(
            os, "O_CLOEXEC", 0)
        try:
            fd_out = os.open(part, flags, 0o600, dir_fd=dst.fd)
        except OSError as exc:
            raise Failed(f"writing the copy in {side} failed: {_write_reason(exc)}") from None
        try:
            h = hashlib.sha256()
            try:
                while True:
                    chunk = os.read(fd_in, _CHUNK)
                    if not chunk:
                        break
                    h.update(chunk)
                    view = memoryview(chunk)
                    while view:
                        try:
                            view = view[os.write(fd_out, view):]
                        except OSError as exc:
                            raise Failed(f"writing the copy in {side} failed: "
                                         f"{_write_reason(exc)}") from None
                try:
                    os.fchmod(fd_out, stat.S_IMODE(mode))
                    os.utime(fd_out, ns=(atime_ns, mtime_ns))
                    os.fsync(fd_out)
                except OSError as exc:
                    raise Failed(f"writing the copy in {side} failed: "
                                 f"{_write_reason(exc)}") from None
            finally:
                os.close(fd_out)
            if h.hexdigest() != sha256:
                raise Refused("content changed while being copied")
            try:
                rename_noreplace(dst.fd, part, dst.fd, dst.name)
            except FileExistsError:
                raise Refused(f"{dst.show} appeared while copying") from None
        except BaseException:
            _unlink_quietly(dst.fd, part)
            raise
    finally:
        os.close(fd_in)


def _move_at(run: _Run, src: _At, dst: _At, inode: int, sha256: str, side: str,
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
        _copy_at(src, dst, sha256, None, side)
        problem = None
        st = _lstat_at(src.fd, src.name)
        if st is None or st.st_ino != inode:
            problem = "replaced by another file while acting"
        elif not run.still_at(src):
            problem = _moved_reason(src)
        elif not run.still_at(dst):
            problem = _moved_reason(dst)
        if problem is not None:
            _unlink_quietly(dst.fd, dst.name)
            raise Refused(problem) from None
        os.unlink(src.name, dir_fd=src.fd)
        run.touched.add((src.base, src.rel))
        return
    problem = None
    if src_checked:  # (undo: taken from ditto-tui's own 0700 folder, its inode just read)
        moved = _lstat_at(dst.fd, dst.name)
        if moved is None or moved.st_ino != inode:
            problem = "replaced by another file while acting"
        elif not run.still_at(src):
            problem = _moved_reason(src)
    if problem is None and not run.still_at(dst):
        problem = _moved_reason(dst)
    if problem is None:
        return
    try:
        rename_noreplace(dst.fd, dst.name, src.fd, src.name)
    except OSError:
        raise _DoneAnyway(f"{problem}; it could not be put back and is at {dst.show}") from None
    raise Refused(problem + " (left as it was)")


def _exchange_in(run: _Run, at: _At, new: str, expect_out: int, others: Sequence[_At] = ()) -> bool:
    """Exchange ``new`` and ``at.name`` in their folder and check what came out is
    ``expect_out`` and every folder is where it was; on a failed check exchange back and
    raise Refused. False (nothing done) where exchanging is not possible here; after
    True, ``new`` names the file that was at ``at.name`` (the caller removes it)."""
    if not exchange(at.fd, new, at.fd, at.name):
        return False
    out = _lstat_at(at.fd, new)
    problem = None
    if out is None or out.st_ino != expect_out:
        problem = "replaced by another file while acting"
    else:
        for place in (at, *others):
            if not run.still_at(place):
                problem = _moved_reason(place)
                break
    if problem is not None:
        if not exchange(at.fd, new, at.fd, at.name):
            raise _DoneAnyway(f"{problem}; it could not be undone here")
        raise Refused(problem + " (left as it was)")
    return True


def _rename_over(run: _Run, at: _At, new: str, expect_out: int, others: Sequence[_At] = ()) -> None:
    """Where no exchange is possible: check, then rename ``new`` over ``at.name`` (a file
    put at that name in between would be replaced: see the module docstring)."""
    for place in (at, *others):
        if not run.still_at(place):
            raise Refused(_moved_reason(place) + " (left as it was)")
    st = _lstat_at(at.fd, at.name)
    if st is None or st.st_ino != expect_out:
        raise Refused("replaced by another file while acting (left as it was)")
    os.rename(new, at.name, src_dir_fd=at.fd, dst_dir_fd=at.fd)


def _check_reference(run: _Run, step: Step, digest: str) -> _At:
    """The step's reference, which must still be the regular file planned (inode) with
    sha256 ``digest`` (hashed once per run while its stat stays the same)."""
    ref = step.reference
    rparent, rname = _split(ref)
    try:
        rfd = run.folder(rparent)
    except FileNotFoundError:
        raise Refused(f"its reference {ref} is gone") from None
    except Refused as exc:
        raise Refused(f"its reference {ref}: {exc.reason}") from None
    rst = _lstat_at(rfd, rname)
    if rst is None:
        raise Refused(f"its reference {ref} is gone")
    if not stat.S_ISREG(rst.st_mode):
        raise Refused(f"its reference {ref} is not a regular file any more")
    if step.ref_inode and rst.st_ino != step.ref_inode:
        raise Refused("its reference was replaced since the plan")
    if digest:
        key = (rst.st_ino, rst.st_size, rst.st_mtime_ns, rst.st_ctime_ns)
        if run.refs.get(ref) != key:
            got, _, st = _hash_at(rfd, rname)
            if got != digest or (step.ref_inode and st.st_ino != step.ref_inode):
                raise Refused(f"its reference {ref} changed since the plan")
            run.refs[ref] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return _At(run.root, rparent, rfd, rname, ref)


def _member(run: _Run, step: Step) -> _At:
    parent, name = _split(step.id)
    try:
        pfd = run.folder(parent)
    except FileNotFoundError:
        raise Refused("no longer exists") from None
    return _At(run.root, parent, pfd, name, step.id)


def _do(plan: Plan, step: Step, run: _Run) -> str:
    """Act on one planned file; return the destination shown to the user."""
    src = _member(run, step)
    _verify_at(src.fd, src.name, step)
    if plan.action == "link":
        ref = _check_reference(run, step, step.sha256)
        return _do_link(run, step, src, ref)
    _check_reference(run, step, step.ref_sha256)
    info: _At | None = None
    if plan.action == "trash":
        base = os.path.dirname(os.path.dirname(step.dest))
        if base not in run.made:
            ensure_trash(Path(base))
            run.made.add(base)
        dst = _At(base, "files", run.folders.open(base, "files", check=False),
                  os.path.basename(step.dest), step.dest)
        info = _At(base, "info", run.folders.open(base, "info", check=False),
                   os.path.basename(step.info), step.info)
        try:
            write_trashinfo(info.name, run.gate.abspath(step.id), dir_fd=info.fd)
        except FileExistsError:
            raise Refused(f"{step.info} already exists in the trash") from None
        side = "the trash"
    elif plan.action == "move":
        assert plan.quarantine is not None
        base = plan.quarantine
        if base not in run.made:
            os.makedirs(base, exist_ok=True)
            run.made.add(base)
        try:
            dfd = run.folders.open(base, src.rel, create=True)
        except Refused:
            raise Refused(f"{os.path.dirname(step.dest)} leads out of the quarantine folder "
                          "(a symlink)") from None
        dst = _At(base, src.rel, dfd, src.name, step.dest)
        side = "the quarantine folder"
    else:
        raise ValueError(f"{plan.action} is not executed file by file")
    try:
        _about_to_act(step.id)
        _move_at(run, src, dst, step.inode, step.sha256, side)
    except _DoneAnyway:
        raise
    except BaseException:
        if info is not None:
            _unlink_quietly(info.fd, info.name)
        raise
    return step.dest


def _do_link(run: _Run, step: Step, src: _At, ref: _At) -> str:
    tmp = os.path.basename(step.dest)
    _about_to_act(step.id)
    try:
        os.link(ref.name, tmp, src_dir_fd=ref.fd, dst_dir_fd=src.fd, follow_symlinks=False)
    except FileExistsError:
        raise Refused(f"{step.dest} already exists") from None
    try:
        made = _lstat_at(src.fd, tmp)
        if made is None or made.st_ino != step.ref_inode:
            raise Refused("its reference was replaced while acting (left as it was)")
        if _exchange_in(run, src, tmp, step.inode, (ref,)):
            _unlink_quietly(src.fd, tmp)  # the original, now a second name of the same bytes
        else:
            _rename_over(run, src, tmp, step.inode, (ref,))
            if not run.still_at(src):
                raise _DoneAnyway(_moved_reason(src) + " after it was linked")
    except BaseException:
        left = _lstat_at(src.fd, tmp)
        if left is not None and left.st_ino == step.ref_inode:
            _unlink_quietly(src.fd, tmp)
        raise
    run.touched.add((src.base, src.rel))
    return step.reference


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
    run = _Run(plan.root)
    try:
        for count, step in enumerate(plan.steps, 1):
            try:
                dest = _do(plan, step, run)
                journal.record(step.n, "done")
                report.outcomes.append(Outcome(step.id, "done", "", dest))
            except _DoneAnyway as exc:
                journal.record(step.n, "done", exc.reason)
                report.outcomes.append(Outcome(step.id, "done", exc.reason, step.dest))
            except Refused as exc:
                journal.record(step.n, "refused", exc.reason)
                report.outcomes.append(Outcome(step.id, "refused", exc.reason))
            except Failed as exc:
                journal.record(step.n, "failed", exc.reason)
                report.outcomes.append(Outcome(step.id, "failed", exc.reason))
            except OSError as exc:
                reason = os_reason(exc)
                journal.record(step.n, "failed", reason)
                report.outcomes.append(Outcome(step.id, "failed", reason))
            if on_progress is not None:
                on_progress(count, len(plan.steps))
            if pause_after and count == pause_after:
                journal.sync()
                time.sleep(3600)
        run.sync()
        journal.finish("done")
    finally:
        run.close()
        journal.close()
    return report


# -- undo and recovery ----------------------------------------------------------------


def _is_original(at: _At, op: dict[str, Any], *, same_inode: bool = True) -> bool:
    """Whether ``at`` holds the op's original file again (size, mtime, sha256, and the
    inode when it was renamed back)."""
    try:
        st = _lstat_at(at.fd, at.name)
        if st is None or not stat.S_ISREG(st.st_mode):
            return False
        if (st.st_size, st.st_mtime_ns) != (op["size"], op["mtime_ns"]):
            return False
        if same_inode and st.st_ino != op["inode"]:
            return False
        return bool(_hash_at(at.fd, at.name)[0] == op["sha256"])
    except (OSError, Refused):
        return False


def _undo_rename(run: _Run, header: dict[str, Any], op: dict[str, Any], rolling_back: bool) -> str:
    rel, dest, info = op["id"], op["dest"], op.get("info", "")
    parent, name = _split(rel)
    dname = os.path.basename(dest)
    if header.get("action") == "trash":
        base, drel = run.base_of(dest), "files"
    else:
        quarantine = header.get("quarantine")
        if not isinstance(quarantine, str):
            raise Refused("the journal does not say where the quarantine folder is")
        base, drel = quarantine, parent
    dfd = run.folder_or_none(base, drel, check=False)  # checked after the move
    if dfd is not None:
        _unlink_quietly(dfd, dname + ".ditto-part")
    pfd = run.folder_or_none(run.root, parent, check=False)  # checked after the move
    src_st = None if pfd is None else _lstat_at(pfd, name)
    dest_st = None if dfd is None else _lstat_at(dfd, dname)

    def drop_info() -> None:
        if info:
            iname = os.path.basename(info)
            ifd = run.folder_or_none(run.base_of(info), "info", False)
            if ifd is not None:
                _unlink_quietly(ifd, iname)

    if dest_st is not None and src_st is None:
        assert dfd is not None
        if not stat.S_ISREG(dest_st.st_mode) or (dest_st.st_size, dest_st.st_mtime_ns) != (
                op["size"], op["mtime_ns"]):
            raise Refused(f"the file at {dest} is not the one put there; left there")
        if pfd is None:
            pfd = run.folder(parent, create=True)
        src = _At(run.root, parent, pfd, name, rel)
        _about_to_act(rel)
        _move_at(run, _At(base, drel, dfd, dname, dest), src, dest_st.st_ino, op["sha256"],
                 "the corpus folder", src_checked=False)
        run.touched.add((run.root, parent))
        drop_info()
        return "undone"
    if src_st is not None and dest_st is None:
        assert pfd is not None
        if rolling_back:
            drop_info()
            return "not-done"
        if _is_original(_At(run.root, parent, pfd, name, rel), op):  # an undo cut short
            drop_info()
            return "undone"
        raise Refused(f"{dest} is gone and a file is back at {rel}")
    if src_st is not None and dest_st is not None:
        assert pfd is not None and dfd is not None
        copy = _At(base, drel, dfd, dname, dest)
        if rolling_back and stat.S_ISREG(dest_st.st_mode) and src_st.st_ino == op["inode"] \
                and _is_original(copy, op, same_inode=False):
            # a copy across filesystems finished but the original was not removed yet
            _unlink_quietly(dfd, dname)
            drop_info()
            return "not-done"
        raise Refused(f"a file now exists at {rel}; the original stays at {dest}")
    raise Refused(f"no longer at {dest} (was the trash emptied?)")


def _undo_link(run: _Run, header: dict[str, Any], op: dict[str, Any], rolling_back: bool) -> str:
    rel = op["id"]
    parent, name = _split(rel)
    tmp = os.path.basename(op["dest"])
    pfd = run.folder_or_none(run.root, parent)
    st: os.stat_result | None = None
    if pfd is not None:
        at = _At(run.root, parent, pfd, name, rel)
        left = _lstat_at(pfd, tmp)
        if left is not None and left.st_ino == op["ref_inode"]:
            _unlink_quietly(pfd, tmp)  # a link made but not yet put in place
        elif left is not None and left.st_ino == op["inode"]:
            # stopped between the exchange and the removal of the original: put it back
            cur = _lstat_at(pfd, name)
            if cur is None:
                _about_to_act(rel)
                rename_noreplace(pfd, tmp, pfd, name)
            elif cur.st_ino == op["ref_inode"]:
                _about_to_act(rel)
                if _exchange_in(run, at, tmp, op["ref_inode"]):
                    _unlink_quietly(pfd, tmp)
                else:
                    _rename_over(run, at, tmp, op["ref_inode"])
            else:
                raise Refused(f"a file now exists at {rel}; the original stays at {op['dest']}")
            return "not-done" if rolling_back else "undone"
        st = _lstat_at(pfd, name)
    if st is not None and st.st_ino == op["inode"]:
        if rolling_back:
            return "not-done"
        # the file system may give a copy put back by an interrupted undo the inode number
        # the original had before it was linked: judge by content, not by the number
        assert pfd is not None
        if _is_original(_At(run.root, parent, pfd, name, rel), op, same_inode=False):
            return "undone"
        raise Refused("is not linked any more")
    if st is not None and st.st_ino != op["ref_inode"]:
        assert pfd is not None
        if _is_original(_At(run.root, parent, pfd, name, rel), op, same_inode=False):
            return "undone"  # an interrupted undo got this far
        raise Refused("was replaced since the action; left as is")
    if st is None:
        rparent, rname = _split(op["reference"])
        try:
            source = _At(run.root, rparent, run.folder(rparent), rname, op["reference"])
        except FileNotFoundError:
            raise Refused(f"it is gone and so is its reference {op['reference']}") from None
        pfd = run.folder(parent, create=True)
    else:
        assert pfd is not None
        source = _At(run.root, parent, pfd, name, rel)
    at = _At(run.root, parent, pfd, name, rel)
    fresh = f".{tmp}.undo"
    _unlink_quietly(pfd, fresh)
    try:
        _copy_at(source, _At(run.root, parent, pfd, fresh, fresh), op["sha256"],
                 (op["mode"], op["atime_ns"], op["mtime_ns"]), "the corpus folder")
    except Refused:
        raise Refused("its content changed since it was linked; left as is") from None
    try:
        _about_to_act(rel)
        if st is None:
            try:
                rename_noreplace(pfd, fresh, pfd, name)
            except FileExistsError:
                raise Refused(f"a file now exists at {rel}") from None
            if not run.still_at(at):
                with contextlib.suppress(OSError):
                    rename_noreplace(pfd, name, pfd, fresh)
                raise Refused(_moved_reason(at) + " (left as it was)")
        elif _exchange_in(run, at, fresh, op["ref_inode"]):
            pass  # ``fresh`` now names the link: removed below
        else:
            _rename_over(run, at, fresh, op["ref_inode"])
    finally:
        _unlink_quietly(pfd, fresh)
    run.touched.add((run.root, parent))
    return "undone"


_UNDO: dict[str, Callable[[_Run, dict[str, Any], dict[str, Any], bool], str]] = {
    "trash": _undo_rename, "move": _undo_rename, "link": _undo_link,
}


def undo_journal(journal: Journal, *, rolling_back: bool = False) -> Report:
    """Reverse a journal's operations, last first, each decided from the disk.

    Normally only operations recorded ``done`` are reversed; ``rolling_back`` (an
    interrupted journal) looks at every operation, and so does a damaged journal at those
    whose outcome line was lost. The journal ends ``undone`` / ``rolled-back``, or
    ``undo-incomplete`` when some file could not be restored or the damage leaves files
    unaccounted for (``Report.damage`` says so); undo can be asked again. Raises
    :class:`Busy` when another process holds the journal; never raises on a damaged one.
    """
    report = Report(journal.action, journal.id, damage=journal.damage_note())
    undo = _UNDO.get(journal.action)
    root = journal.header.get("root")
    if undo is None or not isinstance(root, str):
        return report  # nothing can be done: the damage note says why
    if not journal.open_for_append():
        raise Busy(f"{journal.path} is in use by another process")
    run = _Run(root)
    try:
        for op in reversed(journal.ops):
            n = op["n"]
            recorded = journal.outcomes.get(n)
            last = None if recorded is None else recorded.get("status")
            if last in ("undone", "not-done"):
                continue
            from_disk = rolling_back or (recorded is None and bool(journal.damage))
            if not from_disk and last != "done":
                continue
            try:
                status = undo(run, journal.header, op, from_disk)
                journal.record(n, status)
                report.outcomes.append(Outcome(op["id"], status))
            except (Refused, Failed, _DoneAnyway) as exc:
                journal.record(n, "done", exc.reason)
                report.outcomes.append(Outcome(op["id"], "failed", exc.reason))
            except OSError as exc:
                reason = os_reason(exc)
                journal.record(n, "done", reason)
                report.outcomes.append(Outcome(op["id"], "failed", reason))
        run.sync()
        if report.count("failed") or journal.unaccounted:
            journal.finish("undo-incomplete")
        else:
            journal.finish("rolled-back" if rolling_back else "undone")
    finally:
        run.close()
        journal.close()
    return report


def undoable(journal_dir: str | os.PathLike[str]) -> list[Journal]:
    """Journals that undo can still reverse, oldest first (a damaged one too while it has
    an operation whose outcome was lost)."""
    out = []
    for j in journals(journal_dir):
        if not j.usable or j.state not in ("done", "undo-incomplete", None):
            continue
        if j.state is None:
            continue  # interrupted: :func:`recover` rolls it back
        lost = bool(j.damage) and any(op["n"] not in j.outcomes for op in j.ops)
        if lost or any(True for _ in j.done_ops()):
            out.append(j)
    return out


def damaged(journal_dir: str | os.PathLike[str]) -> list[Journal]:
    """The journals in ``journal_dir`` that did not read whole (see ``Journal.damage``)."""
    return [j for j in journals(journal_dir) if j.damage]


def undo_last(journal_dir: str | os.PathLike[str]) -> Report | None:
    """Undo the most recent action that still has files to restore (None if none)."""
    candidates = undoable(journal_dir)
    if not candidates:
        return None
    return undo_journal(candidates[-1])


def recover(journal_dir: str | os.PathLike[str]) -> list[Report]:
    """Roll back every journal left unfinished by an interrupted process (those still in
    use by a live process are left alone). Call before planning or undoing. Never raises
    on a damaged journal: its report's ``damage`` says what it could not tell."""
    reports = []
    for journal in journals(journal_dir):
        if journal.state is None and journal.usable:
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


def _printf_format(path: str) -> str:
    """``path``'s bytes as a printf format that is plain printable ASCII: ``%`` and ``\\``
    doubled, every other byte outside 0x20-0x7E as a three-digit octal escape."""
    out = []
    for b in os.fsencode(path):
        if b == 0x25:
            out.append("%%")
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)


_SCRIPT_HEAD = """\
set -u
if command -v sha256sum >/dev/null 2>&1; then
    digest() { sha256sum < "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
    digest() { shasum -a 256 < "$1" | cut -d ' ' -f 1; }
else
    echo 'this script needs sha256sum or shasum to check each file before removing it' >&2
    exit 1
fi
# $1: the path as a printf format (plain ASCII), $2: size, $3: sha256, $4: the path as shown
remove() {
    p=$(printf "$1"x)
    p=${p%x}
    if [ -f "$p" ] && [ ! -L "$p" ] && [ "$(wc -c < "$p")" -eq "$2" ] \\
            && [ "$(digest "$p")" = "$3" ]; then
        rm -- "$p" && printf 'removed %s\\n' "$4"
    else
        printf 'skipped %s (gone, changed or not a regular file)\\n' "$4" >&2
    fi
}
"""


def write_removal_list(plan: Plan, prefix: str | os.PathLike[str]) -> list[Path]:
    """Write ``<prefix>.csv``, ``<prefix>.jsonl`` and ``<prefix>.sh`` for the plan's
    files (path, the reference it duplicates, bits and similarity to it, size, sha256),
    farthest from their reference first; nothing in the corpus is touched. The CSV is
    written by the export's safe writer (:func:`~ditto_tui.corpus.export.csv_cell`: formula
    cells neutralised, CR and LF quoted). The script is plain printable ASCII (names as
    printf octal escapes), prints names escaped (no terminal control reaches whoever runs
    it), and removes a file only if it is still a regular file of the recorded size *and*
    sha256. Refuses to overwrite existing files (FileExistsError)."""
    from ditto_tui.corpus.export import csv_cell

    prefix = str(prefix)
    paths = [Path(prefix + ext) for ext in (".csv", ".jsonl", ".sh")]
    for p in paths:
        if p.exists():
            raise FileExistsError(p)
    rows = []
    for s in sorted(plan.steps, key=lambda s: (-(s.distance or 0), s.id)):
        path = os.path.join(plan.root, *s.id.split("/"))
        ref = os.path.join(plan.root, *s.reference.split("/"))
        similar = "" if s.distance is None else similarity_percent(s.distance)
        rows.append((s.id, path, s.reference, ref, s.distance, similar, s.size, s.sha256))
    header = ("id", "path", "reference", "reference_path", "distance", "similarity", "size",
              "sha256")
    with open(paths[0], "x", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        for row in (header, *rows):
            fh.write(",".join(csv_cell("" if v is None else v) for v in row) + "\n")
    with open(paths[1], "x", encoding="ascii") as fh:
        for r in rows:
            fh.write(json.dumps(dict(zip(header, r, strict=True))) + "\n")
    lines = [
        "#!/bin/sh",
        f"# Written by ditto-tui: {len(rows)} near-duplicate file(s) under",
        "# " + _escape(plan.root),
        "# Nothing has been removed. Review, then run: sh "
        + _escape(os.path.basename(paths[2])),
        "# Each file is removed only if it is still a regular file with the size and sha256",
        "# it had when this list was written.",
        _SCRIPT_HEAD.rstrip("\n"),
    ]
    for r in rows:
        bits = "" if r[4] is None else f" ({r[4]} bits, {r[5]})"
        lines.append("# keeps " + _escape(r[3]) + bits)
        lines.append(f"remove {shlex.quote(_printf_format(r[1]))} {int(r[6])} {r[7]} "
                     f"{shlex.quote(_escape(r[1]))}")
    with open(paths[2], "x", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")
    os.chmod(paths[2], 0o755)
    return paths


def targets_from(
    documents: Sequence[Any], marked: Iterable[int], reference_of: Callable[[int], str | None]
) -> list[Target]:
    """Targets for the marked document indices, each with its family's reference id."""
    return [Target.from_document(documents[i], reference_of(i)) for i in marked]
