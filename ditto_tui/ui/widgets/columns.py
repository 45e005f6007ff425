"""Fitting DataTable columns to the width available, so tables never need a horizontal
scrollbar: fixed columns keep their width, flexible ones share the rest by weight, and
optional columns are dropped first when the table is narrow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CELL_PADDING = 1  # DataTable's default cell_padding on each side of a cell


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """``width`` is the fixed width, or the minimum of a flexible column (``weight > 0``);
    ``optional`` columns are left out when the others would fall below their minimum."""

    key: str
    label: str
    width: int
    weight: int = 0
    optional: bool = False


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
        chosen.remove(optional[-1])
    weights = sum(s.weight for s in chosen) or 1
    spare = max(0, spare)
    out = []
    given = 0
    flexible = [s for s in chosen if s.weight > 0]
    for spec in chosen:
        if spec.weight == 0:
            out.append((spec, spec.width))
            continue
        extra = spare * spec.weight // weights
        if spec is flexible[-1]:
            extra = spare - given
        given += extra
        out.append((spec, spec.width + extra))
    return out
