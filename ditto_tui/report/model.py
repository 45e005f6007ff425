"""What a report holds: plain, immutable values between gathering and rendering.

:mod:`ditto_tui.report.gather` fills these from a corpus and an index;
:mod:`ditto_tui.report.render` turns them into one HTML string. Every string here is
*display text* (ids with undecodable bytes already ``\\xNN``-escaped, control characters
made visible), never markup: the renderer escapes all of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "ChartPoint",
    "DiffCell",
    "DiffRow",
    "DiffView",
    "FamilyView",
    "MailLine",
    "MemberView",
    "Report",
    "ReportLimits",
    "SkipView",
]

DiffKind = Literal["equal", "changed", "deleted", "inserted", "skip"]


@dataclass(frozen=True)
class ReportLimits:
    """Bounds that keep a report small enough to share and quick to open.

    ``members`` per family are listed (the nearest to the representative first); ``diffs``
    of them per family get a side-by-side diff; each document is read up to ``doc_bytes``;
    a diff shows at most ``diff_rows`` rows (changes with ``context`` equal lines around
    them) and at most ``line_chars`` characters of a line; all diffs together take at most
    about ``diff_budget`` bytes of the page, after which diffs are left out with a note.
    ``families`` bounds the families detailed; the family list names at most ``listed``.
    """

    members: int = 200
    diffs: int = 10
    doc_bytes: int = 256 * 1024
    diff_rows: int = 40
    context: int = 2
    line_chars: int = 1000
    diff_budget: int = 4_000_000
    families: int = 5000
    listed: int = 20_000
    excerpt_chars: int = 160


DEFAULT_LIMITS = ReportLimits()


@dataclass(frozen=True)
class DiffCell:
    """One side of a diff row: 1-based line ``number``, the shown ``text`` (a window of the
    line when it was longer than the limit: ``cut_start`` characters were left out before
    it, ``cut_end`` tells whether some were left out after it) and the changed ``spans``
    (half-open, relative to ``text``)."""

    number: int
    text: str
    spans: tuple[tuple[int, int], ...] = ()
    cut_start: int = 0
    cut_end: bool = False


@dataclass(frozen=True)
class DiffRow:
    """A displayed diff row; a ``skip`` row stands for ``hidden`` equal lines left out."""

    kind: DiffKind
    left: DiffCell | None = None
    right: DiffCell | None = None
    hidden: int = 0


@dataclass(frozen=True)
class DiffView:
    """A folded side-by-side diff: the rows to show plus line counts of the whole diff.

    ``hunks`` changes exist, ``hunks_shown`` of them are (partly) in ``rows``;
    ``rows_cut`` is True when the row limit cut the diff short. Words are compared across
    line breaks: a diff without a change (``identical``) may still join two texts that
    differ in spacing or line breaks (``same_text`` False).
    """

    rows: tuple[DiffRow, ...]
    changed: int
    inserted: int
    deleted: int
    hunks: int
    hunks_shown: int
    rows_cut: bool = False
    same_text: bool = True

    @property
    def identical(self) -> bool:
        """No word differs."""
        return self.hunks == 0


@dataclass(frozen=True)
class MemberView:
    """One member of a family as the report lists it.

    ``diff`` is None for the representative and when no diff is included; ``diff_note``
    then says why (limit reached, unreadable document...). ``text_note`` tells when the
    member's text was cut before diffing. ``decision`` is the review decision stored for it
    (``keep``, ``duplicate``, ``not-duplicate``, ``stale:...`` when the file changed since).
    ``mail`` is a mail message's subject, sender and date (display text; empty for other
    documents), shown with its name as the explorer shows them.
    """

    id: str
    name: str
    fingerprint: int
    distance: int
    representative: bool = False
    diff: DiffView | None = None
    diff_note: str = ""
    text_note: str = ""
    decision: str = ""
    mail: MailLine | None = None


@dataclass(frozen=True)
class MailLine:
    """A mail message as a list shows it: subject, sender and date (display text)."""

    subject: str
    sender: str
    date: str


@dataclass(frozen=True)
class FamilyView:
    """A family: its number (1-based, list order), statistics and the members listed.

    ``members`` starts with the representative, then the others by (distance, id);
    ``omitted`` members were left out by the limits. ``detailed`` is False for families
    past the detail limit (they appear in the family list only).
    """

    number: int
    size: int
    diameter: int
    diameter_exact: bool
    representative: str
    representative_name: str
    representative_fp: int
    excerpt: str
    members: tuple[MemberView, ...]
    omitted: int = 0
    detailed: bool = True
    text_note: str = ""


@dataclass(frozen=True)
class SkipView:
    """A skipped path (display name) and the reason."""

    name: str
    reason: str


@dataclass(frozen=True)
class ChartPoint:
    """Families with at least two members, the documents in them, the largest family
    (documents) and the largest diameter (an upper bound when ``diameter_exact`` is False)
    at distance ``k``."""

    k: int
    families: int
    documents: int
    largest: int = 0
    diameter: int = 0
    diameter_exact: bool = True


@dataclass(frozen=True)
class Report:
    """Everything one report shows."""

    title: str
    root: str
    documents: int
    pipeline: str
    k: int
    mode: str
    min_size: int
    pattern: str
    created: str
    version: str
    families: tuple[FamilyView, ...]
    skipped: tuple[SkipView, ...] = ()
    chart: tuple[ChartPoint, ...] = ()
    limits: ReportLimits = field(default_factory=ReportLimits)
    notes: tuple[str, ...] = ()
    documents_in_families: int = 0
    decisions: bool = False
