"""Text to features to fingerprint: the ditto/2 shingling, bit-exact with Go ditto's Featurizer.

A document's features are the FNV-1a 64 hashes of the UTF-8 bytes of its shingles:
every window of ``char_n`` consecutive code points of the normalized text, and every
window of ``word_n`` consecutive words (split on single spaces, joined by one space).
Both kinds share one count table with no prefix, a feature weighs its number of
occurrences, and a document with no shingle at all has the single feature "hash of the
whole normalized text". A size <= 0 disables that kind of shingle.

The fingerprint path never builds the count table: Charikar's sum over every window
occurrence equals the weighted sum over distinct features, so window hashes are
computed for all windows at once with numpy (FNV's wrap-around is uint64 arithmetic)
and folded into a ``BitTally`` chunk by chunk, which bounds memory for large documents.
When the compiled engine is in use (``engine``), ``fingerprint`` runs the whole path in
C instead, with the same result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint._mbox_parts import MboxParts
from ditto_tui.core.fingerprint.normalize import normalize_utf8
from ditto_tui.core.fingerprint.simhash import BitTally, Fingerprint

__all__ = ["FNV_OFFSET", "FNV_PRIME", "PIPELINE_VERSION", "Featurizer", "fnv1a64"]

PIPELINE_VERSION = "ditto/2"
"""Identity of the fingerprint pipeline (normalize, shingling, feature hash).

