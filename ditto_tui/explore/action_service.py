"""The action service: what the UI calls to act on the documents decided duplicates.

A typed seam over :mod:`ditto_tui.corpus.actions` for the explorer's current corpus:
targets from the review (each member within k of its keeper), a dry run that touches
nothing, the journaled execution, and undo. Every method does file work or waits for the
index writer: call it from a worker thread, never from the UI thread. A read-only
session (:class:`~ditto_tui.explore.policy.SessionPolicy`) may look (targets, undoable)
but :meth:`ActionService.plan`, :meth:`~ActionService.execute` and
:meth:`~ActionService.undo_last` raise :class:`~ditto_tui.explore.policy.ReadOnlyError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Protocol

from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.corpus.actions.execution import execute
from ditto_tui.corpus.actions.outcomes import Outcome, Report
from ditto_tui.corpus.actions.plan import ActionName, Plan, Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.actions.removal_list import write_removal_list
from ditto_tui.corpus.actions.undo import undo_last, undoable
from ditto_tui.corpus.journal import Journal
from ditto_tui.explore.policy import SessionPolicy
from ditto_tui.explore.review import ActionTargets, action_targets, leave_stars, split_ignored
from ditto_tui.explore.review_service import ReviewService
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, ForgetsCached


class Corpus(Protocol):
    """What the actions read of the index writer."""

    @property
    def source(self) -> CorpusSource: ...

    @property
    def snapshot(self) -> Snapshot: ...

    def clamp(self, k: int) -> int: ...

    def families(self, k: int, mode: Mode) -> Sequence[Family]: ...


class ActionService:
    """Acting on the marked duplicates of one explorer's corpus (see module docstring)."""

    def __init__(self, corpus: Corpus, review: ReviewService,
                 policy: SessionPolicy | None = None) -> None:
        self._corpus = corpus
        self._review = review
        self._policy = policy if policy is not None else SessionPolicy()

    @property
    def available(self) -> bool:
        """Whether this corpus can be acted on (a folder with a review store)."""
        return self._review.store is not None

    def targets(self, k: int, mode: Mode = "chain") -> ActionTargets[Target]:
        """A target for every member decided ``duplicate`` in the families at
        ``(k, mode)`` of the index after everything queued (whatever the filters show;
        ignored pairs cut), each with its keeper within ``k`` and the bits to it (see
        :func:`~ditto_tui.explore.review.action_targets`)."""
        corpus = self._corpus
        listing: Sequence[Family] = corpus.families(k, mode)
        snap, review = corpus.snapshot, self._review.state
        k = corpus.clamp(k)
        if review.pairs and mode == "chain":
            listing = split_ignored(listing, review.partners(), snap.fingerprints, k)
        elif review.pairs:
            listing = leave_stars(listing, review.pairs, snap.fingerprints)
        got = action_targets(listing, snap.documents, review, snap.fingerprints, k, mode)
        fps = snap.fingerprints
        found = [Target.from_document(doc, ref, bits, fp=int(fps[doc.id]),
                                      ref_fp=int(fps[ref]) if ref in fps else None)
                 for doc, ref, bits in got.found]
        return ActionTargets(found, got.far, got.stale, got.too_wide)

    def plan(self, action: ActionName, targets: Sequence[Target],
             destination: str | None = None) -> Plan:
        """Check ``targets`` for ``action`` without touching any file
        (:func:`~ditto_tui.corpus.actions.planning.plan_action`); ``destination`` is the
        quarantine folder of ``move`` (and the prefix of a ``list``'s files)."""
        self._policy.check("act")
        source = self._corpus.source
        plan = plan_action(source.root, action, targets,
                           quarantine=destination if action == "move" else None,
                           pipeline=source.pipeline)
        if action == "list" and destination is not None:
            plan.quarantine = os.path.abspath(destination)  # the list's prefix
        if plan.stale and isinstance(source, ForgetsCached):  # read again at the next scan
            source.forget_cached(plan.stale)
        return plan

    def execute(self, plan: Plan, on_progress: Callable[[int, int], None] | None = None) -> Report:
        """Carry out a checked plan with a journal (undoable); a ``list`` plan writes the
        removal list to ``plan.quarantine`` (the prefix) and touches nothing."""
        self._policy.check("act")
        journal_dir = self._review.journal_dir
        if journal_dir is None:
            raise RuntimeError("actions need a folder corpus with a review store")
        if plan.action == "list":
            assert plan.quarantine is not None  # (planned with a destination)
            paths = write_removal_list(plan, plan.quarantine)
            return Report("list", None,
                          [Outcome(str(p), "done") for p in paths] + list(plan.refused))
        return execute(plan, journal_dir, on_progress=on_progress)

    def undo_last(self) -> Report | None:
        """Undo the most recent action that can be (None when there is none)."""
        self._policy.check("act")
        journal_dir = self._review.journal_dir
        return None if journal_dir is None else undo_last(journal_dir)

    def undoable(self) -> Journal | None:
        """The journal :meth:`undo_last` would reverse, or None."""
        journal_dir = self._review.journal_dir
        if journal_dir is None:
            return None
        found = undoable(journal_dir)
        return found[-1] if found else None
