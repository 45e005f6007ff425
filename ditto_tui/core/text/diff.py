"""Side-by-side text diff: aligned rows, change hunks and word-level changed spans.

Pure computation over lists of lines, shaped for a viewer that renders rows lazily. Words
are diffed across line breaks: the same words wrapped at another width, or spaced or
indented otherwise, are no change. The alignments are RapidFuzz's compiled ones
(bit-parallel longest common subsequence; Levenshtein's, in bounded memory, for large
inputs). The lines between the common first and last ones (compared with their whitespace
collapsed, so near-identical 1 MB documents are cheap) are diffed as one sequence of word
tokens (words and single punctuation marks; whitespace only separates), whatever line each
token is on; the lines are then paired row by row through the words they share. When that
is too large and too different to align, lines are aligned first (the same way, as whole
lines) and the words of each run of changed lines after.

Coincidental matches (a ``the`` or a ``,`` between two rewritten passages) are folded into
the change around them, as diff-match-patch's semantic cleanup does: an equal run shorter
(in characters) than the changes on both sides of it is shown as changed.

A row pairing lines whose words all match is ``equal`` even when its two texts differ in
spacing or line breaks. Runs of lines too large and too different to align within
:data:`MAX_CELLS` fall back to pairing lines in order (a line pair too large: one span
between its common prefix and suffix).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Literal, cast

import numpy as np
from rapidfuzz.distance import Indel, Levenshtein

__all__ = [
    "CLOSE",
    "LCS_CELLS",
    "MAX_CELLS",
    "SMALL_CELLS",
    "Hunk",
    "Row",
    "Span",
    "TextDiff",
    "diff_lines",
    "diff_texts",
    "word_opcodes",
    "word_spans",
]

RowKind = Literal["equal", "changed", "deleted", "inserted"]
Span = tuple[int, int]
"""A half-open character range ``[start, stop)`` inside one line."""

SMALL_CELLS = 1_000_000
"""Alignments up to this many cells (items of one side times items of the other) are
computed as a longest common subsequence at once (well under a millisecond)."""

CLOSE = 8
"""Two sides with at most one item in ``CLOSE`` different are aligned in a band around
the diagonal, in time about proportional to their length."""

LCS_CELLS = 64_000_000
"""The largest alignment (items of one side times items of the other) computed as a
longest common subsequence in one piece (8 MB of bit matrix, a few milliseconds)."""

MAX_CELLS = 400_000_000
"""The largest alignment computed in full (about 0.1 s, bounded memory). A larger one is
computed only when the two sides are close (a banded alignment, fast for near-identical
inputs); otherwise lines are paired in order."""

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_SPACED_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])", re.UNICODE)

Opcode = tuple[str, int, int, int, int]


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
    likewise ``b`` / ``right``; ``inserted + deleted + changed`` is the number of non-equal
    rows; ``hunks`` are in row order and do not touch each other. An ``equal`` row has no
    changed word (its texts may differ in whitespace, or it may show a line of one side
    whose words sit on another row of the other side); a ``changed`` row has changed words
    on at least one side; ``deleted``/``inserted`` rows show one side, with changed words.
    """

    a: Sequence[str]
    b: Sequence[str]
    rows: list[Row]
    hunks: list[Hunk]
    inserted: int
    deleted: int
    changed: int
    _spans: dict[int, tuple[list[Span], list[Span]]] = field(default_factory=dict, repr=False)
    _line_rows: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    same_text: bool = False
    """True when the two sides are the same lines, character for character."""
    _marks: tuple[_Marks, _Marks] | None = field(default=None, repr=False)

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
        spans = {row: (right, left) for row, (left, right) in self._spans.items()}
        line_rows = None
        if self._line_rows is not None:
            line_rows = (self._line_rows[1], self._line_rows[0])
        marks = None if self._marks is None else (self._marks[1], self._marks[0])
        return TextDiff(
            self.b, self.a, rows, list(self.hunks), self.deleted, self.inserted, self.changed,
            spans, line_rows, self.same_text, marks,
        )

    @property
    def identical(self) -> bool:
        """True when no word differs (spacing and line breaks may: see ``same_text``)."""
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
        """Changed character spans (left, right) of a row: its changed words, a run of them
        separated only by whitespace as one span; empty lists for equal rows. Worked out
        for a row when first asked (a viewer asks only for the rows it shows), then kept."""
        found = self._spans.get(row_index)
        if found is not None:
            return found
        row = self.rows[row_index]
        if row.kind == "equal" or self._marks is None:
            return [], []
        found = (self._marks[0].spans(row.left), self._marks[1].spans(row.right))
        self._spans[row_index] = found
        return found


