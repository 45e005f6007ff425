"""What a session of the explorer may change: the one place that says yes or no.

A read-only session (``ditto-tui serve --read-only``, ``ditto-tui explore --read-only``)
shows the corpus and the review as they are, and follows what other sessions record, but
records nothing and acts on no file: every decision, family mark, ignored pair, keep rule,
action, undo and export is refused with :meth:`SessionPolicy.refusal`'s message. The
:class:`~ditto_tui.explore.Explorer` refuses the review changes itself (a notice), its
action service raises :class:`ReadOnlyError`; the UI asks first so that no dialog opens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Change", "ReadOnlyError", "SessionPolicy"]

#: What a session can be refused: a review change (decision, mark, ignored pair, keep
#: rules), an action on files (trash, move, link, removal list, undo), an export (a file
#: written where the user says).
Change = Literal["decide", "act", "export"]

_WHAT: dict[Change, str] = {
    "decide": "decisions are not recorded",
    "act": "no file is trashed, moved or linked, and nothing is undone",
    "export": "nothing is exported",
}


class ReadOnlyError(PermissionError):
    """An action on files was asked of a read-only session."""


@dataclass(frozen=True)
class SessionPolicy:
    """What this session may change (see the module docstring). The default allows all."""

    read_only: bool = False

    def refusal(self, change: Change) -> str | None:
        """None when ``change`` is allowed, else the message that says why not."""
        if not self.read_only:
            return None
        return f"This session is read-only: {_WHAT[change]}."

    def check(self, change: Change) -> None:
        """Raise :class:`ReadOnlyError` (with :meth:`refusal`'s message) when refused."""
        message = self.refusal(change)
        if message is not None:
            raise ReadOnlyError(message)
