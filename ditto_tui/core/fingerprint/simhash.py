"""SimHash fingerprints: the 64-bit value, its distance, and Charikar's sum.

A fingerprint is an unsigned 64-bit integer. Two documents are near-duplicates when the
Hamming distance between their fingerprints is small. ``charikar_sum`` and ``BitTally``
fold feature hashes into a fingerprint exactly as Go ditto's ``Sum`` does with
occurrence-count weights: bit i is 1 iff ``2 * S_i > W``, where W is the number of
hashes and S_i the number of them with bit i set (a tie gives 0).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

import numpy as np

__all__ = [
    "BitTally",
    "Fingerprint",
    "as_fingerprint",
    "as_fingerprint_array",
    "charikar_sum",
    "distance",
    "popcount64",
    "similarity_percent",
]

_MASK64 = (1 << 64) - 1
_HEX = re.compile(r"[0-9a-fA-F]{1,16}")
_HEX16 = re.compile(r"[0-9a-fA-F]{16}")


class Fingerprint(int):
    """A 64-bit SimHash, an ``int`` in ``[0, 2**64)``; ``str()`` gives 16 lowercase hex digits.

    Constructing one from an int outside that range raises ``ValueError`` (a negative
    value is never reinterpreted: use ``from_signed`` for SQLite-style signed storage),
    from anything but an integer ``TypeError`` (parse text with ``from_hex``).
    """

    __slots__ = ()

    def __new__(cls, value: int = 0) -> Fingerprint:
        if type(value) is not int:
            if isinstance(value, str):
                raise TypeError(
                    f"Fingerprint({value!r}): text is parsed with Fingerprint.from_hex"
                )
            value = operator.index(value)  # ints and numpy integers only: no str, no float
        if not 0 <= value <= _MASK64:
            raise ValueError(f"fingerprint out of unsigned 64-bit range: {value}")
        return int.__new__(cls, value)

    @classmethod
    def from_hex(cls, text: str) -> Fingerprint:
        """Parse 1 to 16 hex digits (either case, no prefix, no spaces); ValueError otherwise."""
        if not isinstance(text, str) or _HEX.fullmatch(text) is None:
            raise ValueError(f"not a fingerprint (1-16 hex digits): {text!r}")
        return cls(int(text, 16))

    @classmethod
    def from_signed(cls, value: int) -> Fingerprint:
        """Undo ``to_signed``: map a signed 64-bit integer back to the unsigned fingerprint."""
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError(f"not a signed 64-bit integer: {value}")
        return cls(value & _MASK64)

    def to_signed(self) -> int:
        """The same 64 bits as a signed integer (two's complement), for SQLite INTEGER columns."""
        return int(self) - (1 << 64) if self >= (1 << 63) else int(self)

    @property
    def hex(self) -> str:
        """16 lowercase hex digits, zero-padded (Go ``%016x``)."""
        return format(int(self), "016x")

    def __str__(self) -> str:
        return self.hex

    def __repr__(self) -> str:
        return f"Fingerprint(0x{self.hex})"

    def distance(self, other: int | str) -> int:
        """Hamming distance to ``other`` (0 = identical); ``other`` is checked as
        :func:`as_fingerprint` does."""
        return (int(self) ^ as_fingerprint(other, "other")).bit_count()

    def similarity(self, other: int | str) -> float:
        """``1 - distance / 64``: 1.0 for identical fingerprints, 0.0 for complements."""
        return 1.0 - self.distance(other) / 64

    def near(self, other: int | str, k: int) -> bool:
        """True when ``other`` is within ``k`` bits (a negative k is never near)."""
        return self.distance(other) <= k


def as_fingerprint(value: object, what: str = "fingerprint") -> int:
    """``value`` as a fingerprint (a plain ``int`` in ``[0, 2**64)``), or a clear error.

    The one check of every public function that takes a fingerprint. Accepted: an
    ``int`` in range (a :class:`Fingerprint`, a numpy integer), or a string of exactly
    16 hex digits, either case, as fingerprints are printed (Go's ``%016x``). Anything
    else raises, naming ``what`` and the value: ``ValueError`` for an integer out of
    range (never wrapped) or another string (``Fingerprint.from_hex`` parses 1 to 16
    digits), ``TypeError`` for other types (``bool``, ``float``, ``bytes``, ...).
    """
    if type(value) is int or type(value) is Fingerprint:
        number = int(value)
    elif isinstance(value, str):
        if _HEX16.fullmatch(value):
            return int(value, 16)
        raise ValueError(
            f"{what} {value!r} is not 16 hex digits (a fingerprint as printed); "
            "parse other spellings with Fingerprint.from_hex (1 to 16 hex digits, no prefix)"
        )
    elif isinstance(value, bool):
        raise TypeError(f"{what} must be an int in [0, 2**64) or 16 hex digits, not a bool")
    else:
        try:
            number = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(
                f"{what} must be an int in [0, 2**64) or 16 hex digits, "
                f"not {type(value).__name__}: {value!r}"
            ) from None
    if not 0 <= number <= _MASK64:
        hint = " (Fingerprint.from_signed reads a signed 64-bit value)" if number < 0 else ""
        raise ValueError(f"{what} out of unsigned 64-bit range [0, 2**64): {number}{hint}")
    return number


def as_fingerprint_array(values: object, what: str = "fingerprints") -> np.ndarray:
    """``values`` (a numpy array or any iterable of fingerprints) as a ``uint64`` array of
    the same shape, each element checked as :func:`as_fingerprint` does: never wrapped,
    never cast from floats or bools. An empty input gives an empty array.
    """
    if isinstance(values, str | bytes | bytearray | memoryview):
        raise TypeError(f"{what} must be an array or a list of fingerprints, not one "
                        f"{type(values).__name__}")
    if isinstance(values, np.ndarray):
        arr = values
    else:
        items = values if isinstance(values, list | tuple) else list(values)  # type: ignore[call-overload]
        if items and set(map(type, items)) <= _PLAIN_INTS and min(items) >= 0 and max(items) <= _MASK64:
            return np.array(items, dtype=np.uint64)
        # numpy would guess a dtype (float64 for [1, 2**64 - 1]): check each element
        arr = np.empty(len(items), dtype=object)
        arr[:] = items
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.uint64)
    kind = arr.dtype.kind
    if kind == "u":
        return arr.astype(np.uint64, copy=False)
    if kind == "i":
        negative = arr < 0
        if negative.any():
            as_fingerprint(int(arr[negative].flat[0]), f"{what}[{_first(negative)}]")
        return arr.astype(np.uint64)
    if kind in "OU":
        flat = arr.ravel()
        try:
            out = np.fromiter(map(as_fingerprint, flat.tolist()), np.uint64, len(flat))
        except (TypeError, ValueError):
            for i, v in enumerate(flat.tolist()):  # the first bad element, by position
                as_fingerprint(v, f"{what}[{i}]" if arr.ndim == 1 else what)
            raise
        return out.reshape(arr.shape)
    raise TypeError(f"{what} must hold integers in [0, 2**64) or 16-hex-digit strings, "
                    f"not {arr.dtype} values")


