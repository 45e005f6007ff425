"""Document ids -> document slots, packed: a numpy open-addressing table over the ids' hashes.

A ``dict[str, int]`` costs about 68 bytes a document at 1M (the dict's entries plus an
int object per slot). :class:`IdMap` keeps the ids in one list indexed by slot (``names``,
``None`` for a free slot: a pointer a document) and a linear-probing table of int32
slots (5 bytes a document at a bulk build's load, 0.8; it grows past 0.85): an id's home
position comes from the top 32 bits of its ``hash()`` (cached on the str, so the table
needs no hash array), a lookup walks from there to the first empty cell comparing the
stored id strings. There is no wraparound (the table runs past its nominal capacity
instead), so a bulk build is one sort of the hashes and a running maximum, and a removal
shifts the entries of its run back (no tombstones). Hashes are per process: the table
is never saved.
"""

from __future__ import annotations

import sys

import numpy as np

from ditto_tui.core.index.radix import stable_order

__all__ = ["IdMap"]

_MASK64 = (1 << 64) - 1
_EMPTY = -1
_SLACK = 64  # cells past the last home position, so most runs end inside the array


def _cap_for(n: int) -> int:
    """Nominal capacity for ``n`` ids: load 0.8."""
    return max(64, n * 5 // 4)


def _homes(hashes: np.ndarray, cap: int) -> np.ndarray:
    """Home position of each (uint64) hash in a table of nominal capacity ``cap``:
    monotone in the hash, so sorting by hash sorts by home."""
    return (((hashes >> np.uint64(32)) * np.uint64(cap)) >> np.uint64(32)).astype(np.int64)


def _hashes(names: list[str]) -> np.ndarray:
    return np.fromiter(map(hash, names), np.int64, len(names)).view(np.uint64)


class IdMap:
    """Unique str ids -> int slots.

    Contract: ``names[slot]`` is the id held at ``slot`` (``None``: free); ``get(id)`` is
    the slot of ``id`` or ``None``; ``insert(id, slot)`` needs ``id`` absent and
    ``names[slot]`` set to it by the caller first (it is what lookups compare);
    ``discard(id)`` removes the id's table entry (the caller clears ``names``).
    ``IdMap.build(names)`` maps ``names[i] -> i`` for a list of *distinct* ids.
    """

    __slots__ = ("_cap", "_live", "names", "table")

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self._cap = _cap_for(0)
        self.table = np.full(self._cap + _SLACK, _EMPTY, np.int32)
        self._live = 0

    @classmethod
    def build(cls, names: list[str]) -> IdMap | None:
        """The map of ``names[i] -> i`` in one vectorised pass (one sort of the hashes);
        ``None`` if two names are equal. Keeps ``names`` (the list itself)."""
        out = cls()
        out.names = names  # type: ignore[assignment]  # str is a str | None
        slots = np.arange(len(names), dtype=np.int64)
        if not out._place(_hashes(names), slots, _cap_for(len(names)), check=True):
            return None
        return out

    def _place(self, hashes: np.ndarray, slots: np.ndarray, cap: int, *, check: bool = False
               ) -> bool:
        """Fill a fresh table of nominal capacity ``cap`` with ``slots`` (whose ids have
        ``hashes``): sorted by hash, each goes to its home or just after the previous one.
        With ``check``: ``False`` (and nothing placed) if two of those ids are equal."""
        n = len(slots)
        order = stable_order(hashes)
        hs = hashes[order]
        if check and n > 1 and not self._distinct(hs, slots[order]):
            return False
        home = _homes(hs, cap)
        rank = np.arange(n, dtype=np.int64)
        pos = np.maximum.accumulate(home - rank) + rank if n else home
        size = max(cap, int(pos[-1]) + 1 if n else 0) + _SLACK
        table = np.full(size, _EMPTY, np.int32)
        table[pos] = slots[order]
        self.table, self._cap, self._live = table, cap, n
        return True

    def _distinct(self, hs: np.ndarray, slots: np.ndarray) -> bool:
        """Whether the ids of ``slots`` (sorted by their hashes ``hs``) are distinct: only
        runs of equal hashes (the same id, or rarely a collision) are compared."""
        same = np.flatnonzero(hs[1:] == hs[:-1])
        if not len(same):
            return True
        names = self.names
        starts = same[np.append(True, same[1:] != same[:-1] + 1)]
        for start in starts.tolist():
            stop = start + 1
            while stop < len(hs) and hs[stop] == hs[start]:
                stop += 1
            run = [names[s] for s in slots[start:stop].tolist()]
            if len(set(run)) < len(run):
                return False
        return True

    def _home(self, id: str) -> int:
        return (((hash(id) & _MASK64) >> 32) * self._cap) >> 32

    def __len__(self) -> int:
        return self._live

    def __contains__(self, id: object) -> bool:
        if not isinstance(id, str):
            hash(id)  # as a dict: an unhashable key raises TypeError
            return False
        return self.get(id) is not None

    def _find(self, id: str) -> int:
        """Table position of ``id``, or -1."""
        table, names = self.table, self.names
        pos = self._home(id)
        end = len(table)
        while pos < end:
            slot = int(table[pos])
            if slot < 0:
                return -1
            if names[slot] == id:
                return pos
            pos += 1
        return -1

    def get(self, id: str) -> int | None:
        """The slot of ``id``, or ``None``."""
        pos = self._find(id)
        return None if pos < 0 else int(self.table[pos])

    def __getitem__(self, id: str) -> int:
        pos = self._find(id)
        if pos < 0:
            raise KeyError(id)
        return int(self.table[pos])

    def insert(self, id: str, slot: int) -> None:
        """Map ``id`` (absent; ``names[slot] == id``) to ``slot``."""
        if (self._live + 1) * 20 > self._cap * 17:  # load above 0.85: grow to about 0.7
            self._rehash((self._live + 1) * 9 // 8)
        pos = self._home(id)
        table = self.table
        while pos < len(table) and table[pos] >= 0:
            pos += 1
        if pos >= len(table):
            table = self.table = np.append(table, np.full(_SLACK, _EMPTY, np.int32))
        table[pos] = slot
        self._live += 1

    def discard(self, id: str) -> int | None:
        """Remove ``id``; its slot, or ``None`` if it was absent. The entries after it in
        its run that may move back do (backward-shift deletion: no tombstones)."""
        hole = self._find(id)
        if hole < 0:
            return None
        table, names = self.table, self.names
        slot = int(table[hole])
        j, end = hole + 1, len(table)
        while j < end:
            other = int(table[j])
            if other < 0:
                break
            if self._home(names[other]) <= hole:  # type: ignore[arg-type]  # live slot
                table[hole] = other
                hole = j
            j += 1
        table[hole] = _EMPTY
        self._live -= 1
        return slot

    def _rehash(self, need: int) -> None:
        """A fresh table sized for ``need`` ids, holding the live ones."""
        names = self.names
        live = [i for i in names if i is not None]
        slots = np.array([s for s, i in enumerate(names) if i is not None], np.int64)
        self._place(_hashes(live), slots, _cap_for(need))

    @property
    def nbytes(self) -> int:
        """Bytes held: the table and the list of names (not the id strings)."""
        return self.table.nbytes + sys.getsizeof(self.names)
