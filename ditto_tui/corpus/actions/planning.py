"""Planning an action: :func:`plan_action` checks every target without touching anything.

A target is planned only when it is a regular file (never a symlink, never a mail
message: those are export-only) reached from the root through real folders only (the
corpus gate, :class:`~ditto_tui.corpus.rootdir.RootDir`), still with the size, mtime and
inode it had when it was fingerprinted, its family reference still present. Each file
(and each reference) is read once: the sha256 of those bytes goes into the plan and,
given the ``pipeline``, their fingerprint must be the one the user reviewed
(``Target.fp``/``ref_fp``), so a file rewritten in place with the same size and mtime,
whose cached fingerprint is stale, is refused (its id lands in ``Plan.stale``). Every
problem becomes a per-file refusal with a reason.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterable
from typing import Any

from ditto_tui.corpus.actions.messages import MAIL_REASON
from ditto_tui.corpus.actions.outcomes import Outcome, Refused
from ditto_tui.corpus.actions.plan import ACTIONS, Plan, Step, Target
from ditto_tui.corpus.actions.verify import gate_lstat, hash_in_gate, same_key
from ditto_tui.corpus.documents import MAIL_KINDS
from ditto_tui.corpus.reading import os_reason
from ditto_tui.corpus.rootdir import RootDir, relative_inside
from ditto_tui.corpus.trash import check_trash, trash_folder_for, trash_name

__all__ = ["plan_action"]


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
    """Check every target for ``action`` without changing anything (see the module
    docstring).

    ``quarantine`` is required for ``move`` (created when acting); ``trash_dir`` overrides
    the trash location (else ``DITTO_TUI_TRASH_DIR``, else the freedesktop trash). Without
    either, ``trash`` on a platform whose system trash is not the freedesktop trash (macOS,
    Windows, ...) raises :class:`~ditto_tui.corpus.trash.TrashUnavailable` (a ValueError) with a one-line reason
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
    qrel = relative_inside(qdir, real) if qdir is not None else None
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
                    gate_lstat(gate, t.reference)
                except FileNotFoundError:
                    raise Refused(f"its reference {t.reference} is gone") from None
                except Refused as exc:
                    raise Refused(f"its reference {t.reference}: {exc.reason}") from None
                digest, data, st = hash_in_gate(gate, t.reference, pipeline is not None)
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
                        st = gate_lstat(gate, t.id)
                    except FileNotFoundError:
                        raise Refused("no longer exists") from None
                    why = same_key(st, t.size, t.mtime_ns, t.inode)
                    if why is not None:
                        raise Refused(why)
                    ref_digest, ref_fp, ref_st = reference(t)
                    digest, data, st = hash_in_gate(gate, t.id, pipeline is not None)
                    why = same_key(st, t.size, t.mtime_ns, t.inode)
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
                        inside = relative_inside(str(folder), real)
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
