"""Plain-text reports of explanations, for the command line and the explorer.

Pure functions returning lists of lines. Document text in the lines is made visible
(``display.visible``): control characters and escapes are shown, never obeyed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from ditto_tui.core.explain.explanation import PairExplanation
from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.core.text.display import visible

__all__ = ["LineIndex", "display_spans", "format_table", "pair_report", "passages", "snippet"]

_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Line numbers (1-based) of character offsets in one text."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        pos = text.find("\n")
        while pos >= 0:
            self._starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def line(self, offset: int) -> int:
        return bisect_right(self._starts, offset)


def display_spans(text: str, spans: np.ndarray, *, limit: int = 5000) -> dict[int, list[tuple[int, int]]]:
    """Character ``spans`` of ``text`` as spans of its display lines: line number ->
    sorted ``[start, stop)`` columns in ``display.visible_lines(text)[line]``.

    Lines break as ``visible_lines`` breaks them (``\\r\\n``, ``\\r``, ``\\n``) and columns
    follow its tab expansion and escapes. At most ``limit`` spans are mapped.
    """
    starts = [0]
    ends = []
    for m in _BREAK.finditer(text):
        ends.append(m.start())
        starts.append(m.end())
    ends.append(len(text))
    out: dict[int, list[tuple[int, int]]] = {}
    for start, stop in spans[:limit].tolist():
        line = bisect_right(starts, start) - 1
        while line < len(starts) and starts[line] < stop:
            lo, hi = max(start, starts[line]), min(stop, ends[line])
            if lo < hi:
                raw = text[starts[line] : ends[line]]
                first = len(visible(raw[: lo - starts[line]]))
                last = len(visible(raw[: hi - starts[line]]))
                out.setdefault(line, []).append((first, last))
            line += 1
    for pieces in out.values():
        pieces.sort()
    return out


#: How far a passage is widened to reach the start or the end of a word it cuts.
WORD_REACH = 24


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def snippet(text: str, start: int, end: int, width: int = 60) -> str:
    """``text[start:end]`` on one line, visible, at most ``width`` characters, never cut
    inside a word without saying so.

    A span that starts or ends inside a word is widened to the whole word (a word longer
    than :data:`WORD_REACH` stays cut, marked ``…``); a longer result is cut at the last
    space that fits and ends in ``…`` (cut hard, with ``…``, only when no space is in the
    second half of the line).
    """
    lead = trail = ""
    if 0 < start < len(text) and _is_word(text[start - 1]) and _is_word(text[start]):
        reach = start
        while reach > 0 and start - reach < WORD_REACH and _is_word(text[reach - 1]):
            reach -= 1
        lead = "…" if reach > 0 and _is_word(text[reach - 1]) else ""
        start = reach
    if 0 < end < len(text) and _is_word(text[end - 1]) and _is_word(text[end]):
        reach = end
        while reach < len(text) and reach - end < WORD_REACH and _is_word(text[reach]):
            reach += 1
        trail = "…" if reach < len(text) and _is_word(text[reach]) else ""
        end = reach
    piece = " ".join(text[start:end].split())
    if len(lead) + len(piece) + len(trail) > width:
        room = max(width - len(lead) - 1, 1)
        cut = piece.rfind(" ", 0, room + 1)
        piece = piece[: cut if cut > room // 2 else room].rstrip()
        trail = "…"
    return visible(lead + piece + trail)


def passages(
    text: str, spans: np.ndarray, *, limit: int = 5, width: int = 60
) -> list[str]:
    """The longest ``limit`` of the character ``spans`` of ``text`` as lines
    ``"line L: «snippet»"`` (whole words, see :func:`snippet`), in document order."""
    if not len(spans):
        return []
    lengths = spans[:, 1] - spans[:, 0]
    keep = np.sort(np.argsort(-lengths, kind="stable")[:limit])
    lines = LineIndex(text)
    return [
        f"line {lines.line(int(spans[i, 0]))}: «{snippet(text, int(spans[i, 0]), int(spans[i, 1]), width)}»"
        for i in keep.tolist()
    ]


def _bits(n: int) -> str:
    return f"{n} bit{'' if n == 1 else 's'}"


def _signed(x: int) -> str:
    return f"{x:+d}"


def pair_report(
    e: PairExplanation,
    names: tuple[str, str],
    texts: tuple[str, str] | None = None,
    spans: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    max_bits: int = 64,
    limit: int = 5,
) -> list[str]:
    """A human report of ``e`` for documents named ``names``; with their decoded
    ``texts`` and the character ``spans`` only each has, the passages that differ."""
    name_a, name_b = (visible(n) for n in names)
    lines = [
        f"A  {e.fingerprint_a:016x}  {e.features_a:,} distinct features, weight {e.total_a:,}  {name_a}",
        f"B  {e.fingerprint_b:016x}  {e.features_b:,} distinct features, weight {e.total_b:,}  {name_b}",
        f"Distance {_bits(e.distance)} ({similarity_percent(e.distance)} similar); pipeline {e.pipeline}",
    ]
    union = e.features_a + e.features_b - e.shared
    share = e.shared / union if union else 1.0
    low, high = e.predicted_range
    lines.append(
        f"Shared features: {e.shared:,} of {union:,} ({share:.1%}); cosine of the weighted "
        f"features {e.cosine:.4f}"
    )
    lines.append(
        f"SimHash expects {e.predicted_distance:.1f} bits from that (90% range {low}-{high}): "
        f"{e.verdict}"
    )
    if not e.differing_bits:
        lines.append("No bit differs.")
    else:
        fragile = set(e.fragile_bits)
        lines.append(
            f"Differing bits: {' '.join(str(b) + ('*' if b in fragile else '') for b in e.differing_bits)}"
            f"  (* fragile: {len(fragile)} of {e.distance} were close votes)"
        )
    if texts is not None and spans is not None:
        for side, text, sp in (("A", texts[0], spans[0]), ("B", texts[1], spans[1])):
            chars = int((sp[:, 1] - sp[:, 0]).sum()) if len(sp) else 0
            lines.append("")
            if not len(sp):
                lines.append(f"Only in {side}: nothing (every feature of {side} is also in the other)")
                continue
            lines.append(f"Only in {side}: {len(sp)} passage(s), {chars:,} characters; the longest:")
            lines.extend("  " + p for p in passages(text, sp, limit=limit))
    index = (LineIndex(texts[0]), LineIndex(texts[1])) if texts is not None else None
    for b in e.bits[:max_bits]:
        lines.append("")
        flag = "  fragile" if b.fragile else ""
        lines.append(
            f"bit {b.bit:2d}: A={b.value_a} (margin {_signed(b.margin_a)}, {b.strength_a:+.2f}σ)  "
            f"B={b.value_b} (margin {_signed(b.margin_b)}, {b.strength_b:+.2f}σ){flag}"
        )
        lines.append(
            f"  gap {b.push_a + b.push_b + b.push_shared}: features only in A {_signed(b.push_a)}, "
            f"only in B {_signed(b.push_b)}, shared with other counts {_signed(b.push_shared)}"
        )
        for ev in b.evidence:
            where = f"chars {ev.char_span[0]}-{ev.char_span[1]}"
            if index is not None:
                where = f"line {index[0 if ev.side == 'a' else 1].line(ev.char_span[0])}"
            lines.append(
                f"  {ev.side.upper()} only ×{ev.weight}: «{visible(ev.text)}» ({where})"
            )
    if len(e.bits) > max_bits:
        lines.append(f"... {len(e.bits) - max_bits} more differing bit(s) (--bits to show more)")
    return lines


def format_table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> list[str]:
    """Right-aligned columns under ``header``."""
    cells = [[str(h) for h in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
