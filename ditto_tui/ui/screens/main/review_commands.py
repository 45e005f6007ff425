"""ReviewCommands: the main screen's review and act commands, apart from its layout.

Decisions on the highlighted member (keep, duplicate, not a duplicate), the selected
family marked reviewed or ignored, a pair marked "not duplicates", keep rules, acting on
the documents decided duplicate, undo, and the export of the families shown. Each command
reads what is on screen through :class:`OnScreen` (the main screen meets it), records
through the explorer (which stores the review and posts the new state back), and opens
its dialog on the app; nothing here touches the disk or walks the corpus on the UI thread
(the dialogs compute in their workers).

Every command needs a review store except the export: without one it says so in a notice
and does nothing. A read-only session refuses each command (but none of the looking) with
the explorer's policy's message (:mod:`ditto_tui.explore.policy`), before any dialog opens.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ditto_tui.core.review.decisions import Decision
from ditto_tui.explore.policy import Change
from ditto_tui.explore.review import key_of
from ditto_tui.ui.listing import ShownFamily, shown
from ditto_tui.ui.screens.main.on_screen import OnScreen

if TYPE_CHECKING:
    from ditto_tui.ui.screens.keep_rules import Settings
    from ditto_tui.ui.widgets.detail_pane import DetailPane

__all__ = ["ReviewCommands"]


class ReviewCommands:
    """The review and act commands over ``host`` (see the module docstring)."""

    def __init__(self, host: OnScreen) -> None:
        self._host = host
        #: the keep rules dialog's settings when it last closed (it opens with them)
        self._keep_settings: Settings | None = None

    def decide(self, value: Decision) -> bool:
        """Record ``value`` ("keep", "duplicate", "not-duplicate") for the highlighted
        member; the same value again clears it. True when something was recorded (the
        screen then moves on to the next member, as in a mail reader)."""
        host = self._host
        doc_id = host.selected_member()
        if doc_id is None or not self._review_ready():
            return False
        current, stale = host.review.decision(doc_id)
        host.explorer.decide([doc_id], None if current == value and not stale else value)
        return True

    def clear_decisions(self) -> None:
        """Clear the decisions (current or stale) of every member of the selected family."""
        host = self._host
        family = self._family()
        if family is None or not self._review_ready():
            return
        decided = [m for m in family.members if host.review.decision(m)[0] is not None]
        if not decided:
            host.notify("No decisions in this family.", markup=False)
            return
        host.explorer.decide(decided, None)
        host.notify(f"Cleared {len(decided):,} decision{'s' if len(decided) != 1 else ''} "
                    "in this family.", markup=False)

    def family_reviewed(self) -> None:
        """Mark the selected family reviewed, or unmark it."""
        host = self._host
        family = self._family()
        if family is None or not self._review_ready():
            return
        key = key_of(family.members, host.snapshot.documents, host.snapshot.fingerprints)
        host.explorer.mark_family(family.members, "reviewed", key not in host.review.reviewed)

    def ignore_family(self) -> None:
        """Hide the selected family from the list and the progress, or show it again."""
        host = self._host
        family = self._family()
        if family is None or not self._review_ready():
            return
        key = key_of(family.members, host.snapshot.documents, host.snapshot.fingerprints)
        on = key not in host.review.ignored
        host.explorer.mark_family(family.members, "ignored", on)
        host.notify(
            "Family ignored (f4 shows ignored ones)." if on else "Family no longer ignored.",
            markup=False,
        )

    def ignore_pair(self) -> None:
        """The two marked documents, else the highlighted member and the representative,
        are not duplicates (families re-form without that link); again: they may be."""
        host = self._host
        if not self._review_ready():
            return
        marked = host.marked
        if len(marked) == 2:
            a, b = marked
        else:
            family = self._family()
            current = host.selected_member()
            if family is None or current is None or current == family.centre:
                host.notify("Mark two documents (space), or highlight a member other than "
                            "the representative.", markup=False)
                return
            a, b = current, family.centre
        pair = (min(a, b), max(a, b))
        on = pair not in host.review.pairs
        host.explorer.ignore_pair(a, b, on)
        host.notify(
            f"Not duplicates: {shown(a)} and {shown(b)}." if on else "Pair no longer ignored.",
            markup=False,
        )

    def keep_rules(self) -> None:
        """The keep rules dialog, scoped to the selected family (or the tree node chosen in
        it); the marks it returns are recorded."""
        from ditto_tui.ui.screens.keep_rules import KeepRulesScreen

        host = self._host
        view = host.view
        if view is None or not self._review_ready():
            return
        family = self._family()
        selected = family.members if family is not None else None
        scope_label = None
        node = host.tree_node if family is not None else None
        if node is not None:  # a node chosen in the tree: the rule's scope is its members
            selected = node.members
            scope_label = f"The chosen tree node (k={node.k}, {node.size:,} documents)"
        explorer = host.explorer
        dialog = KeepRulesScreen(
            selected=selected,
            families=[f.members for f in view.families if f.size > 1],
            documents=host.snapshot.documents,
            review=host.review,
            fingerprints=host.snapshot.fingerprints,
            k=host.k,
            grouping=host.mode,
            scope_label=scope_label,
            remembered=self._keep_settings,
        )

        def applied(marks: dict[str, Decision] | None) -> None:
            self._keep_settings = dialog.left_with or self._keep_settings
            if marks:
                explorer.set_marks(marks)
                host.notify(f"Recorded {len(marks):,} decisions.", markup=False)

        host.app.push_screen(dialog, applied)

    def actions(self) -> None:
        """Act on the documents decided duplicate (the dialog runs a dry run first)."""
        from ditto_tui.ui.screens.actions import ActionsScreen

        host = self._host
        if host.view is None or not self._review_ready("act"):
            return
        if not host.review.decisions:
            host.notify("Nothing is decided duplicate yet (d, or R for keep rules).",
                        markup=False)
            return
        host.app.push_screen(ActionsScreen(host.explorer, host.k, host.mode))

    def undo(self) -> None:
        """Undo the last action (the dialog asks first)."""
        from ditto_tui.ui.screens.actions import UndoScreen

        if not self._review_ready("act"):
            return
        self._host.app.push_screen(UndoScreen(self._host.explorer))

    def export(self) -> None:
        """Write the families as shown to CSV, JSON lines or an HTML report (a dialog)."""
        host = self._host
        view = host.view
        if not self._allowed("export"):
            return
        if view is None or not len(view):
            host.notify("No families to export.", markup=False)
            return
        from ditto_tui.explore.snapshot_report import write_snapshot_report
        from ditto_tui.ui.screens.export import ExportDialog

        families = list(view.families)
        request, snapshot, source = view.request, host.snapshot, host.explorer.source

        def report(path: Path, overwrite: bool) -> int:
            return write_snapshot_report(
                source, snapshot, path, families=families, k=request.k, mode=request.mode,
                pattern=request.pattern, overwrite=overwrite,
            )

        host.app.push_screen(
            ExportDialog(
                families,
                k=request.k,
                mode=request.mode,
                fingerprints=snapshot.fingerprints,
                root=str(source.root),
                report=report,
            )
        )

    def _allowed(self, change: Change) -> bool:
        refusal = self._host.explorer.policy.refusal(change)
        if refusal is not None:
            self._host.notify(refusal, title="Read-only", markup=False)
        return refusal is None

    def _review_ready(self, change: Change = "decide") -> bool:
        """A review store, and ``change`` allowed (else a notice says why not)."""
        if not self._allowed(change):
            return False
        if not self._host.review.active:
            self._host.notify("Decisions need a folder corpus (this one has no review store).",
                              markup=False)
            return False
        return True

    def _family(self) -> ShownFamily | None:
        """The selected family, when it has something to review (two members or more)."""
        family = self._host.selected_family()
        return family if family is not None and family.size > 1 else None


class ReviewKeys:
    """The main screen's review and act key actions, each handed to its
    :class:`ReviewCommands` (a mixin of the screen, which gives the two attributes)."""

    review_commands: ReviewCommands

    if TYPE_CHECKING:

        @property
        def detail(self) -> DetailPane: ...

    def action_decide(self, value: Decision) -> None:
        """Record ``value`` for the highlighted member (again: clear it), then move on."""
        if self.review_commands.decide(value):
            self.detail.next_member()  # as in a mail reader: a family decided key after key

    def action_clear_decisions(self) -> None:
        self.review_commands.clear_decisions()

    def action_family_reviewed(self) -> None:
        self.review_commands.family_reviewed()

    def action_ignore_family(self) -> None:
        self.review_commands.ignore_family()

    def action_ignore_pair(self) -> None:
        self.review_commands.ignore_pair()

    def action_keep_rules(self) -> None:
        self.review_commands.keep_rules()

    def action_actions(self) -> None:
        self.review_commands.actions()

    def action_undo(self) -> None:
        self.review_commands.undo()

    def action_export(self) -> None:
        self.review_commands.export()
