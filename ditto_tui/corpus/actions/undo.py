"""Undo and recovery: :func:`undo_last` / :func:`undo_journal` put files back byte for
byte, each operation decided from the disk (:mod:`~ditto_tui.corpus.actions.reversal`);
:func:`recover` rolls back any journal an interrupted process left unfinished (call it
at start-up); :func:`undoable` and :func:`damaged` list the journals that concern the
user."""

from __future__ import annotations

import os

from ditto_tui.corpus.actions.outcomes import DoneAnyway, Failed, Outcome, Refused, Report
from ditto_tui.corpus.actions.reversal import UNDO_BY_ACTION
from ditto_tui.corpus.actions.run_state import Run
from ditto_tui.corpus.journal import Journal, journals
from ditto_tui.corpus.reading import os_reason

__all__ = ["Busy", "damaged", "recover", "undo_journal", "undo_last", "undoable"]


class Busy(Exception):  # noqa: N818 - a state, not a bug
    """Another process is working on this journal (its ``flock`` is held)."""


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
    undo = UNDO_BY_ACTION.get(journal.action)
    root = journal.header.get("root")
    if undo is None or not isinstance(root, str):
        return report  # nothing can be done: the damage note says why
    if not journal.open_for_append():
        raise Busy(f"{journal.path} is in use by another process")
    run = Run(root)
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
            except (Refused, Failed, DoneAnyway) as exc:
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
