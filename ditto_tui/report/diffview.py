"""Fold a side-by-side :class:`~ditto_tui.core.text.diff.TextDiff` into what a report shows.

The diff itself is the explorer's engine (words diffed across line breaks, spans of the
changed words); this module only chooses rows: every change with a few equal lines of context, long runs of equal lines
replaced by one "N equal lines" row, at most a given number of rows, and long lines cut to
a window that keeps the first change in view. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from ditto_tui.core.text.diff import Span, TextDiff, diff_lines
from ditto_tui.report.model import DiffCell, DiffRow, DiffView

__all__ = ["cut_line", "diff_view", "fold_diff"]


def cut_line(text: str, spans: Sequence[Span], limit: int, number: int) -> DiffCell:
    """A cell for line ``number`` showing at most ``limit`` characters of ``text``.

    A longer line is shown from a little before its first changed span (or from its start
    when nothing changed); spans are clipped to the window and made relative to it.
    """
    if len(text) <= limit:
        return DiffCell(number, text, tuple((a, b) for a, b in spans if b > a))
    start = 0
    if spans:
        start = max(0, min(spans[0][0] - limit // 4, len(text) - limit))
    stop = start + limit
    clipped = tuple(
        (max(a, start) - start, min(b, stop) - start) for a, b in spans if b > start and a < stop
    )
    return DiffCell(number, text[start:stop], clipped, cut_start=start, cut_end=stop < len(text))


def _windows(diff: TextDiff, context: int) -> list[tuple[int, int, int]]:
    """Row ranges ``(start, stop, last_hunk)`` to show: hunks widened by ``context`` rows,
    overlapping ones merged."""
    n = len(diff.rows)
    out: list[tuple[int, int, int]] = []
    for index, hunk in enumerate(diff.hunks):
        start, stop = max(0, hunk.start - context), min(n, hunk.stop + context)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], stop), index)
        else:
            out.append((start, stop, index))
    return out


def fold_diff(diff: TextDiff, *, context: int = 2, max_rows: int = 80,
              line_chars: int = 1000) -> DiffView:
    """The rows of ``diff`` a report shows (see the module docstring).

    ``skip`` rows (hidden equal lines) do not count towards ``max_rows``; when the limit
    cuts the diff, ``rows_cut`` is set and ``hunks_shown`` counts the changes reached.
    """
    rows: list[DiffRow] = []
    shown = 0
    hunks_shown = 0
    cut = False
    previous = 0
    for start, stop, last_hunk in _windows(diff, context):
        if start > previous:
            rows.append(DiffRow("skip", hidden=start - previous))
        for index in range(start, stop):
            if shown >= max_rows:
                cut = True
                break
            row = diff.rows[index]
            left_spans, right_spans = diff.spans(index)
            left = right = None
            if row.left is not None:
                left = cut_line(diff.a[row.left], left_spans, line_chars, row.left + 1)
            if row.right is not None:
                right = cut_line(diff.b[row.right], right_spans, line_chars, row.right + 1)
            rows.append(DiffRow(row.kind, left, right))
            shown += 1
            if row.hunk >= 0:
                hunks_shown = max(hunks_shown, row.hunk + 1)
        if cut:
            break
        previous = stop
        hunks_shown = max(hunks_shown, last_hunk + 1)
    if not cut and diff.hunks and previous < len(diff.rows):
        rows.append(DiffRow("skip", hidden=len(diff.rows) - previous))
    return DiffView(
        rows=tuple(rows),
        changed=diff.changed,
        inserted=diff.inserted,
        deleted=diff.deleted,
        hunks=len(diff.hunks),
        hunks_shown=hunks_shown,
        rows_cut=cut,
        same_text=diff.same_text,
    )


def diff_view(left: Sequence[str], right: Sequence[str], *, context: int = 2,
              max_rows: int = 80, line_chars: int = 1000) -> DiffView:
    """:func:`fold_diff` of the explorer's line diff of two lists of display lines."""
    return fold_diff(diff_lines(left, right), context=context, max_rows=max_rows,
                     line_chars=line_chars)
