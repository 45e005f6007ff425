"""Fitting DataTable columns to the width available, so tables never need a horizontal
scrollbar: fixed columns keep their width, flexible ones share the rest by weight, and
optional columns are dropped first when the table is narrow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CELL_PADDING = 1  # DataTable's default cell_padding on each side of a cell
MIN_FLEX = 4  # a flexible column never gets narrower than this


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """``width`` is the fixed width, or the minimum of a flexible column (``weight > 0``);
    ``optional`` columns are left out when the others would fall below their minimum."""

    key: str
    label: str
    width: int
    weight: int = 0
    optional: bool = False
    max_width: int = 0  # a flexible column grows no wider than this (0: no limit)
    drop: int = 0  # among optional columns, the highest ``drop`` goes first (ties: the last)


def fit_columns(specs: Sequence[ColumnSpec], total: int) -> list[tuple[ColumnSpec, int]]:
    """The columns to show and their widths for ``total`` cells of table width."""
    chosen = list(specs)
    while True:
        padding = 2 * CELL_PADDING * len(chosen)
        fixed = sum(s.width for s in chosen if s.weight == 0)
        minimum = sum(s.width for s in chosen if s.weight > 0)
        spare = total - padding - fixed - minimum
        optional = [s for s in chosen if s.optional]
        if spare >= 0 or not optional:
            break
        chosen.remove(max(reversed(optional), key=lambda s: s.drop))
    widths = {s.key: s.width for s in chosen}
    flexible = [s for s in chosen if s.weight > 0]
    while spare < 0 and any(widths[s.key] > MIN_FLEX for s in flexible):
        # still too wide with every optional column gone: flexible columns give way
        widest = max(flexible, key=lambda s: widths[s.key])
        widths[widest.key] -= 1
        spare += 1
    spare = max(0, spare)
    growing = [s for s in chosen if s.weight > 0]
    while spare > 0 and growing:  # share by weight; a capped column gives back the rest
        weights = sum(s.weight for s in growing)
        given = 0
        for index, spec in enumerate(growing):
            extra = spare * spec.weight // weights
            if index == len(growing) - 1:
                extra = spare - given
            if spec.max_width:
                extra = min(extra, spec.max_width - widths[spec.key])
            widths[spec.key] += extra
            given += extra
        spare -= given
        capped = [s for s in growing if s.max_width and widths[s.key] >= s.max_width]
        if not capped and given == 0:
            break
        growing = [s for s in growing if s not in capped]
        if not capped:
            break
    return [(spec, widths[spec.key]) for spec in chosen]
