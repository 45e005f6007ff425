"""The constant tables the compiled ditto/2 kernel reads (numpy only: no numba here).

Both ways of running the kernel pass them in: numba's dispatchers
(``_ditto_kernel``) and its machine code loaded without numba (``native``).
"""

from __future__ import annotations

import numpy as np

from ditto_tui.core.normalize import _ascii_table, _code_point_table

__all__ = ["ASCII_MAP", "PAIRS", "SPREAD", "TABLE", "pair_table", "spread_table"]

_PRIME = np.uint64(0x100000001B3)


def spread_table() -> np.ndarray:
    """uint64[256]: byte k of entry v is bit k of v."""
    v = np.arange(256, dtype=np.uint64)
    out = np.zeros(256, dtype=np.uint64)
    for k in range(8):
        out |= ((v >> np.uint64(k)) & np.uint64(1)) << np.uint64(8 * k)
    return out


def pair_table() -> np.ndarray:
    """uint64[65536]: the FNV-1a 64 state after the two bytes ``i >> 8`` and ``i & 255``."""
    first = (np.uint64(0xCBF29CE484222325) ^ np.arange(256, dtype=np.uint64)) * _PRIME
    return ((first[:, None] ^ np.arange(256, dtype=np.uint64)[None, :]) * _PRIME).ravel()


#: uint8[128]: A-Z to a-z, ASCII whitespace to 0x20, other bytes to themselves.
ASCII_MAP = np.frombuffer(_ascii_table()[:128], dtype=np.uint8).copy()
#: uint32: code point to its normalized code point (lowercase; whitespace to 0x20).
TABLE = _code_point_table()
SPREAD = spread_table()
PAIRS = pair_table()