_PLAIN_INTS = {int, Fingerprint}


def _first(mask: np.ndarray) -> str:
    """The position of the first true element of ``mask``, as an index is written."""
    return ", ".join(str(int(i)) for i in np.argwhere(mask)[0])


def distance(a: int, b: int) -> int:
    """Hamming distance between two 64-bit fingerprints: ``popcount(a ^ b)`` (internal:
    values are taken as they are; the public ``ditto_tui.distance`` checks them)."""
    return ((int(a) ^ int(b)) & _MASK64).bit_count()


def similarity_percent(d: int) -> str:
    """Similarity for a distance ``d`` as html-distance shows it: two decimals, e.g. d=2 -> "96.88%"."""
    return f"{(1.0 - d / 64) * 100:.2f}%"


_BITWISE_COUNT: Callable[..., np.ndarray] | None = getattr(np, "bitwise_count", None)  # numpy>=2


def popcount64(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Vectorised popcount of a uint64 array (same shape, small unsigned ints); written
    into the uint8 array ``out`` (same shape) when given."""
    a = np.asarray(a, dtype=np.uint64)
    if _BITWISE_COUNT is not None:
        return _BITWISE_COUNT(a) if out is None else _BITWISE_COUNT(a, out=out)
    if out is not None:
        out[...] = popcount64(a)
        return out
    x = a - ((a >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    counts: np.ndarray = ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.uint8)
    return counts


# Vertical (per bit position) counting. Short arrays go straight to 8-bit SWAR fields:
# rows of at most 255 words, each byte of a row sum counting one bit position. Longer
# ones first pass through a carry-save adder tree that halves the array at each level,
# keeping the partial sums bit-sliced (plane j holds the 2**j digit of every column).
_FIELD_MAX = 255  # words summed into one 8-bit field without overflow
_DIRECT_MAX = 8 * _FIELD_MAX  # longer arrays go through the adder tree first
_LOW_BYTES = np.uint64(0x0101010101010101)
_SHIFTS8 = np.arange(8, dtype=np.uint64)[:, None]


def _row_counts(rows: np.ndarray) -> np.ndarray:
    """Per-bit counts (int64, shape (R, 64)) of each row of an (R, L<=255) uint64 array."""
    # fields[r, s] holds, in byte k, the number of words of row r with bit 8k+s set
    fields = ((rows[:, None, :] >> _SHIFTS8) & _LOW_BYTES).sum(axis=2, dtype=np.uint64)
    counts: np.ndarray = (
        fields.view(np.uint8).reshape(-1, 8, 8).transpose(0, 2, 1).reshape(-1, 64).astype(np.int64)
    )
    return counts


def _tree_counts(words: np.ndarray) -> np.ndarray:
    """Per-bit counts (int64[64]) of a uint64 array of length L * 2**k, L <= 255 (left unchanged)."""
    planes = [words]
    while len(planes[0]) > _FIELD_MAX:
        half = len(planes[0]) // 2
        a, b = planes[0][:half], planes[0][half:]
        carry = a & b
        summed = [a ^ b]  # new arrays: the levels below only overwrite arrays of their own
        scratch = np.empty(half, dtype=np.uint64)
        for plane in planes[1:]:
            a, b = plane[:half], plane[half:]
            np.bitwise_xor(a, b, out=scratch)  # t = a ^ b
            b &= a  # a & b
            np.bitwise_xor(scratch, carry, out=a)  # digit: t ^ carry
            scratch &= carry
            b |= scratch  # carry out: (a & b) | (t & carry)
            summed.append(a)
            carry = b
        summed.append(carry)
        planes = summed
    weights = np.left_shift(np.int64(1), np.arange(len(planes), dtype=np.int64))
    counts: np.ndarray = weights @ _row_counts(np.stack(planes))
    return counts


class BitTally:
    """Running Charikar sum over feature-hash occurrences, fed in chunks.

    ``add`` accepts any number of uint64 hashes (each one occurrence of weight 1);
    ``fingerprint`` folds everything added so far. Counts are exact for any total.
    """

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = np.zeros(64, dtype=np.int64)
        self.total = 0

    def add(self, hashes: np.ndarray) -> None:
        """Count one occurrence of each hash in a 1-D uint64 array (left unchanged)."""
        n = len(hashes)
        if n == 0:
            return
        self.total += n
        if n <= _DIRECT_MAX:
            rows = -(-n // _FIELD_MAX)
            words = np.zeros(rows * _FIELD_MAX, dtype=np.uint64)  # zeros add no set bits
            words[:n] = hashes
            self.counts += _row_counts(words.reshape(rows, _FIELD_MAX)).sum(axis=0)
            return
        halvings = (-(-n // _FIELD_MAX) - 1).bit_length()  # fewest k with n <= 255 * 2**k
        size = -(-n >> halvings) << halvings  # pad to the next multiple of 2**k
        if size == n:
            words = np.ascontiguousarray(hashes, dtype=np.uint64)
        else:
            words = np.zeros(size, dtype=np.uint64)
            words[:n] = hashes
        self.counts += _tree_counts(words)

    def fingerprint(self) -> Fingerprint:
        """Bit i set iff twice the count of hashes with bit i exceeds the total."""
        bits = np.packbits(2 * self.counts > self.total, bitorder="little")
        return Fingerprint(int.from_bytes(bits.tobytes(), "little"))


def charikar_sum(hashes: np.ndarray) -> Fingerprint:
    """Fingerprint of a uint64 hash array, each element one occurrence of weight 1.

    An empty array gives 0 (Featurizer never sums an empty feature list: see its fallback).
    """
    tally = BitTally()
    tally.add(np.asarray(hashes, dtype=np.uint64))
    return tally.fingerprint()
