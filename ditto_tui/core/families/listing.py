"""Every family at one k, held compactly: :class:`FamilyListing`.

Most documents of a large corpus are alone at small k. A listing keeps the families of 2+
members as :class:`~ditto_tui.core.families.clusters.Family` objects and the singletons as their
ids only (one reference each); a singleton's ``Family`` is made when it is read. At a
million documents this is the difference between about 8 bytes and about 250 bytes per
singleton, for every k and mode kept.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from ditto_tui.core.families.clusters import Family

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
        """Build the search text now, e.g. in a worker when the user opens the filter
        box, instead of at the first key typed."""
        if self._search is None:
            self._search = _SearchText(self)

    def rows_matching(self, needle: str, *, singletons: bool = True) -> list[int]:
        """Rows (in order) of the families with a member whose casefolded id contains
        ``needle`` (already casefolded; empty matches every row); only the families of
        2+ members unless ``singletons``. The search text is built once per listing."""
        if self._search is None:
            self._search = _SearchText(self)
        return self._search.rows(needle, len(self) if singletons else len(self.multi))


_SEP = "\0"  # never part of a file name


def _utf8(text: str) -> bytes:
    # (ids may hold lone surrogates: undecodable file names; they encode consistently)
    return text.encode("utf-8", "surrogatepass")


class _SearchText:
    """Every member id of a listing, casefolded, as one UTF-8 byte array (ids separated
    by ``_SEP``), with the offset and the row of each: substring search in numpy.

    In UTF-8 a code point's first byte is never one of another's following bytes, so
    the needle's bytes match only where its characters do: a byte search is the
    substring search."""

    def __init__(self, listing: FamilyListing) -> None:
        folded = [m.casefold() for f in listing.multi for m in f.members]
        folded.extend(doc.casefold() for doc in listing.singles)
        text = _SEP.join(folded)
        usable = text.count(_SEP) == max(0, len(folded) - 1)  # no id holds the separator
        #: the ids, kept only when one holds the separator (then searched one by one)
        self.folded: list[str] | None = None if usable else folded
        self.data = np.frombuffer(_utf8(text), np.uint8)
        separators = np.flatnonzero(self.data == 0)
        self.starts = np.concatenate(([0], separators + 1)).astype(np.int64)  # byte offsets
        sizes = np.fromiter((f.size for f in listing.multi), np.int64, len(listing.multi))
        self.row = np.concatenate(
            [
                np.repeat(np.arange(len(sizes), dtype=np.int64), sizes),
                np.arange(len(listing.singles), dtype=np.int64) + len(sizes),
            ]
        )

    def rows(self, needle: str, rows: int) -> list[int]:
        n = int(np.searchsorted(self.row, rows, side="left"))  # members of those rows
        if not needle:
            return list(range(rows))
        if self.folded is not None:
            folded = self.folded
            return sorted({int(self.row[i]) for i in range(n) if needle in folded[i]})
        if not n or _SEP in needle:  # (no id holds the separator)
            return []
        end = int(self.starts[n]) - 1 if n < len(self.starts) else len(self.data)
        pattern = np.frombuffer(_utf8(needle), np.uint8)
        if len(pattern) > end:
            return []
        data = self.data
        # where the first byte is, then keep those followed by the next byte, and so on
        at = np.flatnonzero(data[: end - len(pattern) + 1] == pattern[0])
        for offset in range(1, len(pattern)):
            if not len(at):
                break
            at = at[data[at + offset] == pattern[offset]]
        found = np.searchsorted(self.starts, at, side="right") - 1  # member of each match
        hit_rows: np.ndarray = self.row[found]  # nondecreasing (members in row order)
        if len(hit_rows) > 1:
            hit_rows = hit_rows[np.concatenate(([True], hit_rows[1:] != hit_rows[:-1]))]
        found_rows: list[int] = hit_rows.tolist()
        return found_rows
