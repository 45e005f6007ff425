"""Executing a plan: :func:`execute` writes the plan to a journal
(:mod:`ditto_tui.corpus.journal`, fsync'ed) *before* the first file moves, then for each
file checks it again (size, mtime, inode, sha256 now: the bytes fingerprinted at planning;
its reference's sha256 too) and acts; every file gets its own outcome and a failure never
stops the rest.

``trash`` renames the file into the freedesktop trash (:mod:`~ditto_tui.corpus.trash`)
after writing its ``.trashinfo``; ``move`` renames it into the quarantine folder under its
root-relative path; ``link`` replaces it with a hard link to its reference, which must be
byte-identical at that moment. ``DITTO_TUI_ACTION_PAUSE_AFTER=N`` (:data:`PAUSE_ENV`)
makes :func:`execute` stop for an hour after N files (a test hook for interrupting an
action at a known point).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from ditto_tui.corpus.actions import run_state
from ditto_tui.corpus.actions.folders import At, lstat_at, split_rel, unlink_quietly
from ditto_tui.corpus.actions.messages import moved_reason
from ditto_tui.corpus.actions.outcomes import DoneAnyway, Failed, Outcome, Refused, Report
from ditto_tui.corpus.actions.plan import Plan, Step
from ditto_tui.corpus.actions.run_state import Run
from ditto_tui.corpus.actions.transfer import exchange_in, move_at, rename_over
from ditto_tui.corpus.actions.verify import check_reference, verify_at
from ditto_tui.corpus.journal import Journal
from ditto_tui.corpus.reading import os_reason
from ditto_tui.corpus.trash import ensure_trash, write_trashinfo

__all__ = ["PAUSE_ENV", "execute"]

#: The environment variable of the test hook that pauses :func:`execute` after N files.
PAUSE_ENV = "DITTO_TUI_ACTION_PAUSE_AFTER"


def _member(run: Run, step: Step) -> At:
    """The planned file's name in its open folder; Refused when the folder is gone."""
    parent, name = split_rel(step.id)
    try:
        pfd = run.folder(parent)
    except FileNotFoundError:
        raise Refused("no longer exists") from None
    return At(run.root, parent, pfd, name, step.id)


def _do(plan: Plan, step: Step, run: Run) -> str:
    """Act on one planned file; return the destination shown to the user."""
    src = _member(run, step)
    verify_at(src.fd, src.name, step)
    if plan.action == "link":
        ref = check_reference(run, step, step.sha256)
        return _do_link(run, step, src, ref)
    check_reference(run, step, step.ref_sha256)
    info: At | None = None
    if plan.action == "trash":
        base = os.path.dirname(os.path.dirname(step.dest))
        if base not in run.made:
            ensure_trash(Path(base))
            run.made.add(base)
        dst = At(base, "files", run.folders.open(base, "files", check=False),
                 os.path.basename(step.dest), step.dest)
        info = At(base, "info", run.folders.open(base, "info", check=False),
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
        dst = At(base, src.rel, dfd, src.name, step.dest)
        side = "the quarantine folder"
    else:
        raise ValueError(f"{plan.action} is not executed file by file")
    try:
        run_state.about_to_act(step.id)
        move_at(run, src, dst, step.inode, step.sha256, side)
    except DoneAnyway:
        raise
    except BaseException:
        if info is not None:
            unlink_quietly(info.fd, info.name)
        raise
    return step.dest


def _do_link(run: Run, step: Step, src: At, ref: At) -> str:
    """Replace ``src`` by a hard link to ``ref`` (made beside it, then exchanged or renamed
    over it); return the reference, shown to the user as the destination."""
    tmp = os.path.basename(step.dest)
    run_state.about_to_act(step.id)
    try:
        os.link(ref.name, tmp, src_dir_fd=ref.fd, dst_dir_fd=src.fd, follow_symlinks=False)
    except FileExistsError:
        raise Refused(f"{step.dest} already exists") from None
    try:
        made = lstat_at(src.fd, tmp)
        if made is None or made.st_ino != step.ref_inode:
            raise Refused("its reference was replaced while acting (left as it was)")
        if exchange_in(run, src, tmp, step.inode, (ref,)):
            unlink_quietly(src.fd, tmp)  # the original, now a second name of the same bytes
        else:
            rename_over(run, src, tmp, step.inode, (ref,))
            if not run.still_at(src):
                raise DoneAnyway(moved_reason(src) + " after it was linked")
    except BaseException:
        left = lstat_at(src.fd, tmp)
        if left is not None and left.st_ino == step.ref_inode:
            unlink_quietly(src.fd, tmp)
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
    run = Run(plan.root)
    try:
        for count, step in enumerate(plan.steps, 1):
            try:
                dest = _do(plan, step, run)
                journal.record(step.n, "done")
                report.outcomes.append(Outcome(step.id, "done", "", dest))
            except DoneAnyway as exc:
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
