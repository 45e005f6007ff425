"""Short notes that say what a family is when that is trivial, or when its grouping misleads.

:func:`family_note` looks at one :class:`~ditto_tui.core.families.clusters.Family` and returns a few
words for the family list, or None:

- ``"empty files"``: every member is an empty document (their fingerprints are equal, so
  such a family is no discovery at all);
- ``"identical fingerprints"``: every member is at distance 0 from every other. Not
  "identical copies": the ditto pipeline folds case, punctuation and whitespace, and the
  html pipeline reads only tags, so equal fingerprints mean equal features, not equal
  bytes;
- ``"diameter D ≫ k=K: try star grouping"``: a chain family (single linkage: members
  joined through others) whose two farthest members are more than ``2k`` and more than
  ``k + 4`` bits apart. Such a family is a drift, A~B~C~...~Z, where the ends have little
  in common; star grouping keeps every member within ``k`` of one centre. Both bounds are
  needed: ``2k`` alone fires on tiny k (diameter 3 at k=1 is a fine family), ``k + 4``
  alone on large k (diameter 14 at k=10 is ordinary). Only an exact diameter counts (a
  large family's bound could raise a false alarm).

Pure: the caller passes the members' sizes in bytes (the corpus knows them).
"""

from __future__ import annotations

from collections.abc import Sequence

from ditto_tui.core.families.clusters import Family

__all__ = ["EMPTY", "IDENTICAL", "chain_too_wide", "family_note", "star_hint"]

EMPTY = "empty files"
IDENTICAL = "identical fingerprints"


def chain_too_wide(diameter: int, k: int) -> bool:
    """True when a chain family of this (exact) diameter at this k deserves the star hint:
    ``diameter > 2k`` and ``diameter > k + 4``."""
    return diameter > 2 * k and diameter > k + 4


def star_hint(diameter: int, k: int) -> str:
    """The note of a chain family too wide for its k."""
    return f"diameter {diameter} ≫ k={k}: try star grouping"


def family_note(
    family: Family, *, k: int, mode: str, sizes: Sequence[int] | None = None
) -> str | None:
    """A few words about ``family`` when it is trivial or too wide, else None.

    ``k`` and ``mode`` (``"chain"`` or ``"star"``) are those the family was grouped with;
    ``sizes`` are the members' sizes in bytes, in ``family.members`` order (without them
    no family is called empty). Checked in order: empty files, identical fingerprints,
    the star hint (chain mode only). A single-member family gets no note.
    """
    if family.size < 2:
        return None
    if sizes is not None:
        if len(sizes) != family.size:
            raise ValueError(f"{len(sizes)} sizes for {family.size} members")
        if all(s == 0 for s in sizes):
            return EMPTY
    if family.diameter == 0 and family.diameter_exact:
        return IDENTICAL
    if mode == "chain" and family.diameter_exact and chain_too_wide(family.diameter, k):
        return star_hint(family.diameter, k)
    return None
