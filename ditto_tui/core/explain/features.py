"""A document's weighted features with where each one sits: what an explanation is built on.

``document_features(pipeline, data)`` recomputes, independently of the fingerprint code
paths, the features a pipeline sums for a document: every shingle occurrence with its
feature hash and its span in the original bytes (and in the Go-decoded text), the
distinct feature hashes with their weights (occurrence counts), and the per-bit vote
totals ``2 * S_i - W`` of Charikar's sum. The fingerprint rebuilt from those votes must
equal the engine's; the tests check it on every test vector.

- ditto/2: the document is normalized here with a map from each normalized code point
  back to the original (``normalize_with_offsets``), then shingled into character and
  word windows hashed with FNV-1a 64. A bit is 1 iff its vote is > 0.
- html-distance: the x/net tokens (``html_tokenizer.scan_classes``) give features in
  order (``html_features.token_features``), each from one token; a shingle is a window of
  S features, hashed with FNV-1 64, and spans the tokens of its features. A bit is 1
  iff its vote is >= 0; a page without features has the fingerprint ``ffffffffffffffff``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ditto_tui.core.fingerprint.featurize import FNV_OFFSET, FNV_PRIME, Featurizer, fnv1a64
from ditto_tui.core.fingerprint.normalize import go_decode_window, lowercase_table, whitespace
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.html.features import MAX_TOKENS, token_features
from ditto_tui.core.html.structure import HtmlStructure, fnv1_64
from ditto_tui.core.html.tokenizer import scan_classes

__all__ = [
    "DocumentFeatures",
    "Spans",
    "NormalizedText",
    "bit_matrix",
    "document_features",
    "go_code_points",
    "normalize_with_offsets",
    "votes_of",
]

_U64 = np.uint64
_OFFSET = np.uint64(FNV_OFFSET)
_PRIME = np.uint64(FNV_PRIME)
_PY_TAIL = 32  # finish span hashing in Python once fewer spans than this are still open
_VOTE_CHUNK = 1 << 15  # distinct features per vote pass (bounds the bit matrix)


# ------------------------------------------------------------------ decoding and normalizing


def go_code_points(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Go-style UTF-8 decoding: ``(codes, starts)``, uint32 code points and the byte offset
    (int64) where each starts. Invalid bytes give U+FFFD, one byte each (as Go does)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if data.isascii():
        return raw.astype(np.uint32), np.arange(len(raw), dtype=np.int64)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _decode_invalid(raw)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    return codes, np.flatnonzero((raw & 0xC0) != 0x80).astype(np.int64)


def _decode_invalid(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Go decoding of bytes that are not valid UTF-8 (vectorised over byte positions).

    A byte starting a valid shortest-form sequence gives its code point, the sequence's
    continuation bytes give nothing, every other byte gives U+FFFD: no continuation byte
    can start a sequence, so this is what a left-to-right decoder does.
    """
    size = len(raw)
    padded = np.append(raw, np.zeros(3, dtype=np.uint8))
    codes, inside = go_decode_window(padded, 0, size)
    starts = np.flatnonzero(~inside[:size])
    return codes[starts], starts.astype(np.int64)


@cache
def _map_table() -> np.ndarray:
    """uint32 lookup: the ditto/2 lowercase mapping, every whitespace code point -> U+0020."""
    lower, spaces = lowercase_table(), whitespace()
    table = np.arange(max(max(lower), max(spaces)) + 1, dtype=np.uint32)
    table[list(lower)] = list(lower.values())
    table[list(spaces)] = 0x20
    return table


@dataclass(frozen=True)
class NormalizedText:
    """The ditto/2 normalized text with, per normalized code point, where it came from.

    ``utf8`` equals ``normalize_utf8(data)``; ``byte_offsets[i]`` is the offset in
    ``utf8`` where code point i starts (one more entry: the length). Code point i comes
    from ``data[source_start[i]:source_end[i]]``, the ``source_char[i]``-th code point of
    the Go-decoded document (a space left by a tag comes from its closing ``>``).
    """

    utf8: bytes
    byte_offsets: np.ndarray
    source_start: np.ndarray
    source_end: np.ndarray
    source_char: np.ndarray

    def __len__(self) -> int:
        return len(self.source_start)


