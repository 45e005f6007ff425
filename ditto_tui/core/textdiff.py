"""Side-by-side text diff: aligned rows, change hunks and word-level changed spans.

Pure computation over lists of lines (``difflib.SequenceMatcher``), shaped for a viewer that
renders rows lazily. Building a :class:`TextDiff` costs one line-level match (common prefix
and suffix are trimmed first, so near-identical 1 MB documents are cheap); word spans inside
changed lines are computed only when a hunk is first asked for, then cached.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

import numpy as np

__all__ = [
    "Row",
    "Hunk",
    "Span",
    "TextDiff",
    "diff_lines",
    "diff_texts",
    "word_spans",
    "AUTOJUNK_MIN_LINES",
    "MAX_WORD_TOKENS",
]

RowKind = Literal["equal", "changed", "deleted", "inserted"]
Span = tuple[int, int]
"""A half-open character range ``[start, stop)`` inside one line."""

AUTOJUNK_MIN_LINES = 2000
"""Below this many lines on the right side the line match runs without difflib's
"popular line" heuristic (best alignment); above it autojunk bounds the cost."""

MAX_WORD_TOKENS = 4000
"""Changed lines with more word tokens than this get a cheap prefix/suffix span instead of a
word-level match (a minified 1 MB line would otherwise cost a quadratic match)."""

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Row:
    """One aligned display row. ``left``/``right`` are 0-based line numbers or ``None``
    (a filler on that side); ``hunk`` is the index of the change it belongs to, -1 if equal."""

    kind: RowKind
    left: int | None
    right: int | None
    hunk: int = -1


@dataclass(frozen=True, slots=True)
class Hunk:
    """A maximal run of non-equal rows: ``rows[start:stop]``."""

    start: int
    stop: int


@dataclass
class TextDiff:
    """Aligned rows of two line lists plus per-change bookkeeping.

    Invariants: every line of ``a`` appears exactly once as some row's ``left``, in order, and
    likewise ``b`` / ``right``; ``inserted + deleted + 2 * changed`` equals the number of lines
    touched; ``hunks`` are in row order and do not touch each other.
    """

    a: Sequence[str]
    b: Sequence[str]
    rows: list[Row]
    hunks: list[Hunk]
    inserted: int
    deleted: int
    changed: int
    _spans: dict[int, dict[int, tuple[list[Span], list[Span]]]] = field(
        default_factory=dict, repr=False
    )
    _line_rows: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def line_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The row showing each line of ``a`` and of ``b`` (int64 arrays). O(rows) the
        first time (call it off the UI thread once), then cached."""
        if self._line_rows is None:
            left = np.zeros(len(self.a), dtype=np.int64)
            right = np.zeros(len(self.b), dtype=np.int64)
            for index, row in enumerate(self.rows):
                if row.left is not None:
                    left[row.left] = index
                if row.right is not None:
                    right[row.right] = index
            self._line_rows = (left, right)
        return self._line_rows

    def swapped(self) -> TextDiff:
        """The same diff seen from the other side (``b`` on the left): deleted rows become
        inserted ones and the word spans change sides. O(rows), no line is compared again."""
        turn: dict[RowKind, RowKind] = {"deleted": "inserted", "inserted": "deleted"}
        rows = [Row(turn.get(r.kind, r.kind), r.right, r.left, r.hunk) for r in self.rows]
        spans = {
            hunk: {row: (right, left) for row, (left, right) in cache.items()}
            for hunk, cache in self._spans.items()
        }
        line_rows = None
        if self._line_rows is not None:
            line_rows = (self._line_rows[1], self._line_rows[0])
        return TextDiff(
            self.b, self.a, rows, list(self.hunks), self.deleted, self.inserted, self.changed,
            spans, line_rows,
        )

    @property
    def identical(self) -> bool:
        """True when the two sides have no differing line."""
        return not self.hunks

    def next_hunk(self, row: int) -> int | None:
        """Index of the first hunk starting after ``row``, or ``None``."""
        for i, hunk in enumerate(self.hunks):
            if hunk.start > row:
                return i
        return None

    def previous_hunk(self, row: int) -> int | None:
        """Index of the last hunk starting before ``row``, or ``None``."""
        found = None
        for i, hunk in enumerate(self.hunks):
            if hunk.start < row:
                found = i
            else:
                break
        return found

    def spans(self, row_index: int) -> tuple[list[Span], list[Span]]:
        """Changed character spans (left, right) of a row; empty lists for equal rows.

        A ``changed`` row gets word-level spans; a ``deleted``/``inserted`` row has its whole
        line as one span. Computed for the row's whole hunk on first use, then cached.
        """
        row = self.rows[row_index]
        if row.hunk < 0:
            return [], []
        cache = self._spans.get(row.hunk)
        if cache is None:
            cache = self._hunk_spans(self.hunks[row.hunk])
            self._spans[row.hunk] = cache
        return cache[row_index]

    def _hunk_spans(self, hunk: Hunk) -> dict[int, tuple[list[Span], list[Span]]]:
        out: dict[int, tuple[list[Span], list[Span]]] = {}
        for index in range(hunk.start, hunk.stop):
            row = self.rows[index]
            if row.kind == "changed":
                assert row.left is not None and row.right is not None
                out[index] = word_spans(self.a[row.left], self.b[row.right])
            elif row.kind == "deleted":
                assert row.left is not None
                out[index] = ([(0, len(self.a[row.left]))], [])
            else:
                assert row.right is not None
                out[index] = ([], [(0, len(self.b[row.right]))])
        return out