Bump it on any change that would alter a fingerprint, and store it beside every
persisted fingerprint: fingerprints of different versions must never be compared.
"""

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1
_OFFSET64 = np.uint64(FNV_OFFSET)
_PRIME64 = np.uint64(FNV_PRIME)

_CHUNK = 1 << 16  # windows hashed per numpy pass: bounds memory, keeps arrays in cache
_PY_TAIL = 32  # finish span hashing in Python once fewer windows than this are still open


def fnv1a64(data: bytes | memoryview, h: int = FNV_OFFSET) -> int:
    """FNV-1a 64 of ``data``, continuing from state ``h`` (default: a fresh hash)."""
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & _MASK64
    return h


def _byte_window_hashes(buf: np.ndarray, n: int) -> Iterator[np.ndarray]:
    """FNV-1a of every n-byte window of a uint8 array, in chunks (ASCII character shingles)."""
    total = len(buf) - n + 1
    for first in range(0, total, _CHUNK):
        count = min(_CHUNK, total - first)
        wide = buf[first : first + count + n - 1].astype(np.uint64)
        h = wide[:count] ^ _OFFSET64
        h *= _PRIME64
        for j in range(1, n):
            h ^= wide[j : j + count]
            h *= _PRIME64
        yield h


def _code_point_window_hashes(buf: np.ndarray, n: int) -> Iterator[np.ndarray]:
    """FNV-1a of the UTF-8 bytes of every window of n code points of a valid UTF-8 array.

    Byte k of every code point is laid out in its own array, as (byte, FNV prime) when
    the code point has a k-th byte and as (0, 1), the identity step, when it has not;
    a window is then hashed with slices only, whatever its code points' lengths.
    """
    is_start = (buf & 0xC0) != 0x80  # first byte of a code point
    padded = np.append(buf, np.zeros(3, dtype=np.uint8))
    for low in range(0, len(buf), _CHUNK):
        # windows starting in [low, high); n code points take at most 4n more bytes
        high = min(low + _CHUNK, len(buf))
        reach = min(high + 4 * n, len(buf))
        points = np.flatnonzero(is_start[low:reach]) + low
        if reach == len(buf):
            points = np.append(points, len(buf))  # the end closes the last code point
        count = min(int(np.searchsorted(points, high)), len(points) - n)
        if count <= 0:
            continue
        starts = points[: count + n - 1]
        lengths = points[1 : count + n] - starts
        lead = padded[starts].astype(np.uint64)  # every code point has a first byte
        more = []
        for k in range(1, int(lengths.max())):
            has = lengths > k
            byte = np.where(has, padded[starts + k], 0).astype(np.uint64)
            more.append((byte, np.where(has, _PRIME64, np.uint64(1))))
        h = np.full(count, _OFFSET64, dtype=np.uint64)
        for j in range(n):
            h ^= lead[j : j + count]
            h *= _PRIME64
            for byte, prime in more:
                h ^= byte[j : j + count]
                h *= prime[j : j + count]
        yield h


def _span_hashes(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Iterator[np.ndarray]:
    """FNV-1a of ``buf[starts[i]:ends[i]]`` for every i, in chunks (order not preserved).

    Spans are sorted longest first, so the spans still open after k bytes are a prefix
    and every numpy step works on slices; the last few long spans finish in Python.
    """
    for first in range(0, len(starts), _CHUNK):
        lengths = ends[first : first + _CHUNK] - starts[first : first + _CHUNK]
        longest = int(lengths.max())
        key = longest - lengths
        order = np.argsort(key.astype(np.uint16) if longest < 1 << 16 else key, kind="stable")
        cursor = starts[first : first + _CHUNK][order]
        lengths = lengths[order]
        # still_open[k] = number of spans longer than k bytes
        still_open = len(lengths) - np.cumsum(np.bincount(lengths, minlength=longest + 1))
        h = np.full(len(cursor), _OFFSET64, dtype=np.uint64)
        k = 0
        while k < longest and (m := int(still_open[k])) >= _PY_TAIL:
            h[:m] ^= buf[cursor[:m]]
            h[:m] *= _PRIME64
            cursor[:m] += 1
            k += 1
        if k < longest:
            raw = buf.data
            for i in range(int(still_open[k])):
                rest = lengths[i] - k
                h[i] = fnv1a64(raw[cursor[i] : cursor[i] + rest], int(h[i]))
        yield h


def _shingle_hashes(norm: bytes, char_n: int, word_n: int) -> Iterator[np.ndarray]:
    """Hashes of every character and word shingle occurrence of a normalized UTF-8 text."""
    buf = np.frombuffer(norm, dtype=np.uint8)
    if char_n > 0:
        if norm.isascii():
            if len(norm) >= char_n:
                yield from _byte_window_hashes(buf, char_n)
        else:
            yield from _code_point_window_hashes(buf, char_n)
    if word_n > 0:
        spaces = np.flatnonzero(buf == 0x20)
        if len(spaces) + 1 >= word_n:  # strings.Split: k spaces give k + 1 words
            starts = np.concatenate(([0], spaces[: len(spaces) - word_n + 1] + 1))
            ends = np.append(spaces[word_n - 1 :], len(norm))
            yield from _span_hashes(buf, starts, ends)


@dataclass(frozen=True)
class Featurizer:
    """The ditto/2 featurizer: normalize, shingle, hash, sum. Immutable and picklable.

    ``char_n``/``word_n`` are Go's ``CharN``/``WordN``; the defaults (4, 0) are
    ``ditto.Default()``. Fingerprints are comparable only between equal identities.
    """

    char_n: int = 4
    word_n: int = 0
    name: str = "ditto"

    @property
    def identity(self) -> str:
        """Pipeline identity to store beside fingerprints, e.g. ``"ditto/2;char=4;word=0"``."""
        return f"{PIPELINE_VERSION};char={max(self.char_n, 0)};word={max(self.word_n, 0)}"

    def accepts(self, name: str) -> bool:
        """Every file is a document for ditto (no filter on names)."""
        return True

    def accepts_head(self, head: bytes) -> bool:
        """Every file is a document for ditto (never asked: ``accepts`` takes every name)."""
        return True

    def features(self, data: bytes | str) -> dict[int, int]:
        """The weighted features: feature hash -> number of occurrences (never empty).

        A ``str`` is UTF-8 encoded first. Slower than ``fingerprint``; for inspection.
        """
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        norm = normalize_utf8(data)
        chunks = list(_shingle_hashes(norm, self.char_n, self.word_n))
        if not chunks:
            return {fnv1a64(norm): 1}
        hashes, counts = np.unique(np.concatenate(chunks), return_counts=True)
        return dict(zip(hashes.tolist(), counts.tolist(), strict=True))

    def fingerprint(self, data: bytes) -> Fingerprint:
        """The document's fingerprint, bit-identical to Go ``Featurizer{CharN, WordN}.Of``."""
        compiled = engine.ditto()
        if compiled is not None:
            return Fingerprint(compiled.fingerprint(data, self.char_n, self.word_n))
        norm = normalize_utf8(data)
        tally = BitTally()
        for hashes in _shingle_hashes(norm, self.char_n, self.word_n):
            tally.add(hashes)
        if tally.total == 0:
            return Fingerprint(fnv1a64(norm))  # one feature: its bits are the fingerprint
        return tally.fingerprint()

    def fingerprint_spans(
        self, data: bytes, spans: list[tuple[int, int]], threads: int = 1
    ) -> list[int]:
        """Fingerprints of ``data[offset : offset + size]`` for each (offset, size) span
        (the messages of an mbox), as ints; ``threads`` > 1 splits the work between
        threads when the compiled kernel is in use."""
        compiled = engine.ditto()
        if compiled is not None:
            return compiled.fingerprint_spans(data, spans, self.char_n, self.word_n, threads)
        return [int(self.fingerprint(data[off : off + size])) for off, size in spans]

    def mbox_parts(self, data: bytes, threads: int = 1) -> MboxParts | None:
        """The messages of the mbox ``data`` (the spans ``corpus.mail.split_mbox`` gives)
        and their fingerprints, found and fingerprinted by the compiled kernel in up to
        ``threads`` threads; None when the kernel is not in use (split, then
        ``fingerprint_spans``, instead)."""
        compiled = engine.ditto()
        if compiled is None:
            return None
        parts: MboxParts = compiled.mbox_parts(data, self.char_n, self.word_n, threads)
        return parts

    def fingerprint_many(self, docs: Iterable[bytes]) -> np.ndarray:
        """Fingerprints of several documents, in order, as a uint64 array."""
        return np.fromiter((self.fingerprint(d) for d in docs), dtype=np.uint64)