def normalize_with_offsets(data: bytes) -> NormalizedText:
    """Normalize ``data`` as ditto/2 does (the same bytes as ``normalize_utf8``; the tests
    hold the two equal), keeping the origin of every code point."""
    ascii_data = data.isascii()
    if ascii_data:  # code points are bytes: map them with bytes.translate
        codes: np.ndarray = np.frombuffer(data, dtype=np.uint8)
        starts = np.arange(len(data), dtype=np.int64)
    else:
        codes, starts = go_code_points(data)
    n = len(codes)
    keep: np.ndarray | None = None
    top_close = np.zeros(0, dtype=np.int64)
    if n > 1 and (not ascii_data or b"<" in data):
        # Tags: '<' then an ASCII letter or / ! ? opens (nestable), '>' inside closes.
        lt = np.flatnonzero(codes[:-1] == 0x3C)
        follower = codes[lt + 1]
        lower = follower | 0x20
        letter = (lower >= 0x61) & (lower <= 0x7A)
        opens = lt[letter | (follower == 0x2F) | (follower == 0x21) | (follower == 0x3F)]
        if len(opens):
            closes = np.flatnonzero(codes == 0x3E)
            positions = np.concatenate((opens, closes))
            steps = np.concatenate((np.ones(len(opens), np.int64), np.full(len(closes), -1, np.int64)))
            order = np.argsort(positions, kind="stable")
            positions, steps = positions[order], steps[order]
            running = np.cumsum(steps)
            depth = running - np.minimum(np.minimum.accumulate(running), 0)  # clamped at 0
            before = np.concatenate(([0], depth[:-1]))
            top_open = positions[(steps > 0) & (before == 0)]
            top_close = positions[(steps < 0) & (before == 1)]
            marks = np.zeros(n + 1, dtype=np.int64)
            np.add.at(marks, top_open, 1)
            np.add.at(marks, top_close, -1)
            keep = np.cumsum(marks[:n]) == 0  # a closing '>' is kept: it becomes a space
    if ascii_data:
        mapped = np.frombuffer(data.translate(_ascii_table()), dtype=np.uint8)
    else:
        table = _map_table()
        mapped = np.take(table, codes, mode="clip")
        beyond = codes >= len(table)
        if beyond.any():
            mapped[beyond] = codes[beyond]
    if len(top_close):
        mapped = mapped.copy()
        mapped[top_close] = 0x20
    if keep is not None:
        index = np.flatnonzero(keep)
        mapped = mapped[index]
    else:
        index = starts if ascii_data else np.arange(n, dtype=np.int64)  # all code points kept
    # collapse whitespace: a space is kept only right after a non-space
    space = mapped == 0x20
    solid = ~space
    solid[1:] |= ~space[:-1]
    index = index[solid]
    mapped = mapped[solid]
    if len(mapped) and mapped[-1] == 0x20:  # a run ending the text
        index, mapped = index[:-1], mapped[:-1]
    if not len(mapped) or int(mapped.max()) < 0x80:
        utf8 = mapped.astype(np.uint8).tobytes()
        offsets = np.arange(len(mapped) + 1, dtype=np.int64)
    else:
        utf8 = mapped.astype("<u4").tobytes().decode("utf-32-le").encode("utf-8")
        widths = (1 + (mapped >= 0x80) + (mapped >= 0x800) + (mapped >= 0x10000)).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(widths))).astype(np.int64)
    ends = np.append(starts[1:], len(data)) if n else starts
    return NormalizedText(utf8, offsets, starts[index], ends[index], index.astype(np.int64, copy=False))


@cache
def _ascii_table() -> bytes:
    """bytes.translate table: the ditto/2 mapping of ASCII (A-Z lowered, whitespace -> space)."""
    table = _map_table()
    return bytes(int(table[i]) for i in range(128)) + bytes(range(128, 256))


# ------------------------------------------------------------------ hashing


