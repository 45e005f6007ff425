"""ditto's fingerprint lines (``<16 hex>\\t<id>``) for the messages of one mbox, made with
numpy instead of one Python string per message."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["message_lines"]

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_NIBBLES = np.arange(60, -4, -4, dtype=np.uint64)  # shifts of the 16 hex digits, first first
#: Bytes of lines made at once (bounds the work arrays whatever the name's length).
_PIECE_BYTES = 1 << 20


def message_lines(base: bytes, fps: Sequence[int] | np.ndarray) -> bytes:
    """``b"%016x\\t%s#%d\\n" % (fp, base, i)`` for the i-th fingerprint of ``fps``, i from 1:
    the lines of the messages ``base#1``, ``base#2``, ... (``base``: the mbox's id, escaped
    and encoded as the caller writes ids). Lines whose numbers have the same count of
    digits have the same width, so they are built as rows of one array, a piece at a time.
    """
    values = np.asarray(fps, dtype=np.uint64)
    prefix = np.frombuffer(b"\t" + base + b"#", dtype=np.uint8)
    pieces = []
    first, digits = 1, 1
    while first <= values.size:
        width = 16 + prefix.size + digits + 1
        last = min(values.size, 10**digits - 1, first - 1 + max(1, _PIECE_BYTES // width))
        rows = np.empty((last - first + 1, width), dtype=np.uint8)
        rows[:, :16] = _HEX[(values[first - 1 : last, None] >> _NIBBLES) & np.uint64(15)]
        rows[:, 16 : 16 + prefix.size] = prefix
        numbers = np.arange(first, last + 1)
        for column in range(width - 2, width - 2 - digits, -1):  # the last digit first
            rows[:, column] = 48 + numbers % 10
            numbers //= 10
        rows[:, -1] = 10
        pieces.append(rows.tobytes())
        first = last + 1
        if first > 10**digits - 1:
            digits += 1
    return b"".join(pieces)
