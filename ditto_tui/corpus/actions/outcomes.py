"""What happened to each file: the :class:`Outcome` of one file, the :class:`Report` of a
run, and the exceptions a step raises to become an outcome (:class:`Refused`,
:class:`Failed`, :class:`DoneAnyway`), each carrying the reason the user reads."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DoneAnyway", "Failed", "Outcome", "Refused", "Report"]


class _WithReason(Exception):  # noqa: N818 - an outcome with a reason, not a bug
    """An exception whose ``reason`` is a short phrase shown to the user as is."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Refused(_WithReason):
    """A file the action leaves alone, with a short human reason."""


class Failed(_WithReason):
    """An operation that failed on the system's side (a write, a rename), with a reason
    that names the side (e.g. ``writing the copy in the trash failed: no space left``)."""


class DoneAnyway(_WithReason):
    """The file was acted on but a check after it failed and it could not be put back:
    recorded ``done`` (undo can reverse it) with this reason."""


@dataclass(frozen=True)
class Outcome:
    """What happened to one file: ``status`` is ``done``, ``refused``, ``failed``,
    ``undone`` or ``not-done`` (found untouched while rolling back)."""

    id: str
    status: str
    reason: str = ""
    dest: str = ""


@dataclass
class Report:
    """Per-file outcomes of an execute, undo or roll-back, and the journal used.
    ``damage`` says what a damaged journal could no longer tell (empty when whole)."""

    action: str
    journal: str | None
    outcomes: list[Outcome] = field(default_factory=list)
    damage: str = ""

    def count(self, status: str) -> int:
        """How many outcomes have ``status``."""
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def failures(self) -> list[Outcome]:
        """The outcomes refused or failed, in order."""
        return [o for o in self.outcomes if o.status in ("refused", "failed")]
