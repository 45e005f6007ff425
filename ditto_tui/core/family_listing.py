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

import numpy as np

from ditto_tui.core.clusters import Family

__all__ = ["FamilyListing"]


class FamilyListing(Sequence[Family]):
    """An immutable sequence of families in ditto's order: ``multi`` (families of 2+
    members: size descending, then by their first member), then one family per id of
    ``singles`` (sorted, code-point order). Equal to any sequence of the same families.

    ``multi`` and ``singles`` must not be modified after construction."""

    __slots__ = ("_family_of", "_notes", "_search", "multi", "singles")

    def __init__(self, multi: Sequence[Family] = (), singles: Sequence[str] = ()) -> None:
        self.multi: tuple[Family, ...] = tuple(multi)
        self.singles: Sequence[str] = singles
        self._family_of: dict[str, Family] | None = None
        self._search: _SearchText | None = None
        #: derived notes (see ``explore.view.listing_notes``): (key, centre -> note)
        self._notes: tuple[object, dict[str, str]] | None = None

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

    def prepare_search(self) -> None:
        """Build the search text (and its array) now, e.g. in a worker when the user
        opens the filter box, instead of at the first key typed."""
        if self._search is None:
            self._search = _SearchText(self)
        self._search.array()

    def rows_matching(self, needle: str, *, singletons: bool = True) -> list[int]:
        """Rows (in order) of the families with a member whose casefolded id contains
        ``needle`` (already casefolded; empty matches every row); only the families of
        2+ members unless ``singletons``. The search text is built once per listing."""
        if self._search is None:
            self._search = _SearchText(self)
        return self._search.rows(needle, len(self) if singletons else len(self.multi))


_SEP = "\0"  # never part of a file name
_NUMPY_STRINGS = hasattr(np, "strings") and hasattr(np.dtypes, "StringDType")  # numpy >= 2


class _SearchText:
    """Every member id of a listing, casefolded, as one text and as a numpy string
    array, with the row of each: substring search at C speed."""

    def __init__(self, listing: FamilyListing) -> None:
        folded = [m.casefold() for f in listing.multi for m in f.members]
        self.multi_members = len(folded)
        folded.extend(doc.casefold() for doc in listing.singles)
        self.folded = folded
        self.text = _SEP.join(folded)
        self.usable = self.text.count(_SEP) == max(0, len(folded) - 1)
        lengths = np.fromiter(map(len, folded), np.int64, len(folded))
        self.starts = np.cumsum(lengths + 1) - lengths - 1  # offset of every member
        sizes = np.fromiter((f.size for f in listing.multi), np.int64, len(listing.multi))
        self.row = np.concatenate(
            [
                np.repeat(np.arange(len(sizes), dtype=np.int64), sizes),
                np.arange(len(listing.singles), dtype=np.int64) + len(sizes),
            ]
        )
        self._array: np.ndarray | None = None

    def array(self) -> np.ndarray | None:
        """The member ids as a numpy string array (numpy >= 2; built once)."""
        if self._array is None and _NUMPY_STRINGS:
            self._array = np.array(self.folded, dtype=np.dtypes.StringDType())
        return self._array

    def rows(self, needle: str, rows: int) -> list[int]:
        n = int(np.searchsorted(self.row, rows, side="left"))  # members of those rows
        if not needle:
            return list(range(rows))
        if not self.usable or _SEP in needle:
            hits = [i for i in range(n) if needle in self.folded[i]]
            return sorted({int(self.row[i]) for i in hits})
        end = int(self.starts[n - 1]) + len(self.folded[n - 1]) if n else 0
        text = self.text
        if text.count(needle, 0, end) > max(256, n // 16):  # broad: test every member
            if not _NUMPY_STRINGS:  # numpy < 2
                folded = self.folded
                found = np.array([i for i in range(n) if needle in folded[i]], np.int64)
            else:
                array = self.array()
                assert array is not None
                found = np.flatnonzero(np.strings.find(array[:n], needle) >= 0)
        else:  # selective: jump from match to match
            positions = []
            at = text.find(needle, 0, end)
            while at >= 0:
                positions.append(at)
                stop = text.find(_SEP, at, end)
                if stop < 0:
                    break
                at = text.find(needle, stop + 1, end)
            found = np.searchsorted(self.starts, np.array(positions, np.int64), side="right") - 1
        hit_rows: np.ndarray = self.row[found]  # nondecreasing (members in row order)
        if len(hit_rows) > 1:
            hit_rows = hit_rows[np.concatenate(([True], hit_rows[1:] != hit_rows[:-1]))]
        found_rows: list[int] = hit_rows.tolist()
        return found_rows