def _tokens(line: str) -> list[str]:
    return _TOKEN.findall(line)


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, stop in spans:
        if stop <= start:
            continue
        if merged and merged[-1][1] >= start:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def _affix_spans(a: str, b: str) -> tuple[list[Span], list[Span]]:
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return _merge([(prefix, len(a) - suffix)]), _merge([(prefix, len(b) - suffix)])


def word_spans(a: str, b: str) -> tuple[list[Span], list[Span]]:
    """Character spans of the words that differ between two versions of a line.

    Tokens are words, runs of whitespace and single punctuation marks. Spans are merged,
    sorted and non-empty; identical lines give ``([], [])``. Very long lines fall back to one
    span between the common prefix and suffix.
    """
    if a == b:
        return [], []
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) > MAX_WORD_TOKENS or len(tb) > MAX_WORD_TOKENS:
        return _affix_spans(a, b)
    offsets_a = [0]
    for tok in ta:
        offsets_a.append(offsets_a[-1] + len(tok))
    offsets_b = [0]
    for tok in tb:
        offsets_b.append(offsets_b[-1] + len(tok))
    left: list[Span] = []
    right: list[Span] = []
    matcher = SequenceMatcher(None, ta, tb, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        left.append((offsets_a[i1], offsets_a[i2]))
        right.append((offsets_b[j1], offsets_b[j2]))
    return _merge(left), _merge(right)


def diff_lines(a: Sequence[str], b: Sequence[str], *, autojunk: bool | None = None) -> TextDiff:
    """Align two line lists into side-by-side rows.

    A ``replace`` block pairs lines in order as ``changed`` rows, the surplus becoming
    ``deleted`` (left only) or ``inserted`` (right only) rows. ``autojunk=None`` enables
    difflib's heuristic only for inputs of at least :data:`AUTOJUNK_MIN_LINES` lines.
    """
    n, m = len(a), len(b)
    prefix = 0
    limit = min(n, m)
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[n - 1 - suffix] == b[m - 1 - suffix]:
        suffix += 1
    if autojunk is None:
        autojunk = (m - prefix - suffix) >= AUTOJUNK_MIN_LINES
    mid_a = a[prefix : n - suffix]
    mid_b = b[prefix : m - suffix]

    rows: list[Row] = [Row("equal", i, i) for i in range(prefix)]
    hunks: list[Hunk] = []
    inserted = deleted = changed = 0
    opcodes = (
        SequenceMatcher(None, mid_a, mid_b, autojunk=autojunk).get_opcodes()
        if mid_a or mid_b
        else []
    )
    for tag, i1, i2, j1, j2 in opcodes:
        i1 += prefix
        i2 += prefix
        j1 += prefix
        j2 += prefix
        if tag == "equal":
            rows.extend(Row("equal", i1 + t, j1 + t) for t in range(i2 - i1))
            continue
        hunk_id = len(hunks)
        if hunks and hunks[-1].stop == len(rows):
            hunk_id -= 1  # adjacent non-equal opcodes form one change
        start = len(rows) if hunk_id == len(hunks) else hunks[hunk_id].start
        pairs = min(i2 - i1, j2 - j1)
        rows.extend(Row("changed", i1 + t, j1 + t, hunk_id) for t in range(pairs))
        rows.extend(Row("deleted", i, None, hunk_id) for i in range(i1 + pairs, i2))
        rows.extend(Row("inserted", None, j, hunk_id) for j in range(j1 + pairs, j2))
        changed += pairs
        deleted += (i2 - i1) - pairs
        inserted += (j2 - j1) - pairs
        if hunk_id == len(hunks):
            hunks.append(Hunk(start, len(rows)))
        else:
            hunks[hunk_id] = Hunk(start, len(rows))
    base_a, base_b = n - suffix, m - suffix
    rows.extend(Row("equal", base_a + t, base_b + t) for t in range(suffix))
    return TextDiff(a, b, rows, hunks, inserted, deleted, changed)


def diff_texts(a: str, b: str, *, autojunk: bool | None = None) -> TextDiff:
    """:func:`diff_lines` over ``a.splitlines()`` and ``b.splitlines()``."""
    return diff_lines(a.splitlines(), b.splitlines(), autojunk=autojunk)