def _fnv1a_ranges(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """FNV-1a 64 of ``buf[starts[i]:ends[i]]`` for every i, in order (uint64 array).

    Ranges are processed longest first, so those still open after k bytes are a prefix
    and each numpy step works on slices; the last few long ranges finish in Python.
    """
    count = len(starts)
    if count == 0:
        return np.zeros(0, dtype=_U64)
    lengths = ends - starts
    longest = int(lengths.max())
    shortest = int(lengths.min())
    if longest == shortest:
        h = np.full(count, _OFFSET, dtype=_U64)
        for k in range(longest):
            h ^= buf[starts + k]
            h *= _PRIME
        return h
    key = longest - lengths
    order = np.argsort(key.astype(np.uint16) if longest < 1 << 16 else key, kind="stable")
    cursor = starts[order].copy()
    lengths = lengths[order]
    still_open = count - np.cumsum(np.bincount(lengths, minlength=longest + 1))
    h = np.full(count, _OFFSET, dtype=_U64)
    k = 0
    while k < longest and (m := int(still_open[k])) >= _PY_TAIL:
        h[:m] ^= buf[cursor[:m]]
        h[:m] *= _PRIME
        cursor[:m] += 1
        k += 1
    if k < longest:
        raw = buf.tobytes()
        for i in range(int(still_open[k])):
            rest = int(lengths[i]) - k
            h[i] = fnv1a64(raw[int(cursor[i]) : int(cursor[i]) + rest], int(h[i]))
    out = np.empty(count, dtype=_U64)
    out[order] = h
    return out


# ------------------------------------------------------------------ votes


def bit_matrix(hashes: np.ndarray) -> np.ndarray:
    """(n, 64) uint8 matrix: column i holds bit i (0 = least significant) of each hash."""
    as_bytes = np.ascontiguousarray(hashes, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")


def votes_of(hashes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Charikar's per-bit vote totals ``2 * S_i - W`` (int64[64]) of weighted hashes."""
    total = int(weights.sum())
    # float sums are exact below 2**24 (float32) and 2**53 (float64), and BLAS is fast
    dtype = np.float32 if total < 1 << 24 else np.float64
    ones = np.zeros(64, dtype=np.int64)
    for low in range(0, len(hashes), _VOTE_CHUNK):
        chunk: np.ndarray = bit_matrix(hashes[low : low + _VOTE_CHUNK]).astype(dtype)
        part: np.ndarray = weights[low : low + _VOTE_CHUNK].astype(dtype)
        ones += np.matmul(part, chunk).astype(np.int64)
    return 2 * ones - total


def _pack(bits: np.ndarray) -> Fingerprint:
    return Fingerprint(int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little"))


# ------------------------------------------------------------------ the features of one document


class Spans:
    """Where feature occurrences sit: ``byte_start/byte_end`` in the original bytes and
    ``char_start/char_end`` in the Go-decoded text (int64 arrays, half-open ranges)."""

    __slots__ = ("byte_end", "byte_start", "char_end", "char_start")

    def __init__(self, byte_start: np.ndarray, byte_end: np.ndarray, char_start: np.ndarray,
                 char_end: np.ndarray) -> None:
        self.byte_start, self.byte_end = byte_start, byte_end
        self.char_start, self.char_end = char_start, char_end


class _TextPlaces:
    """Occurrences of ditto shingles: code point ranges of the normalized text."""

    def __init__(self, norm: NormalizedText, cp_start: np.ndarray, cp_end: np.ndarray) -> None:
        self.norm, self.cp_start, self.cp_end = norm, cp_start, cp_end

    def spans(self, occ: np.ndarray) -> Spans:
        s, e = self.cp_start[occ], self.cp_end[occ] - 1
        n = self.norm
        return Spans(n.source_start[s], n.source_end[e], n.source_char[s], n.source_char[e] + 1)

    def text(self, occ: int) -> str:
        offsets = self.norm.byte_offsets
        first, last = int(self.cp_start[occ]), int(self.cp_end[occ])
        return self.norm.utf8[int(offsets[first]) : int(offsets[last])].decode("utf-8", "replace")


class _WholeText:
    """The fallback feature of a document without shingles: the whole text."""

    def __init__(self, norm: bytes, size: int, chars: int) -> None:
        self.norm, self.size, self.chars = norm, size, chars

    def spans(self, occ: np.ndarray) -> Spans:
        zeros = np.zeros(len(occ), np.int64)
        return Spans(zeros, zeros + self.size, zeros, zeros + self.chars)

    def text(self, occ: int) -> str:
        return self.norm.decode("utf-8", "replace")


class _TokenPlaces:
    """Occurrences of html shingles: the token ranges their features come from."""

    def __init__(self, spans: Spans, shingles: list[bytes]) -> None:
        self.all, self.shingles = spans, shingles

    def spans(self, occ: np.ndarray) -> Spans:
        a = self.all
        return Spans(a.byte_start[occ], a.byte_end[occ], a.char_start[occ], a.char_end[occ])

    def text(self, occ: int) -> str:
        return self.shingles[occ].decode("utf-8", "replace")


@dataclass(frozen=True)
class DocumentFeatures:
    """Every feature occurrence of one document under one pipeline, and their sum.

    Occurrence j (document order) has feature hash ``occ_hash[j]``; ``spans(js)`` says
    where occurrences ``js`` sit and ``text(j)`` gives occurrence j's shingle as text.
    ``hashes`` are the distinct feature hashes (sorted) and ``weights`` their occurrence
    counts; ``votes[i] = 2 * S_i - W``. ``fingerprint`` is rebuilt from ``votes`` alone
    (for ditto bit i is ``votes[i] > 0``, for html ``votes[i] >= 0``; special cases as
    the pipelines have them).
    """

    pipeline: str
    occ_hash: np.ndarray
    hashes: np.ndarray
    weights: np.ndarray
    votes: np.ndarray
    fingerprint: Fingerprint
    _places: _TextPlaces | _WholeText | _TokenPlaces

    @property
    def total(self) -> int:
        """W: the total weight (number of feature occurrences summed)."""
        return int(self.weights.sum())

    @property
    def strength(self) -> np.ndarray:
        """Per-bit vote over its spread, ``votes / sqrt(sum w**2)`` (float64[64]): about
        standard normal for random feature hashes, so |strength| < 0.25 is a close vote."""
        spread = float(np.sqrt(np.sum(self.weights.astype(np.float64) ** 2)))
        return self.votes / spread if spread else np.zeros(64)

    def spans(self, occurrences: np.ndarray) -> Spans:
        """Where the occurrences ``occurrences`` (indices into ``occ_hash``) sit."""
        return self._places.spans(np.asarray(occurrences, dtype=np.int64))

    def text(self, occurrence: int) -> str:
        """The shingle of occurrence ``occurrence`` as readable text."""
        return self._places.text(occurrence)


def document_features(pipeline: object, data: bytes) -> DocumentFeatures:
    """The features of ``data`` under ``pipeline`` (a ``Featurizer`` or ``HtmlStructure``).

    Raises ``TypeError`` for any other pipeline.
    """
    if isinstance(pipeline, Featurizer):
        return _ditto_features(pipeline, bytes(data))
    if isinstance(pipeline, HtmlStructure):
        return _html_features(pipeline, bytes(data))
    raise TypeError(f"cannot explain pipeline {type(pipeline).__name__}")


def _summed(
    pipeline: str, occ: np.ndarray, places: _TextPlaces | _WholeText | _TokenPlaces, ties_are_ones: bool
) -> DocumentFeatures:
    hashes, weights = np.unique(occ, return_counts=True)
    weights = weights.astype(np.int64)
    votes = votes_of(hashes, weights)
    fp = _pack(votes >= 0 if ties_are_ones else votes > 0)
    return DocumentFeatures(pipeline, occ, hashes, weights, votes, fp, places)


def _ditto_features(featurizer: Featurizer, data: bytes) -> DocumentFeatures:
    norm = normalize_with_offsets(data)
    utf8, offsets = norm.utf8, norm.byte_offsets
    buf = np.frombuffer(utf8 + b"\0\0\0\0", dtype=np.uint8)
    r = len(norm)
    ascii_text = len(utf8) == r
    cp_starts: list[np.ndarray] = []
    cp_ends: list[np.ndarray] = []
    hashed: list[np.ndarray] = []
    char_n, word_n = featurizer.char_n, featurizer.word_n
    if char_n > 0 and r >= char_n:
        first = np.arange(r - char_n + 1, dtype=np.int64)
        cp_starts.append(first)
        cp_ends.append(first + char_n)
        if ascii_text:  # windows of bytes: hashed with slices
            count = len(first)
            wide = buf[: count + char_n - 1].astype(_U64)
            h = wide[:count] ^ _OFFSET
            h *= _PRIME
            for j in range(1, char_n):
                h ^= wide[j : j + count]
                h *= _PRIME
            hashed.append(h)
        else:
            hashed.append(_fnv1a_ranges(buf, offsets[first], offsets[first + char_n]))
    if word_n > 0 and r:
        space_cp = np.searchsorted(offsets, np.flatnonzero(buf[: len(utf8)] == 0x20))
        if len(space_cp) + 1 >= word_n:
            ws = np.concatenate(([0], space_cp[: len(space_cp) - word_n + 1] + 1)).astype(np.int64)
            we = np.append(space_cp[word_n - 1 :], r).astype(np.int64)
            cp_starts.append(ws)
            cp_ends.append(we)
            hashed.append(_fnv1a_ranges(buf, offsets[ws], offsets[we]))
    if not cp_starts:  # the fallback feature: the whole normalized text
        occ = np.array([fnv1a64(utf8)], dtype=_U64)
        whole = _WholeText(utf8, len(data), len(go_code_points(data)[0]))
        return _summed(featurizer.identity, occ, whole, False)
    starts = np.concatenate(cp_starts)
    ends = np.concatenate(cp_ends)
    occ = np.concatenate(hashed)
    return _summed(featurizer.identity, occ, _TextPlaces(norm, starts, ends), False)


def _html_features(html: HtmlStructure, data: bytes) -> DocumentFeatures:
    classes, table, token_ends = scan_classes(data, MAX_TOKENS, spans=True)
    per_class = [token_features(info) for info in table]
    features: list[bytes] = []
    token_of: list[int] = []
    for t, c in enumerate(classes):
        feats = per_class[c]
        features.extend(feats)
        token_of.extend([t] * len(feats))
    s = html.shingle
    padded = [b""] * (s - 1) + features
    shingles = [b" ".join(padded[i : i + s]) for i in range(len(features))]
    memo: dict[bytes, int] = {}
    hashes = [memo[x] if x in memo else memo.setdefault(x, fnv1_64(x)) for x in shingles]
    occ = np.array(hashes, dtype=_U64)
    if len(occ) and not occ.all():  # Go stops summing at the first shingle hashing to 0
        cut = int(np.flatnonzero(occ == 0)[0])
        occ, shingles, token_of = occ[:cut], shingles[:cut], token_of[:cut]
    tokens = np.array(token_of, dtype=np.int64)
    tok_end = np.array(token_ends, dtype=np.int64)
    tok_start = np.concatenate(([0], tok_end[:-1])) if len(tok_end) else tok_end
    first_token = tokens[np.maximum(np.arange(len(tokens)) - (s - 1), 0)] if len(tokens) else tokens
    byte_start, byte_end = tok_start[first_token], tok_end[tokens]
    char_starts = go_code_points(data)[1]
    places = _TokenPlaces(
        Spans(byte_start, byte_end, np.searchsorted(char_starts, byte_start),
              np.searchsorted(char_starts, byte_end)),
        shingles,
    )
    if not len(occ):  # no features: Go gives all ones
        empty = np.zeros(0, dtype=_U64)
        return DocumentFeatures(html.identity, occ, empty, np.zeros(0, np.int64),
                                np.zeros(64, np.int64), Fingerprint(0xFFFFFFFFFFFFFFFF), places)
    return _summed(html.identity, occ, places, True)
