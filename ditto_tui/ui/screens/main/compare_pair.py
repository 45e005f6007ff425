"""Which two documents the main screen compares, and how marks are kept: pure rules over
the marks, the highlighted member and the selected family.

Marks belong to the family they were made in: only the marks among the selected family's
members act (:func:`marks_in`), and a mark made in another family replaces them.

O(family size) at most (:func:`nearest_other`, :func:`marks_in`), for the family on
screen only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ditto_tui.core.families.clusters import FamilyLike

__all__ = ["MAX_MARKS", "compare_pair", "marks_in", "nearest_other", "toggle_mark"]

#: two marks are a pair to compare
MAX_MARKS = 2


def compare_pair(
    marked: list[str],
    current: str | None,
    family: FamilyLike | None,
    fingerprints: Mapping[str, int],
) -> tuple[str, str] | None:
    """The two documents `c` compares: the two ``marked`` ones, or the marked one and the
    highlighted one (``current``), or the two members of a two-member ``family``, or the
    family's representative and the highlighted member, or the representative and the
    member nearest to it. None when none of these makes a pair (one mark on the
    highlighted member itself, no family, a family of one)."""
    if len(marked) == 2:
        return marked[0], marked[1]
    if len(marked) == 1 and current and current != marked[0]:
        return marked[0], current
    if marked or family is None:
        return None
    if family.size == 2:
        return family.members[0], family.members[1]
    if current and current != family.centre:
        return family.centre, current
    if family.size > 1:
        return family.centre, nearest_other(family, fingerprints)
    return None


def nearest_other(family: FamilyLike, fingerprints: Mapping[str, int]) -> str:
    """The member closest to the representative (ties by id), itself excluded; a member
    without a fingerprint counts as 0. ``family`` has at least two members."""
    centre_fp = fingerprints.get(family.centre, 0)
    others = [m for m in family.members if m != family.centre]
    return min(others, key=lambda m: ((fingerprints.get(m, 0) ^ centre_fp).bit_count(), m))


def marks_in(marked: Sequence[str], family: FamilyLike | None) -> list[str]:
    """The marks that act in ``family``: those of ``marked`` among its members, oldest
    first (none without a family). O(len(marked) x family size)."""
    if not marked or family is None:
        return []
    members = family.members
    return [doc_id for doc_id in marked if doc_id in members]


def toggle_mark(marked: list[str], doc_id: str) -> str | None:
    """Mark ``doc_id`` or unmark it (``marked``, the marks of its family, changes in
    place). A third mark means the user moved on: the oldest goes and is returned, for
    the notice that says so; else None."""
    if doc_id in marked:
        marked.remove(doc_id)
        return None
    marked.append(doc_id)
    if len(marked) > MAX_MARKS:
        return marked.pop(0)
    return None