# --------------------------------------------------------------------------- alignment


def _align(ka: Sequence[Hashable], kb: Sequence[Hashable]) -> list[Opcode] | None:
    """Opcodes of two sequences (of strings, compared by hash, or ints) that keep as many
    items as possible (a longest common subsequence), or None when they are too large and
    too different to align within :data:`MAX_CELLS`.

    Small inputs get the LCS alignment directly. Larger ones that are close (at most one
    item in :data:`CLOSE` differs) get Levenshtein's banded alignment, whose changes are
    then aligned again by LCS (Levenshtein prefers a substitution where LCS keeps a
    match); far ones the LCS alignment up to :data:`LCS_CELLS` (its bit matrix takes
    ``cells / 8`` bytes), Levenshtein's up to :data:`MAX_CELLS` (Hirschberg's split:
    bounded memory), refined the same way."""
    n, m = len(ka), len(kb)
    if not n or not m:
        return [("delete", 0, n, 0, 0)] if n else ([("insert", 0, 0, 0, m)] if m else [])
    cells = n * m
    if cells <= SMALL_CELLS:
        return _lcs(ka, kb)
    band = min(max(n, m) // CLOSE, MAX_CELLS // max(n, m))
    distance = Levenshtein.distance(ka, kb, score_cutoff=band)
    if distance <= band:
        ops = _listed(Levenshtein.opcodes(ka, kb, score_hint=max(distance, 1)))
    elif cells <= LCS_CELLS:
        return _lcs(ka, kb)
    elif cells <= MAX_CELLS:
        ops = _listed(Levenshtein.opcodes(ka, kb))
    else:
        return None
    out: list[Opcode] = []
    block: list[int] | None = None  # a run of non-equal opcodes: i1, i2, j1, j2
    for tag, i1, i2, j1, j2 in [*ops, ("equal", n, n, m, m)]:
        if tag != "equal":
            block = [i1, i2, j1, j2] if block is None else [block[0], i2, block[2], j2]
            continue
        if block is not None:
            b1, b2, c1, c2 = block
            if 0 < (b2 - b1) * (c2 - c1) <= LCS_CELLS:
                out.extend((t, x1 + b1, x2 + b1, y1 + c1, y2 + c1) for t, x1, x2, y1, y2
                           in _lcs(ka[b1:b2], kb[c1:c2]))
            else:
                out.append(("replace", b1, b2, c1, c2))
            block = None
        if i2 > i1:
            out.append((tag, i1, i2, j1, j2))
    return out


def _listed(ops: Any) -> list[Opcode]:
    return cast(list[Opcode], ops.as_list())


def _lcs(ka: Sequence[Hashable], kb: Sequence[Hashable]) -> list[Opcode]:
    return _listed(Indel.opcodes(ka, kb))


def _segments(ops: list[Opcode], wa: Sequence[int], wb: Sequence[int]) -> list[Opcode]:
    """``ops`` as alternating ``equal``/``replace`` segments (a ``replace`` may be empty on
    one side), with equal runs shorter than the changes on both sides of them folded into
    them. ``wa``/``wb`` are prefix sums of the items' lengths (:func:`_weights`)."""
    out: list[list[int]] = []  # [equal (0 or 1), i1, i2, j1, j2]
    for tag, i1, i2, j1, j2 in ops:
        equal = tag == "equal"
        if out and out[-1][0] == equal:
            out[-1][2], out[-1][4] = i2, j2
        else:
            out.append([equal, i1, i2, j1, j2])
        # fold the equal run before this change when it is shorter than both neighbours
        while (not equal and len(out) >= 3 and out[-2][0] and not out[-3][0]):
            before, run, after = out[-3], out[-2], out[-1]
            # an item weighs its characters and the space (or line break) after it
            size = wa[run[2]] - wa[run[1]] + run[2] - run[1]
            if size >= max(wa[before[2]] - wa[before[1]] + before[2] - before[1],
                           wb[before[4]] - wb[before[3]] + before[4] - before[3]) or \
                    size >= max(wa[after[2]] - wa[after[1]] + after[2] - after[1],
                                wb[after[4]] - wb[after[3]] + after[4] - after[3]):
                break
            out[-3:] = [[False, before[1], after[2], before[3], after[4]]]
    return [("equal" if e else "replace", i1, i2, j1, j2) for e, i1, i2, j1, j2 in out]


class _Tokens:
    """The word tokens of some lines: their texts, the line (relative) of each, and where
    each line's tokens begin (``first[n]`` .. ``first[n + 1]``). Tokens cover every
    character but whitespace, so only whitespace lies between two tokens of a line."""

    __slots__ = ("first", "line", "lines", "text")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.text: list[str] = []
        counts = []
        findall = _TOKEN.findall
        for line in lines:
            found = findall(line)
            self.text += found
            counts.append(len(found))
        self.first = np.zeros(len(lines) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.first[1:])
        self.line = np.repeat(np.arange(len(lines), dtype=np.int64), counts)

    def starts(self, number: int) -> list[int]:
        """Start columns of line ``number``'s tokens."""
        return [m.start() for m in _TOKEN.finditer(self.lines[number])]

    def changed_lines(self, changed: np.ndarray) -> np.ndarray:
        """How many changed tokens (``changed``: a bool per token) each line holds."""
        return np.bincount(self.line[changed], minlength=len(self.lines))

    def line_spans(self, number: int, changed: np.ndarray) -> list[Span]:
        """The spans of line ``number``'s runs of changed tokens (one span when all are)."""
        lo, hi = int(self.first[number]), int(self.first[number + 1])
        flags = changed[lo:hi]
        line = self.lines[number]
        if not flags.any():
            return []
        if flags.all():
            return [(len(line) - len(line.lstrip()), len(line.rstrip()))]
        # token ends: each token with the whitespace before it, lengths summed
        ends = np.cumsum(np.fromiter(map(len, _SPACED_TOKEN.findall(line)), np.int64, hi - lo))
        starts = ends - np.fromiter(map(len, self.text[lo:hi]), np.int64, hi - lo)
        padded = np.concatenate(([False], flags, [False]))
        edges = np.flatnonzero(padded[1:] != padded[:-1])  # run starts, then run stops
        return list(zip(starts[edges[0::2]].tolist(), ends[edges[1::2] - 1].tolist(),
                        strict=True))


class _Marks:
    """The changed words of one side's lines, kept as the tokens of each diffed run of
    lines and a changed flag per token, so that a line's spans are worked out only when
    asked for."""

    def __init__(self) -> None:
        self._first: list[int] = []  # first line of each run, increasing
        self._runs: list[tuple[_Tokens, np.ndarray]] = []

    def add(self, first: int, tokens: _Tokens, changed: np.ndarray) -> None:
        self._first.append(first)
        self._runs.append((tokens, changed))

    def spans(self, line: int | None) -> list[Span]:
        if line is None or not self._first:
            return []
        index = bisect_right(self._first, line) - 1
        if index < 0:
            return []
        tokens, changed = self._runs[index]
        relative = line - self._first[index]
        if relative >= len(tokens.lines):
            return []
        return tokens.line_spans(relative, changed)


def _changed(count: int, segments: list[Opcode], side: int) -> np.ndarray:
    """A bool per token of one side (0: a, 1: b): True outside the equal segments."""
    changed = np.ones(count, dtype=bool)
    for tag, i1, i2, j1, j2 in segments:
        if tag == "equal":
            lo, hi = (j1, j2) if side else (i1, i2)
            changed[lo:hi] = False
    return changed


def _token_segments(ta: list[str], tb: list[str]) -> list[Opcode] | None:
    """Cleaned segments of two token lists (None: too large and too different)."""
    ops = _align(ta, tb)
    if ops is None:
        return None
    return _segments(ops, _weights(ta), _weights(tb))


def _weights(items: Sequence[str]) -> list[int]:
    """Prefix sums of the items' lengths (``_segments`` adds one per item: the space or
    line break after it)."""
    return list(accumulate(map(len, items), initial=0))


def _slide(segments: list[Opcode], ta: _Tokens, tb: _Tokens) -> list[Opcode]:
    """Move each run of tokens only one side has (between two equal runs) to the place, of
    those it could equally hold, that best follows line breaks and words: starting a line,
    then ending one (the words of a deleted line are then that line, not the end of one
    line and the start of the next), then starting with a word rather than the mark that
    ends one ("[long,] long ago", not "long[, long] ago")."""
    out = list(segments)
    for k in range(1, len(out) - 1):
        tag, i1, i2, j1, j2 = out[k]
        if tag == "equal" or (i1 != i2 and j1 != j2):
            continue
        prev, after = out[k - 1], out[k + 1]
        if i1 != i2:  # deleted from a: slide along a (and b's insertion point with it)
            tokens, lo, hi, floor, ceiling = ta, i1, i2, prev[1], after[2]
        else:
            tokens, lo, hi, floor, ceiling = tb, j1, j2, prev[3], after[4]
        text, line = tokens.text, tokens.line
        up = 0
        while lo - up - 1 >= floor and text[lo - up - 1] == text[hi - up - 1]:
            up += 1
        down = 0
        while hi + down < ceiling and text[lo + down] == text[hi + down]:
            down += 1
        if not up and not down:
            continue

        def score(shift: int, lo: int = lo, hi: int = hi, line: np.ndarray = line,
                  text: list[str] = text) -> int:
            start, stop = lo + shift, hi + shift
            starts = start == 0 or line[start] != line[start - 1]
            ends = stop == len(line) or line[stop] != line[stop - 1]
            word = text[start][0].isalnum() or text[start][0] == "_"  # not a , or a .
            return 4 * starts + 2 * ends + word

        best = max(range(-up, down + 1), key=lambda d: (score(d), -abs(d)))
        if best:
            out[k - 1] = (prev[0], prev[1], prev[2] + best, prev[3], prev[4] + best)
            out[k] = (tag, i1 + best, i2 + best, j1 + best, j2 + best)
            out[k + 1] = (after[0], after[1] + best, after[2], after[3] + best, after[4])
    return out


def word_opcodes(a: str, b: str) -> list[Opcode]:
    """How ``a`` becomes ``b``, word by word: difflib-shaped opcodes
    ``(tag, a_start, a_end, b_start, b_end)`` over *characters*, tag ``equal`` or
    ``replace`` (a replace may be empty on one side).

    The ranges cover both texts, in order and without gaps: joining ``a[i1:i2]`` over the
    opcodes gives ``a`` back exactly, and ``b[j1:j2]`` gives ``b``. An ``equal`` range holds
    the same words in both (whitespace may differ); a range starts at its first word, so
    whitespace between two ranges goes with the earlier one.
    """
    ta, tb = _Tokens([a]), _Tokens([b])
    segments = _token_segments(ta.text, tb.text)
    if segments is None:  # too large to align: everything between the common ends
        segments = _affix_segments(ta.text, tb.text)
    starts_a, starts_b = [*ta.starts(0), len(a)], [*tb.starts(0), len(b)]
    out: list[Opcode] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(segments):
        last = index == len(segments) - 1
        out.append((
            tag,
            0 if index == 0 else starts_a[i1], len(a) if last else starts_a[i2],
            0 if index == 0 else starts_b[j1], len(b) if last else starts_b[j2],
        ))
    if not out and (a or b):
        out.append(("equal", 0, len(a), 0, len(b)))
    return out


def _affix_segments(ta: list[str], tb: list[str]) -> list[Opcode]:
    """The common first and last tokens equal, everything between them one change."""
    n, m = len(ta), len(tb)
    prefix = 0
    while prefix < min(n, m) and ta[prefix] == tb[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(n, m) - prefix and ta[n - 1 - suffix] == tb[m - 1 - suffix]:
        suffix += 1
    out: list[Opcode] = []
    if prefix:
        out.append(("equal", 0, prefix, 0, prefix))
    if prefix < n - suffix or prefix < m - suffix:
        out.append(("replace", prefix, n - suffix, prefix, m - suffix))
    if suffix:
        out.append(("equal", n - suffix, n, m - suffix, m))
    return out


def word_spans(a: str, b: str) -> tuple[list[Span], list[Span]]:
    """Character spans of the words that differ between two versions of a line.

    Tokens are words and single punctuation marks; whitespace only separates them, so a
    change of spacing alone gives no span. Spans are sorted and non-empty, a run of changed
    words separated only by whitespace being one span; lines with the same words give
    ``([], [])``.
    """
    if a == b:
        return [], []
    ta, tb = _Tokens([a]), _Tokens([b])
    segments = _token_segments(ta.text, tb.text)
    if segments is None:
        segments = _affix_segments(ta.text, tb.text)
    return (ta.line_spans(0, _changed(len(ta.text), segments, 0)),
            tb.line_spans(0, _changed(len(tb.text), segments, 1)))


# --------------------------------------------------------------------------- rows

_Pair = tuple[int | None, int | None]


def _pair_lines(n: int, m: int, range_a: tuple[list[int], list[int]],
                range_b: tuple[list[int], list[int]]) -> list[_Pair]:
    """Rows pairing ``n`` left and ``m`` right lines, in order on both sides.

    ``range_a`` gives for each left line the first and last right line holding a word
    matched to one of its words (-1: none); ``range_b`` the same from the right. Related
    lines share a row; a line whose matched words lie on rows already shown (the rest of a
    reflowed line), or that has none while the other side's line matches further on, gets
    a row of its own; two lines without any match are paired (a rewritten line).
    """
    low_a, high_a = range_a
    low_b, high_b = range_b
    rows: list[_Pair] = []
    i = j = 0
    while i < n or j < m:
        if i == n:
            rows.append((None, j))
            j += 1
            continue
        if j == m:
            rows.append((i, None))
            i += 1
            continue
        matched_a, matched_b = low_a[i] >= 0, low_b[j] >= 0
        if (matched_a and low_a[i] <= j <= high_a[i]) or (matched_b and low_b[j] <= i <= high_b[j]):
            rows.append((i, j))
            i += 1
            j += 1
        elif matched_a and high_a[i] < j:
            rows.append((i, None))
            i += 1
        elif matched_b and high_b[j] < i:
            rows.append((None, j))
            j += 1
        elif not matched_a and not matched_b:
            rows.append((i, j))
            i += 1
            j += 1
        elif not matched_b:
            rows.append((None, j))
            j += 1
        else:  # a's line has no match (b's matches further down a), or no order is left
            rows.append((i, None))
            i += 1
    return rows


_Placed = tuple[int | None, int | None, bool, bool]
"""A row being built: left line, right line, and whether each has changed words."""


def _in_order(a: Sequence[str], b: Sequence[str], i1: int, i2: int, j1: int, j2: int,
              known: dict[tuple[int | None, int | None], tuple[list[Span], list[Span]]]
              ) -> list[_Placed]:
    """Lines paired in order, each pair diffed alone (the surplus of one side alone);
    their spans go into ``known``."""
    out: list[_Placed] = []
    for t in range(max(i2 - i1, j2 - j1)):
        left = i1 + t if i1 + t < i2 else None
        right = j1 + t if j1 + t < j2 else None
        sl, sr = word_spans("" if left is None else a[left], "" if right is None else b[right])
        known[left, right] = (sl, sr)
        out.append((left, right, bool(sl), bool(sr)))
    return out


def _region(a: Sequence[str], b: Sequence[str], i1: int, i2: int, j1: int, j2: int,
            marks: tuple[_Marks, _Marks]) -> list[_Placed] | None:
    """Rows for the lines ``a[i1:i2]`` and ``b[j1:j2]`` diffed as one sequence of words
    (their changed words go into ``marks``); None when they are too large and too
    different to align."""
    ta, tb = _Tokens(a[i1:i2]), _Tokens(b[j1:j2])
    segments = _token_segments(ta.text, tb.text)
    if segments is None:
        return None
    segments = _slide(segments, ta, tb)
    n, m = i2 - i1, j2 - j1
    changed_a, changed_b = _changed(len(ta.text), segments, 0), _changed(len(tb.text), segments, 1)
    marks[0].add(i1, ta, changed_a)
    marks[1].add(j1, tb, changed_b)
    touched_a = ta.changed_lines(changed_a).tolist()
    touched_b = tb.changed_lines(changed_b).tolist()
    # the first and last line of the other side holding a word matched to each line's
    # (matched words are in order on both sides, so a line's matches are a sorted run)
    ranges = []
    equal = [(s1, s2, t1) for tag, s1, s2, t1, _ in segments if tag == "equal" and s2 > s1]
    if equal:
        matched_a = np.concatenate([np.arange(s1, s2) for s1, s2, _ in equal])
        matched_b = np.concatenate([np.arange(t1, t1 + s2 - s1) for s1, s2, t1 in equal])
        la, lb = ta.line[matched_a], tb.line[matched_b]
        for own, other, count in ((la, lb, n), (lb, la, m)):
            low = np.full(count, -1, dtype=np.int64)
            high = np.full(count, -1, dtype=np.int64)
            first = np.flatnonzero(np.concatenate(([True], own[1:] != own[:-1])))
            last = np.concatenate((first[1:], [len(own)])) - 1
            low[own[first]] = other[first]
            high[own[first]] = other[last]
            ranges.append((low.tolist(), high.tolist()))
    else:
        ranges = [([-1] * n, [-1] * n), ([-1] * m, [-1] * m)]
    return [
        (None if left is None else i1 + left, None if right is None else j1 + right,
         left is not None and touched_a[left] > 0, right is not None and touched_b[right] > 0)
        for left, right in _pair_lines(n, m, ranges[0], ranges[1])
    ]


def _same_words(x: str, y: str) -> bool:
    """Two lines equal but for whitespace (``str.split`` splits where ``\\s`` matches)."""
    return x == y or x.split() == y.split()


def diff_lines(a: Sequence[str], b: Sequence[str]) -> TextDiff:
    """Align two line lists into side-by-side rows (see the module docstring)."""
    n, m = len(a), len(b)
    prefix = 0
    limit = min(n, m)
    while prefix < limit and _same_words(a[prefix], b[prefix]):
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and _same_words(a[n - 1 - suffix], b[m - 1 - suffix]):
        suffix += 1
    marks = (_Marks(), _Marks())
    known: dict[tuple[int | None, int | None], tuple[list[Span], list[Span]]] = {}
    placed: list[_Placed] = [(i, i, False, False) for i in range(prefix)]
    whole = _region(a, b, prefix, n - suffix, prefix, m - suffix, marks)
    if whole is not None:
        placed.extend(whole)
    else:  # too large and too different for one word diff: lines first, then words
        mid_a = [" ".join(line.split()) for line in a[prefix:n - suffix]]
        mid_b = [" ".join(line.split()) for line in b[prefix:m - suffix]]
        ops = _align(mid_a, mid_b)
        if ops is None:  # too large and too different to align even by lines
            ops = [("replace", 0, len(mid_a), 0, len(mid_b))]
        segments = _segments(ops, _weights(a[prefix:n - suffix]), _weights(b[prefix:m - suffix]))
        for tag, i1, i2, j1, j2 in segments:
            i1, i2, j1, j2 = i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix
            if tag == "equal":
                placed.extend((i1 + t, j1 + t, False, False) for t in range(i2 - i1))
            else:
                placed.extend(_region(a, b, i1, i2, j1, j2, marks)
                              or _in_order(a, b, i1, i2, j1, j2, known))
    placed.extend((n - suffix + t, m - suffix + t, False, False) for t in range(suffix))

    rows: list[Row] = []
    hunks: list[Hunk] = []
    spans: dict[int, tuple[list[Span], list[Span]]] = {}
    counts = {"changed": 0, "deleted": 0, "inserted": 0}
    for left, right, left_changed, right_changed in placed:
        if not (left_changed or right_changed):
            rows.append(Row("equal", left, right))
            continue
        kind: RowKind = "changed" if left is not None and right is not None else (
            "deleted" if left is not None else "inserted")
        index = len(rows)
        if hunks and hunks[-1].stop == index:
            hunks[-1] = Hunk(hunks[-1].start, index + 1)
        else:
            hunks.append(Hunk(index, index + 1))
        rows.append(Row(kind, left, right, len(hunks) - 1))
        if (left, right) in known:
            spans[index] = known[left, right]
        counts[kind] += 1
    same = n == m and all(x == y for x, y in zip(a, b, strict=True))
    return TextDiff(a, b, rows, hunks, counts["inserted"], counts["deleted"], counts["changed"],
                    spans, None, same, marks)


def diff_texts(a: str, b: str) -> TextDiff:
    """:func:`diff_lines` over ``a.splitlines()`` and ``b.splitlines()``."""
    return diff_lines(a.splitlines(), b.splitlines())
