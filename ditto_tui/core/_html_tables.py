"""The constant tables and work arrays of the compiled html-distance kernel (numpy only).

Both ways of running the kernel use them: numba's dispatchers (``_html_kernel``) and its
machine code loaded without numba (``native``).
"""

from __future__ import annotations

import numpy as np

from ditto_tui.core import datafiles
from ditto_tui.core._ditto_tables import SPREAD

__all__ = ["ATOM_FLAT", "ATOM_STARTS", "SLOTS_TABLE", "SPREAD", "atom_table"]

_NEEDS_PYTHON = 1
_MORE_ATTRS = 2  # a tag has more attributes than ``attrs`` holds: call again, larger
_MORE_ROOM = 3  # the features do not fit ``feat`` or ``fstart``: call again, larger
_ATTRS = 64  # kept attributes per tag the first call has room for
_SLOTS = 1024  # atom hash table size (a power of two, > 2x the atoms)


def _fnv1a_py(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def atom_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(slots, flat names, starts): open addressing on FNV-1a of the name, -1 = empty."""
    names = datafiles.html_atoms()
    flat = np.frombuffer(b"".join(names), dtype=np.uint8).copy()
    starts = np.cumsum([0] + [len(x) for x in names]).astype(np.int64)
    slots = np.full(_SLOTS, -1, dtype=np.int64)
    for i, name in enumerate(names):
        s = _fnv1a_py(name) & (_SLOTS - 1)
        while slots[s] != -1:
            s = (s + 1) & (_SLOTS - 1)
        slots[s] = i
    return slots, flat, starts


SLOTS_TABLE, ATOM_FLAT, ATOM_STARTS = atom_table()


class _Scratch:
    """The kernel's work arrays for one page; ``grown`` enlarges the one a status asks for."""

    def __init__(self, size: int, attrs: int = _ATTRS, room: int = 0) -> None:
        # Most pages fit the first time: features take fewer bytes than the page.
        room = room or 512 + size
        self.arrays = (np.empty((attrs, 4), dtype=np.int64), np.empty(room, dtype=np.uint8),
                       np.empty(1 + room // 4, dtype=np.int64))

    def fits(self, size: int) -> bool:
        """True when a page of ``size`` bytes gets the room a new scratch would give it."""
        return self.arrays[1].size >= 512 + size

    def grown(self, status: int) -> bool:
        """True when ``status`` asked for larger arrays (now in place: call again)."""
        attrs, feat, fstart = self.arrays
        if status == _MORE_ATTRS:
            self.arrays = (np.empty((4 * len(attrs), 4), dtype=np.int64), feat, fstart)
        elif status == _MORE_ROOM:
            self.arrays = (attrs, np.empty(4 * feat.size, dtype=np.uint8),
                           np.empty(4 * fstart.size, dtype=np.int64))
        else:
            return False
        return True

    def features(self, count: int) -> list[bytes]:
        """The first ``count`` features the kernel wrote, as bytes."""
        _, feat, fstart = self.arrays
        raw = feat.tobytes()
        return [raw[fstart[i] : fstart[i + 1]] for i in range(count)]
