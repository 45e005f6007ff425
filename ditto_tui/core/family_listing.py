"""Every family at one k, held compactly: :class:`FamilyListing`.

Most documents of a large corpus are alone at small k. A listing keeps the families of 2+
members as :class:`~ditto_tui.core.clusters.Family` objects and the singletons as their
ids only (one reference each); a singleton's ``Family`` is made when it is read. At a
million documents this is the difference between about 8 bytes and about 250 bytes per
singleton, for every k and mode kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from ditto_tui.core.clusters import Family

__all__ = ["FamilyListing"]


class FamilyListing(Sequence[Family]):
    """An immutable sequence of families in ditto's order: ``multi`` (families of 2+
    members: size descending, then by their first member), then one family per id of
    ``singles`` (sorted, code-point order). Equal to any sequence of the same families.

    ``multi`` and ``singles`` must not be modified after construction."""

    __slots__ = ("_family_of", "multi", "singles")

    def __init__(self, multi: Sequence[Family] = (), singles: Sequence[str] = ()) -> None:
        self.multi: tuple[Family, ...] = tuple(multi)
        self.singles: Sequence[str] = singles
        self._family_of: dict[str, Family] | None = None

    @property
    def multi_count(self) -> int:
        """Number of families of 2+ members (a prefix of the listing)."""
        return len(self.multi)

    def __len__(self) -> int:
        return len(self.multi) + len(self.singles)

    @overload
    def __getitem__(self, index: int) -> Family: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Family]: ...

    def __getitem__(self, index: int | slice) -> Family | Sequence[Family]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            n_multi = len(self.multi)
            if step == 1 and stop <= n_multi:
                return self.multi[start:stop]
            if step == 1 and start >= n_multi and stop >= start:
                return FamilyListing((), self.singles[start - n_multi : stop - n_multi])
            return tuple(self[i] for i in range(start, stop, step))
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("family index out of range")
        n_multi = len(self.multi)
        if index < n_multi:
            return self.multi[index]
        doc = self.singles[index - n_multi]
        return Family((doc,), doc, 0)

    def __iter__(self) -> Iterator[Family]:
        yield from self.multi
        for doc in self.singles:
            yield Family((doc,), doc, 0)

    def __bool__(self) -> bool:
        return bool(self.multi) or bool(self.singles)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FamilyListing):
            return self.multi == other.multi and list(self.singles) == list(other.singles)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FamilyListing({len(self.multi)} families of 2+, {len(self.singles)} singletons)"

    def family_of(self) -> dict[str, Family]:
        """Member -> family for the families of 2+ members (built once, on first use)."""
        if self._family_of is None:
            self._family_of = {m: f for f in self.multi for m in f.members}
        return self._family_of

    def take_family_of(self) -> dict[str, Family]:
        """:meth:`family_of`, handed over: this listing forgets it (for a successor
        listing that updates it in place; rebuilt here if asked again)."""
        got = self.family_of()
        self._family_of = None
        return got
