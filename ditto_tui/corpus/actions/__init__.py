"""Acting on marked documents, non-destructively: trash, quarantine, hard link, removal list.

The flow is always *plan, show, confirm, execute*, and every executed action can be undone:

- :func:`plan_action` checks each target without touching anything and reads each file
  once; problems become per-file refusals with a reason (:mod:`.planning`).
- :func:`execute` writes the plan to a journal *before* the first file moves, then checks
  each file again and acts; every file gets its own outcome and a failure never stops the
  rest (:mod:`.execution`).
- :func:`undo_last` / :func:`undo_journal` put files back byte for byte; :func:`recover`
  rolls back any journal an interrupted process left unfinished (call it at start-up)
  (:mod:`.undo`).

Every change is made relative to folder descriptors opened through a gate (the corpus
root's, and one on the trash or quarantine folder), by one name in that folder
(``renameat``/``linkat``/``unlinkat``, ``renameat2`` with ``RENAME_NOREPLACE`` or
``RENAME_EXCHANGE`` where the system has it: :mod:`ditto_tui.corpus.fsops`); no path
string is ever resolved again. After acting, each folder used must still be where it was
(its descriptor's real path, or a fresh walk where the system does not tell): a folder
swapped for a symlink or moved away meanwhile undoes the step and refuses it.

Actions: ``trash`` renames the file into the freedesktop trash (:mod:`~ditto_tui.corpus.trash`)
after writing its ``.trashinfo`` (where the system trash is another thing, macOS and
Windows, planning it raises :class:`~ditto_tui.corpus.trash.TrashUnavailable` unless a
trash folder is given); ``move`` renames it into a quarantine folder under its
root-relative path; ``link`` replaces it with a hard link to its reference, only when both
are byte-identical at that moment (the two names then share one content: an edit in place
through either changes both, see :data:`LINK_WARNING`; undo writes a fresh copy of the
bytes the file had, with the original mode and times); ``list`` writes CSV, JSON lines and
a shell script (:func:`write_removal_list`) and touches nothing. Files are renamed, never
copied, except across filesystems (then copied through ``<name>.ditto-part``, fsync'ed and
checked before the original goes; the part is removed on any error: :mod:`.transfer`).

Plans can be saved and acted on later exactly as reviewed: :func:`save_plan`,
:func:`load_plan` and :func:`replan` (``dedupe --dry-run --plan FILE``, ``--apply FILE``).

The modules, one concern each: :mod:`.plan` (targets, steps, plans), :mod:`.outcomes`
(what happened to each file), :mod:`.messages` (what the user is told), :mod:`.folders`
and :mod:`.run_state` (folder descriptors and what one run holds), :mod:`.verify` (checks
against what was fingerprinted), :mod:`.planning`, :mod:`.saved_plans`,
:mod:`.transfer` (moving one file between open folders), :mod:`.execution`,
:mod:`.reversal` (reversing one operation), :mod:`.undo`, :mod:`.removal_list`. This
package re-exports the public API below; everything else is imported from the module
that defines it.
"""

from __future__ import annotations

from ditto_tui.corpus.actions.execution import execute
from ditto_tui.corpus.actions.messages import LINK_WARNING
from ditto_tui.corpus.actions.outcomes import Failed, Outcome, Report
from ditto_tui.corpus.actions.plan import ACTIONS, ActionName, Plan, Step, Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.actions.removal_list import write_removal_list
from ditto_tui.corpus.actions.saved_plans import (
    PLAN_VERSION,
    PlanError,
    load_plan,
    replan,
    save_plan,
)
from ditto_tui.corpus.actions.undo import damaged, recover, undo_journal, undo_last, undoable
from ditto_tui.corpus.trash import TrashUnavailable

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
